// The Beast translation unit: listener, HTTP sessions, WebSocket sessions, the I/O threads
// (shards), and starting and stopping the server. Shaped after Boost.Beast's advanced-server and
// chat-multi examples: sessions are shared_ptr-owned by their pending operations, the hub holds
// weak_ptrs for broadcast, and each WebSocket session has two outbound lanes (outbound.hpp) so a
// slow reader costs a bounded amount of memory. The hub (the world, the tick loop, commands,
// broadcast) is in hub.cpp; hub.hpp says which thread does what.
#include "net/server.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cmath>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <sys/resource.h>

#include "net/http_files.hpp"
#include "net/hub.hpp"
#include "net/relay.hpp"
#include "protocol/codec.hpp"

namespace herd::net {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

constexpr auto kHttpTimeout = std::chrono::seconds(30);  // a connection's first request
constexpr auto kAcceptPauseMin = std::chrono::milliseconds(10);
constexpr auto kAcceptPauseMax = std::chrono::milliseconds(1000);
constexpr auto kAcceptLogPeriod = std::chrono::seconds(10);
constexpr std::size_t kReservedDescriptors = 64;  // for files, timers and the like, not connections
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kStopGrace = std::chrono::milliseconds(1500);
constexpr auto kCloseGrace = std::chrono::seconds(5);     // a close not delivered by then: drop
constexpr auto kSweepPeriod = std::chrono::milliseconds(250);  // slow-consumer and close checks

// "address:port" of the socket's peer for logs and refusals, "?" when it is already gone.
std::string peer_of(const tcp::socket& socket) {
  beast::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string("?") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Seconds on the steady clock, for the token buckets.
double now_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

}  // namespace

// ---- WebSocket session ------------------------------------------------------------------------

class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(tcp::socket&& socket, Server::Impl& hub, Shard& shard)
      : ws_(std::move(socket)),
        hub_(hub),
        config_(hub.config_at_start),
        shard_(shard),
        id_(hub.next_session_id++),
        bucket_(config_.rate_limit, config_.rate_burst, now_seconds()),
        overflow_(config_.rate_limit, config_.rate_burst, now_seconds()) {
    ++hub_.ws_alive;
    beast::error_code ec;
    // Snapshots are small frames that must go at once: without TCP_NODELAY, Nagle's algorithm
    // holds a frame until the previous one is acknowledged, and a client that sends acks back
    // (binary snapshots) meets delayed ACKs: a frame in two came a whole interval late.
    beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ec);
    const auto peer = beast::get_lowest_layer(ws_).socket().remote_endpoint(ec);
    if (!ec) {
      ip_ = peer.address().to_string();
      address_ = ip_ + ":" + std::to_string(peer.port());
    }
  }

  // On the shard's thread, or on the thread destroying its io_context.
  ~WsSession() {
    if (counted_) {
      const std::lock_guard lock(hub_.admission_mutex);
      --hub_.ws_open;
      hub_.per_address.remove(ip_);
    }
    {
      const std::lock_guard lock(shard_.mutex);
      shard_.ws.erase(id_);
    }
    if (joined_) {
      asio::post(hub_.ioc, [hub = &hub_, id = id_] { hub->leave(id); });
      hub_.log_from(address_, LogLevel::info, "session_closed", {{"session", std::to_string(id_)}});
    }
    --hub_.ws_alive;
  }

  void run(http::request<http::string_body> req) {
    ws_.set_option(websocket::stream_base::timeout{kHandshakeTimeout, seconds(config_.idle_timeout), /*keep_alive_pings=*/true});
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, kServerName); }));
    ws_.read_message_max(config_.max_message_bytes);  // larger frames: Beast closes with 1009
    // Over a session limit: the handshake completes so that the client can read why (close 1013,
    // "try again later", with a reason), then the session ends.
    {
      const std::lock_guard lock(hub_.admission_mutex);
      if (hub_.ws_open >= config_.max_sessions) refusal_ = Refusal::sessions;
      else if (!hub_.per_address.try_add(ip_, config_.max_sessions_per_address)) refusal_ = Refusal::sessions_per_address;
      else {
        counted_ = true;
        ++hub_.ws_open;
      }
    }
    ws_.async_accept(req, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  // Control lane: acks, errors, pongs, welcome. Bounded; a client that lets it fill is closed.
  void send_control(SharedText msg) {
    if (close_) return;
    if (!lanes_.push_control(std::move(msg))) {
      hub_.refused(Refusal::control_queue_full, address_);
      close_after_flush({websocket::close_code::policy_error, "too many unread replies"}, /*discard_queued=*/true);
      return;
    }
    pump();
  }

  // The hub's answer to a request this session posted to it; then the close, if one was asked.
  void on_reply(SharedText msg, std::optional<std::uint16_t> then_close = {}) {
    if (const auto asked = awaiting_.front()) hub_.observe_reply(Clock::now() - *asked);
    awaiting_.pop_front();
    send_reply(std::move(msg), then_close);
  }

  // The welcome to a replaced world: the old world's frames still waiting are not written after
  // it (counted as superseded).
  void on_new_world(SharedText welcome) {
    hub_.counters.snapshots_superseded += lanes_.snapshots_waiting();
    lanes_.clear_snapshots();
    send_control(std::move(welcome));
  }

  // Snapshot lane: latest wins (OutboundLanes says how many wait).
  void send_snapshot(SharedText snap, bool binary) {
    if (close_ || !greeted_) return;
    if (binary) ack_budget_.on_frame();
    if (lanes_.push_snapshot(std::move(snap), binary, Clock::now())) ++hub_.counters.snapshots_replaced;
    pump();
  }

  void close_after_flush(websocket::close_reason reason, bool discard_queued = false) {
    if (close_) return;
    close_ = std::move(reason);
    close_requested_at_ = Clock::now();
    if (discard_queued) lanes_.clear_control();
    lanes_.clear_snapshots();
    pump();
  }

  // Called by the shard's sweep: ends a session that has stayed behind on snapshots too long, or
  // whose close could not be delivered (a client that stopped reading never takes the close
  // frame). Closing the socket cancels the stuck write; the session then ends.
  void sweep(Clock::time_point now) {
    if (close_) {
      if (now - close_requested_at_ > kCloseGrace) drop(Refusal::close_timeout);
      return;
    }
    const auto behind_since = lanes_.behind_since();
    if (behind_since && now - *behind_since > seconds(config_.slow_client_timeout)) drop(Refusal::slow_consumer);
  }

 private:
  void drop(Refusal why) {
    if (dropped_) return;
    dropped_ = true;
    hub_.refused(why, address_);
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(ws_).close();
  }

  void on_accept(beast::error_code ec) {
    if (ec) return;  // handshake failed or timed out: the session just ends
    if (refusal_) {
      hub_.refused(*refusal_, address_);
      const bool total = *refusal_ == Refusal::sessions;
      return close_after_flush({websocket::close_code::try_again_later,
                                total ? "too many sessions" : "too many sessions from this address"});
    }
    {
      const std::lock_guard lock(shard_.mutex);
      shard_.ws[id_] = weak_from_this();
    }
    joined_ = true;
    asio::post(hub_.ioc, [hub = &hub_, id = id_, weak = weak_from_this(), shard = &shard_, inbox = inbox_] {
      hub->join(id, weak, shard, inbox);
    });
    hub_.log_from(address_, LogLevel::info, "session_opened", {{"session", std::to_string(id_)}, {"address", address_}});
    if (hub_.stopping) return close_after_flush(websocket::close_code::going_away);
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec) {  // closed, too big (Beast sent 1009), not UTF-8 (1007), timed out, or reset
      if (ec == websocket::error::message_too_big) hub_.refused(Refusal::message_too_big, address_);
      else if (ec == websocket::error::bad_frame_payload) hub_.refused(Refusal::invalid_utf8, address_);
      else if (ec == beast::error::timeout) hub_.refused(Refusal::idle_timeout, address_);
      return;
    }
    // Every message costs a token. Refused ones are still decoded (to answer with their seq) but
    // take from a second bucket of the same size: a client that keeps sending at more than twice
    // the rate is closed, so decoding costs a session at most twice the rate.
    // Snapshot acks come at the snapshot rate and must not eat the command budget:
    // a small frame is decoded first, and an ack is free while the session has sent no more acks
    // than it was sent binary frames (plus a few); beyond that it counts like any message.
    const double now = now_seconds();
    const std::string_view text(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    std::optional<protocol::Decoded<protocol::ClientMessage>> decoded;
    if (ws_.got_text() && text.size() <= kSmallFrame) decoded = protocol::decode_client(text, config_.max_json_depth);
    const bool free_ack = decoded && is_snapshot_ack(*decoded) && ack_budget_.take();
    const bool within_rate = free_ack || bucket_.take(now);
    if (!within_rate && !overflow_.take(now)) {
      hub_.refused(Refusal::flooding, address_);
      return close_after_flush({websocket::close_code::policy_error, "message rate far over the limit"}, true);
    }
    if (!ws_.got_text()) {
      if (!within_rate) refuse_rate({});
      else send_error({}, protocol::ErrorCode::binary_not_supported, "binary frames are not supported; send JSON text");
    } else {
      if (!decoded) decoded = protocol::decode_client(text, config_.max_json_depth);
      if (!within_rate) refuse_rate(seq_of(*decoded));
      else {
        text_ = text;
        handle(std::move(*decoded));
      }
    }
    buffer_.consume(buffer_.size());
    if (!close_) do_read();
  }

  static constexpr std::size_t kSmallFrame = 64;  // an ack is about 30 bytes

  static bool is_snapshot_ack(const protocol::Decoded<protocol::ClientMessage>& decoded) {
    const auto* msg = std::get_if<protocol::ClientMessage>(&decoded);
    return msg && std::holds_alternative<protocol::SnapshotAck>(*msg);
  }

  static std::optional<std::uint32_t> seq_of(const protocol::Decoded<protocol::ClientMessage>& decoded) {
    if (const auto* err = std::get_if<protocol::Error>(&decoded)) return err->seq;
    const auto& msg = std::get<protocol::ClientMessage>(decoded);
    if (const auto* cmd = std::get_if<protocol::CommandMsg>(&msg)) return cmd->seq;
    if (const auto* control = std::get_if<protocol::ControlMsg>(&msg)) return control->seq;
    return std::nullopt;
  }

  void refuse_rate(std::optional<std::uint32_t> seq) {
    hub_.refused(Refusal::rate_limited, address_);
    std::string why = "over ";  // appended: GCC 12 warns falsely (-Wrestrict) on chained operator+
    why += std::to_string(static_cast<long long>(config_.rate_limit));
    why += " messages per second; this one was not applied";
    send_error(seq, protocol::ErrorCode::rate_limited, std::move(why));
  }

  void send_reply(SharedText msg, std::optional<std::uint16_t> then_close) {
    send_control(std::move(msg));
    if (then_close) close_after_flush(*then_close);
  }

  // Asks the hub; its answer comes back through on_reply. Commands and controls are timed.
  template <class Fn>
  void ask_hub(Fn fn, bool timed = false) {
    awaiting_.push_back(timed ? std::optional(Clock::now()) : std::nullopt);
    asio::post(hub_.ioc, std::move(fn));
  }

  // A reply made here goes behind the hub's answers to earlier messages: replies keep the order
  // of the messages they answer.
  void answer(SharedText msg, std::optional<std::uint16_t> then_close = {}) {
    if (awaiting_.empty()) return send_reply(std::move(msg), then_close);
    ask_hub([hub = &hub_, id = id_, msg = std::move(msg), then_close]() mutable { hub->reply(id, std::move(msg), then_close); });
  }

  void handle(protocol::Decoded<protocol::ClientMessage> decoded) {
    if (auto* err = std::get_if<protocol::Error>(&decoded)) {
      hub_.count_error(err->code);
      if (err->code == protocol::ErrorCode::too_deep) hub_.refused(Refusal::too_deep, address_);
      if (err->code == protocol::ErrorCode::protocol_mismatch)
        return answer(share(protocol::encode(*err)), static_cast<std::uint16_t>(websocket::close_code::protocol_error));
      if (err->seq) ++hub_.counters.commands_rejected;
      return answer(share(protocol::encode(*err)));
    }
    auto& msg = std::get<protocol::ClientMessage>(decoded);
    if (auto* hello = std::get_if<protocol::Hello>(&msg)) return on_hello(*hello);
    if (auto* ping = std::get_if<protocol::Ping>(&msg))
      return answer(share(protocol::encode(protocol::Pong{ping->id, hub_.counters.tick.load()})));
    if (auto* ack = std::get_if<protocol::SnapshotAck>(&msg)) {
      if (!greeted_) return send_error({}, protocol::ErrorCode::hello_required, "send hello first");
      return inbox_->ack(ack->tick);
    }
    if (std::holds_alternative<protocol::KeyframeRequest>(msg)) {
      if (!greeted_) return send_error({}, protocol::ErrorCode::hello_required, "send hello first");
      return inbox_->request_keyframe();
    }
    if (auto* view = std::get_if<protocol::ViewportMsg>(&msg)) {
      if (!greeted_) return send_error({}, protocol::ErrorCode::hello_required, "send hello first");
      return inbox_->set_view(view->view);
    }
    if (auto* inspect = std::get_if<protocol::Inspect>(&msg)) {
      if (!greeted_) return send_error({}, protocol::ErrorCode::hello_required, "send hello first");
      asio::post(hub_.ioc, [hub = &hub_, id = id_, agents = std::move(inspect->agents)]() mutable {
        hub->inspect(id, std::move(agents));
      });
      return;
    }
    if (auto* control = std::get_if<protocol::ControlMsg>(&msg)) {
      if (!greeted_) return send_error(control->seq, protocol::ErrorCode::hello_required, "send hello first");
      if (role_ != protocol::Role::commander) return forbid(control->seq);
      if (hub_.relaying()) return forward(control->seq);
      return ask_hub([hub = &hub_, id = id_, control = std::move(*control)] { hub->control(id, control); }, true);
    }
    auto& cmd = std::get<protocol::CommandMsg>(msg);
    if (!greeted_) return send_error(cmd.seq, protocol::ErrorCode::hello_required, "send hello first");
    if (role_ != protocol::Role::commander) return forbid(cmd.seq);
    if (const auto* spawn = std::get_if<sim::Spawn>(&cmd.command)) {
      const std::size_t n = spawn->agents.empty() ? spawn->count : spawn->agents.size();
      if (n > config_.max_spawn) {
        hub_.refused(Refusal::spawn_too_large, address_);
        std::string why = "this server spawns at most ";
        why += std::to_string(config_.max_spawn);
        why += " agents per command";
        return send_error(cmd.seq, protocol::ErrorCode::limit_exceeded, std::move(why));
      }
    }
    if (hub_.relaying()) return forward(cmd.seq);
    // Applied and answered by the hub as it gets it, between ticks: the same world as applying it
    // at the next tick's start (nothing else happens in between), and the ack does not wait for
    // that tick.
    ask_hub([hub = &hub_, id = id_, cmd = std::move(cmd)] { hub->command(id, cmd); }, true);
  }

  // A relay's session: the command (or control) goes upstream as the client wrote it, checked
  // here like any other; the upstream's answer comes back as the hub's reply.
  void forward(std::uint32_t seq) {
    ask_hub([hub = &hub_, id = id_, seq, text = std::string(text_)]() mutable { hub->relay_forward(id, seq, std::move(text)); }, true);
  }

  void forbid(std::uint32_t seq) {
    send_error(seq, protocol::ErrorCode::forbidden,
               unauthorized_ ? "this session did not present the command token; it may only watch"
                             : "viewers cannot send commands; say hello as commander");
  }

  void on_hello(const protocol::Hello& hello) {
    if (greeted_) return send_error({}, protocol::ErrorCode::already_greeted, "hello was already received");
    greeted_ = true;
    role_ = hello.role;
    if (hub_.relaying()) {  // the upstream checks the token, on the commander's own link
      hub_.log_from(address_, LogLevel::info, "hello", {{"session", std::to_string(id_)}, {"role", std::string(protocol::to_string(role_))},
                                         {"client", hello.client}, {"format", std::string(protocol::to_string(hello.format))}});
      return ask_hub([hub = &hub_, id = id_, role = role_, format = hello.format, token = hello.token, client = hello.client]() mutable {
        hub->relay_hello(id, role, format, std::move(token), std::move(client));
      });
    }
    const std::string& token = config_.command_token;
    if (role_ == protocol::Role::commander && !token.empty() && !constant_time_equal(hello.token, token)) {
      // Watches instead: told why, then welcomed as a viewer.
      role_ = protocol::Role::viewer;
      unauthorized_ = true;
      hub_.refused(Refusal::bad_token, address_);
      send_error({}, protocol::ErrorCode::unauthorized,
                 hello.token.empty() ? "this server needs a command token to command; welcomed as a viewer"
                                     : "wrong command token; welcomed as a viewer");
    }
    hub_.log_from(address_, LogLevel::info, "hello", {{"session", std::to_string(id_)}, {"role", std::string(protocol::to_string(role_))},
                                       {"client", hello.client}, {"format", std::string(protocol::to_string(hello.format))}});
    ask_hub([hub = &hub_, id = id_, role = role_, format = hello.format] { hub->hello(id, role, format); });
  }

  void send_error(std::optional<std::uint32_t> seq, protocol::ErrorCode code, std::string message) {
    if (seq) ++hub_.counters.commands_rejected;
    hub_.count_error(code);
    answer(share(protocol::encode(protocol::Error{seq, code, std::move(message)})));
  }

  // One write at a time: control messages first, then the oldest waiting snapshot, then a pending close.
  void pump() {
    if (writing_) return;
    std::optional<OutboundLanes::Message> next = lanes_.pop();
    if (!next) {
      if (close_ && !close_sent_) {
        close_sent_ = true;
        writing_ = true;
        ws_.async_close(*close_, [self = shared_from_this()](beast::error_code) { self->writing_ = false; });
      }
      return;
    }
    writing_ = true;
    ws_.binary(next->binary);
    ws_.async_write(asio::buffer(*next->bytes),
                    [self = shared_from_this(), bytes = next->bytes, is_snapshot = next->snapshot](beast::error_code ec, std::size_t n) {
      self->writing_ = false;
      if (ec) return;  // the read side sees the failure too and ends the session
      self->hub_.counters.bytes_out += n;
      if (is_snapshot) ++self->hub_.counters.snapshots_sent;
      self->pump();
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  Server::Impl& hub_;
  const ServerConfig& config_;  // the hub's config_at_start
  Shard& shard_;
  const std::uint64_t id_;
  std::shared_ptr<ViewerInbox> inbox_ = std::make_shared<ViewerInbox>();  // acks and viewports, to the hub
  beast::flat_buffer buffer_;
  OutboundLanes lanes_{config_.control_queue_limit};  // waiting to be written
  std::optional<websocket::close_reason> close_;
  Clock::time_point close_requested_at_;
  TokenBucket bucket_, overflow_;                   // messages within the rate; refused ones
  AckBudget ack_budget_;                            // snapshot acks that cost no token
  std::optional<Refusal> refusal_;                  // over a session limit: closed after the handshake
  std::deque<std::optional<Clock::time_point>> awaiting_;  // requests posted to the hub, not answered yet (when, if timed)
  bool counted_ = false;                            // counted in ws_open and per_address
  bool joined_ = false;                             // posted to the hub's clients
  bool close_sent_ = false;
  bool writing_ = false;
  bool dropped_ = false;
  bool greeted_ = false;
  bool unauthorized_ = false;  // said hello as commander without the token
  std::string_view text_;       // the message being handled, as it came (valid during handle())
  protocol::Role role_ = protocol::Role::viewer;
  std::string ip_, address_;
};

// ---- HTTP session ----------------------------------------------------------------------------

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, Server::Impl& hub, Shard& shard)
      : stream_(std::move(socket)), hub_(hub), config_(hub.config_at_start), shard_(shard) {
    ++hub_.http_alive;
  }
  ~HttpSession() {
    {
      const std::lock_guard lock(shard_.mutex);
      shard_.http.erase(this);
    }
    --hub_.http_alive;
  }

  void run() {
    {
      const std::lock_guard lock(shard_.mutex);
      shard_.http[this] = weak_from_this();
    }
    do_read();
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->header_limit(8 * 1024);
    parser_->body_limit(4 * 1024);
    // The first request may take kHttpTimeout to arrive; a kept-alive connection waits
    // http_idle_timeout for its next one, then is closed.
    stream_.expires_after(requests_ == 0 ? Clock::duration(kHttpTimeout) : seconds(config_.http_idle_timeout));
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ec) return close();  // end of stream, timeout, or a malformed request
    ++requests_;
    http::request<http::string_body> req = parser_->release();
    if (websocket::is_upgrade(req) && req.target() == "/ws") {
      const auto origin = req.find(http::field::origin);
      const bool has_origin = origin != req.end();
      if (!origin_allowed(config_.allowed_origins, has_origin ? std::string_view(origin->value()) : std::string_view(),
                          has_origin)) {
        hub_.refused(Refusal::origin, peer());
        auto res = plain(req, http::status::forbidden, "this Origin may not open a WebSocket here\n");
        res.keep_alive(false);
        return write(std::move(res));
      }
      if (!valid_websocket_key(req[http::field::sec_websocket_key])) {
        hub_.refused(Refusal::bad_handshake, peer());
        auto res = plain(req, http::status::bad_request,
                         "Sec-WebSocket-Key must be a 16-byte nonce in base64 (24 characters, RFC 6455 4.1)\n");
        res.keep_alive(false);
        return write(std::move(res));
      }
      stream_.expires_never();
      std::make_shared<WsSession>(stream_.release_socket(), hub_, shard_)->run(std::move(req));
      return;
    }
    respond(req);
  }

  std::string peer() { return peer_of(stream_.socket()); }

  // Kept open for another request only while the server holds at most max_http_keepalive HTTP
  // connections; beyond that each answer says Connection: close.
  bool keep_alive(const http::request<http::string_body>& req) const {
    return req.keep_alive() && hub_.http_alive <= config_.max_http_keepalive;
  }

  template <class Body>
  void head_fields(http::response<Body>& res, const http::request<http::string_body>& req, std::string_view type) const {
    res.set(http::field::server, kServerName);
    res.set(http::field::content_type, type);
    res.set(http::field::cache_control, "no-cache");
    res.set("X-Content-Type-Options", "nosniff");
    res.keep_alive(keep_alive(req));
  }

  http::response<http::string_body> make(const http::request<http::string_body>& req, http::status status,
                                         std::string_view type, std::string body) const {
    http::response<http::string_body> res{status, req.version()};
    head_fields(res, req, type);
    const std::size_t length = body.size();
    if (req.method() != http::verb::head) res.body() = std::move(body);
    res.prepare_payload();
    if (req.method() == http::verb::head) res.content_length(length);  // HEAD: headers of GET
    return res;
  }

  http::response<http::string_body> plain(const http::request<http::string_body>& req, http::status status,
                                          std::string body) const {
    return make(req, status, "text/plain; charset=utf-8", std::move(body));
  }

  void respond(const http::request<http::string_body>& req) {
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      auto res = plain(req, http::status::method_not_allowed, "only GET and HEAD\n");
      res.set(http::field::allow, "GET, HEAD");
      return write(std::move(res));
    }
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/healthz" && hub_.relaying()) {
      // A relay is healthy while it serves, also while it reconnects upstream (its viewers stay
      // and are told so): the body says which.
      return write(make(req, http::status::ok, "application/json",
                        std::string("{\"status\":\"ok\",\"tick\":") + std::to_string(hub_.counters.tick.load()) +
                            ",\"upstream\":\"" + (hub_.relay->live ? "connected" : "reconnecting") + "\"}\n"));
    }
    if (path == "/healthz") {
      // Healthy while the tick loop keeps to its schedule (within a second).
      const auto behind = hub_.behind();
      const bool late = behind > std::chrono::seconds(1);
      return write(make(req, late ? http::status::service_unavailable : http::status::ok, "application/json",
                        std::string("{\"status\":\"") + (late ? "late" : "ok") + "\",\"tick\":" +
                            std::to_string(hub_.counters.tick.load()) + ",\"behind_ms\":" + std::to_string(behind.count()) + "}\n"));
    }
    if (path == "/metrics") return write(make(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8", hub_.metrics_text()));
    if (path == "/ws") return write(plain(req, http::status::upgrade_required, "WebSocket upgrade required\n"));
    FileResponse file = serve_file(target, config_.web_root);
    if (file.status != 200) return write(make(req, static_cast<http::status>(file.status), file.content_type, std::move(file.body)));
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

  template <class Body>
  void write(http::response<Body> res) {
    auto shared = std::make_shared<http::response<Body>>(std::move(res));
    http::async_write(stream_, *shared, [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
      if (ec || !shared->keep_alive()) return self->close();
      self->do_read();
    });
  }

  beast::tcp_stream stream_;
  Server::Impl& hub_;
  const ServerConfig& config_;  // the hub's config_at_start
  Shard& shard_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::uint64_t requests_ = 0;  // read on this connection so far
};

// ---- shards: accept, sweep, close -------------------------------------------------------------

void Server::Impl::do_accept() {
  // Each connection goes to the next shard in turn: its socket is made on that shard's
  // io_context, and its session starts there.
  Shard& shard = *shards[next_shard];
  next_shard = (next_shard + 1) % shards.size();
  acceptor->async_accept(shard.ioc, [this, &shard](beast::error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) return on_accept_failed(ec);
    if (accept_backoff.count() > 0) {
      log(LogLevel::info, "accepting_again", {{"failures", std::to_string(accept_failures_unlogged)}});
      accept_backoff = std::chrono::milliseconds(0);
      accept_failures_unlogged = 0;
    }
    if (http_alive + ws_alive >= max_connections) {
      refuse_connection(socket);
    } else {
      asio::post(shard.ioc, [this, &shard, socket = std::move(socket)]() mutable {
        std::make_shared<HttpSession>(std::move(socket), *this, shard)->run();
      });
    }
    do_accept();
  });
}

