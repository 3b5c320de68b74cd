#include "net/http_session.hpp"

#include <unistd.h>

#include <boost/beast/websocket.hpp>
#include <string>

#include "net/http_files.hpp"
#include "net/limits.hpp"
#include "net/websocket_session.hpp"

namespace herd::net {
namespace {

constexpr auto kHttpTimeout = std::chrono::seconds(30);  // a connection's first request

// The machine's host name, one of the names the server answers to.
const std::string& machine_name() {
  static const std::string name = [] {
    char buf[256] = {};
    return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
  }();
  return name;
}

}  // namespace

void answer_busy(tcp::socket& socket, Refusal why) {
  boost::system::error_code ec;
  // Best effort and never blocking: the answer fits in an empty socket's send buffer.
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: herd\r\nRetry-After: 1\r\nConnection: close\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 43\r\n\r\ntoo many connections "
      "to this server; retry\n";
  static constexpr std::string_view kBusyHere =
      "HTTP/1.1 503 Service Unavailable\r\nServer: herd\r\nRetry-After: 1\r\nConnection: close\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 45\r\n\r\ntoo many connections "
      "from this address; retry\n";
  const std::string_view text = why == Refusal::connections_per_address ? kBusyHere : kBusy;
  socket.non_blocking(true, ec);
  socket.write_some(asio::buffer(text.data(), text.size()), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

bool is_health_path(std::string_view path) { return path == "/healthz" || path == "/readyz"; }

template <class Body>
void HttpSession::head_fields(http::response<Body>& res,
                              const http::request<http::string_body>& req,
                              std::string_view type) const {
  res.set(http::field::server, kServerName);
  res.set(http::field::content_type, type);
  res.set(http::field::cache_control, "no-cache");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive(req));
}

template <class Body>
void HttpSession::write(http::response<Body> res) {
  auto shared = std::make_shared<http::response<Body>>(std::move(res));
  http::async_write(stream_, *shared,
                    [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                      if (ec || !shared->keep_alive()) return self->close();
                      self->do_read();
                    });
}

HttpSession::HttpSession(tcp::socket&& socket, SessionHub hub, Shard& shard, ConnectionSlot slot)
    : stream_(std::move(socket)),
      hub_(hub),
      config_(hub_.config()),
      shard_(shard),
      slot_(std::move(slot)) {
  hub_.http_created();
}

HttpSession::HttpSession(tcp::socket&& socket, SessionHub hub, Shard& shard, Refusal refused)
    : stream_(std::move(socket)),
      hub_(hub),
      config_(hub_.config()),
      shard_(shard),
      refused_(refused) {}

HttpSession::~HttpSession() {
  shard_.remove_http(this);
  if (!refused_) hub_.http_destroyed();
}

bool HttpSession::waiting() const { return refused_ && parser_ && !parser_->got_some(); }

void HttpSession::evict() {
  if (refused_timer_) refused_timer_->cancel();
  if (refused_ && stream_.socket().is_open()) answer_busy(stream_.socket(), *refused_);
  close();
}

void HttpSession::run() {
  shard_.add(this, weak_from_this());
  do_read();
}

void HttpSession::close() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
}

void HttpSession::do_read() {
  parser_.emplace();
  parser_->header_limit(8 * 1024);
  parser_->body_limit(4 * 1024);
  // The first request may take kHttpTimeout to arrive; a kept-alive connection waits
  // http_idle_timeout for its next one, then is closed.
  if (refused_) {
    // Its own timer, not the stream's timeout (which would close the socket before the 503).
    stream_.expires_never();
    refused_timer_.emplace(stream_.get_executor());
    refused_timer_->expires_after(kRefusedTimeout);
    refused_timer_->async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->evict();
    });
  } else {
    stream_.expires_after(requests_ == 0 ? Clock::duration(kHttpTimeout)
                                         : seconds(config_.http_idle_timeout));
  }
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void HttpSession::on_read(beast::error_code ec) {
  if (ec) return close();  // end of stream, timeout, or a malformed request
  ++requests_;
  http::request<http::string_body> req = parser_->release();
  if (refused_) {  // over a cap: a health check is answered, anything else is told to retry
    const std::string_view target(req.target().data(), req.target().size());
    const bool health = (req.method() == http::verb::get || req.method() == http::verb::head) &&
                        is_health_path(target.substr(0, target.find('?')));
    if (!health) return evict();
    refused_timer_->cancel();
    Health h = hub_.health();
    auto res =
        make(req, static_cast<http::status>(h.status), "application/json", std::move(h.body));
    res.keep_alive(false);
    return write(std::move(res));
  }
  if (auto refused = rate_refused(req)) return write(std::move(*refused));
  // A Transfer-Encoding other than chunked would leave the body's end to whoever reads it next
  // (request smuggling behind a proxy): refused, as RFC 9112 6.3 asks, and the connection closed.
  if (req.find(http::field::transfer_encoding) != req.end() && !req.chunked()) {
    auto res = plain(req, http::status::bad_request, "Transfer-Encoding must be chunked\n");
    res.keep_alive(false);
    return write(std::move(res));
  }
  const auto host = req.find(http::field::host);
  const bool has_host = host != req.end();
  const std::string_view host_value =
      has_host ? std::string_view(host->value()) : std::string_view();
  // Health answers any name: probes may use the pod's service name and it tells nothing.
  const std::string_view target(req.target().data(), req.target().size());
  const bool upgrade = websocket::is_upgrade(req) && req.target() == "/ws";
  if (!is_health_path(target.substr(0, target.find('?'))) &&
      !host_allowed(config_.allowed_hosts, host_value, has_host, machine_name())) {
    if (upgrade)
      if (auto refused = rate_refused(req, true)) return write(std::move(*refused));
    hub_.refused(Refusal::host, peer());
    auto res = plain(req, http::status::forbidden,
                     "this Host is not one of the server's names (herd-server --allowed-hosts)\n");
    res.keep_alive(false);
    return write(std::move(res));
  }
  if (upgrade) {
    const auto origin = req.find(http::field::origin);
    const bool has_origin = origin != req.end();
    if (!origin_allowed(config_.allowed_origins,
                        has_origin ? std::string_view(origin->value()) : std::string_view(),
                        has_origin, host_value)) {
      if (auto refused = rate_refused(req, true)) return write(std::move(*refused));
      hub_.refused(Refusal::origin, peer());
      auto res =
          plain(req, http::status::forbidden,
                "this Origin may not open a WebSocket here (herd-server --allowed-origins)\n");
      res.keep_alive(false);
      return write(std::move(res));
    }
    if (!valid_websocket_key(req[http::field::sec_websocket_key])) {
      if (auto refused = rate_refused(req, true)) return write(std::move(*refused));
      hub_.refused(Refusal::bad_handshake, peer());
      auto res = plain(
          req, http::status::bad_request,
          "Sec-WebSocket-Key must be a 16-byte nonce in base64 (24 characters, RFC 6455 4.1)\n");
      res.keep_alive(false);
      return write(std::move(res));
    }
    stream_.expires_never();
    std::make_shared<WsSession>(stream_.release_socket(), hub_, shard_, std::move(slot_))
        ->run(std::move(req));
    return;
  }
  respond(req);
}

