// The hub (Server::Impl): sessions' requests, the tick loop, commands and world changes, on
// the hub's thread (the broadcast of snapshots: broadcast.cpp). See hub.hpp for the threads.
#include "net/hub.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cmath>

#include "net/relay.hpp"
#include "publish/world_messages.hpp"
#include "protocol/codec.hpp"

namespace herd::net {

// ---- the hub: sessions' requests, tick, commands ---------------------------------------------

protocol::Welcome Server::Impl::make_welcome(std::uint64_t session, protocol::Role role) const {
  if (relay) return relay_welcome(session, role);
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
  w.map = publish::map_state(world);
  w.scenario = config.scenario_name.empty() ? config.scenario : config.scenario_name;
  w.scenarios = scenario_names;
  w.paused = paused;
  return w;
}

void Server::Impl::reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close) {
  if (auto it = clients.find(id); it != clients.end())
    it->second.shard->deliver(Delivery::message(Delivery::Kind::reply, it->second.session, std::move(msg), then_close));
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
  if (relay) relay_leave(id);
  clients.erase(it);
  counters.sessions = clients.size();
  if (inspected) update_inspected();
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
  if (relay) return relay_start();  // the upstream's ticks, not ours
  start_time = Clock::now();
  schedule_tick();
}

void Server::Impl::schedule_tick() {
  const auto deadline = start_time + schedule.next_deadline();
  deadline_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  tick_timer.expires_at(deadline);
  tick_timer.async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopping) on_tick();
  });
}

void Server::Impl::on_tick() {
  // The only place that reads the clock. Runs at most max_catchup ticks per wake.
  if (paused) {
    // Wake once a period (the schedule's deadline is in the past and would fire at once);
    // resume restarts the schedule.
    tick_timer.expires_after(std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / config.tick_rate)));
    tick_timer.async_wait([this](boost::system::error_code ec) {
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
    observe.observe_tick(Clock::now() - t0);
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
  const sim::PathQueueStats paths = world.path_queue_stats();
  counters.path_queue = paths.queued;
  counters.path_expansions = paths.expansions_total;
  counters.paths_served = paths.paths_served_total;
  counters.paths_deferred = paths.deferred_total;
  counters.assignments_pending = world.assignments_pending();
  counters.assignment_work_pending = world.assignment_work_pending();
  std::uint64_t step_ticks = 0;
  for (const StepRun& run : step_runs) step_ticks += run.left;
  counters.step_ticks_pending = step_ticks;
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

void Server::Impl::post_step_slice() {
  if (step_slice_posted || step_runs.empty()) return;
  step_slice_posted = true;
  asio::post(ioc, [this] {
    step_slice_posted = false;
    if (!stopping) step_slice();
  });
}

void Server::Impl::step_slice() {
  if (step_runs.empty()) return;
  StepRun& run = step_runs.front();
  const auto slice_start = Clock::now();
  const auto half_tick = std::chrono::nanoseconds(static_cast<std::int64_t>(0.5e9 / config.tick_rate));
  finish_steps();  // frames of the last snapshot not sent yet go before the world moves (as on_tick)
  bool snapshot_due = false;
  for (int done = 0; run.left > 0 && done < kStepSliceTicks && (done == 0 || Clock::now() - slice_start < half_tick); ++done) {
    const auto t0 = Clock::now();
    world.step();
    observe.observe_tick(Clock::now() - t0);
    keep_collisions();
    --run.left;
    snapshot_due = cadence.due(world.tick()) || snapshot_due;
  }
  publish_counters();
  if (run.left == 0) {
    reply(run.from, share(protocol::encode(protocol::Ack{run.seq, world.tick(), {}, {}, {}, {}})));
    step_runs.pop_front();
    broadcast_snapshot();  // the run's last tick, as PROTOCOL.md promises
  } else if (snapshot_due) {
    broadcast_snapshot();  // viewers see the run go by at the snapshot rate
  }
  post_step_slice();
}

void Server::Impl::end_step_runs() {
  for (const StepRun& run : step_runs)
    reply(run.from, share(protocol::encode(protocol::Ack{run.seq, world.tick(), {}, {}, {}, {}})));
  step_runs.clear();
  publish_counters();
}

void Server::Impl::send_welcomes(bool new_world) {
  for (auto& [id, c] : clients)
    if (c.greeted)
      c.shard->deliver(Delivery::message(new_world ? Delivery::Kind::new_world : Delivery::Kind::control, c.session,
                                         share(protocol::encode(make_welcome(id, c.role)))));
}

void Server::Impl::replace_world(sim::World next, std::string scenario) {
  // No command waits for the old world: each was applied and answered as it arrived; step runs
  // still going are answered now, with the old world's last tick.
  end_step_runs();
  world = std::move(next);
  world.set_executor(&pool);
  config.scenario = std::move(scenario);
  if (config.list_scenarios) scenario_names = config.list_scenarios();  // the directory may have changed
  config.tick_rate = 1.0 / world.def().dt;  // the new world's own rate
  config.snapshot_rate = std::min(config.snapshot_rate, config.tick_rate);
  pending_collisions.clear();
  map_version_sent = world.map_version();
  last_checkpoint_tick = world.tick();
  binary_feed.clear();  // ticks start again: every baseline is gone
  // The old world's frames not yet given to sessions go; those in sessions' lanes go when the
  // new world's welcome reaches them (Delivery::Kind::new_world).
  for (auto& shard : shards) counters.snapshots_superseded += shard->outbox.drop_frames();
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
  bool welcome_all = false, snapshot_after = false, new_world = false;
  auto refuse = [&](protocol::ErrorCode code, std::string message) {
    count_error(code);
    ++counters.commands_rejected;
    reply(from, share(protocol::encode(protocol::Error{msg.seq, code, std::move(message)})));
  };
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        // Pause and resume are told to every client in a welcome (`paused`), so that viewers
        // show the state and do not take the ticks a pause skips for snapshots lost.
        if constexpr (std::is_same_v<T, protocol::Pause>) {
          welcome_all = !paused;
          paused = true;
        } else if constexpr (std::is_same_v<T, protocol::Resume>) {
          if (paused) {
            paused = false;
            end_step_runs();
            restart_schedule();
            welcome_all = true;
          }
        } else if constexpr (std::is_same_v<T, protocol::StepTicks>) {
          if (!paused) return refuse(protocol::ErrorCode::not_paused, "step runs ticks by hand: pause first");
          ++counters.commands_accepted;
          step_runs.push_back({from, msg.seq, c.ticks});
          publish_counters();
          post_step_slice();
          return;  // the ack follows the run's last tick (step_slice)
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
          if constexpr (std::is_same_v<T, protocol::LoadScenario>) config.scenario_name = name;
          replace_world(std::move(std::get<sim::World>(next)), name);
          welcome_all = snapshot_after = new_world = true;
        }
        ++counters.commands_accepted;
        reply(from, share(protocol::encode(protocol::Ack{msg.seq, world.tick(), {}, {}, {}, {}})));
      },
      msg.control);
  if (welcome_all) send_welcomes(new_world);
  if (snapshot_after) broadcast_snapshot();
}

