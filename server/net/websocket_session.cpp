#include "net/websocket_session.hpp"

#include <array>
#include <boost/asio/post.hpp>

namespace herd::net {
namespace {

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kCloseGrace = std::chrono::seconds(5);     // a close not delivered by then: drop
constexpr std::string_view kRttPingPrefix = "herd-rtt ";  // the round-trip pings' payloads

// Seconds on the steady clock, for the token buckets.
double now_seconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

}  // namespace

WsSession::WsSession(tcp::socket&& socket, SessionHub hub, Shard& shard, ConnectionSlot slot)
    : ws_(std::move(socket)),
      hub_(hub),
      config_(hub_.config()),
      shard_(shard),
      id_(hub_.new_session_id()),
      gate_(config_, now_seconds()),
      slot_(std::move(slot)) {
  hub_.ws_created();
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
  stats_ = std::make_shared<SessionStats>(address_, Clock::now());
}

WsSession::~WsSession() {
  if (counted_) hub_.release(ip_);
  if (placed_) hub_.leave(placed_with_token_);
  shard_.remove_ws(id_);
  if (joined_) {
    hub_.leave(id_);
    hub_.log_from(address_, LogLevel::info, "session_closed", {{"session", std::to_string(id_)}});
  }
  hub_.ws_destroyed();
}

void WsSession::run(http::request<http::string_body> req) {
  ws_.set_option(websocket::stream_base::timeout{kHandshakeTimeout, seconds(config_.idle_timeout),
                                                 /*keep_alive_pings=*/true});
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(http::field::server, kServerName); }));
  ws_.read_message_max(config_.max_message_bytes);  // larger frames: Beast closes with 1009
  // Over a session limit: the handshake completes so that the client can read why (close 1013,
  // "try again later", with a reason), then the session ends.
  refusal_ = hub_.admit(ip_);
  counted_ = !refusal_;
  ws_.async_accept(req, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
}

void WsSession::send_control(SharedText msg) {
  if (close_) return;
  if (!lanes_.push_control(std::move(msg))) return control_full();
  pump();
}

void WsSession::send_welcome(SharedText head, SharedText tail) {
  if (close_) return;
  bool replaced = false;
  if (!lanes_.push_welcome(std::move(head), std::move(tail), Clock::now(), &replaced))
    return control_full();
  if (replaced) hub_.welcome_replaced();
  pump();
}

void WsSession::control_full() {
  hub_.refused(Refusal::control_queue_full, address_);
  close_after_flush({websocket::close_code::policy_error, "too many unread replies"},
                    /*discard_queued=*/true);
}

void WsSession::on_reply(SharedText msg, std::optional<std::uint16_t> then_close) {
  if (const auto asked = awaiting_.front()) hub_.observe_reply(Clock::now() - *asked);
  awaiting_.pop_front();
  send_reply(std::move(msg), then_close);
}

void WsSession::on_new_world(SharedText head, SharedText tail) {
  hub_.snapshots_superseded(lanes_.snapshots_waiting());
  stats_->dropped.fetch_add(lanes_.snapshots_waiting(), std::memory_order_relaxed);
  lanes_.clear_snapshots();
  send_welcome(std::move(head), std::move(tail));
}

void WsSession::send_snapshot(SharedText snap, bool binary, SharedText tail) {
  if (close_ || !gate_.greeted()) return;
  if (binary) gate_.frame_sent();
  if (lanes_.push_snapshot(std::move(snap), binary, Clock::now(), std::move(tail))) {
    hub_.snapshot_replaced();
    stats_->dropped.fetch_add(1, std::memory_order_relaxed);
  }
  pump();
}

void WsSession::close_after_flush(websocket::close_reason reason, bool discard_queued) {
  if (close_) return;
  close_ = std::move(reason);
  close_requested_at_ = Clock::now();
  if (discard_queued) lanes_.clear_control();
  lanes_.clear_snapshots();
  pump();
}

void WsSession::kick() {
  // A code of the private-use range: the enum's underlying type holds it.
  close_after_flush({static_cast<websocket::close_code>(protocol::kKickedCloseCode),
                     protocol::kKickedCloseReason});
}

