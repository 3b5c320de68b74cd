// herd::net::LocalWorld — the world source that owns a world and steps it here: the tick loop (the
// only place that reads the clock), commands applied as they come, controls (pause, step runs,
// rates, reset and load_scenario), checkpoints, and the snapshot broadcast after ticks. Runs on
// the hub's thread. Asio only (its timer), no Beast.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exec/thread_pool.hpp"
#include "herd/sim/world.hpp"
#include "net/hub.hpp"
#include "net/io.hpp"
#include "net/observability.hpp"
#include "net/server.hpp"
#include "net/source_parts.hpp"
#include "net/spectator_delay.hpp"
#include "net/tick_clock.hpp"
#include "net/world_source.hpp"
#include "publish/snapshot_plan.hpp"
#include "publish/team_memory.hpp"

namespace herd::net {

class LocalWorld final : public WorldSource {
 public:
  // `world` steps on `pool`; `config` is the server's (its rates and scenario change here).
  // The world to step and serve; the server that is given it lends it its parts (attach): its
  // settings (rates, checkpoints, scenarios), the hub's thread for the tick loop, and the pool.
  explicit LocalWorld(sim::World world);

  void attach(const SourceParts& parts) override;

  void start() override;
  void stop() override;
  protocol::Welcome welcome(std::uint64_t session, protocol::Role role) const override;
  void hello(std::uint64_t id, Hello hello) override;
  void command(std::uint64_t id, const protocol::CommandMsg& command) override;
  sim::TeamRules team_rules(std::uint8_t team) const;
  void control(std::uint64_t id, const protocol::ControlMsg& control) override;
  void left(std::uint64_t) override {}
  void inspected_changed() override;
  // Healthy while the tick loop keeps to its schedule (within a second).
  Health health() const override;
  // The world's measurements, sources and exits, as the tick thread last copied them.
  void add_metrics(MetricsView&) const override;

  // When the hub's thread does not run (before run(), after it returned).
  const sim::World* world() const override { return &world_; }

 private:
  // A control's effect: what the clients are told after its answer.
  struct Changed {
    bool welcome_all = false, snapshot_after = false, new_world = false;
  };
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
  static constexpr int kStepSliceTicks = 4;

  void schedule_tick();
  void on_tick();
  bool step_once();  // one world step, timed; true when a snapshot is due after it
  void checkpoint();
  void publish_counters();
  void broadcast_snapshot();
  void keep_collisions();  // and the step's hits and deaths
  void restart_schedule();
  void post_step_slice();
  void step_slice();
  std::chrono::nanoseconds half_tick() const;  // half of a tick period at the tick rate
  void end_step_runs();  // resume or a new world: the ticks left are dropped, each run acked now
  std::optional<std::string> load(
      const protocol::ControlMsg& msg);  // reset, load_scenario: why not
  void replace_world(sim::World next, std::string scenario);
  void refuse(std::uint64_t id, std::uint32_t seq, protocol::ErrorCode code, std::string message);
  void ack(std::uint64_t id, std::uint32_t seq);
  // How far the tick loop is behind its schedule (0 when on time). Any thread.
  std::chrono::milliseconds behind() const;
  std::uint64_t total_overruns() const { return overruns_before_ + schedule_->overruns(); }
  std::uint64_t total_dropped() const { return dropped_before_ + schedule_->ticks_dropped(); }
  std::uint64_t total_late_wakes() const { return late_wakes_before_ + schedule_->late_wakes(); }

  ServerConfig config_;  // the server's (attach); reset and load_scenario change the rates
  sim::World world_;
  publish::SnapshotPlan plan_;  // which parts besides the agents each snapshot carries
  // The server's parts (attach).
  Hub* hub_ = nullptr;
  Observability* observe_ = nullptr;
  Observability::Counters* counters_ = nullptr;
  exec::ThreadPool* pool_ = nullptr;  // lent to the world: its per-agent stages run on it
  asio::io_context* ioc_ = nullptr;   // the hub's
  std::optional<asio::steady_timer> tick_timer_;
  bool stopped_ = false;
  std::optional<TickSchedule> schedule_;
  std::optional<SnapshotCadence> cadence_;
  Clock::time_point start_time_;
  std::uint64_t overruns_before_ = 0, dropped_before_ = 0,
                late_wakes_before_ = 0;                  // from schedules replaced by a restart
  std::vector<sim::CollisionEvent> pending_collisions_;  // since the last snapshot, at most the cap
  std::vector<sim::GameEvent> pending_events_;           // likewise (every death kept)
  // The player teams' memories under the fog, and when each team's explored ground was last sent
  // (its version then, and the world time).
  publish::TeamMemory memory_;
  struct ExploredSent {
    std::uint64_t version = ~std::uint64_t{0};
    double time = 0;
  };
  std::array<ExploredSent, sim::AgentDefLimits::kMaxTeam + 1> explored_sent_{};
  // The measurements, sources and exits for /metrics, copied on the tick thread when they change
  // (read on any).
  mutable std::mutex metrics_mutex_;
  std::vector<protocol::MeasurementState> measurement_metrics_;
  std::uint64_t measurement_metrics_version_ = 0;
  std::vector<protocol::SourceState> source_metrics_;
  std::vector<protocol::ExitState> exit_metrics_;
  std::uint64_t source_metrics_version_ = 0;
  std::uint64_t last_checkpoint_tick_ = 0;
  std::vector<std::string> scenario_names_;  // config.list_scenarios(), as welcomes list them
  std::map<std::string, std::string> scenario_descriptions_;  // config.describe_scenarios()
  void list_scenarios();
  std::optional<SpectatorDelay> spectators_;  // the server's delay (attach)
  bool spectator_auto_binary_ = false;  // `auto`'s format for the delayed stream (auto_binary)
  std::deque<StepRun> step_runs_;
  bool step_slice_posted_ = false;
  // Read by /healthz on the I/O threads.
  std::atomic<std::int64_t> deadline_ns_{0};  // the next tick's deadline on the steady clock
  std::atomic<bool> paused_{false};
};

}  // namespace herd::net
