// The Beast translation unit: listener, HTTP sessions, WebSocket sessions, the hub and the tick
// loop. Shaped after Boost.Beast's advanced-server and chat-multi examples: sessions are
// shared_ptr-owned by their pending operations, the hub holds weak_ptrs for broadcast, and each
// WebSocket session has two outbound lanes (a bounded FIFO for control messages and a latest-wins
// slot for snapshots) so a slow reader costs a bounded amount of memory.
//
// Threads. The hub (the world, the tick loop, commands, snapshot encoding) runs on the thread
// that calls run(), on its own io_context; sockets never run there, so a thousand sessions'
// reads and writes cannot make a tick late. Sessions live on I/O shards: an io_context and a
// thread each (config.io_threads), given connections in turn by the acceptor. The two sides talk
// only by posting handlers (commands and hellos to the hub, replies and frames to a session's
// shard), through the atomic counters, and through a few small locked things (admission counts,
// a shard's session list, a session's ViewerInbox, the tick histogram, the log). A handler posted
// to the hub never owns a session: only shards destroy sessions.
#include "net/server.hpp"

#include <algorithm>
#include <array>
#include <atomic>
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

#include "exec/thread_pool.hpp"
#include "net/binary_feed.hpp"
#include "net/http_files.hpp"
#include "net/limits.hpp"
#include "net/outbound.hpp"
#include "net/tick_clock.hpp"
#include "protocol/codec.hpp"

namespace herd::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr auto kHttpTimeout = std::chrono::seconds(30);
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kStopGrace = std::chrono::milliseconds(1500);
constexpr auto kCloseGrace = std::chrono::seconds(5);     // a close not delivered by then: drop
constexpr auto kSweepPeriod = std::chrono::milliseconds(250);  // slow-consumer and close checks
constexpr std::string_view kServerName = "herd/" HERD_VERSION;

SharedText share(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Seconds on the steady clock, for the token buckets.
double now_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

}  // namespace

class WsSession;
class HttpSession;

// A snapshot for one session, from the hub to the session's shard.
struct Delivery {
  std::weak_ptr<WsSession> session;  // weak: a session ends on its shard, never on the hub
  SharedText frame;
  bool binary = false;
};

// An I/O thread's io_context and the sessions on it (for the sweep and for stop).
struct Shard {
  std::size_t index = 0;
  // Before the io_context: destroying it destroys sessions, which leave these lists. Locked:
  // sessions end on this thread, or on the one destroying the io_context.
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<WsSession>> ws;
  std::unordered_map<HttpSession*, std::weak_ptr<HttpSession>> http;
  asio::io_context ioc{1};
  asio::steady_timer sweep_timer{ioc};
  Outbox<Delivery> outbox;  // snapshots handed over by the hub, not yet given to the sessions
  // The hub's thread: adds frames of snapshot number `snapshot` (several calls may add to one).
  // Returns how many frames were skipped.
  std::size_t deliver(std::uint64_t snapshot, std::vector<Delivery> frames);
  template <class K, class T>
  static std::vector<std::shared_ptr<T>> alive(const std::unordered_map<K, std::weak_ptr<T>>& from);
  void sweep();
  void close_all();
};

struct Server::Impl {
  // Any thread. Declared before the io_contexts so they outlive them: destroying an io_context
  // destroys pending handlers, which destroys sessions, which count themselves out here.
  struct Counters {
    std::atomic<std::uint64_t> tick{0}, overruns{0}, ticks_dropped{0}, late_wakes{0}, sessions{0}, snapshots_sent{0},
        commands_accepted{0}, commands_rejected{0}, agents{0}, bytes_out{0}, refusals{0};
    std::atomic<std::uint64_t> viewers{0}, commanders{0}, ungreeted{0};
    // Snapshots not written to a session, by reason: replaced in a session's lane, skipped by an
    // I/O thread behind, held back from a binary session behind on acks, not encoded before the
    // world was replaced.
    std::atomic<std::uint64_t> snapshots_replaced{0}, snapshots_skipped{0}, snapshots_held{0}, snapshots_superseded{0};
    std::uint64_t snapshots_dropped() const {
      return snapshots_replaced + snapshots_skipped + snapshots_held + snapshots_superseded;
    }
    std::atomic<std::int64_t> deadline_ns{0};  // the next tick's deadline on the steady clock
    std::atomic<bool> paused{false};  // written by the hub only
  } counters;
  std::array<std::atomic<std::uint64_t>, kRefusalCount> refusals{};
  std::array<std::atomic<std::uint64_t>, kErrorCodeCount> errors_by_code{};
  std::mutex admission_mutex;
  AddressCounts per_address;   // open WebSocket sessions per IP address (admission_mutex)
  std::size_t ws_open = 0;     // WebSocket sessions counted against max_sessions (admission_mutex)
  std::atomic<std::size_t> ws_alive{0};    // WebSocket session objects, refused ones and handshakes included
  std::atomic<std::size_t> http_alive{0};  // HTTP session objects
  std::atomic<std::uint64_t> next_session_id{1};
  std::atomic<bool> stopping{false};
  mutable std::mutex histogram_mutex;
  TickHistogram tick_duration;  // written by the hub, read by /metrics
  TickHistogram command_reply;  // written by the shards, read by /metrics
  void observe_reply(Clock::duration d) {
    const std::lock_guard lock(histogram_mutex);
    command_reply.observe(std::chrono::duration<double>(d).count());
  }
  mutable std::mutex log_mutex;
  const ServerConfig config_at_start;  // what sessions read: never changes (the hub's copy does)

