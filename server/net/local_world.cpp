#include "net/local_world.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cassert>
#include <cmath>
#include <set>

#include "exec/step_clock.hpp"
#include "protocol/codec.hpp"
#include "publish/density.hpp"
#include "publish/snapshot_plan.hpp"
#include "publish/world_messages.hpp"

namespace herd::net {

LocalWorld::LocalWorld(sim::World world) : world_(std::move(world)), plan_(world_) {}

void LocalWorld::attach(const SourceParts& parts) {
  config_ = parts.config;
  hub_ = &parts.hub;
  observe_ = &parts.observe;
  counters_ = &parts.observe.counters();
  pool_ = &parts.pool;
  ioc_ = &parts.hub_ioc;
  tick_timer_.emplace(parts.hub_ioc);
  schedule_.emplace(config_.tick_rate, config_.max_catchup_ticks);
  cadence_.emplace(config_.tick_rate, config_.snapshot_rate);
  spectators_.emplace(config_.spectator_delay_seconds());
  world_.set_executor(pool_);
  world_.set_clock(exec::steady_ns);  // the step's profile (/metrics: herd_step_stage_seconds)
  list_scenarios();
  last_checkpoint_tick_ = world_.tick();  // a restored world was just checkpointed
  publish_counters();
}

void LocalWorld::start() {
  start_time_ = Clock::now();
  schedule_tick();
}

void LocalWorld::stop() {
  stopped_ = true;
  tick_timer_->cancel();
}

protocol::Welcome LocalWorld::welcome(std::uint64_t session, protocol::Role role) const {
  protocol::Welcome w;
  w.server = std::string(kServerName);
  w.session = session;
  w.role = role;
  w.tick_rate = config_.tick_rate;
  w.snapshot_rate = config_.snapshot_rate;
  w.dt = world_.def().dt;
  w.tick = world_.tick();
  w.world = {world_.def().width, world_.def().height};
  w.max_message_bytes = static_cast<std::uint32_t>(config_.max_message_bytes);
  w.max_agents = world_.def().max_agents;
  w.map = publish::map_state(world_);
  w.obstacles = publish::obstacle_states(world_);
  w.walls = publish::wall_states(world_);
  w.scenario = config_.scenario_name.empty() ? config_.scenario : config_.scenario_name;
  w.description = config_.scenario_description;
  w.scenarios = scenario_names_;
  w.descriptions = scenario_descriptions_;
  w.paused = paused_;
  if (role == protocol::Role::spectator) w.delay = spectators_->delay();
  for (const auto& [team, colour] : config_.team_colours) w.teams.push_back({team, colour});
  return w;
}

// The session checked the token: the role is the one it grants.
// A player team's rules: the players file's, and a cap of its own always, an equal share of the
// world's agents when the file gives none (one player must not fill the world and learn from the
// refusal how many the others hold).
sim::TeamRules LocalWorld::team_rules(std::uint8_t team) const {
  const auto it = config_.teams.find(team);
  sim::TeamRules rules = it == config_.teams.end() ? sim::TeamRules{} : it->second;
  if (rules.max_agents == 0) {
    std::set<std::uint8_t> teams;
    for (const PlayerAccount& p : config_.players) teams.insert(p.team);
    rules.max_agents = static_cast<std::uint32_t>(world_.def().max_agents /
                                                  std::max<std::size_t>(1, teams.size()));
  }
  return rules;
}

void LocalWorld::hello(std::uint64_t id, Hello hello) { hub_->greet(id, hello.role, hello.format); }

// Applied and answered as it comes, between ticks: the same world as applying it at the next
// tick's start (nothing else happens in between), and the ack does not wait for that tick.
// A player's command is first made its team's (World::authorize): refused as a whole, or applied
// and recorded as made.
void LocalWorld::command(std::uint64_t id, const protocol::CommandMsg& cmd) {
  sim::CommandOutcome out;
  std::optional<sim::Command> own;
  if (const std::uint8_t team = hub_->team_of(id); team != 0) {
    own = cmd.command;
    out = world_.authorize(*own, team, team_rules(team));
    out.origin = sim::CommandOrigin{id, cmd.seq};
    out.tick = world_.tick() + 1;
  }
  const sim::Command& command = own ? *own : cmd.command;
  if (out.ok()) out = world_.apply(command, sim::CommandOrigin{id, cmd.seq});
  if (out.ok() && config_.on_applied) config_.on_applied(out.tick, command);
  if (!out.ok()) observe_->count_error(protocol::to_error_code(out.error));
  (out.ok() ? counters_->commands_accepted : counters_->commands_rejected)++;
  hub_->reply(id, share(protocol::encode_outcome(out)));
}

// The world traces the union of what every session inspects (bounded by the world's limit).
void LocalWorld::inspected_changed() { world_.set_inspected(hub_->inspected()); }

Health LocalWorld::health() const {
  const std::string tick = std::to_string(counters_->tick.load());
  const auto late_by = behind();
  const bool late = late_by > std::chrono::seconds(1);
  return {late ? 503 : 200, std::string("{\"status\":\"") + (late ? "late" : "ok") +
                                "\",\"tick\":" + tick +
                                ",\"behind_ms\":" + std::to_string(late_by.count()) + "}\n"};
}

std::chrono::milliseconds LocalWorld::behind() const {
  if (paused_) return std::chrono::milliseconds(0);  // paused on purpose is not late
  const Clock::time_point due{
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(deadline_ns_.load()))};
  const auto late = Clock::now() - due;
  return late > Clock::duration::zero()
             ? std::chrono::duration_cast<std::chrono::milliseconds>(late)
             : std::chrono::milliseconds(0);
}