// A failed accept leaves the connection waiting in the kernel's queue: retrying at once would
// spin a core for as long as the cause lasts (out of file descriptors: until connections close).
// The listener pauses instead, 10 ms doubling to 1 s, and says so once per kAcceptLogPeriod; a
// connection aborted by its client is not a failure of ours and is skipped at once.
void Server::Impl::on_accept_failed(const beast::error_code& ec) {
  if (ec == asio::error::operation_aborted) return;  // the acceptor was closed
  if (ec == asio::error::connection_aborted || ec == asio::error::connection_reset) return do_accept();
  ++accept_failures;
  ++accept_failures_unlogged;
  accept_backoff = std::clamp(accept_backoff * 2, kAcceptPauseMin, kAcceptPauseMax);
  const auto now = Clock::now();
  if (accept_failure_logged == Clock::time_point{} || now - accept_failure_logged >= kAcceptLogPeriod) {
    accept_failure_logged = now;
    log(LogLevel::error, "accept_failed",
        {{"reason", ec.message()}, {"failures", std::to_string(accept_failures_unlogged)},
         {"pause_ms", std::to_string(accept_backoff.count())}, {"connections", std::to_string(http_alive + ws_alive)}});
    accept_failures_unlogged = 0;
  }
  accept_pause->expires_after(accept_backoff);
  accept_pause->async_wait([this](beast::error_code wait_ec) {
    if (!wait_ec && !stopping) do_accept();
  });
}