  // The hub's thread only.
  struct Client {
    std::weak_ptr<WsSession> session;
    Shard* shard = nullptr;
    std::shared_ptr<ViewerInbox> inbox;
    bool greeted = false;
    protocol::Role role = protocol::Role::viewer;
    protocol::SnapshotFormat format = protocol::SnapshotFormat::json;
    BinaryViewer binary;  // viewport, acknowledged ticks and frames sent (binary snapshots)
    std::vector<std::uint32_t> inspect;  // agents whose avoidance this client wants traced
    // Whether this client's snapshot now is binary (hello's format; auto: by the world's size).
    bool wants_binary(std::size_t agents) const {
      return format == protocol::SnapshotFormat::binary ||
             (format == protocol::SnapshotFormat::automatic && agents > protocol::kAutoBinaryAgents);
    }
  };
  std::unordered_map<std::uint64_t, Client> clients;  // joined WebSocket sessions by id
  ServerConfig config;
  sim::World world;
  exec::ThreadPool pool;  // lent to the world: its per-agent stages run on config.sim_threads threads
  TickSchedule schedule;
  SnapshotCadence cadence;
  std::uint64_t overruns_before = 0, dropped_before = 0, late_wakes_before = 0;  // from schedules replaced by a restart
  std::vector<sim::CollisionEvent> pending_collisions;  // since the last snapshot, at most the cap
  std::uint64_t map_version_sent = 0;  // the world's map version the last snapshot carried
  BinaryFeed binary_feed;              // quantised snapshots and binary frames (issue 11)
  std::uint64_t last_checkpoint_tick = 0;
  std::uint64_t snapshots_made = 0;    // broadcasts so far (the shards' outboxes tell them apart)
  Clock::time_point start_time;

  asio::io_context ioc{1};  // the hub's
  asio::steady_timer tick_timer{ioc};
  asio::steady_timer stop_timer{ioc};
  std::vector<std::unique_ptr<Shard>> shards;  // after ioc: destroyed first, their sessions post here
  std::optional<tcp::acceptor> acceptor;       // on shards[0]; destroyed before it
  std::size_t next_shard = 0;                  // shards[0]'s thread only

  Impl(ServerConfig c, sim::World w)
      : config_at_start(c),
        config(std::move(c)),
        world(std::move(w)),
        pool(std::max<std::size_t>(config.sim_threads, 1)),
        schedule(config.tick_rate, config.max_catchup_ticks),
        cadence(config.tick_rate, config.snapshot_rate) {
    world.set_executor(&pool);
    map_version_sent = world.map_version();  // a scenario's map is already in every welcome
    last_checkpoint_tick = world.tick();     // a restored world was just checkpointed
    for (std::size_t i = 0; i < std::max<std::size_t>(config.io_threads, 1); ++i) {
      shards.push_back(std::make_unique<Shard>());
      shards.back()->index = i;
    }
    acceptor.emplace(shards.front()->ioc);
    publish_counters();
  }

