// herd::protocol::WsUrl — where a client (herd-ctl, herd-view, a relay) finds a server's
// WebSocket endpoint: ws://HOST[:PORT][/PATH], parsed by Boost.URL (RFC 3986) with herd's
// defaults, port 80 and path /ws. HOST is a name, an IPv4 address or a bracketed IPv6 address
// ([::1]). Only plain ws: herd speaks no TLS itself (a wss:// endpoint is a TLS proxy's job).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace herd::protocol {

struct WsUrl {
  std::string host;  // without brackets: "::1"
  std::uint16_t port = 80;
  std::string path = "/ws";  // the request target: path and query, as written

  // ws://HOST:PORT/PATH, brackets back around an IPv6 host.
  std::string text() const;
  // The Host header's value, HOST:PORT.
  std::string authority() const;
};

// The URL, or why the text is not one (a sentence naming the part at fault).
std::variant<WsUrl, std::string> parse_ws_url(std::string_view text);

}  // namespace herd::protocol