void Server::Impl::refuse_connection(tcp::socket& socket) {
  refused(Refusal::connections, peer_of(socket));
  beast::error_code ec;
  // Best effort and never blocking: the answer fits in an empty socket's send buffer.
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: herd\r\nRetry-After: 1\r\nConnection: close\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 43\r\n\r\ntoo many connections to this server; retry\n";
  socket.non_blocking(true, ec);
  socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

template <class K, class T>
std::vector<std::shared_ptr<T>> Shard::alive(const std::unordered_map<K, std::weak_ptr<T>>& from) {
  std::vector<std::shared_ptr<T>> out;
  out.reserve(from.size());
  for (auto& [key, weak] : from)
    if (auto s = weak.lock()) out.push_back(std::move(s));
  return out;
}

void Shard::sweep() {
  const auto now = Clock::now();
  // Copied under the lock, swept without it: a dropped session may end meanwhile.
  std::vector<std::shared_ptr<WsSession>> sessions;
  {
    const std::lock_guard lock(mutex);
    sessions = alive(ws);
  }
  for (auto& s : sessions) s->sweep(now);
  sessions.clear();
  sweep_timer.expires_after(kSweepPeriod);
  sweep_timer.async_wait([this](beast::error_code ec) {
    if (!ec) sweep();
  });
}

std::size_t Shard::deliver(std::uint64_t snapshot, std::vector<Delivery> frames) {
  const auto added = outbox.add(snapshot, std::move(frames));
  if (added.post) asio::post(ioc, [this] { hand_to_sessions(); });
  return added.skipped;
}

void Shard::deliver(Delivery message) {
  if (outbox.add_message(std::move(message))) asio::post(ioc, [this] { hand_to_sessions(); });
}

void Shard::hand_to_sessions() {
  auto taken = outbox.take(kFramesPerTurn);
  for (Delivery& d : taken.messages) {
    const auto s = d.session.lock();
    if (!s) continue;
    switch (d.kind) {
      case Delivery::Kind::reply: s->on_reply(std::move(d.frame), d.then_close); break;
      case Delivery::Kind::new_world: s->on_new_world(std::move(d.frame)); break;
      default: s->send_control(std::move(d.frame)); break;
    }
  }
  for (Delivery& d : taken.frames)
    if (auto s = d.session.lock()) s->send_snapshot(std::move(d.frame), d.binary);
  if (taken.more) asio::post(ioc, [this] { hand_to_sessions(); });
}

void Shard::close_all() {
  sweep_timer.cancel();
  std::vector<std::shared_ptr<WsSession>> sessions;
  std::vector<std::shared_ptr<HttpSession>> https;
  {
    const std::lock_guard lock(mutex);
    sessions = alive(ws);
    https = alive(http);
  }
  for (auto& s : sessions) s->close_after_flush(websocket::close_code::going_away);
  for (auto& h : https) h->close();
}

void Server::Impl::begin_stop() {
  if (stopping.exchange(true)) return;
  log(LogLevel::info, "stopping", {{"tick", std::to_string(counters.tick.load())}, {"sessions", std::to_string(clients.size())}});
  tick_timer.cancel();
  if (relay) relay_stop();
  asio::post(shards.front()->ioc, [this] {
    beast::error_code ec;
    acceptor->close(ec);
    accept_pause->cancel();
  });
  for (auto& shard : shards) asio::post(shard->ioc, [s = shard.get()] { s->close_all(); });
  // Clients get a moment to answer the close handshake; the loop ends when every session is gone
  // or the grace period is over, whichever comes first.
  finish_stop(Clock::now() + kStopGrace);
}

void Server::Impl::finish_stop(Clock::time_point deadline) {
  if ((ws_alive == 0 && http_alive == 0) || Clock::now() >= deadline) {
    for (auto& shard : shards) shard->ioc.stop();
    ioc.stop();
    return;
  }
  stop_timer.expires_after(std::chrono::milliseconds(10));
  stop_timer.async_wait([this, deadline](beast::error_code) { finish_stop(deadline); });
}

// ---- Server ----------------------------------------------------------------------------------

Server::Server(ServerConfig config, sim::World world)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(world))) {
  if (impl_->config.relay_upstream.empty()) return;
  auto url = protocol::parse_ws_url(impl_->config.relay_upstream);
  if (auto* why = std::get_if<std::string>(&url))
    throw std::invalid_argument("relay upstream '" + impl_->config.relay_upstream + "': " + *why);
  if (std::get<protocol::WsUrl>(url).tls)
    throw std::invalid_argument("relay upstream '" + impl_->config.relay_upstream + "': must be ws://, not wss://");
  impl_->relay = std::make_shared<Impl::Relay>(std::get<protocol::WsUrl>(std::move(url)), impl_->ioc);
}