  // Any thread.
  void count_error(protocol::ErrorCode code) { ++errors_by_code[static_cast<std::size_t>(code)]; }
  // A limit a client hit: counted, and logged as a warning (never with a token's value).
  void refused(Refusal why, std::string_view who) {
    ++refusals[static_cast<std::size_t>(why)];
    ++counters.refusals;
    log(LogLevel::warn, "refused", {{"reason", std::string(to_string(why))}, {"from", std::string(who)}});
  }
  void log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) const {
    if (!config_at_start.log) return;
    std::string line = format_log(level, event, fields);
    const std::lock_guard lock(log_mutex);
    config_at_start.log(line);
  }
  std::string metrics_text() const;
  // How far the tick loop is behind its schedule (0 when on time).
  std::chrono::milliseconds behind() const;

  // shards[0]'s thread.
  void do_accept();

  // The hub's thread.
  void start_ticking();
  void schedule_tick();
  void on_tick();
  void publish_counters();
  void broadcast_snapshot();
  static constexpr std::size_t kViewersPerStep = 128;
  void hand_over(std::vector<std::vector<Delivery>>& by_shard);
  void send_binary(const std::vector<std::uint64_t>& ids, std::size_t from, std::size_t to);
  // The viewers whose frames of the last snapshot are still to be encoded (send_binary_in_steps).
  struct PendingFrames {
    std::vector<std::uint64_t> ids;
    std::size_t next = 0;
    std::uint64_t made = 0, sequence = 0;  // the snapshot: snapshots_made, binary_feed.sequence()
  } pending_frames;
  bool step_posted = false;
  void send_binary_in_steps(std::vector<std::uint64_t> ids);
  bool send_next_step();  // one step; true when more are left
  void finish_steps();    // every step left, now
  void begin_stop();
  void finish_stop(Clock::time_point deadline);
  void update_inspected();
  void step_now(int ticks);
  void keep_collisions();
  void restart_schedule();
  void replace_world(sim::World next, std::string scenario);
  void send_welcomes();
  std::uint64_t total_overruns() const { return overruns_before + schedule.overruns(); }
  std::uint64_t total_dropped() const { return dropped_before + schedule.ticks_dropped(); }
  std::uint64_t total_late_wakes() const { return late_wakes_before + schedule.late_wakes(); }
  protocol::Welcome make_welcome(std::uint64_t session, protocol::Role role) const;
  // What sessions post here (each request with an answer gets exactly one reply()).
  void join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard, std::shared_ptr<ViewerInbox> inbox);
  void leave(std::uint64_t id);
  void hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format);
  void inspect(std::uint64_t id, std::vector<std::uint32_t> agents);
  void command(std::uint64_t id, const protocol::CommandMsg& cmd);
  void control(std::uint64_t id, const protocol::ControlMsg& msg);
  // The answer to a session's request, posted to its shard (nothing when it has ended); then the
  // close, if one is given (a reply the session made itself, relayed to keep the order).
  void reply(std::uint64_t id, SharedText msg, std::optional<websocket::close_code> then_close = {});
  // Runs fn on the session's shard, with the session, if it is still there.
  template <class Fn>
  void post_to(const Client& client, Fn fn);
};

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
    if (joined_) asio::post(hub_.ioc, [hub = &hub_, id = id_] { hub->leave(id); });
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
  void on_reply(SharedText msg, std::optional<websocket::close_code> then_close = {}) {
    if (const auto asked = awaiting_.front()) hub_.observe_reply(Clock::now() - *asked);
    awaiting_.pop_front();
    send_reply(std::move(msg), then_close);
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
    hub_.log(LogLevel::info, "session_opened", {{"session", std::to_string(id_)}, {"address", address_}});
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
    // Snapshot acks (issue 11) come at the snapshot rate and must not eat the command budget:
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
      else handle(std::move(*decoded));
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

  void send_reply(SharedText msg, std::optional<websocket::close_code> then_close) {
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
  void answer(SharedText msg, std::optional<websocket::close_code> then_close = {}) {
    if (awaiting_.empty()) return send_reply(std::move(msg), then_close);
    ask_hub([hub = &hub_, id = id_, msg = std::move(msg), then_close]() mutable { hub->reply(id, std::move(msg), then_close); });
  }

  void handle(protocol::Decoded<protocol::ClientMessage> decoded) {
    if (auto* err = std::get_if<protocol::Error>(&decoded)) {
      hub_.count_error(err->code);
      if (err->code == protocol::ErrorCode::too_deep) hub_.refused(Refusal::too_deep, address_);
      if (err->code == protocol::ErrorCode::protocol_mismatch)
        return answer(share(protocol::encode(*err)), websocket::close_code::protocol_error);
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
    // Applied and answered by the hub as it gets it, between ticks: the same world as applying it
    // at the next tick's start (nothing else happens in between), and the ack does not wait for
    // that tick.
    ask_hub([hub = &hub_, id = id_, cmd = std::move(cmd)] { hub->command(id, cmd); }, true);
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
    hub_.log(LogLevel::info, "hello", {{"session", std::to_string(id_)}, {"role", std::string(protocol::to_string(role_))},
                                       {"client", hello.client}, {"format", std::string(protocol::to_string(hello.format))}});
    ask_hub([hub = &hub_, id = id_, role = role_, format = hello.format] { hub->hello(id, role, format); });
  }

  void send_error(std::optional<std::uint32_t> seq, protocol::ErrorCode code, std::string message) {
    if (seq) ++hub_.counters.commands_rejected;
    hub_.count_error(code);
    answer(share(protocol::encode(protocol::Error{seq, code, std::move(message)})));
  }

  // One write at a time: control messages first, then the latest snapshot, then a pending close.
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
    stream_.expires_after(kHttpTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ec) return close();  // end of stream, timeout, or a malformed request
    http::request<http::string_body> req = parser_->release();
    if (websocket::is_upgrade(req) && req.target() == "/ws") {
      const auto origin = req.find(http::field::origin);
      const bool has_origin = origin != req.end();
      if (!origin_allowed(config_.allowed_origins, has_origin ? std::string_view(origin->value()) : std::string_view(),
                          has_origin)) {
        beast::error_code ec;
        const auto peer = stream_.socket().remote_endpoint(ec);
        hub_.refused(Refusal::origin, ec ? std::string("?") : peer.address().to_string());
        auto res = plain(req, http::status::forbidden, "this Origin may not open a WebSocket here\n");
        res.keep_alive(false);
        return write(std::move(res));
      }
      stream_.expires_never();
      std::make_shared<WsSession>(stream_.release_socket(), hub_, shard_)->run(std::move(req));
      return;
    }
    write(respond(req));
  }

  static http::response<http::string_body> make(const http::request<http::string_body>& req, http::status status,
                                                std::string_view type, std::string body) {
    http::response<http::string_body> res{status, req.version()};
    res.set(http::field::server, kServerName);
    res.set(http::field::content_type, type);
    res.set(http::field::cache_control, "no-cache");
    res.set("X-Content-Type-Options", "nosniff");
    res.keep_alive(req.keep_alive());
    const std::size_t length = body.size();
    if (req.method() != http::verb::head) res.body() = std::move(body);
    res.prepare_payload();
    if (req.method() == http::verb::head) res.content_length(length);  // HEAD: headers of GET
    return res;
  }

  static http::response<http::string_body> plain(const http::request<http::string_body>& req, http::status status,
                                                 std::string body) {
    return make(req, status, "text/plain; charset=utf-8", std::move(body));
  }

  http::response<http::string_body> respond(const http::request<http::string_body>& req) {
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      auto res = plain(req, http::status::method_not_allowed, "only GET and HEAD\n");
      res.set(http::field::allow, "GET, HEAD");
      return res;
    }
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/healthz") {
      // Healthy while the tick loop keeps to its schedule (within a second).
      const auto behind = hub_.behind();
      const bool late = behind > std::chrono::seconds(1);
      return make(req, late ? http::status::service_unavailable : http::status::ok, "application/json",
                  std::string("{\"status\":\"") + (late ? "late" : "ok") + "\",\"tick\":" + std::to_string(hub_.counters.tick.load()) +
                      ",\"behind_ms\":" + std::to_string(behind.count()) + "}\n");
    }
    if (path == "/metrics") return make(req, http::status::ok, "text/plain; version=0.0.4; charset=utf-8", hub_.metrics_text());
    if (path == "/ws") return plain(req, http::status::upgrade_required, "WebSocket upgrade required\n");
    FileResponse file = serve_file(target, config_.web_root);
    return make(req, static_cast<http::status>(file.status), file.content_type, std::move(file.body));
  }

  void write(http::response<http::string_body> res) {
    auto shared = std::make_shared<http::response<http::string_body>>(std::move(res));
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
};

