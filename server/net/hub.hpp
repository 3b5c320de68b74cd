// The hub: the server's side that owns the world (Server::Impl). The I/O threads are shards
// (shard.hpp); the sessions on them (websocket_session.hpp, http_session.hpp) reach the hub only
// through SessionHub (session_hub.hpp), and the listener (listener.cpp) hands them connections.
// This header includes only Asio's io_context and timers, none of Beast, so that the tick loop,
// commands and broadcast compile on their own.
//
// Threads. The hub (the world, the tick loop, commands, snapshot encoding) runs on the thread
// that calls run(), on its own io_context; sockets never run there, so a thousand sessions'
// reads and writes cannot make a tick late. Sessions live on I/O shards: an io_context and a
// thread each (config.io_threads), given connections in turn by the acceptor. The two sides talk
// only by posting handlers (commands and hellos to the hub, replies and frames to a session's
// shard), through the atomic counters, and through a few small locked things (admission counts,
// a shard's session list, a session's ViewerInbox, the tick histogram, the log). A handler posted
// to the hub never owns a session: only shards destroy sessions.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exec/thread_pool.hpp"
#include "net/binary_feed.hpp"
#include "net/io.hpp"
#include "net/admission.hpp"
#include "net/limits.hpp"
#include "net/listener.hpp"
#include "net/observability.hpp"
#include "net/outbound.hpp"
#include "net/server.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"
#include "net/tick_clock.hpp"
#include "net/upstream.hpp"

namespace herd::net {

struct Server::Impl {
  // Any thread. Declared before the io_contexts so they outlive them: destroying an io_context
  // destroys pending handlers, which destroys sessions, which count themselves out here.
  const ServerConfig config_at_start;  // what sessions read: never changes (the hub's copy does)
  Observability observe;               // counters, refusals, histograms, the log
  Observability::Counters& counters = observe.counters();
  std::atomic<std::int64_t> deadline_ns{0};  // the next tick's deadline on the steady clock
  std::atomic<bool> paused{false};           // written by the hub only
  Admission admission;                 // connections and sessions against their limits
  std::atomic<std::uint64_t> next_session_id{1};
  std::atomic<bool> stopping{false};

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
  BinaryFeed binary_feed;              // quantised snapshots and binary frames
  std::uint64_t last_checkpoint_tick = 0;
  std::uint64_t snapshots_made = 0;    // broadcasts so far (the shards' outboxes tell them apart);
                                       // each snapshot carries its number as `serial`
  std::vector<std::string> scenario_names;  // config.list_scenarios(), as welcomes list them
  Clock::time_point start_time;

  asio::io_context ioc{1};  // the hub's
  asio::steady_timer tick_timer{ioc};
  asio::steady_timer stop_timer{ioc};
  // SIGINT and SIGTERM, when stop_on_signals() asked for them: they begin the stop on this thread.
  std::unique_ptr<asio::signal_set> signals;
  std::function<void(int)> on_signal;
  void wait_for_signal();
  std::vector<std::unique_ptr<Shard>> shards;  // after ioc: destroyed first, their sessions post here
  // Relay mode (config.relay_upstream set): the world comes from an upstream server (relay.hpp,
  // relay.cpp); `world` then stays empty and the tick loop does not run. After the io_contexts:
  // its timers go before them. A shared_ptr, as Relay is incomplete here.
  struct Relay;
  std::shared_ptr<Relay> relay;
  bool relaying() const { return relay != nullptr; }
  std::optional<Listener> listener;  // its socket is on shards[0]: destroyed before it

  Impl(ServerConfig c, sim::World w)
      : config_at_start(sessions_config(c)),
        observe(config_at_start.log, config_at_start.log_format),
        admission(config_at_start.max_connections, config_at_start.max_sessions, config_at_start.max_sessions_per_address),
        config(std::move(c)),
        world(std::move(w)),
        pool(std::max<std::size_t>(config.sim_threads, 1)),
        schedule(config.tick_rate, config.max_catchup_ticks),
        cadence(config.tick_rate, config.snapshot_rate) {
    world.set_executor(&pool);
    if (config.list_scenarios) scenario_names = config.list_scenarios();
    map_version_sent = world.map_version();  // a scenario's map is already in every welcome
    last_checkpoint_tick = world.tick();     // a restored world was just checkpointed
    for (std::size_t i = 0; i < std::max<std::size_t>(config.io_threads, 1); ++i) {
      shards.push_back(std::make_unique<Shard>());
      shards.back()->index = i;
    }
    listener.emplace(shards, admission, observe, SessionHub(*this), stopping);
    publish_counters();
  }

  // A relay checks no command token of its own: each commander's goes upstream on its own link,
  // and the upstream decides what it allows.
  static ServerConfig sessions_config(ServerConfig c) {
    if (!c.relay_upstream.empty()) c.command_token.clear();
    return c;
  }

  // Any thread.
  void count_error(protocol::ErrorCode code) { observe.count_error(code); }
  void refused(Refusal why, std::string_view who) { observe.refused(why, who); }
  void log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) const {
    observe.log(level, event, fields);
  }
  void log_from(std::string_view who, LogLevel level, std::string_view event, std::initializer_list<LogField> fields) {
    observe.log_from(who, level, event, fields);
  }
  std::string metrics_text() const;
  // How far the tick loop is behind its schedule (0 when on time).
  std::chrono::milliseconds behind() const;

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
  // `step N` while paused runs in slices, each posted behind what is queued on this thread, so
  // snapshots, /healthz and other sessions' commands get through between them. A slice runs at
  // most kStepSliceTicks ticks and stops early once it has taken half a tick interval (it may
  // read the clock: the world's ticks are the same whatever the slicing). The ack follows the
  // last tick, as it did when all ran at once; runs wait their turn in arrival order.
  struct StepRun {
    std::uint64_t from = 0;
    std::uint32_t seq = 0;
    std::uint32_t left = 0;
  };
  std::deque<StepRun> step_runs;
  bool step_slice_posted = false;
  static constexpr int kStepSliceTicks = 4;
  void post_step_slice();
  void step_slice();
  void end_step_runs();  // resume or a new world: the ticks left are dropped, each run acked now
  void keep_collisions();
  void restart_schedule();
  void replace_world(sim::World next, std::string scenario);
  void send_welcomes(bool new_world);
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
  // then_close is a WebSocket close code.
  void reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close = {});

  // Relay mode (relay.cpp), the hub's thread.
  void relay_start();
  void relay_stop();
  void relay_hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format, std::string token, std::string client);
  // A command or control from session `id`, as its client wrote it: sent upstream on the
  // session's link; its answer comes back with reply().
  void relay_forward(std::uint64_t id, std::uint32_t seq, std::string text);
  void relay_leave(std::uint64_t id);
  protocol::Welcome relay_welcome(std::uint64_t session, protocol::Role role) const;
  void relay_connect();
  void relay_retry_later();
  void relay_on_main(std::uint64_t generation, std::string text);
  void relay_on_main_closed(std::uint64_t generation, const std::string& why);
  void relay_snapshot(std::string text, std::uint64_t tick);
  void relay_new_world();
  void relay_send_inspect();
  void relay_open_command_link(std::uint64_t id);
  void relay_on_command(std::uint64_t id, std::uint64_t generation, std::string text);
  void relay_on_command_opened(std::uint64_t id, std::uint64_t generation);
  void relay_on_command_closed(std::uint64_t id, std::uint64_t generation, const std::string& why);
  void relay_finish_hello(std::uint64_t id);
  UpstreamLink::Events relay_events(std::uint64_t generation, std::optional<std::uint64_t> commander);
};

}  // namespace herd::net