// ---- the tick loop -----------------------------------------------------------------------------

void LocalWorld::schedule_tick() {
  const auto deadline = start_time_ + schedule_->next_deadline();
  deadline_ns_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  tick_timer_->expires_at(deadline);
  tick_timer_->async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopped_) on_tick();
  });
}

void LocalWorld::on_tick() {
  // The only place that reads the clock. Runs at most max_catchup ticks per wake.
  if (paused_) {
    // Wake once a period (the schedule's deadline is in the past and would fire at once);
    // resume restarts the schedule.
    tick_timer_->expires_after(
        std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / config_.tick_rate)));
    tick_timer_->async_wait([this](boost::system::error_code ec) {
      if (!ec && !stopped_) on_tick();
    });
    return;
  }
  const std::uint64_t overruns_at_wake = schedule_->overruns();
  const int due = schedule_->due(Clock::now() - start_time_);
  const bool overran = schedule_->overruns() != overruns_at_wake;
  bool snapshot_due = false;
  // Commands were applied and answered as they arrived (command()): the tick only moves the world.
  for (int i = 0; i < due; ++i) snapshot_due = step_once() || snapshot_due;
  if (overran)
    observe_->log(LogLevel::warn, "tick_overrun",
                  {{"tick", std::to_string(world_.tick())},
                   {"ticks_dropped_total", std::to_string(total_dropped())}});
  if (due > 0) checkpoint();
  publish_counters();
  // A wake that came late ran its ticks back to back and sends one snapshot, after the last:
  // sending each one due among them was measured to make the next wake later still (1,000
  // viewers: 72 to 113 late wakes in 30 s instead of 19 to 30).
  if (snapshot_due) broadcast_snapshot();
  schedule_tick();
}

bool LocalWorld::step_once() {
  const auto t0 = Clock::now();
  world_.step();
  observe_->observe_tick(Clock::now() - t0);
  observe_->observe_stages(world_.profile());
  if (config_.on_ticked) config_.on_ticked(world_);
  keep_collisions();
  return cadence_->due(world_.tick());
}

// Every checkpoint_interval seconds of world time, the world goes to on_checkpoint.
void LocalWorld::checkpoint() {
  if (!config_.on_checkpoint) return;
  const auto every = static_cast<std::uint64_t>(
      std::max(1.0, std::round(config_.checkpoint_interval / world_.def().dt)));
  if (world_.tick() / every != last_checkpoint_tick_ / every) {
    last_checkpoint_tick_ = world_.tick();
    config_.on_checkpoint(world_);
  }
}