// ---- shards: accept, sweep, close -------------------------------------------------------------

void Server::Impl::do_accept() {
  // Each connection goes to the next shard in turn: its socket is made on that shard's
  // io_context, and its session starts there.
  Shard& shard = *shards[next_shard];
  next_shard = (next_shard + 1) % shards.size();
  acceptor->async_accept(shard.ioc, [this, &shard](beast::error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (!ec)
      asio::post(shard.ioc, [this, &shard, socket = std::move(socket)]() mutable {
        std::make_shared<HttpSession>(std::move(socket), *this, shard)->run();
      });
    do_accept();  // a failed accept (e.g. out of descriptors) must not stop the listener
  });
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
  if (added.post)
    asio::post(ioc, [this] {
      for (auto& [n, deliveries] : outbox.take())
        for (Delivery& d : deliveries)
          if (auto s = d.session.lock()) s->send_snapshot(std::move(d.frame), d.binary);
    });
  return added.skipped;
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

// ---- the hub: sessions' requests, tick, broadcast ------------------------------------------------

protocol::Welcome Server::Impl::make_welcome(std::uint64_t session, protocol::Role role) const {
  protocol::Welcome w;
  w.server = std::string(kServerName);
  w.session = session;
  w.role = role;
  w.tick_rate = config.tick_rate;
  w.snapshot_rate = config.snapshot_rate;
  w.dt = world.def().dt;
  w.tick = world.tick();
  w.world = {world.def().width, world.def().height};
  w.max_message_bytes = static_cast<std::uint32_t>(config.max_message_bytes);
  w.max_agents = world.def().max_agents;
  w.map = protocol::map_state(world);
  return w;
}

template <class Fn>
void Server::Impl::post_to(const Client& client, Fn fn) {
  // A weak pointer: the session, if it is still there, is found on its shard; it never ends here.
  asio::post(client.shard->ioc, [weak = client.session, fn = std::move(fn)]() mutable {
    if (auto session = weak.lock()) fn(*session);
  });
}

void Server::Impl::reply(std::uint64_t id, SharedText msg, std::optional<websocket::close_code> then_close) {
  if (auto it = clients.find(id); it != clients.end())
    post_to(it->second, [msg = std::move(msg), then_close](WsSession& s) mutable { s.on_reply(std::move(msg), then_close); });
}

void Server::Impl::join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard, std::shared_ptr<ViewerInbox> inbox) {
  Client& c = clients[id];
  c.session = std::move(session);
  c.shard = shard;
  c.inbox = std::move(inbox);
  ++counters.ungreeted;
  counters.sessions = clients.size();
}