std::chrono::milliseconds Server::Impl::behind() const {
  if (paused) return std::chrono::milliseconds(0);  // paused on purpose is not late
  const Clock::time_point due{std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(deadline_ns.load()))};
  const auto late = Clock::now() - due;
  return late > Clock::duration::zero() ? std::chrono::duration_cast<std::chrono::milliseconds>(late)
                                        : std::chrono::milliseconds(0);
}

// Any thread: from the counters, so that /metrics and /healthz answer while a tick runs.
std::string Server::Impl::metrics_text() const {
  MetricsView m = observe.metrics();
  m.http_connections = admission.http_connections();
  m.ws_connections = admission.ws_connections();
  m.max_connections = admission.max_connections();
  m.accept_failures = listener->accept_failures();
  if (relay) {
    m.relay = true;
    m.relay_connected = relay->connected ? 1 : 0;
    m.relay_connects = relay->connects;
    m.relay_snapshots = relay->snapshots;
    m.relay_bytes = relay->bytes;
    m.relay_command_links = relay->command_links;
  }
  return render_prometheus(m);
}

// The world traces the union of what every session inspects (bounded by the world's limit).
void Server::Impl::update_inspected() {
  if (relay) {  // the upstream traces them: told with the next snapshot (at most the snapshot rate)
    relay->inspect_dirty = true;
    return;
  }
  std::vector<sim::AgentId> ids;
  for (auto& [id, c] : clients) ids.insert(ids.end(), c.inspect.begin(), c.inspect.end());
  world.set_inspected(std::move(ids));
}

}  // namespace herd::net