void LocalWorld::publish_counters() {
  counters_->tick = world_.tick();
  counters_->overruns = total_overruns();
  counters_->ticks_dropped = total_dropped();
  counters_->late_wakes = total_late_wakes();
  counters_->agents = world_.agents().size();
  const sim::PathQueueStats paths = world_.path_queue_stats();
  counters_->path_queue = paths.queued;
  counters_->path_expansions = paths.expansions_total;
  counters_->paths_served = paths.paths_served_total;
  counters_->paths_deferred = paths.deferred_total;
  counters_->flow_fields_waiting = paths.fields_waiting;
  counters_->flow_fields_kept = paths.fields_kept;
  counters_->flow_fields_built = paths.fields_built_total;
  counters_->assignments_pending = world_.assignments_pending();
  counters_->assignment_work_pending = world_.assignment_work_pending();
  std::uint64_t step_ticks = 0;
  for (const StepRun& run : step_runs_) step_ticks += run.left;
  counters_->step_ticks_pending = step_ticks;
  // Stalled agents by reason, as the last step counted them (sim::StallService).
  const auto& stalled = world_.stalled_by_reason();
  using sim::StallReason;
  auto count = [&](StallReason r) { return stalled[static_cast<std::size_t>(r)]; };
  counters_->stalled_blocked_by_standing = count(StallReason::blocked_by_standing);
  counters_->stalled_pinned = count(StallReason::pinned);
  counters_->stalled_oscillating = count(StallReason::oscillating);
  counters_->stalled_queueing = count(StallReason::queueing);
  counters_->stalled_unreachable = count(StallReason::unreachable);
  counters_->stalled_blocked = count(StallReason::blocked);
  if (world_.measurements_version() != measurement_metrics_version_) {
    measurement_metrics_version_ = world_.measurements_version();
    std::vector<protocol::MeasurementState> states = publish::measurement_states(world_);
    const std::lock_guard lock(metrics_mutex_);
    measurement_metrics_ = std::move(states);
  }
  if (world_.sources_version() != source_metrics_version_) {
    source_metrics_version_ = world_.sources_version();
    std::vector<protocol::SourceState> sources = publish::source_states(world_);
    std::vector<protocol::ExitState> exits = publish::exit_states(world_);
    const std::lock_guard lock(metrics_mutex_);
    source_metrics_ = std::move(sources);
    exit_metrics_ = std::move(exits);
  }
}

void LocalWorld::add_metrics(MetricsView& m) const {
  const std::lock_guard lock(metrics_mutex_);
  m.measurements = measurement_metrics_;
  m.sources = source_metrics_;
  m.exits = exit_metrics_;
}

