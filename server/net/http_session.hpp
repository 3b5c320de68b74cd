// herd::net::HttpSession — one HTTP connection: the viewer's files (streamed with Beast's
// file_body), /healthz, /metrics, and the upgrade of /ws to a WebSocket session (Origin and the
// handshake's key checked first). Keep-alive within max_http_keepalive; timeouts on every read;
// requests within their address's rate (http_requests_per_second).
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/admission.hpp"
#include "net/io.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"

namespace herd::net {

namespace beast = boost::beast;
namespace http = beast::http;

// A connection over a cap at once: 503 with Retry-After: 1 (best effort, never blocking), closed.
void answer_busy(tcp::socket& socket, Refusal why);

// The paths a health check asks; answered whatever the connection caps (see the refused mode).
bool is_health_path(std::string_view path);

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // An admitted connection, counted against its address's cap until its last session ends.
  HttpSession(tcp::socket&& socket, SessionHub hub, Shard& shard, ConnectionSlot slot);
  // A connection over a cap (`refused`), kept so that a health check behind a full house is still
  // answered: it reads one request within kRefusedTimeout; /healthz and /readyz get their
  // answer, anything else 503 with Retry-After: 1; then it is closed. Not counted against the
  // caps: each shard keeps a few (Shard::kHealthDesk) and evicts the oldest that has sent nothing.
  HttpSession(tcp::socket&& socket, SessionHub hub, Shard& shard, Refusal refused);
  ~HttpSession();

  static constexpr auto kRefusedTimeout = std::chrono::seconds(1);

  void run();

  void close();

  // A refused connection that has sent nothing yet (an idle socket, not a health check).
  bool waiting() const;
  // Makes room: answers a refused connection 503 and closes it.
  void evict();

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

  // Any request but a WebSocket upgrade or a health check, against its address's request rate
  // (RequestRate): over it, 429 with Retry-After, and the connection closed. A WebSocket upgrade
  // that is refused (`refused_upgrade`: its Host, Origin or key) is counted too.
  std::optional<http::response<http::string_body>> rate_refused(
      const http::request<http::string_body>& req, bool refused_upgrade = false);

  // /metrics on a server with a command token: served only with it (Authorization: Bearer, or
  // ?token=); else 401, or 429 from an address over its wrong-token budget (as hellos are).
  std::optional<http::response<http::string_body>> metrics_refused(
      const http::request<http::string_body>& req, std::string_view target);

  template <class Body>
  void write(http::response<Body> res);

  beast::tcp_stream stream_;
  SessionHub hub_;
  const ServerConfig& config_;  // the server's settings at start
  Shard& shard_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::uint64_t requests_ = 0;  // read on this connection so far
  ConnectionSlot slot_;         // handed to the WebSocket session on an upgrade
  std::optional<Refusal> refused_;
  std::optional<asio::steady_timer> refused_timer_;  // a refused connection's time to ask
};

}  // namespace herd::net
