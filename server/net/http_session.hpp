// herd::net::HttpSession — one HTTP connection: the viewer's files (streamed with Beast's
// file_body), /healthz, /metrics, and the upgrade of /ws to a WebSocket session (Origin and the
// handshake's key checked first). Keep-alive within max_http_keepalive; timeouts on every read.
#pragma once

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/io.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"

namespace herd::net {

namespace beast = boost::beast;
namespace http = beast::http;

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, SessionHub hub, Shard& shard);
  ~HttpSession();

  void run();

  void close();

 private:
  void do_read();

  void on_read(beast::error_code ec);

  std::string peer() { return peer_of(stream_.socket()); }

  // Kept open for another request only while the server holds at most max_http_keepalive HTTP
  // connections; beyond that each answer says Connection: close.
  bool keep_alive(const http::request<http::string_body>& req) const;

  template <class Body>
  void head_fields(http::response<Body>& res, const http::request<http::string_body>& req,
                   std::string_view type) const;

  http::response<http::string_body> make(const http::request<http::string_body>& req,
                                         http::status status, std::string_view type,
                                         std::string body) const;

  http::response<http::string_body> plain(const http::request<http::string_body>& req,
                                          http::status status, std::string body) const;

  void respond(const http::request<http::string_body>& req);

  template <class Body>
  void write(http::response<Body> res);

  beast::tcp_stream stream_;
  SessionHub hub_;
  const ServerConfig& config_;  // the server's settings at start
  Shard& shard_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::uint64_t requests_ = 0;  // read on this connection so far
};

}  // namespace herd::net