Server::~Server() = default;

std::uint16_t Server::start() {
  Impl& s = *impl_;
  beast::error_code ec;
  const auto address = asio::ip::make_address(s.config.address, ec);
  if (ec) throw std::runtime_error("bad listen address '" + s.config.address + "': " + ec.message());
  const tcp::endpoint endpoint{address, s.config.port};
  auto check = [&](const char* what) {
    if (ec) throw std::runtime_error(std::string(what) + " " + s.config.address + ":" + std::to_string(s.config.port) + ": " + ec.message());
  };
  s.acceptor->open(endpoint.protocol(), ec);
  check("cannot open a socket for");
  s.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  check("cannot set options on");
  s.acceptor->bind(endpoint, ec);
  check("cannot bind");
  s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  check("cannot listen on");
  // Connections stay under the descriptor limit (raised to its hard maximum first, as servers
  // do), with some descriptors left for checkpoints and the like.
  s.max_connections = s.config.max_connections;
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      rlimit raised = files;
      raised.rlim_cur = files.rlim_max;
      if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
    }
    if (files.rlim_cur != RLIM_INFINITY) {
      const std::size_t usable = files.rlim_cur > kReservedDescriptors ? files.rlim_cur - kReservedDescriptors : 1;
      if (usable < s.max_connections) {
        s.max_connections = usable;
        s.log(LogLevel::warn, "connections_capped",
              {{"max_connections", std::to_string(usable)}, {"descriptor_limit", std::to_string(files.rlim_cur)}});
      }
    }
  }
  return s.acceptor->local_endpoint().port();
}