// The snapshot: JSON written once and shared by every JSON client, binary frames encoded per
// viewer (Hub::send_binary) from the quantised world; the inspect traces only to the clients that
// inspect those agents (Hub).
void LocalWorld::broadcast_snapshot() {
  // The last snapshot's frames not yet encoded go first while half a tick is left before the next
  // tick falls due (a world paused or stepped by hand: for half a tick); the rest are dropped, so
  // that the frame work never makes a tick late (Hub::begin_snapshot).
  const auto until_next_tick = std::chrono::duration_cast<std::chrono::nanoseconds>(
      start_time_ + schedule_->next_deadline() - Clock::now());
  const std::uint64_t serial = hub_->begin_snapshot(
      paused_ ? half_tick() : std::max(std::chrono::nanoseconds(0), until_next_tick - half_tick()));
  // The parts this snapshot carries, and to whom: publish::SnapshotPlan's rows.
  const publish::SnapshotParts parts = plan_.next(
      world_, serial, config_.snapshot_rate, {hub_->density_asked(), !world_.inspected().empty()});
  // The density layer, for the clients that take it: one pass over the agents
  // (publish::density_layer).
  if (parts.density) hub_->attach_density(publish::density_layer(world_));
  // With players, every agent's team is written; each team's snapshot is filtered by its sight
  // (computed once for every team, when the first player needs it), and spectators are sent the
  // whole world's of spectator_delay seconds before.
  const bool players = !config_.players.empty();
  const publish::View whole{0, nullptr, players};
  SharedText text;
  const auto whole_text = [&] {
    if (!text)
      text = share(publish::encode_snapshot(world_, pending_collisions_, parts, serial, whole,
                                            pending_events_));
    return text;
  };
  std::vector<std::uint64_t> seen;
  bool seen_made = false;
  const auto see = [&] {
    if (!seen_made) world_.seen_by(seen);
    seen_made = true;
  };
  // Every player team's memory follows the fog, whether its players are connected or not; each
  // team's explored ground goes out when it grew, and every refresh period.
  std::array<bool, sim::AgentDefLimits::kMaxTeam + 1> explored_due{};
  if (players) {
    see();
    std::set<std::uint8_t> teams;
    for (const PlayerAccount& p : config_.players) teams.insert(p.team);
    for (const std::uint8_t team : teams) {
      memory_.update(world_, team, seen, pending_events_);
      ExploredSent& sent = explored_sent_[team];
      const std::uint64_t version = memory_.explored(team).version;
      if (version != sent.version ||
          world_.time() >= sent.time + protocol::kObstacleRefreshSeconds ||
          world_.time() < sent.time) {
        explored_due[team] = true;
        sent = {version, world_.time()};
      }
    }
  }
  // The world quantised and the whole world's side section, made once for the viewers' binary
  // frames and the spectators' kept ones (the quantisation's hysteresis against the newer of
  // the last states quantised for either).
  std::shared_ptr<const protocol::QuantState> quantised;
  const auto quantise = [&] {
    if (!quantised) {
      const protocol::QuantState* previous = hub_->binary_feed().current();
      if (const auto* kept = spectators_->last_state();
          kept && (!previous || kept->tick > previous->tick))
        previous = kept;
      protocol::QuantState q = publish::quantise(world_, previous);
      q.serial = serial;
      quantised = std::make_shared<const protocol::QuantState>(std::move(q));
    }
    return quantised;
  };
  std::optional<protocol::SideOpen> side;
  const auto side_open = [&]() -> protocol::SideOpen& {
    if (!side)
      side = publish::encode_side_open(world_, pending_collisions_, parts, {}, pending_events_);
    return *side;
  };
  Hub::Restricted restricted;
  restricted.delay = spectators_->delay() > 0;
  if (restricted.delay) {
    // Kept in the formats the spectators take: one who joins, or asks another format, waits the
    // delay for its first snapshot anyway. With none, nothing is made.
    // `auto` spectators' format is chosen now, from the world they will be shown, and the
    // snapshot kept in it: it follows the delayed world, not the live one at hand-out.
    spectator_auto_binary_ = protocol::auto_binary(spectator_auto_binary_, world_.agents().size());
    const Hub::SpectatorFormats formats = hub_->spectator_formats(spectator_auto_binary_);
    SpectatorDelay::Snapshot kept;
    kept.auto_binary = spectator_auto_binary_;
    if (formats.json) kept.json = whole_text();
    if (formats.binary) {
      kept.state = quantise();
      kept.side = side_open().shared();
    }
    if (kept) spectators_->push(world_.time(), std::move(kept));
    restricted.delayed = spectators_->due(world_.time());
  }
  if (players)
    restricted.team = [&](std::uint8_t team) {
      see();
      return share(publish::encode_snapshot(world_, pending_collisions_, parts, serial,
                                            publish::View{team, &seen, true}, pending_events_,
                                            &memory_, explored_due[team]));
    };
  protocol::InspectTexts inspect;
  if (parts.traces) {
    inspect = publish::inspect_texts(world_, whole);
    if (players && hub_->has_players() &&
        publish::SnapshotPlan::reaches(&publish::SnapshotParts::traces, publish::Audience::team)) {
      see();
      restricted.team_inspect = publish::inspect_texts(world_, whole, &seen);
    }
  }
  Hub::BinaryTakers binary =
      hub_->send_json(world_.agents().size(), whole_text, std::move(inspect), restricted);
  if (!binary.empty()) {
    // Encoded on the sim's thread pool, which is idle between ticks.
    hub_->binary_feed().begin(quantise(), side_open().shared());
    // Players' frames: the agents their team sees, with their team's side section (once a team).
    std::map<std::uint8_t, std::string> team_opens;
    if (!binary.players.empty()) {
      see();
      for (const std::uint64_t id : binary.players) {
        const std::uint8_t team = hub_->team_of(id);
        if (team_opens.contains(team)) continue;
        protocol::SideOpen own = publish::encode_side_open(
            world_, pending_collisions_, parts, publish::View{team, &seen, true}, pending_events_,
            &memory_, explored_due[team]);
        hub_->binary_feed().set_team_side(team, own.shared());
        team_opens.emplace(team, std::move(own.open));
      }
      hub_->binary_feed().set_seen(std::move(seen));  // its last use
    }
    hub_->send_binary(std::move(binary), std::move(side_open().open), std::move(team_opens));
  }
  pending_collisions_.clear();
  pending_events_.clear();
}

