// A small blocking HTTP/1.1 client over POSIX sockets, for the app's few requests to local
// services: the server's own /healthz (--probe) and the Agones SDK sidecar. No Beast here: this
// file compiles in a second and the requests are tiny.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace herd::app {

struct HttpResult {
  int status = 0;    // the status code; 0 when no answer came
  std::string line;  // the status line ("HTTP/1.1 200 OK"), or what went wrong
  bool ok() const { return status >= 200 && status < 300; }
};

// One request with `Connection: close` (a JSON body when `body` is not empty), giving up after
// `timeout` in all. A wildcard host (0.0.0.0, ::) is asked on loopback.
HttpResult http_request(const std::string& host, std::uint16_t port, std::string_view method,
                        std::string_view path, std::string_view body,
                        std::chrono::milliseconds timeout);

}  // namespace herd::app