void Server::Impl::leave(std::uint64_t id) {
  auto it = clients.find(id);
  if (it == clients.end()) return;
  const Client& c = it->second;
  (!c.greeted ? counters.ungreeted : c.role == protocol::Role::viewer ? counters.viewers : counters.commanders)--;
  const bool inspected = !c.inspect.empty();
  clients.erase(it);
  counters.sessions = clients.size();
  if (inspected) update_inspected();
  log(LogLevel::info, "session_closed", {{"session", std::to_string(id)}});
}

void Server::Impl::hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format) {
  auto it = clients.find(id);
  if (it == clients.end()) return;
  Client& c = it->second;
  c.greeted = true;
  c.role = role;
  c.format = format;
  --counters.ungreeted;
  ++(role == protocol::Role::viewer ? counters.viewers : counters.commanders);
  reply(id, share(protocol::encode(make_welcome(id, role))));
}

void Server::Impl::inspect(std::uint64_t id, std::vector<std::uint32_t> agents) {
  if (auto it = clients.find(id); it != clients.end()) {
    it->second.inspect = std::move(agents);
    update_inspected();
  }
}

void Server::Impl::start_ticking() {
  start_time = Clock::now();
  schedule_tick();
}

void Server::Impl::schedule_tick() {
  const auto deadline = start_time + schedule.next_deadline();
  counters.deadline_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  tick_timer.expires_at(deadline);
  tick_timer.async_wait([this](beast::error_code ec) {
    if (!ec && !stopping) on_tick();
  });
}