// The step's collisions, kept for the next snapshot up to its cap; and its hits and deaths, every
// death and the hits up to their cap.
void LocalWorld::keep_collisions() {
  for (const sim::GameEvent& e : world_.events())
    if (e.kind == sim::EventKind::death || pending_events_.size() < protocol::kMaxEventsPerSnapshot)
      pending_events_.push_back(e);
  for (const sim::CollisionEvent& e : world_.collisions()) {
    if (pending_collisions_.size() >= protocol::kMaxCollisionsPerSnapshot) return;
    pending_collisions_.push_back(e);
  }
}

void LocalWorld::restart_schedule() {
  // A fresh schedule from now: no burst of catch-up ticks after a pause or a rate change.
  overruns_before_ += schedule_->overruns();
  dropped_before_ += schedule_->ticks_dropped();
  late_wakes_before_ += schedule_->late_wakes();
  schedule_.emplace(config_.tick_rate, config_.max_catchup_ticks);
  cadence_.emplace(config_.tick_rate, config_.snapshot_rate);
  start_time_ = Clock::now();
  tick_timer_->cancel();
  schedule_tick();
}

// ---- step runs ---------------------------------------------------------------------------------

void LocalWorld::post_step_slice() {
  if (step_slice_posted_ || step_runs_.empty()) return;
  step_slice_posted_ = true;
  asio::post(*ioc_, [this] {
    step_slice_posted_ = false;
    if (!stopped_) step_slice();
  });
}

std::chrono::nanoseconds LocalWorld::half_tick() const {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(0.5e9 / config_.tick_rate));
}

void LocalWorld::step_slice() {
  if (step_runs_.empty()) return;
  StepRun& run = step_runs_.front();
  const auto slice_start = Clock::now();
  const auto half = half_tick();
  bool snapshot_due = false;
  for (int done = 0;
       run.left > 0 && done < kStepSliceTicks && (done == 0 || Clock::now() - slice_start < half);
       ++done) {
    snapshot_due = step_once() || snapshot_due;
    --run.left;
  }
  publish_counters();
  if (run.left == 0) {
    ack(run.from, run.seq);
    step_runs_.pop_front();
    broadcast_snapshot();  // the run's last tick, as PROTOCOL.md promises
  } else if (snapshot_due) {
    broadcast_snapshot();  // viewers see the run go by at the snapshot rate
  }
  post_step_slice();
}

void LocalWorld::end_step_runs() {
  for (const StepRun& run : step_runs_) ack(run.from, run.seq);
  step_runs_.clear();
  publish_counters();
}

// ---- controls ----------------------------------------------------------------------------------

void LocalWorld::control(std::uint64_t from, const protocol::ControlMsg& msg) {
  // The answer goes first, then what the control changed (a welcome, a snapshot): a client that
  // waits for the ack then sees the snapshot that reflects it.
  using Refused = std::optional<std::pair<protocol::ErrorCode, std::string>>;
  Changed changed;
  Refused refusal = std::visit(
      [&](const auto& c) -> Refused {
        using T = std::decay_t<decltype(c)>;
        // Pause and resume are told to every client in a welcome (`paused`), so that viewers
        // show the state and do not take the ticks a pause skips for snapshots lost.
        if constexpr (std::is_same_v<T, protocol::Pause>) {
          changed.welcome_all = !paused_;
          paused_ = true;
        } else if constexpr (std::is_same_v<T, protocol::Resume>) {
          if (!paused_) return std::nullopt;
          paused_ = false;
          end_step_runs();
          restart_schedule();
          changed.welcome_all = true;
        } else if constexpr (std::is_same_v<T, protocol::StepTicks>) {
          if (!paused_)
            return std::pair{protocol::ErrorCode::not_paused,
                             "step runs ticks by hand: pause first"};
          step_runs_.push_back({from, msg.seq, c.ticks});
        } else if constexpr (std::is_same_v<T, protocol::SetParam>) {
          const double tick_rate = c.tick_rate.value_or(config_.tick_rate);
          const double snapshot_rate = c.snapshot_rate.value_or(config_.snapshot_rate);
          if (snapshot_rate > tick_rate)
            return std::pair{protocol::ErrorCode::bad_field,
                             "'snapshot_rate' must not exceed the tick rate"};
          config_.tick_rate = tick_rate;
          config_.snapshot_rate = snapshot_rate;
          restart_schedule();
          changed.welcome_all = true;
        } else if constexpr (std::is_same_v<T, protocol::Kick>) {
          // The hub answers kick itself (Hub::kick): it never comes here.
          assert(false && "kick reached the world source");
          return std::pair{protocol::ErrorCode::unknown_session, "no session here"};
        } else {  // Reset, LoadScenario
          if (auto why = load(msg))
            return std::pair{protocol::ErrorCode::unknown_scenario, std::move(*why)};
          changed = {true, true, true};
        }
        return std::nullopt;
      },
      msg.control);
  if (refusal) return refuse(from, msg.seq, refusal->first, std::move(refusal->second));
  ++counters_->commands_accepted;
  if (std::holds_alternative<protocol::StepTicks>(msg.control)) {
    publish_counters();
    return post_step_slice();  // the ack follows the run's last tick (step_slice)
  }
  ack(from, msg.seq);
  if (changed.welcome_all) hub_->send_welcomes(changed.new_world);
  if (changed.snapshot_after) broadcast_snapshot();
}

