// The scenario lab: every situation from the write-ups herd was built from (docs/simulation.md),
// run headless and held to what they say.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "herd/sim/metrics.hpp"
#include "scenarios/scenario.hpp"
#include "world_access.hpp"

namespace herd::scenario {
namespace {

using sim::AgentId;
using sim::Vec2;

struct LabRun {
  sim::World world;
  sim::ScenarioReport report;
};

// Loads a scenario, applies extra commands, runs it; `each` sees the world after every tick.
LabRun run(const std::string& name, int ticks, std::vector<sim::Command> extra = {},
           const std::function<void(const sim::World&)>& each = {}) {
  auto loaded = load(name, HERD_SCENARIO_DIR);
  if (auto* why = std::get_if<std::string>(&loaded)) throw std::runtime_error(*why);
  Scenario sc = std::get<Scenario>(loaded);
  for (auto& c : extra) sc.commands.push_back(c);
  auto built = build_world(sc);
  if (auto* why = std::get_if<std::string>(&built)) throw std::runtime_error(*why);
  LabRun r{std::move(std::get<sim::World>(built)), {}};
  sim::ScenarioMetrics metrics(r.world);
  for (int t = 0; t < ticks; ++t) {
    r.world.step();
    metrics.observe(r.world);
    if (each) each(r.world);
  }
  r.report = metrics.report();
  return r;
}

sim::SetAvoidance mode(sim::AvoidanceMode m) {
  sim::SetAvoidance s;
  s.mode = m;
  return s;
}

void expect_sane(const sim::ScenarioReport& r, const std::string& name) {
  EXPECT_EQ(r.stalled, 0u) << name;
  EXPECT_EQ(r.nan_count, 0u) << name;
  EXPECT_EQ(r.out_of_bounds, 0u) << name;
}

// Stalled is the world's own rule (herd/sim/stall.hpp): moving below a tenth of its speed for
// over 2 s. Where agents may stall, each one that does has a reason, on every tick: counted here
// apart from the sim's own timer, agent by agent.
TEST(Lab, EveryScenarioRunsWithoutStallNaNOrEscape) {
  for (const std::string& name : list(HERD_SCENARIO_DIR)) {
    std::map<AgentId, int> slow;  // consecutive ticks moving (or unreachable) below a tenth
    std::size_t unexplained = 0, stalls = 0;
    const LabRun r = run(name, 900, {}, [&](const sim::World& w) {
      const auto agents = w.agents();
      for (std::size_t i = 0; i < agents.size(); ++i) {
        const sim::Agent& a = agents[i];
        const bool going =
            a.state == sim::MoveState::moving || a.state == sim::MoveState::unreachable;
        int& n = slow[a.id];
        n = going && sim::length(a.velocity) < 0.1 * a.def.max_speed ? n + 1 : 0;
        if (n * w.def().dt <= 2.0 + 1e-9) continue;
        ++stalls;
        if (i >= w.stalls().size() || w.stalls()[i].reason == sim::StallReason::none) ++unexplained;
      }
    });
    EXPECT_EQ(unexplained, 0u) << name << ": agents slow past 2 s without a stall reason";
    EXPECT_EQ(r.report.stalled_without_reason, 0u) << name;
    if (stalls > 0) EXPECT_GT(r.report.stalled, 0u) << name << ": the lab counts the same rule";
    // Waiting at the doors, and waiting to pass head on, is what these are there to show.
    if (name == "bottleneck" || name == "corridor" || name == "doorway" || name == "evacuation") {
      EXPECT_EQ(r.report.nan_count, 0u);
      EXPECT_EQ(r.report.out_of_bounds, 0u);
      continue;
    }
    expect_sane(r.report, name);
  }
}

// A pedestrian crowd through a 1 m door, walking by the collision-free speed model (the
// scenario's mode): everyone gets through (the line across the door counts 150 more forward than
// backward), at a flow in the first minute within the range measured for people at a 1 m
// bottleneck (Seyfried et al. 2009: about 1.5-2 per second); the crowd waiting before the door is
// dense (at least 3 per m² in the area before it, as the experiments' queues are, where the
// anti-gravity modes made a thin crowd that boiled), no two agents ever overlap by more than a
// centimetre, and the area reports count / area.
TEST(Lab, BottleneckQueuesDenselyAndLetsEveryoneThrough) {
  std::uint64_t after_a_minute = 0;
  double densest_in_the_first_minute = 0;
  const LabRun r = run("bottleneck", 150 * 60, {}, [&](const sim::World& w) {
    if (w.tick() == 3600) {
      after_a_minute = w.measurements()[0].totals.forward;
      densest_in_the_first_minute = w.measurements()[1].totals.max_density;
    }
  });
  EXPECT_EQ(r.world.def().avoidance.mode, sim::AvoidanceMode::cfsm);
  ASSERT_EQ(r.world.measurements().size(), 2u);
  const sim::Measurement& door = r.world.measurements()[0];
  const sim::Measurement& before = r.world.measurements()[1];
  EXPECT_EQ(door.totals.forward - door.totals.backward, 150u);
  std::size_t through = 0;
  for (const sim::Agent& a : r.world.agents()) through += a.position.x > 10.5 ? 1 : 0;
  EXPECT_EQ(through, 150u);
  EXPECT_GE(after_a_minute / 60.0, 1.5);
  EXPECT_LE(after_a_minute / 60.0, 2.0);
  EXPECT_GE(densest_in_the_first_minute, 3.0);
  EXPECT_LE(r.report.max_overlap, 0.01) << "metres";
  EXPECT_EQ(before.kind, sim::MeasurementKind::area);
  EXPECT_DOUBLE_EQ(before.last.density, before.last.count / 4.0);
}

// Boids from random headings: a polarisation (the length of the mean unit heading) over 0.9
// within 20 s, without a collision.
TEST(Lab, BoidsLineUpWithoutACollision) {
  double best = 0;
  const LabRun r = run("boids", 20 * 60, {}, [&](const sim::World& w) {
    Vec2 sum{};
    for (const sim::Agent& a : w.agents())
      sum += sim::normalized_or_zero(a.velocity) * (1.0 / static_cast<double>(w.agents().size()));
    best = std::max(best, sim::length(sum));
  });
  EXPECT_GT(best, 0.9);
  EXPECT_EQ(r.report.collisions, 0u);
  EXPECT_EQ(r.report.agents, 300u);
}

// Wanderers keep moving at their speed (bumping into one another now and then), within the world,
// and the same seed wanders the same way.
TEST(Lab, WanderersKeepWanderingAndRepeatFromTheSeed) {
  std::vector<double> walked(60, 0);
  std::vector<Vec2> last;
  const LabRun r = run("wander", 30 * 60, {}, [&](const sim::World& w) {
    const auto agents = w.agents();
    for (std::size_t k = 0; k < agents.size() && k < last.size(); ++k)
      walked[k] += sim::length(agents[k].position - last[k]);
    last.clear();
    for (const sim::Agent& a : agents) last.push_back(a.position);
  });
  for (double d : walked) EXPECT_GT(d, 0.8 * 80 * 30) << "each kept walking, near its top speed";
  EXPECT_LE(sim::length(r.world.agents()[0].velocity), 80 + 1e-9);
  EXPECT_EQ(r.report.out_of_bounds, 0u);
  EXPECT_EQ(run("wander", 30 * 60).world.state_hash(), r.world.state_hash());
}

// Through a door one agent wide, queueing: everyone gets through, one at a time (never two across
// the line in one tick, nor two side by side in the door), with no real overlap.
TEST(Lab, DoorwayPassesOneAtATime) {
  std::uint64_t last = 0, most_in_a_tick = 0;
  const LabRun r = run("doorway", 300 * 60, {}, [&](const sim::World& w) {
    const std::uint64_t now = w.measurements()[0].totals.forward;
    most_in_a_tick = std::max(most_in_a_tick, now - last);
    last = now;
  });
  const sim::Measurement& door = r.world.measurements()[0];
  EXPECT_GE(door.totals.forward - door.totals.backward, 170u) << "most are through in 5 minutes";
  EXPECT_EQ(most_in_a_tick, 1u);
  EXPECT_LT(r.report.max_overlap, 0.04) << "metres: a fifth of a radius, where pushing makes 0.25";
}

// A room filled by four sources (200 people in 20 s) empties through two 1 m doors to two exits:
// every tick, the agents made are the agents removed plus those present; everyone is made and
// leaves, each exit taking the half whose sources send them its way (give or take the few the
// crowd pushes through the other door); each door's line counts its crossings, all forward, and
// the doors' counts add up to everyone; each exit's count rises by exactly the agents that vanish
// beside it; the doors' flow while the crowd presses on them is within the range measured for
// people at a 1 m bottleneck and twice either side, and the last one is out in well under two
// minutes.
TEST(Lab, EvacuationEmptiesTheRoomThroughBothExitsAndTheBooksBalance) {
  std::vector<std::pair<AgentId, Vec2>> before;  // the agents before the step, by id
  std::uint64_t ticks = 0, unbalanced = 0, misattributed = 0, out_at_10s = 0, out_at_40s = 0;
  std::uint64_t removed_before[2] = {0, 0};
  const LabRun r = run("evacuation", 150 * 60, {}, [&](const sim::World& w) {
    ++ticks;
    std::uint64_t made = 0, removed = 0;
    for (const sim::Source& s : w.sources()) made += s.spawned;
    for (const sim::Exit& e : w.exits()) removed += e.removed;
    unbalanced += made != removed + w.agents().size();
    // Who vanished in this step, and beside which exit (a tick's move is under 3 cm).
    std::uint64_t beside[2] = {0, 0};
    std::size_t j = 0;
    for (const auto& [id, p] : before) {
      while (j < w.agents().size() && w.agents()[j].id < id) ++j;
      if (j < w.agents().size() && w.agents()[j].id == id) continue;
      for (std::size_t k = 0; k < 2; ++k) {
        const sim::Exit& e = w.exits()[k];
        beside[k] += p.x >= e.min.x - 0.1 && p.x <= e.max.x + 0.1 && p.y >= e.min.y - 0.1 &&
                     p.y <= e.max.y + 0.1;
      }
    }
    for (std::size_t k = 0; k < 2; ++k) {
      misattributed += w.exits()[k].removed - removed_before[k] != beside[k];
      removed_before[k] = w.exits()[k].removed;
    }
    if (w.tick() == 10 * 60) out_at_10s = removed;
    if (w.tick() == 40 * 60) out_at_40s = removed;
    before.clear();
    for (const sim::Agent& a : w.agents()) before.emplace_back(a.id, a.position);
  });
  EXPECT_EQ(ticks, 9000u);
  EXPECT_EQ(unbalanced, 0u);
  EXPECT_EQ(misattributed, 0u);
  ASSERT_EQ(r.world.sources().size(), 4u);
  for (const sim::Source& s : r.world.sources()) EXPECT_EQ(s.remaining(), 0u) << s.id;
  EXPECT_TRUE(r.world.agents().empty());
  ASSERT_EQ(r.world.exits().size(), 2u);
  const sim::Exit& upper = r.world.exits()[0];
  const sim::Exit& lower = r.world.exits()[1];
  EXPECT_EQ(upper.removed + lower.removed, 200u);
  EXPECT_GE(upper.removed, 90u);
  EXPECT_GE(lower.removed, 90u);
  ASSERT_EQ(r.world.measurements().size(), 2u);
  std::uint64_t through = 0;
  for (const sim::Measurement& door : r.world.measurements()) {
    EXPECT_EQ(door.totals.backward, 0u) << door.id;
    EXPECT_GE(door.totals.forward, 90u) << door.id;
    through += door.totals.forward;
  }
  EXPECT_EQ(through, 200u);
  // From 10 s (the first are through, a crowd gathers at each door) to 40 s, both doors pressed on.
  const double flow = static_cast<double>(out_at_40s - out_at_10s) / 2 / 30;  // per door a second
  EXPECT_GE(flow, 0.75);
  EXPECT_LE(flow, 4.0);
  const double last_out =
      static_cast<double>(std::max(upper.last_removal_tick, lower.last_removal_tick)) *
      r.world.def().dt;
  EXPECT_GT(last_out, 20.0);  // the sources take 20 s to make everyone
  EXPECT_LT(last_out, 120.0);
  EXPECT_EQ(r.report.nan_count, 0u);
  EXPECT_EQ(r.report.out_of_bounds, 0u);
  EXPECT_LT(r.report.max_overlap, 0.15);  // m, in a crowd pressing on a door
}

TEST(Lab, DeadAheadGoesAroundTheObstacle) {
  double widest = 0;
  const LabRun r = run("dead_ahead", 900, {}, [&](const sim::World& w) {
    widest = std::max(widest, w.agents()[0].position.y - 300);
  });
  EXPECT_EQ(r.report.arrivals, 1u);
  EXPECT_EQ(r.report.collisions, 0u);
  EXPECT_GT(widest, 20) << "passed the obstacle (radius 20) on its right (+y)";
}

TEST(Lab, SymmetricPairPicksASideAndTheSeedsCodeDoesNot) {
  // One side chosen once and kept (the split fix's: the right), no collision, never turning back.
  double min_vx = HUGE_VAL;
  int side = 0, flips = 0;
  const LabRun r = run("symmetric_pair", 900, {}, [&](const sim::World& w) {
    const sim::Agent& a = w.agents()[0];
    if (a.position.x < 650) min_vx = std::min(min_vx, a.velocity.x);
    const double off = a.position.y - 300;
    if (std::abs(off) < 1) return;
    const int now = off > 0 ? 1 : -1;
    flips += side != 0 && now != side;
    side = now;
  });
  EXPECT_EQ(r.report.arrivals, 1u);
  EXPECT_EQ(r.report.collisions, 0u);
  EXPECT_EQ(flips, 0) << "the side changed";
  EXPECT_GT(min_vx, 0) << "it turned back";
  // Documents why herd departs from the published split-fix code (see avoidance.hpp, SplitFixMode).
  sim::SetAvoidance seed;
  seed.split_fix = sim::SplitFixMode::seed;
  const LabRun s = run("symmetric_pair", 900, {seed});
  EXPECT_GT(s.report.collisions, 0u)
      << "the published split fix leaves too little sideways push to miss them";
}

TEST(Lab, CardioidLeavesLessLateralDriftAfterPassingThanCircle) {
  auto drift = [](sim::AvoidanceMode m) {
    double sum = 0;
    int n = 0;
    run("passed_obstacle", 300, {mode(m)}, [&](const sim::World& w) {
      sum += std::abs(w.agents()[0].position.y - 300);
      ++n;
    });
    return sum / n;
  };
  const double cardioid = drift(sim::AvoidanceMode::cardioid);
  const double circle = drift(sim::AvoidanceMode::circle);
  EXPECT_LT(cardioid, 0.5);
  EXPECT_GT(circle, 3 * cardioid + 1);
}

TEST(Lab, CrossingAgentsNeitherCollideNorDeadlock) {
  for (const char* name : {"crossing", "four_way"}) {
    const LabRun r = run(name, 900);
    EXPECT_EQ(r.report.arrivals, r.report.agents) << name;
    EXPECT_EQ(r.report.collisions, 0u) << name;
    EXPECT_GT(r.report.min_separation, 0) << name;
  }
}

TEST(Lab, ChickenBothSwerve) {
  // Head on: each picks a side once and keeps it, and neither turns back.
  double swerve1 = 0, swerve2 = 0, min_progress = HUGE_VAL;
  int side[2] = {0, 0}, flips = 0;
  const LabRun r = run("chicken", 900, {}, [&](const sim::World& w) {
    swerve1 = std::max(swerve1, std::abs(w.agents()[0].position.y - 300));
    swerve2 = std::max(swerve2, std::abs(w.agents()[1].position.y - 300));
    for (int k = 0; k < 2; ++k) {
      const sim::Agent& a = w.agents()[k];
      const double along = k == 0 ? a.velocity.x : -a.velocity.x;  // towards its goal
      if (a.position.x > 150 && a.position.x < 650) min_progress = std::min(min_progress, along);
      const double off = a.position.y - 300;
      if (std::abs(off) < 1) continue;
      const int now = off > 0 ? 1 : -1;
      flips += side[k] != 0 && now != side[k];
      side[k] = now;
    }
  });
  EXPECT_EQ(r.report.arrivals, 2u);
  EXPECT_EQ(r.report.collisions, 0u);
  EXPECT_EQ(flips, 0) << "a side changed";
  EXPECT_GT(min_progress, 0) << "one turned back";
  EXPECT_GT(swerve1, 4);
  EXPECT_GT(swerve2, 4);
}

TEST(Lab, Demo32ArrivesWithFewCollisionsAndNoLastingOverlap) {
  const LabRun r = run("demo32", 900);
  EXPECT_EQ(r.report.arrivals, 32u);
  EXPECT_LE(r.report.collisions, 120u);
  EXPECT_LT(r.report.max_overlap, 0.5);
  const LabRun none = run("demo32", 900, {mode(sim::AvoidanceMode::none)});
  EXPECT_GT(none.report.collisions, 3 * r.report.collisions)
      << "avoidance must be what prevents them";
}

TEST(Lab, PursuitCatchesAMovingTargetSoonerThanSeek) {
  auto catch_tick = [](std::optional<sim::BehaviourKind> replace) {
    std::vector<sim::Command> extra;
    if (replace) {
      sim::SetBehaviour b;
      b.agents.ids = {2};
      b.behaviour.kind = *replace;
      b.behaviour.agent = 1;
      extra.push_back(b);
    }
    int caught = -1, tick = 0;
    run("pursuit", 1200, extra, [&](const sim::World& w) {
      ++tick;
      const auto a = w.agents();
      if (caught < 0 &&
          sim::length(a[0].position - a[1].position) <= a[0].def.radius + a[1].def.radius + 0.5)
        caught = tick;
    });
    return caught;
  };
  const int pursue = catch_tick(std::nullopt);
  const int seek = catch_tick(sim::BehaviourKind::seek);
  ASSERT_GT(pursue, 0) << "pursuit never caught the target";
  EXPECT_TRUE(seek < 0 || pursue < seek) << "pursue " << pursue << " seek " << seek;
}

TEST(Lab, FleeIncreasesTheDistance) {
  double first = -1, last = 0;
  run("flee", 600, {}, [&](const sim::World& w) {
    const double d = sim::length(w.agents()[0].position - w.agents()[1].position);
    if (first < 0) first = d;
    last = d;
  });
  EXPECT_GT(last, first + 100);
}

TEST(Lab, SpaceshipBrakesInTimeAndStopsWithoutOvershoot) {
  double furthest = 0;
  const LabRun r = run("spaceship_brake", 900, {}, [&](const sim::World& w) {
    furthest = std::max(furthest, w.agents()[0].position.x);
  });
  EXPECT_EQ(r.report.arrivals, 1u);
  EXPECT_LE(furthest, 740 + 0.05);
  EXPECT_EQ(r.world.agents()[0].velocity, (Vec2{0, 0}));
}

TEST(Lab, AttackHitsOnceAndReturnsHome) {
  const LabRun r = run("attack", 1200);
  const sim::Agent& hero = r.world.agents()[0];
  EXPECT_EQ(hero.behaviour.phase, sim::Phase::done);
  EXPECT_EQ(hero.state, sim::MoveState::arrived);
  EXPECT_LE(sim::length(hero.position - Vec2{120, 300}), 0.05);
  EXPECT_EQ(r.report.collisions, 1u) << "the hit, and nothing else (it walked around the obstacle)";
}

TEST(Lab, GuardChasesThenReturnsToItsPost) {
  double furthest = 0;
  const LabRun r = run("guard", 1500, {}, [&](const sim::World& w) {
    furthest = std::max(furthest, sim::length(w.agents()[0].position - Vec2{400, 300}));
  });
  EXPECT_GT(furthest, 40);
  EXPECT_EQ(r.world.agents()[0].behaviour.phase, sim::Phase::home);
  EXPECT_LE(sim::length(r.world.agents()[0].position - Vec2{400, 300}), 0.05);
}

TEST(Lab, MazeWalkerAStarAndFlowAllArriveOnTheSeedsMap) {
  const LabRun r = run("maze", 1800);
  EXPECT_EQ(r.report.arrivals, 7u);
  EXPECT_EQ(path_states(r.world)[0].walker.moves, 41u)
      << "the tutorial's own step count for (1,1) -> (18,13)";
  for (const sim::Agent& a : r.world.agents())
    EXPECT_EQ(a.state, sim::MoveState::arrived) << "agent " << a.id;
}

TEST(Lab, ModesCanBeComparedOnTheDefaultRing) {
  const LabRun cardioid = run("ring", 900);
  const LabRun none = run("ring", 900, {mode(sim::AvoidanceMode::none)});
  EXPECT_EQ(cardioid.report.arrivals, 48u);
  EXPECT_LT(cardioid.report.collisions * 10, none.report.collisions);
  EXPECT_LT(cardioid.report.max_overlap, 0.5);
}

// Two crowds of 30 pedestrians cross a 4 m corridor head on, in the scenario's mode (the
// collision-free speed model) and the two others a user can choose between. In cfsm mode everyone
// is at the other end within 60 s and takes a place there, without a collision (measured: all
// across by 45 s, 0 collisions, no overlap); in orca mode too, with at most a handful of
// collisions (measured: by 39 s, 1 collision); the anti-gravity cardioid mode touches far more
// often on the way (measured: 804, and 10 still short of their places at 90 s, held up face to
// face). The area in the middle reports a mean speed in all three.
TEST(Lab, CorridorCrowdsPassEachOtherInEveryPedestrianMode) {
  constexpr int kTicks = 90 * 60;
  double all_across = 0;
  const auto across = [](const sim::World& w) {
    std::size_t n = 0;  // each at the far end from where it started: group 1 right, 2 left
    for (const sim::Agent& a : w.agents()) n += a.group == 1 ? a.position.x > 34 : a.position.x < 6;
    return n;
  };
  const LabRun cfsm = run("corridor", kTicks, {}, [&](const sim::World& w) {
    if (all_across == 0 && across(w) == 60) all_across = w.tick() * w.def().dt;
  });
  const LabRun orca = run("corridor", kTicks, {mode(sim::AvoidanceMode::orca)});
  const LabRun cardioid = run("corridor", kTicks, {mode(sim::AvoidanceMode::cardioid)});
  for (const LabRun* r : {&cfsm, &orca, &cardioid}) {
    EXPECT_EQ(r->report.nan_count, 0u);
    EXPECT_EQ(r->report.out_of_bounds, 0u);
    ASSERT_EQ(r->world.measurements().size(), 2u);
    EXPECT_GT(r->world.measurements()[1].totals.speed_reports, 0u) << "the area saw walkers";
  }
  EXPECT_EQ(cfsm.world.def().avoidance.mode, sim::AvoidanceMode::cfsm);
  EXPECT_GT(all_across, 0.0);
  EXPECT_LE(all_across, 60.0);
  EXPECT_EQ(cfsm.report.arrivals, 60u);
  for (const sim::Agent& a : cfsm.world.agents())
    EXPECT_EQ(a.state, sim::MoveState::arrived) << "agent " << a.id;
  EXPECT_EQ(cfsm.report.collisions, 0u);
  EXPECT_LE(cfsm.report.max_overlap, 0.01);
  EXPECT_EQ(orca.report.agents, 60u);
  EXPECT_EQ(orca.report.arrivals, 60u);
  EXPECT_EQ(across(orca.world), 60u);
  EXPECT_LE(orca.report.collisions, 5u);
  EXPECT_LT(orca.report.collisions * 10, cardioid.report.collisions);
  EXPECT_LT(orca.report.max_overlap, 0.05);
}

// One pinned hash per scenario: if one changes, the simulation's results changed. Update only on
// purpose and say why in the commit. (bottleneck, corridor, doorway and evacuation walk by the
// collision-free speed model since it came.)
TEST(Lab, EveryScenarioIsDeterministicAndPinned) {
  const std::map<std::string, std::uint64_t> pinned = {
      {"attack", 0x648f5183f5c2be34ull},
      {"boids", 0x508d58dd58ba2521ull},
      {"bottleneck", 0xb965ec9510d40c5ull},
      {"chicken", 0xc6d2bed615a4279ull},
      {"corridor", 0x59e4418b3552e15dull},
      {"crossing", 0x30344fd44167824full},
      {"dead_ahead", 0x131ea976471a881bull},
      {"doorway", 0xcaf3f52c297c724aull},
      {"default", 0xd37a9f7a5ec206a4ull},
      {"demo32", 0x746db70c2a647ce7ull},
      {"empty", 0x5b7f5be38c7e3d87ull},
      {"evacuation", 0x1058c7c95eab86bull},
      {"flee", 0x6bcd96df84b01354ull},
      {"four_way", 0x5f96dcee36c727deull},
      {"guard", 0x3fe3911dceb24235ull},
      {"maze", 0x6351fead2e14b1fdull},
      {"passed_obstacle", 0x1b72b7f5a26ff255ull},
      {"pursuit", 0xffcd0adc67ef3cbcull},
      {"ring", 0xa74512ecd97a787dull},
      {"spaceship_brake", 0xcdbba80816f3e224ull},
      {"symmetric_pair", 0x42b487233f23b150ull},
      {"wander", 0x361514f487f45237ull},
  };
  for (const std::string& name : list(HERD_SCENARIO_DIR)) {
    const auto a = run(name, 600).world.state_hash();
    EXPECT_EQ(a, run(name, 600).world.state_hash()) << name;
    auto it = pinned.find(name);
    ASSERT_NE(it, pinned.end()) << "no pinned hash for " << name << ": 0x" << std::hex << a;
    EXPECT_EQ(a, it->second) << name << " changed: 0x" << std::hex << a;
  }
}

// A group sent with `keep` beside a parked clump, in the default scenario: an agent whose place
// the clump has taken stays pressed against it, moving at no speed. Each agent so stalled is
// explained: blocked by standing agents, those named arrived members of the clump. (Standing
// agents of equal priority do not make way, so one agent stalls here; once they yield, this
// set-up stalls no one and must be changed for one that still does.)
TEST(Lab, AMoverPressedAgainstAParkedClumpIsExplained) {
  auto loaded = load("default", HERD_SCENARIO_DIR);
  auto built = build_world(std::get<Scenario>(loaded));
  sim::World w = std::move(std::get<sim::World>(built));
  auto send = [&](std::uint32_t n, std::uint8_t group, Vec2 to, sim::Spread spread) {
    const sim::CommandOutcome out = w.apply(sim::Spawn{n, group, {}});
    sim::SetTarget go;
    go.agents.ids = out.spawned;
    go.target = to;
    go.spread = spread;
    EXPECT_TRUE(w.apply(go).ok());
  };
  send(40, 1, {650, 200}, sim::Spread::point);
  send(20, 2, {650, 200}, sim::Spread::keep);
  for (int t = 0; t < 20 * 60; ++t) w.step();
  send(40, 3, {150, 500}, sim::Spread::point);
  std::size_t explained = 0;
  for (int t = 0; t < 30 * 60; ++t) {
    w.step();
    for (std::size_t i = 0; i < w.agents().size(); ++i) {
      const sim::Stall& s = w.stalls()[i];
      if (!s.stalled()) continue;
      EXPECT_EQ(s.reason, sim::StallReason::blocked_by_standing) << w.agents()[i].id;
      ASSERT_GE(s.by_count, 1);
      for (std::size_t k = 0; k < s.by_count; ++k) {
        const sim::Agent* b = w.find(s.by[k]);
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->state, sim::MoveState::arrived) << b->id;
        EXPECT_TRUE(b->group == 1 || b->group == 2) << b->id;
      }
      ++explained;
    }
  }
  EXPECT_GT(explained, 0u) << "a keep agent whose place is taken stays stuck";
}

}  // namespace
}  // namespace herd::scenario