void WsSession::sweep(Clock::time_point now) {
  if (close_) {
    if (now - close_requested_at_ > kCloseGrace) drop(Refusal::close_timeout);
    return;
  }
  // A session takes its place among max_sessions at hello; one that never says hello would hold
  // a connection and its address's session for nothing.
  if (!gate_.greeted() && now - accepted_at_ > seconds(config_.hello_timeout)) {
    hub_.refused(Refusal::hello_timeout, address_);
    return close_after_flush({websocket::close_code::policy_error, "no hello in time"});
  }
  if (gate_.greeted() && !rtt_ping_writing_ &&
      (rtt_ping_number_ == 0 ||
       now - rtt_ping_at_ >=
           (awaiting_pong_ ? Clock::duration(kRttPongTimeout) : Clock::duration(kRttPingPeriod))))
    ping_for_rtt(now);
  const auto behind_since = lanes_.behind_since();
  if (behind_since && now - *behind_since > seconds(config_.slow_client_timeout))
    drop(Refusal::slow_consumer);
}

void WsSession::ping_for_rtt(Clock::time_point now) {
  ++rtt_ping_number_;
  rtt_ping_at_ = now;
  awaiting_pong_ = true;
  rtt_ping_writing_ = true;
  // Its own payload: the pong of Beast's idle ping (empty) is not taken for it.
  const std::string text = std::string(kRttPingPrefix) + std::to_string(rtt_ping_number_);
  websocket::ping_data payload;
  payload.assign(text.data(), text.size());
  ws_.async_ping(payload, [self = shared_from_this()](beast::error_code ec) {
    self->rtt_ping_writing_ = false;
    // Timed from when it left, not from when it was asked for: a snapshot being written
    // before it is no part of the round trip.
    if (!ec && self->awaiting_pong_) self->rtt_ping_at_ = Clock::now();
  });
}

void WsSession::on_pong(std::string_view payload) {
  if (!awaiting_pong_) return;
  const std::string expected = std::string(kRttPingPrefix) + std::to_string(rtt_ping_number_);
  if (payload != expected) return;
  awaiting_pong_ = false;
  const auto rtt =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - rtt_ping_at_);
  stats_->rtt_us.store(std::max<std::int64_t>(0, rtt.count()), std::memory_order_relaxed);
}

void WsSession::drop(Refusal why) {
  if (dropped_) return;
  dropped_ = true;
  hub_.refused(why, address_);
  beast::error_code ec;
  beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
  beast::get_lowest_layer(ws_).close();
}

void WsSession::on_accept(beast::error_code ec) {
  if (ec) return;  // handshake failed or timed out: the session just ends
  if (refusal_) {
    hub_.refused(*refusal_, address_);
    const bool total = *refusal_ == Refusal::sessions;
    return close_after_flush({websocket::close_code::try_again_later,
                              total ? "too many sessions" : "too many sessions from this address"});
  }
  accepted_at_ = Clock::now();
  shard_.add(id_, weak_from_this());
  joined_ = true;
  hub_.join(id_, weak_from_this(), &shard_, inbox_, stats_);
  hub_.log_from(address_, LogLevel::info, "session_opened",
                {{"session", std::to_string(id_)}, {"address", address_}});
  if (hub_.stopping()) return close_after_flush(websocket::close_code::going_away);
  // Pings count against the message rate as any frame does: Beast answers each with a pong
  // without the read completing, so a client pinging without end would cost the server a write
  // per ping and never be refused. Pongs answer the server's own pings and are not counted.
  ws_.control_callback([this](websocket::frame_type kind, beast::string_view payload) {
    if (kind == websocket::frame_type::pong)
      return on_pong(std::string_view(payload.data(), payload.size()));
    if (kind != websocket::frame_type::ping || close_) return;
    if (gate_.ping(now_seconds()) == Gate::Rate::within) return;
    hub_.refused(Refusal::flooding, address_);
    close_after_flush({websocket::close_code::policy_error, "message rate far over the limit"},
                      true);
  });
  do_read();
}

void WsSession::do_read() {
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->on_read(ec);
  });
}

