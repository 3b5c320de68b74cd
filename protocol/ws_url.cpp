#include "protocol/ws_url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>

namespace herd::protocol {

std::string WsUrl::authority() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

std::string WsUrl::text() const { return (tls ? "wss://" : "ws://") + authority() + path; }

std::variant<WsUrl, std::string> parse_ws_url(std::string_view text) {
  const auto parsed = boost::urls::parse_uri(text);
  if (!parsed) return "not a URL (" + parsed.error().message() + ")";
  const boost::urls::url_view& u = *parsed;
  if (u.scheme() != "ws" && u.scheme() != "wss") {
    std::string why = "the scheme must be ws:// or wss://, not ";  // appended: GCC 12's false
                                                                   // -Wrestrict on operator+
    why += u.scheme();
    why += "://";
    return why;
  }
  if (!u.has_authority() || u.host().empty()) return "no host";
  if (u.has_userinfo()) return "a user name or password has no place in a WebSocket URL";
  if (u.has_fragment()) return "a fragment (#...) has no place in a WebSocket URL";
  WsUrl out;
  if (u.scheme() == "wss") {
    out.tls = true;
    out.port = 443;
  }
  switch (u.host_type()) {
    case boost::urls::host_type::ipv6:
      out.host = u.host_address();
      break;
    case boost::urls::host_type::ipvfuture:
      return "the host must be a name, an IPv4 or an IPv6 address";
    default:
      out.host = u.encoded_host().decode();
      break;
  }
  if (u.has_port()) {
    if (u.port().empty()) return "an empty port after ':'";
    // Read here: port_number() keeps the low 16 bits of a larger number (99999 is 34463).
    const std::string_view digits = u.port();
    unsigned long port = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535)
      return "the port must be a number in [1, 65535], not " + std::string(digits);
    out.port = static_cast<std::uint16_t>(port);
  }
  // Boost.URL 1.81 reads ws://herd:80x/ws as port 80 and path x/ws: a path after an authority
  // starts with '/', so what follows the digits is the port's.
  if (!u.encoded_path().empty() && u.encoded_path().front() != '/')
    return u.has_port() ? "the port must be a number in [1, 65535]" : "the path must start with /";
  if (!u.encoded_path().empty() || u.has_query()) {
    out.path = u.encoded_path().empty() ? "/" : std::string(u.encoded_path());
    if (u.has_query()) out.path += "?" + std::string(u.encoded_query());
  }
  return out;
}

}  // namespace herd::protocol