void Server::Impl::on_tick() {
  // The only place that reads the clock. Runs at most max_catchup ticks per wake.
  if (counters.paused) {
    // Wake once a period (the schedule's deadline is in the past and would fire at once);
    // resume restarts the schedule.
    tick_timer.expires_after(std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / config.tick_rate)));
    tick_timer.async_wait([this](beast::error_code ec) {
      if (!ec && !stopping) on_tick();
    });
    return;
  }
  const std::uint64_t overruns_at_wake = schedule.overruns();
  const int due = schedule.due(Clock::now() - start_time);
  const bool overran = schedule.overruns() != overruns_at_wake;
  bool snapshot_due = false;
  if (due > 0) finish_steps();  // frames of the last snapshot not sent yet go before the world moves
  for (int i = 0; i < due; ++i) {
    // Commands were applied and answered as they arrived (command()): the tick only moves the
    // world.
    const auto t0 = Clock::now();
    world.step();
    {
      const std::lock_guard lock(histogram_mutex);
      tick_duration.observe(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    keep_collisions();
    snapshot_due = cadence.due(world.tick()) || snapshot_due;
  }
  if (overran)
    log(LogLevel::warn, "tick_overrun", {{"tick", std::to_string(world.tick())}, {"ticks_dropped_total", std::to_string(total_dropped())}});
  if (config.on_checkpoint && due > 0) {
    const auto every = static_cast<std::uint64_t>(std::max(1.0, std::round(config.checkpoint_interval / world.def().dt)));
    if (world.tick() / every != last_checkpoint_tick / every) {
      last_checkpoint_tick = world.tick();
      config.on_checkpoint(world);
    }
  }
  publish_counters();
  // A wake that came late ran its ticks back to back and sends one snapshot, after the last:
  // sending each one due among them was measured to make the next wake later still (1,000
  // viewers: 72 to 113 late wakes in 30 s instead of 19 to 30).
  if (snapshot_due) broadcast_snapshot();
  schedule_tick();
}

void Server::Impl::publish_counters() {
  counters.tick = world.tick();
  counters.overruns = total_overruns();
  counters.ticks_dropped = total_dropped();
  counters.late_wakes = total_late_wakes();
  counters.agents = world.agents().size();
}

void Server::Impl::command(std::uint64_t id, const protocol::CommandMsg& cmd) {
  world.queue(cmd.command, sim::CommandOrigin{id, cmd.seq});
  world.apply_queued();
  const sim::CommandOutcome& out = world.outcomes().front();
  if (out.ok() && config.on_applied) config.on_applied(out.tick, cmd.command);
  if (!out.ok()) count_error(protocol::to_error_code(out.error));
  (out.ok() ? counters.commands_accepted : counters.commands_rejected)++;
  reply(id, share(protocol::encode_outcome(out)));
}

void Server::Impl::broadcast_snapshot() {
  finish_steps();  // the last snapshot's frames first
  // The map travels in welcome, and again in the first snapshot after it changes.
  const bool map_changed = world.map_version() != map_version_sent;
  map_version_sent = world.map_version();
  ++snapshots_made;
  // Each format is encoded only when some session takes it: JSON once; binary once per
  // baseline for whole-world sessions and once per session with a viewport (binary_feed).
  // Frames go to each shard in batches (Shard::deliver), which start their writes there.
  std::vector<std::vector<Delivery>> by_shard(shards.size());
  SharedText json;
  const std::size_t agents = world.agents().size();
  std::vector<std::uint64_t> commanders, viewers;
  for (auto& [id, c] : clients) {
    if (!c.greeted) continue;
    if (c.wants_binary(agents)) {
      (c.role == protocol::Role::commander ? commanders : viewers).push_back(id);
      continue;
    }
    if (!json) json = share(protocol::encode_snapshot(world, pending_collisions, map_changed));
    by_shard[c.shard->index].push_back({c.session, json, false});
  }
  hand_over(by_shard);
  if (!commanders.empty() || !viewers.empty()) {
    // Encoded on the sim's thread pool, which is idle between ticks.
    binary_feed.begin(world, protocol::encode_side(world, pending_collisions, map_changed).value_or(std::string()));
    // Commanders' frames first, handed over before the others are encoded: they wait to see
    // their commands.
    send_binary(commanders, 0, commanders.size());
    send_binary_in_steps(std::move(viewers));
  }
  pending_collisions.clear();
}

void Server::Impl::hand_over(std::vector<std::vector<Delivery>>& by_shard) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (by_shard[i].empty()) continue;
    const std::size_t skipped = shards[i]->deliver(snapshots_made, std::move(by_shard[i]));
    counters.snapshots_skipped += skipped;
    by_shard[i].clear();
  }
}

void Server::Impl::send_binary(const std::vector<std::uint64_t>& ids, std::size_t from, std::size_t to) {
  std::vector<Client*> group;
  std::vector<BinaryViewer*> batch;
  for (std::size_t k = from; k < to; ++k) {
    const auto it = clients.find(ids[k]);
    if (it == clients.end()) continue;  // left since the snapshot was taken
    Client& c = it->second;
    c.inbox->drain_into(c.binary);  // what the client acknowledged and asked for until now
    group.push_back(&c);
    batch.push_back(&c.binary);
  }
  if (batch.empty()) return;
  std::vector<SharedBytes> frames;
  binary_feed.frames_for(batch, frames, &pool);
  std::vector<std::vector<Delivery>> by_shard(shards.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (!frames[i]) {  // held back: the client has not acknowledged the last frames sent
      ++counters.snapshots_held;
      continue;
    }
    by_shard[group[i]->shard->index].push_back({group[i]->session, std::move(frames[i]), true});
  }
  hand_over(by_shard);
}

// The viewers' frames kViewersPerStep at a time, each step posted behind what is queued on this
// thread: a command that arrives meanwhile waits for one step, not for every viewer's frame. The
// next tick (or a step by hand) sends what is left before it moves the world, so no viewer misses
// the snapshot; only a replaced world drops it (counted as dropped, superseded).
void Server::Impl::send_binary_in_steps(std::vector<std::uint64_t> ids) {
  pending_frames = {std::move(ids), 0, snapshots_made, binary_feed.sequence()};
  send_next_step();
}