void WsSession::on_read(beast::error_code ec) {
  if (ec) {  // closed, too big (Beast sent 1009), not UTF-8 (1007), timed out, or reset
    if (ec == websocket::error::message_too_big)
      hub_.refused(Refusal::message_too_big, address_);
    else if (ec == websocket::error::bad_frame_payload)
      hub_.refused(Refusal::invalid_utf8, address_);
    else if (ec == beast::error::timeout)
      hub_.refused(Refusal::idle_timeout, address_);
    return;
  }
  // Every message costs a token of the gate's rate. Refused ones are still decoded (to answer
  // with their seq): a client that keeps sending at more than twice the rate is closed, so
  // decoding costs a session at most twice the rate. Snapshot acks come at the snapshot rate and
  // must not eat the command budget: a small frame is decoded first, so that the gate can tell.
  const std::string_view text(static_cast<const char*>(buffer_.data().data()), buffer_.size());
  std::optional<protocol::Decoded<protocol::ClientMessage>> decoded;
  if (ws_.got_text() && text.size() <= kSmallFrame)
    decoded = protocol::decode_client(text, config_.max_json_depth);
  const Gate::Rate rate = gate_.message(now_seconds(), decoded && is_snapshot_ack(*decoded));
  const bool within_rate = rate == Gate::Rate::within;
  if (rate == Gate::Rate::close) {
    hub_.refused(Refusal::flooding, address_);
    return close_after_flush(
        {websocket::close_code::policy_error, "message rate far over the limit"}, true);
  }
  if (!ws_.got_text()) {
    if (!within_rate)
      refuse_rate({});
    else
      send_error({}, protocol::ErrorCode::binary_not_supported,
                 "binary frames are not supported; send JSON text");
  } else {
    if (!decoded) decoded = protocol::decode_client(text, config_.max_json_depth);
    if (!within_rate)
      refuse_rate(seq_of(*decoded));
    else {
      handle(std::move(*decoded));
    }
  }
  buffer_.consume(buffer_.size());
  if (!close_) do_read();
}

bool WsSession::is_snapshot_ack(const protocol::Decoded<protocol::ClientMessage>& decoded) {
  const auto* msg = std::get_if<protocol::ClientMessage>(&decoded);
  return msg && std::holds_alternative<protocol::SnapshotAck>(*msg);
}

std::optional<std::uint32_t> WsSession::seq_of(
    const protocol::Decoded<protocol::ClientMessage>& decoded) {
  if (const auto* err = std::get_if<protocol::Error>(&decoded)) return err->seq;
  const auto& msg = std::get<protocol::ClientMessage>(decoded);
  if (const auto* cmd = std::get_if<protocol::CommandMsg>(&msg)) return cmd->seq;
  if (const auto* control = std::get_if<protocol::ControlMsg>(&msg)) return control->seq;
  if (const auto* list = std::get_if<protocol::SessionsRequest>(&msg)) return list->seq;
  return std::nullopt;
}

void WsSession::refuse_rate(std::optional<std::uint32_t> seq) {
  hub_.refused(Refusal::rate_limited, address_);
  std::string why = "over ";  // appended: GCC 12 warns falsely (-Wrestrict) on chained operator+
  why += std::to_string(static_cast<long long>(config_.rate_limit));
  why += " messages per second; this one was not applied";
  send_error(seq, protocol::ErrorCode::rate_limited, std::move(why));
}

void WsSession::send_reply(SharedText msg, std::optional<std::uint16_t> then_close) {
  send_control(std::move(msg));
  if (then_close) close_after_flush(*then_close);
}

template <class Fn>
void WsSession::ask_hub(Fn fn, bool timed) {
  awaiting_.push_back(timed ? std::optional(Clock::now()) : std::nullopt);
  fn();
}

void WsSession::answer(SharedText msg, std::optional<std::uint16_t> then_close) {
  if (awaiting_.empty()) return send_reply(std::move(msg), then_close);
  ask_hub([&] { hub_.reply(id_, std::move(msg), then_close); });
}

void WsSession::handle(protocol::Decoded<protocol::ClientMessage> decoded) {
  if (auto* err = std::get_if<protocol::Error>(&decoded)) {
    hub_.count_error(err->code);
    if (err->code == protocol::ErrorCode::too_deep) hub_.refused(Refusal::too_deep, address_);
    if (err->code == protocol::ErrorCode::protocol_mismatch)
      return answer(share(protocol::encode(*err)),
                    static_cast<std::uint16_t>(websocket::close_code::protocol_error));
    if (err->seq) hub_.command_rejected();
    return answer(share(protocol::encode(*err)));
  }
  auto& msg = std::get<protocol::ClientMessage>(decoded);
  if (auto* hello = std::get_if<protocol::Hello>(&msg)) return on_hello(*hello);
  if (auto refused = gate_.check(msg)) {
    if (refused->counted) hub_.refused(*refused->counted, address_);
    return send_error(seq_of(decoded), refused->code, std::move(refused->why));
  }
  if (auto* ping = std::get_if<protocol::Ping>(&msg))
    return answer(share(protocol::encode(protocol::Pong{ping->id, hub_.tick()})));
  if (auto* ack = std::get_if<protocol::SnapshotAck>(&msg)) return inbox_->ack(ack->tick);
  if (std::holds_alternative<protocol::KeyframeRequest>(msg)) return inbox_->request_keyframe();
  if (auto* view = std::get_if<protocol::ViewportMsg>(&msg)) {
    if (view->scale) inbox_->set_scale(*view->scale);
    return inbox_->set_view(view->view);
  }
  if (auto* inspect = std::get_if<protocol::Inspect>(&msg))
    return hub_.inspect(id_, std::move(inspect->agents));
  if (const auto* layer = std::get_if<protocol::DensityRequest>(&msg))
    return hub_.density(id_, layer->on);
  if (const auto* list = std::get_if<protocol::SessionsRequest>(&msg))
    return ask_hub([&] { hub_.sessions(id_, list->seq); });
  if (auto* control = std::get_if<protocol::ControlMsg>(&msg))
    return ask_hub([&] { hub_.control(id_, std::move(*control)); }, true);
  ask_hub([&] { hub_.command(id_, std::move(std::get<protocol::CommandMsg>(msg))); }, true);
}