std::optional<std::string> LocalWorld::load(const protocol::ControlMsg& msg) {
  if (!config_.load_world) return "this server cannot load scenarios";
  std::string name;
  std::optional<std::uint64_t> seed;
  if (const auto* reset = std::get_if<protocol::Reset>(&msg.control)) {
    name = config_.scenario;
    seed = reset->seed ? reset->seed : std::optional(world_.def().seed);
  } else {
    const auto& scenario = std::get<protocol::LoadScenario>(msg.control);
    name = scenario.name;
    seed = scenario.seed;
  }
  auto next = config_.load_world(name, seed);
  if (auto* why = std::get_if<std::string>(&next)) return std::move(*why);
  const bool named = std::holds_alternative<protocol::LoadScenario>(msg.control);
  if (named) config_.scenario_name = name;
  replace_world(std::move(std::get<sim::World>(next)), name);  // reads the directory again
  if (named) {  // its description as the listing just read says it
    const auto it = scenario_descriptions_.find(name);
    config_.scenario_description = it == scenario_descriptions_.end() ? "" : it->second;
  }
  return std::nullopt;
}

void LocalWorld::replace_world(sim::World next, std::string scenario) {
  // No command waits for the old world: each was applied and answered as it arrived; step runs
  // still going are answered now, with the old world's last tick.
  end_step_runs();
  world_ = std::move(next);
  world_.set_clock(exec::steady_ns);  // the step's profile (/metrics: herd_step_stage_seconds)
  world_.set_executor(pool_);
  config_.scenario = std::move(scenario);
  list_scenarios();                           // the directory may have changed
  config_.tick_rate = 1.0 / world_.def().dt;  // the new world's own rate
  config_.snapshot_rate = std::min(config_.snapshot_rate, config_.tick_rate);
  pending_collisions_.clear();
  pending_events_.clear();
  memory_.clear();
  explored_sent_ = {};
  plan_.new_world(world_);  // the welcomes that follow carry its map and obstacles
  measurement_metrics_version_ = ~std::uint64_t{0};
  source_metrics_version_ = ~std::uint64_t{0};
  last_checkpoint_tick_ = world_.tick();
  hub_->new_world();
  spectators_->clear();  // the old world's snapshots are no view of the new one
  inspected_changed();
  if (config_.on_world_replaced) config_.on_world_replaced(config_.scenario, world_);
  observe_->log(LogLevel::info, "world_replaced",
                {{"scenario", config_.scenario}, {"seed", std::to_string(world_.def().seed)}});
  restart_schedule();
}

void LocalWorld::list_scenarios() {
  if (config_.list_scenarios) scenario_names_ = config_.list_scenarios();
  if (config_.describe_scenarios) scenario_descriptions_ = config_.describe_scenarios();
}

void LocalWorld::refuse(std::uint64_t id, std::uint32_t seq, protocol::ErrorCode code,
                        std::string message) {
  observe_->count_error(code);
  ++counters_->commands_rejected;
  hub_->reply(id, share(protocol::encode(protocol::Error{seq, code, std::move(message)})));
}

void LocalWorld::ack(std::uint64_t id, std::uint32_t seq) {
  hub_->reply(
      id, share(protocol::encode(protocol::Ack{seq, world_.tick(), {}, {}, {}, {}, {}, {}, {}})));
}

}  // namespace herd::net