bool Server::Impl::send_next_step() {
  PendingFrames& p = pending_frames;
  if (p.next >= p.ids.size()) return false;
  if (p.made != snapshots_made || p.sequence != binary_feed.sequence() || binary_feed.empty()) {
    counters.snapshots_superseded += p.ids.size() - p.next;
    p = {};
    return false;
  }
  const std::size_t to = std::min(p.ids.size(), p.next + kViewersPerStep);
  send_binary(p.ids, p.next, to);
  p.next = to;
  if (p.next == p.ids.size()) {
    p = {};
    return false;
  }
  if (!step_posted) {
    step_posted = true;
    asio::post(ioc, [this] {
      step_posted = false;
      send_next_step();
    });
  }
  return true;
}

void Server::Impl::finish_steps() {
  while (send_next_step()) {
  }
}

void Server::Impl::restart_schedule() {
  // A fresh schedule from now: no burst of catch-up ticks after a pause or a rate change.
  overruns_before += schedule.overruns();
  dropped_before += schedule.ticks_dropped();
  late_wakes_before += schedule.late_wakes();
  schedule = TickSchedule(config.tick_rate, config.max_catchup_ticks);
  cadence = SnapshotCadence(config.tick_rate, config.snapshot_rate);
  start_time = Clock::now();
  tick_timer.cancel();
  schedule_tick();
}

// The step's collisions, kept for the next snapshot up to its cap.
void Server::Impl::keep_collisions() {
  for (const sim::CollisionEvent& e : world.collisions()) {
    if (pending_collisions.size() >= protocol::kMaxCollisionsPerSnapshot) return;
    pending_collisions.push_back(e);
  }
}

void Server::Impl::step_now(int ticks) {
  for (int i = 0; i < ticks; ++i) {
    world.step();
    keep_collisions();
  }
  publish_counters();
}

void Server::Impl::send_welcomes() {
  for (auto& [id, c] : clients)
    if (c.greeted)
      post_to(c, [msg = share(protocol::encode(make_welcome(id, c.role)))](WsSession& s) mutable {
        s.send_control(std::move(msg));
      });
}

void Server::Impl::replace_world(sim::World next, std::string scenario) {
  // No command waits for the old world: each was applied and answered as it arrived.
  world = std::move(next);
  world.set_executor(&pool);
  config.scenario = std::move(scenario);
  config.tick_rate = 1.0 / world.def().dt;  // the new world's own rate
  config.snapshot_rate = std::min(config.snapshot_rate, config.tick_rate);
  pending_collisions.clear();
  map_version_sent = world.map_version();
  last_checkpoint_tick = world.tick();
  binary_feed.clear();  // ticks start again: every baseline is gone
  for (auto& [id, c] : clients) {
    c.inbox->clear();  // acks of the old world's ticks
    c.binary.reset();
  }
  update_inspected();
  if (config.on_world_replaced) config.on_world_replaced(config.scenario, world);
  log(LogLevel::info, "world_replaced", {{"scenario", config.scenario}, {"seed", std::to_string(world.def().seed)}});
  restart_schedule();
}

void Server::Impl::control(std::uint64_t from, const protocol::ControlMsg& msg) {
  // The answer goes first, then what the control changed (a welcome, a snapshot): a client that
  // waits for the ack then sees the snapshot that reflects it.
  bool welcome_all = false, snapshot_after = false;
  auto refuse = [&](protocol::ErrorCode code, std::string message) {
    count_error(code);
    ++counters.commands_rejected;
    reply(from, share(protocol::encode(protocol::Error{msg.seq, code, std::move(message)})));
  };
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, protocol::Pause>) {
          counters.paused = true;
        } else if constexpr (std::is_same_v<T, protocol::Resume>) {
          if (counters.paused) {
            counters.paused = false;
            restart_schedule();
          }
        } else if constexpr (std::is_same_v<T, protocol::StepTicks>) {
          if (!counters.paused) return refuse(protocol::ErrorCode::not_paused, "step runs ticks by hand: pause first");
          step_now(static_cast<int>(c.ticks));
          snapshot_after = true;
        } else if constexpr (std::is_same_v<T, protocol::SetParam>) {
          const double tick_rate = c.tick_rate.value_or(config.tick_rate);
          const double snapshot_rate = c.snapshot_rate.value_or(config.snapshot_rate);
          if (snapshot_rate > tick_rate)
            return refuse(protocol::ErrorCode::bad_field, "'snapshot_rate' must not exceed the tick rate");
          config.tick_rate = tick_rate;
          config.snapshot_rate = snapshot_rate;
          restart_schedule();
          welcome_all = true;
        } else {  // Reset, LoadScenario
          if (!config.load_world) return refuse(protocol::ErrorCode::unknown_scenario, "this server cannot load scenarios");
          std::string name;
          std::optional<std::uint64_t> seed = c.seed;
          if constexpr (std::is_same_v<T, protocol::Reset>) {
            name = config.scenario;
            if (!seed) seed = world.def().seed;
          } else {
            name = c.name;
          }
          auto next = config.load_world(name, seed);
          if (auto* why = std::get_if<std::string>(&next)) return refuse(protocol::ErrorCode::unknown_scenario, *why);
          replace_world(std::move(std::get<sim::World>(next)), name);
          welcome_all = snapshot_after = true;
        }
        ++counters.commands_accepted;
        reply(from, share(protocol::encode(protocol::Ack{msg.seq, world.tick(), {}, {}, {}, {}})));
      },
      msg.control);
  if (welcome_all) send_welcomes();
  if (snapshot_after) broadcast_snapshot();
}