// The gate decides the role the hello earned; a token not taken is counted against the address,
// and the session watches instead, told why. No token at all is no refusal: it is every page
// opened without the token's URL, which the viewer tries as commander in case the server is open.
void WsSession::on_hello(const protocol::Hello& hello) {
  if (gate_.greeted())
    return send_error({}, protocol::ErrorCode::already_greeted, "hello was already received");
  Gate::Welcomed w = gate_.hello(hello, [&] { return hub_.may_try_token(ip_, now_seconds()); });
  if (w.throttled) hub_.refused(Refusal::token_throttled, address_);
  if (w.wrong_token) {
    hub_.refused(Refusal::bad_token, address_);
    hub_.token_failed(ip_, now_seconds());
  }
  if (w.unauthorized) send_error({}, protocol::ErrorCode::unauthorized, std::move(*w.unauthorized));
  if (w.throttled)
    return close_after_flush(
        {websocket::close_code::policy_error, "too many wrong tokens from this address"}, false);
  // Its place among max_sessions, now that its role is known: an anonymous session may not take
  // one of the places kept for token holders.
  if (!hub_.take_place(w.token_holder)) {
    hub_.refused(Refusal::sessions, address_);
    return close_after_flush({websocket::close_code::try_again_later, "too many sessions"});
  }
  placed_ = true;
  placed_with_token_ = w.token_holder;
  hub_.log_from(address_, LogLevel::info, "hello",
                {{"session", std::to_string(id_)},
                 {"role", std::string(protocol::to_string(w.role))},
                 {"client", hello.client},
                 {"format", std::string(protocol::to_string(hello.format))}});
  if (hello.scale != protocol::kFinestScale) inbox_->set_scale(hello.scale);
  ask_hub([&] {
    hub_.hello(id_, w.role, hello.format, hello.token, hello.client, w.team, w.player,
               hello.says_operator);
  });
}

void WsSession::send_error(std::optional<std::uint32_t> seq, protocol::ErrorCode code,
                           std::string message) {
  if (seq) hub_.command_rejected();
  hub_.count_error(code);
  answer(share(protocol::encode(protocol::Error{seq, code, std::move(message)})));
}

void WsSession::pump() {
  if (writing_) return;
  std::optional<OutboundLanes::Message> next = lanes_.pop();
  if (!next) {
    if (close_ && !close_sent_) {
      close_sent_ = true;
      writing_ = true;
      ws_.async_close(*close_,
                      [self = shared_from_this()](beast::error_code) { self->writing_ = false; });
    }
    return;
  }
  writing_ = true;
  ws_.binary(next->binary);
  // One frame of one or two buffers (a welcome's own head and its shared tail, a shared snapshot
  // and this session's inspect traces), each kept alive until the write completes.
  const std::array<asio::const_buffer, 2> buffers{
      asio::buffer(next->bytes->data(), next->written_size()),
      next->tail ? asio::buffer(*next->tail) : asio::const_buffer()};
  ws_.async_write(buffers, [self = shared_from_this(), bytes = next->bytes, tail = next->tail,
                            is_snapshot = next->snapshot](beast::error_code ec, std::size_t n) {
    self->writing_ = false;
    if (ec) return;  // the read side sees the failure too and ends the session
    self->hub_.written(n, is_snapshot);
    self->stats_->bytes_sent.fetch_add(n, std::memory_order_relaxed);
    if (is_snapshot) self->stats_->snapshots_sent.fetch_add(1, std::memory_order_relaxed);
    self->pump();
  });
}

}  // namespace herd::net
