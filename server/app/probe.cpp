#include "app/probe.hpp"

#include "app/http_client.hpp"

namespace herd::app {

ProbeResult probe_health(const std::string& address, std::uint16_t port,
                         std::chrono::milliseconds timeout) {
  const HttpResult r = http_request(address, port, "GET", "/healthz", {}, timeout);
  return {r.status == 200, r.line};
}

}  // namespace herd::app