bool HttpSession::keep_alive(const http::request<http::string_body>& req) const {
  return req.keep_alive() && hub_.http_sessions() <= config_.max_http_keepalive;
}

http::response<http::string_body> HttpSession::make(const http::request<http::string_body>& req,
                                                    http::status status, std::string_view type,
                                                    std::string body) const {
  http::response<http::string_body> res{status, req.version()};
  head_fields(res, req, type);
  const std::size_t length = body.size();
  if (req.method() != http::verb::head) res.body() = std::move(body);
  res.prepare_payload();
  if (req.method() == http::verb::head) res.content_length(length);  // HEAD: headers of GET
  return res;
}

http::response<http::string_body> HttpSession::plain(const http::request<http::string_body>& req,
                                                     http::status status, std::string body) const {
  return make(req, status, "text/plain; charset=utf-8", std::move(body));
}

std::optional<http::response<http::string_body>> HttpSession::rate_refused(
    const http::request<http::string_body>& req, bool refused_upgrade) {
  // Not counted: a WebSocket upgrade that opens a session, as sessions have caps of their own per
  // address (and a load test opens a thousand from one machine); one refused (a Host, an Origin,
  // a key) is counted as the request it is (`refused_upgrade`), else a flood of them would cost
  // the server a 403 each without limit; and a health check, because the one address an
  // orchestrator probes from may be every client's (Docker's health check and a TLS proxy both on
  // loopback), where counting it would let a flood of page requests fail the probe and get the
  // server restarted. Letting health through costs nothing a flood could use: its answer is a
  // tick read from atomics, no file and no lock, no dearer than the 429 that would replace it.
  const std::string_view target(req.target().data(), req.target().size());
  const bool health = (req.method() == http::verb::get || req.method() == http::verb::head) &&
                      is_health_path(target.substr(0, target.find('?')));
  if (health || (websocket::is_upgrade(req) && req.target() == "/ws" && !refused_upgrade))
    return std::nullopt;
  const double now = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  const auto wait = hub_.admit_request(ip_of(stream_.socket()), now);
  if (!wait) return std::nullopt;
  hub_.refused(Refusal::http_rate_limited, peer());
  const std::string seconds = std::to_string(*wait);
  auto res = plain(
      req, http::status::too_many_requests,
      "too many requests from this address (http_rate_limited); retry in " + seconds + " s\n");
  res.set(http::field::retry_after, seconds);
  // Closed: a client that sent more requests down this connection gets no answer to them.
  res.keep_alive(false);
  return res;
}

