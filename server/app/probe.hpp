// herd-server --probe: asks a running server for /healthz over plain HTTP and says whether it is
// healthy. A container's health check runs the server's own binary this way, so the runtime image
// needs no HTTP client of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace herd::app {

struct ProbeResult {
  bool healthy = false;  // the server answered /healthz with 200
  std::string detail;    // the status line, or what went wrong
};

// GET /healthz from `address`:`port` (a wildcard address, 0.0.0.0 or ::, is asked on loopback),
// giving up after `timeout` in all.
ProbeResult probe_health(const std::string& address, std::uint16_t port,
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));

}  // namespace herd::app
