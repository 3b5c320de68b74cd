// herd::protocol::WsUrl — where a client (herd-ctl, herd-view, a relay) finds a server's
// WebSocket endpoint: ws://HOST[:PORT][/PATH] or wss://..., parsed by Boost.URL (RFC 3986) with
// herd's defaults: port 80 (443 for wss) and path /ws. HOST is a name, an IPv4 address or a
// bracketed IPv6 address ([::1]). herd-server itself listens in plain ws; a wss:// endpoint is a
// TLS proxy in front of it, which herd-ctl and herd-view can reach.
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
  bool tls = false;          // wss://

  // ws://HOST:PORT/PATH (or wss://), brackets back around an IPv6 host.
  std::string text() const;
  // The Host header's value, HOST:PORT.
  std::string authority() const;
};

// The URL, or why the text is not one (a sentence naming the part at fault).
std::variant<WsUrl, std::string> parse_ws_url(std::string_view text);

}  // namespace herd::protocol