std::optional<http::response<http::string_body>> HttpSession::metrics_refused(
    const http::request<http::string_body>& req, std::string_view target) {
  const std::string& secret = config_.command_token;
  if (secret.empty()) return std::nullopt;  // open commands (or a relay): open metrics
  std::string token;
  const auto auth = req.find(http::field::authorization);
  const std::string_view bearer = "Bearer ";
  if (auth != req.end() && auth->value().substr(0, bearer.size()) == bearer) {
    token = std::string(auth->value().substr(bearer.size()));
  } else if (const auto q = target.find('?'); q != std::string_view::npos) {
    // ?token=..., for scrapers that cannot set a header; the token is hex, unescaped
    std::string_view query = target.substr(q + 1);
    while (!query.empty()) {
      const std::string_view pair = query.substr(0, query.find('&'));
      if (pair.substr(0, 6) == "token=") token = std::string(pair.substr(6));
      query.remove_prefix(std::min(query.size(), pair.size() + 1));
    }
  }
  const std::string ip = ip_of(stream_.socket());
  const double now = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  if (token.empty()) {
    auto res = plain(req, http::status::unauthorized,
                     "/metrics needs the command token: Authorization: Bearer TOKEN or "
                     "?token=TOKEN\n");
    res.set(http::field::www_authenticate, "Bearer realm=\"herd\"");
    return res;
  }
  // A right token is always served (Gate::hello says why); a wrong one past the address's budget
  // is answered 429, uncounted.
  if (constant_time_equal(token, secret)) return std::nullopt;
  if (!hub_.may_try_token(ip, now)) {
    hub_.refused(Refusal::token_throttled, peer());
    auto res = plain(req, http::status::too_many_requests,
                     "too many wrong command tokens from this address; retry in a second\n");
    res.set(http::field::retry_after, "1");
    return res;
  }
  hub_.refused(Refusal::bad_token, peer());
  hub_.token_failed(ip, now);
  auto res = plain(req, http::status::unauthorized, "wrong command token\n");
  res.set(http::field::www_authenticate, "Bearer realm=\"herd\", error=\"invalid_token\"");
  return res;
}

void HttpSession::respond(const http::request<http::string_body>& req) {
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    auto res = plain(req, http::status::method_not_allowed, "only GET and HEAD\n");
    res.set(http::field::allow, "GET, HEAD");
    return write(std::move(res));
  }
  const std::string_view target(req.target().data(), req.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  if (is_health_path(path)) {
    Health health = hub_.health();
    return write(make(req, static_cast<http::status>(health.status), "application/json",
                      std::move(health.body)));
  }
  if (path == "/metrics") {
    if (auto refused = metrics_refused(req, target)) return write(std::move(*refused));
    return write(make(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                      hub_.metrics_text()));
  }
  if (path == "/ws")
    return write(plain(req, http::status::upgrade_required, "WebSocket upgrade required\n"));
  FileResponse file = serve_file(target, config_.web_root);
  if (file.status != 200)
    return write(
        make(req, static_cast<http::status>(file.status), file.content_type, std::move(file.body)));
  // Streamed from disk a buffer at a time (Beast's file_body): a slow reader of a large file
  // holds a file descriptor and a buffer, not the file.
  http::file_body::value_type body;
  beast::error_code open_ec;
  body.open(file.path.c_str(), beast::file_mode::scan, open_ec);
  if (open_ec) return write(plain(req, http::status::not_found, "not found\n"));
  const std::uint64_t size = body.size();
  if (req.method() == http::verb::head) {
    http::response<http::empty_body> res{http::status::ok, req.version()};
    head_fields(res, req, file.content_type);
    res.content_length(size);
    return write(std::move(res));
  }
  http::response<http::file_body> res{std::piecewise_construct, std::make_tuple(std::move(body)),
                                      std::make_tuple(http::status::ok, req.version())};
  head_fields(res, req, file.content_type);
  res.content_length(size);
  write(std::move(res));
}

}  // namespace herd::net