std::chrono::milliseconds Server::Impl::behind() const {
  if (counters.paused) return std::chrono::milliseconds(0);  // paused on purpose is not late
  const Clock::time_point due{std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(counters.deadline_ns.load()))};
  const auto late = Clock::now() - due;
  return late > Clock::duration::zero() ? std::chrono::duration_cast<std::chrono::milliseconds>(late)
                                        : std::chrono::milliseconds(0);
}

// Any thread: from the counters, so that /metrics and /healthz answer while a tick runs.
std::string Server::Impl::metrics_text() const {
  MetricsView m;
  m.tick = counters.tick;
  m.overruns = counters.overruns;
  m.ticks_dropped = counters.ticks_dropped;
  m.late_wakes = counters.late_wakes;
  m.agents = counters.agents;
  m.viewers = counters.viewers;
  m.commanders = counters.commanders;
  m.ungreeted = counters.ungreeted;
  m.snapshots_sent = counters.snapshots_sent;
  m.snapshots_dropped = counters.snapshots_dropped();
  m.snapshots_replaced = counters.snapshots_replaced;
  m.snapshots_skipped = counters.snapshots_skipped;
  m.snapshots_held = counters.snapshots_held;
  m.snapshots_superseded = counters.snapshots_superseded;
  m.bytes_out = counters.bytes_out;
  m.commands_accepted = counters.commands_accepted;
  m.commands_rejected = counters.commands_rejected;
  for (std::size_t i = 0; i < kErrorCodeCount; ++i) m.errors_by_code[i] = errors_by_code[i];
  for (std::size_t i = 0; i < kRefusalCount; ++i) m.refusals[i] = refusals[i];
  m.resident_bytes = resident_memory_bytes();
  m.http_connections = http_alive;
  m.ws_connections = ws_alive;
  {
    const std::lock_guard lock(histogram_mutex);
    m.tick_duration = tick_duration;
    m.command_reply = command_reply;
  }
  return render_prometheus(m);
}

// The world traces the union of what every session inspects (bounded by the world's limit).
void Server::Impl::update_inspected() {
  std::vector<sim::AgentId> ids;
  for (auto& [id, c] : clients) ids.insert(ids.end(), c.inspect.begin(), c.inspect.end());
  world.set_inspected(std::move(ids));
}

void Server::Impl::begin_stop() {
  if (stopping.exchange(true)) return;
  log(LogLevel::info, "stopping", {{"tick", std::to_string(world.tick())}, {"sessions", std::to_string(clients.size())}});
  tick_timer.cancel();
  asio::post(shards.front()->ioc, [this] {
    beast::error_code ec;
    acceptor->close(ec);
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
    : impl_(std::make_unique<Impl>(std::move(config), std::move(world))) {}

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
  s.ioc.run();
  for (auto& t : io_threads) t.join();
}

void Server::stop() {
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->begin_stop(); });
}

std::uint64_t Server::state_hash() const { return impl_->world.state_hash(); }
const sim::World& Server::world() const { return impl_->world; }

ServerStats Server::stats() const {
  const auto& c = impl_->counters;
  return {c.tick, c.overruns, c.ticks_dropped, c.sessions, c.snapshots_sent, c.snapshots_dropped(),
          c.commands_accepted, c.commands_rejected, c.agents, c.refusals};
}

}  // namespace herd::net