void Server::run() {
  Impl& s = *impl_;
  // The shards' threads: each runs its io_context until the hub stops it.
  std::vector<std::thread> io_threads;
  for (auto& shard : s.shards) {
    Shard* sh = shard.get();
    asio::post(sh->ioc, [sh] { sh->sweep(); });
    if (sh->index == 0) asio::post(sh->ioc, [&s] { s.do_accept(); });
    io_threads.emplace_back([sh] {
      auto work = asio::make_work_guard(sh->ioc);  // idle until a connection comes
      sh->ioc.run();
    });
  }
  s.start_ticking();
  // Kept running until begin_stop() stops it, also while nothing is scheduled (a relay waits
  // for its upstream's messages, not for a tick timer).
  auto hub_work = asio::make_work_guard(s.ioc);
  s.ioc.run();
  for (auto& t : io_threads) t.join();
}

void Server::stop() {
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->begin_stop(); });
}

void Server::stop_on_signals(std::function<void(int signal)> said) {
  impl_->on_signal = std::move(said);
  impl_->signals = std::make_unique<asio::signal_set>(impl_->ioc, SIGINT, SIGTERM);
  impl_->wait_for_signal();
}

void Server::Impl::wait_for_signal() {
  signals->async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;  // cancelled: the server is being destroyed
    if (!stopping) {
      on_signal(signal);
      begin_stop();
    }
    wait_for_signal();  // a second signal is taken too, not left to kill the process
  });
}

std::uint64_t Server::state_hash() const { return impl_->world.state_hash(); }
const sim::World& Server::world() const { return impl_->world; }

ServerStats Server::stats() const {
  const auto& c = impl_->counters;
  return {c.tick, c.overruns, c.ticks_dropped, c.sessions, c.snapshots_sent, c.snapshots_dropped(),
          c.commands_accepted, c.commands_rejected, c.agents, c.refusals, impl_->accept_failures, impl_->max_connections};
}

}  // namespace herd::net
