// Who avoids whom, and how: orca mode (reciprocal velocity obstacles for every agent), agents'
// avoidance priorities (the less important yields) and avoidance layers and masks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <variant>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

SpawnAgent at(double x, double y) {
  SpawnAgent s;
  s.position = {x, y};
  return s;
}

SetAvoidance mode(AvoidanceMode m) {
  SetAvoidance s;
  s.mode = m;
  return s;
}

std::size_t index_of(const World& w, AgentId id) {
  for (std::size_t i = 0; i < w.agents().size(); ++i)
    if (w.agents()[i].id == id) return i;
  return w.agents().size();
}

// RVO2's Circle example, herd's size: 100 agents of radius 8 evenly on a ring of radius 400, each
// to the point opposite. In orca mode every one arrives and no two ever touch.
TEST(OrcaMode, AHundredAgentsSwapAcrossARingWithoutACollision) {
  WorldDef def;
  def.width = def.height = 1000;
  World world(def);
  std::vector<SpawnAgent> ring;
  for (int k = 0; k < 100; ++k) {
    const double angle = 2 * std::numbers::pi * k / 100;
    SpawnAgent s = at(500 + 400 * std::cos(angle), 500 + 400 * std::sin(angle));
    s.target = Vec2{500 - 400 * std::cos(angle), 500 - 400 * std::sin(angle)};
    ring.push_back(s);
  }
  ASSERT_TRUE(world.apply(Spawn{0, 0, ring}).ok());
  ASSERT_TRUE(world.apply(mode(AvoidanceMode::orca)).ok());
  std::size_t collisions = 0;
  int ticks = 0;
  auto all_arrived = [&] {
    return std::all_of(world.agents().begin(), world.agents().end(),
                       [](const Agent& a) { return a.state == MoveState::arrived; });
  };
  for (; ticks < 60 * 60 && !all_arrived(); ++ticks) {
    world.step();
    collisions += world.collisions().size();
  }
  EXPECT_TRUE(all_arrived()) << "after " << ticks << " ticks";
  EXPECT_EQ(collisions, 0u);
  std::printf("orca ring of 100: all arrived in %.2f s, %zu collisions\n", ticks * def.dt,
              collisions);
  // The same ring under cardioid avoidance does touch: the property above is orca's.
  World cardioid(def);
  ASSERT_TRUE(cardioid.apply(Spawn{0, 0, ring}).ok());
  std::size_t cardioid_collisions = 0;
  for (int t = 0; t < ticks; ++t) {
    cardioid.step();
    cardioid_collisions += cardioid.collisions().size();
  }
  EXPECT_GT(cardioid_collisions, 0u);
}

// A standing crowd (idle, priority 50) in a block of 6 rows of 12, 24 units apart (8 between
// neighbours' edges: too narrow to slip through), and one agent crossing it along its middle row,
// from x = 60 to 740 at up to 120 units/s.
constexpr double kBlockX = 235, kBlockY = 225, kSpacing = 24;
constexpr double kFrom = kBlockX - 30, kTo = kBlockX + 11 * kSpacing + 30;  // the block, +-30

struct Crossing {
  World world;
  AgentId crosser = 0;
  std::vector<AgentId> crowd;
  std::vector<Vec2> crowd_start;
};

Crossing crossing(AvoidanceMode m, std::uint8_t crosser_priority) {
  WorldDef def;
  Crossing c{World(def)};
  std::vector<SpawnAgent> crowd;
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < 12; ++col)
      crowd.push_back(at(kBlockX + kSpacing * col, kBlockY + kSpacing * row));
  const auto spawned = c.world.apply(Spawn{0, 0, crowd});
  EXPECT_TRUE(spawned.ok());
  c.crowd = spawned.spawned;
  for (const SpawnAgent& s : crowd) c.crowd_start.push_back(s.position);
  SpawnAgent crosser = at(60, kBlockY + 2 * kSpacing);
  crosser.target = Vec2{740, kBlockY + 2 * kSpacing};
  crosser.priority = crosser_priority;
  const auto one = c.world.apply(Spawn{0, 0, {crosser}});
  EXPECT_TRUE(one.ok());
  c.crosser = one.spawned.at(0);
  EXPECT_TRUE(c.world.apply(mode(m)).ok());
  return c;
}

struct CrossingResult {
  double mean_speed = 0;       // units/s, from kFrom to kTo
  double min_speed = 0;        // units/s, the same stretch
  double moved_aside = 0;      // the largest distance a crowd member was moved from its place
  double swerve = 0;           // the crosser's largest distance from its row, on that stretch
  std::size_t collisions = 0;  // the crosser's
  bool through = false;
};

CrossingResult run_crossing(Crossing& c) {
  CrossingResult r;
  r.min_speed = HUGE_VAL;
  double entered = -1, left = -1;
  for (int t = 0; t < 60 * 20 && left < 0; ++t) {
    c.world.step();
    for (const CollisionEvent& e : c.world.collisions())
      r.collisions += e.a == c.crosser || (!e.with_obstacle && e.b == c.crosser);
    const Agent& a = c.world.agents()[index_of(c.world, c.crosser)];
    if (a.position.x >= kFrom && entered < 0) entered = c.world.time();
    if (a.position.x >= kTo && left < 0) left = c.world.time();
    if (entered >= 0 && left < 0) {
      r.min_speed = std::min(r.min_speed, length(a.velocity));
      r.swerve = std::max(r.swerve, std::abs(a.position.y - (kBlockY + 2 * kSpacing)));
    }
  }
  r.through = left > 0;
  if (r.through) r.mean_speed = (kTo - kFrom) / (left - entered);
  for (std::size_t k = 0; k < c.crowd.size(); ++k) {
    const Agent& m = c.world.agents()[index_of(c.world, c.crowd[k])];
    r.moved_aside = std::max(r.moved_aside, length(m.position - c.crowd_start[k]));
  }
  return r;
}

// The acceptance test: a priority-0 agent crossing a standing crowd of priority-50 agents
// keeps at least 80% of its speed while they step aside, in orca mode and in the anti-gravity
// cardioid mode (the default); at equal priority it does not.
TEST(Priority, AMoreImportantAgentCrossesAStandingCrowdAtSpeedWhileItStepsAside) {
  for (AvoidanceMode m : {AvoidanceMode::orca, AvoidanceMode::cardioid}) {
    Crossing urgent = crossing(m, 0);
    const CrossingResult fast = run_crossing(urgent);
    Crossing equal = crossing(m, 50);
    const CrossingResult slow = run_crossing(equal);
    const std::string name(to_string(m));
    std::printf(
        "%s: priority 0 mean %.1f min %.1f units/s, swerve %.1f, %zu collisions, crowd "
        "moved %.1f; priority 50 mean %.1f min %.1f swerve %.1f through %d\n",
        name.c_str(), fast.mean_speed, fast.min_speed, fast.swerve, fast.collisions,
        fast.moved_aside, slow.mean_speed, slow.min_speed, slow.swerve, slow.through);
    ASSERT_TRUE(fast.through) << name;
    EXPECT_GE(fast.mean_speed, 0.8 * 120) << name;
    EXPECT_GE(fast.min_speed, 0.8 * 120) << name;
    EXPECT_LT(fast.swerve, 1.0) << name << ": straight through";
    EXPECT_GT(fast.moved_aside, 8) << name << ": the crowd stepped aside";
    // At equal priority the crowd is in its way: held up (orca), or it goes round (cardioid).
    EXPECT_TRUE(slow.mean_speed < 0.8 * 120 || slow.swerve > 8)
        << name << ": mean " << slow.mean_speed << ", swerve " << slow.swerve;
  }
}

// Priorities all equal, whatever the number, and layers all inside every mask: nobody is left
// out, and the world is bit for bit the one of the defaults (the filtering path finds the same
// neighbours in the same order as the default path).
TEST(Priority, EqualPrioritiesAndFullMasksChangeNothing) {
  for (AvoidanceMode m : {AvoidanceMode::cardioid, AvoidanceMode::orca}) {
    Crossing plain = crossing(m, 50);
    WorldDef def;
    World ruled(def);
    std::vector<SpawnAgent> crowd;
    for (int row = 0; row < 6; ++row)
      for (int col = 0; col < 12; ++col) {
        SpawnAgent s = at(kBlockX + kSpacing * col, kBlockY + kSpacing * row);
        s.priority = 7;
        s.layer = 4;
        s.mask = 4 | 8;
        crowd.push_back(s);
      }
    ASSERT_TRUE(ruled.apply(Spawn{0, 0, crowd}).ok());
    SpawnAgent crosser = at(60, kBlockY + 2 * kSpacing);
    crosser.target = Vec2{740, kBlockY + 2 * kSpacing};
    crosser.priority = 7;
    crosser.layer = 8;
    crosser.mask = 4;
    ASSERT_TRUE(ruled.apply(Spawn{0, 0, {crosser}}).ok());
    ASSERT_TRUE(ruled.apply(mode(m)).ok());
    for (int t = 0; t < 400; ++t) {
      plain.world.step();
      ruled.step();
    }
    ASSERT_EQ(plain.world.agents().size(), ruled.agents().size());
    for (std::size_t k = 0; k < ruled.agents().size(); ++k) {
      EXPECT_EQ(plain.world.agents()[k].position, ruled.agents()[k].position)
          << to_string(m) << " agent " << k;
      EXPECT_EQ(plain.world.agents()[k].velocity, ruled.agents()[k].velocity);
    }
  }
}

// An agent walking along y = 300 at one standing in its way on layer 2 (which avoids nobody: mask
// 0). One whose mask leaves layer 2 out has no push from it and walks straight at it (and into
// it: collisions stay physical); one whose mask has layer 2 avoids it.
TEST(Layers, AnAgentOutsideTheMaskIsNotAvoided) {
  for (AvoidanceMode m : {AvoidanceMode::cardioid, AvoidanceMode::orca}) {
    auto run = [&](std::uint32_t mask) {
      World world(WorldDef{});
      SpawnAgent walker = at(100, 300);
      walker.target = Vec2{700, 300};
      walker.mask = mask;
      SpawnAgent standing = at(400, 300);
      standing.layer = 2;
      standing.mask = 0;  // it avoids nobody (in orca mode it would step aside)
      EXPECT_TRUE(world.apply(Spawn{0, 0, {walker, standing}}).ok());
      EXPECT_TRUE(world.apply(mode(m)).ok());
      world.set_inspected({1});
      struct Seen {
        bool pushed = false;  // a push from agent 2 in its trace
        double swerve = 0;    // its largest distance from y = 300
        bool hit = false;     // it collided with agent 2
      } seen;
      for (int t = 0; t < 180; ++t) {
        world.step();
        for (const PushTrace& p : world.trace(1)->pushes)
          seen.pushed = seen.pushed || (!p.is_obstacle && p.id == 2);
        seen.swerve = std::max(seen.swerve, std::abs(world.agents()[0].position.y - 300));
        for (const CollisionEvent& e : world.collisions()) seen.hit = seen.hit || e.a == 1;
      }
      return seen;
    };
    const auto blind = run(~std::uint32_t{2});  // every layer but 2
    const auto seeing = run(2);
    const std::string name(to_string(m));
    EXPECT_FALSE(blind.pushed) << name;
    EXPECT_LT(blind.swerve, 1e-9) << name << ": straight";
    EXPECT_TRUE(blind.hit) << name << ": collisions stay physical";
    EXPECT_GT(seeing.swerve, 8) << name << ": it goes round";
    EXPECT_FALSE(seeing.hit) << name;
    if (m == AvoidanceMode::cardioid) {
      EXPECT_TRUE(seeing.pushed);
    }
  }
}

// Priorities and layers are part of the world: saved in a checkpoint with it (with orca mode),
// and a restored world goes on bit for bit.
TEST(Priority, ACheckpointCarriesPrioritiesLayersAndOrcaMode) {
  for (AvoidanceMode m : {AvoidanceMode::cardioid, AvoidanceMode::orca}) {
    Crossing c = crossing(m, 0);
    Spawn more;
    more.count = 20;
    more.priority = 80;
    more.layer = 16;
    more.mask = 1 | 16;
    ASSERT_TRUE(c.world.apply(more).ok());
    for (int t = 0; t < 120; ++t) c.world.step();
    auto loaded = World::load_checkpoint(c.world.save_checkpoint());
    ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
    World restored = std::move(std::get<World>(loaded));
    EXPECT_EQ(restored.def().avoidance.mode, m);
    const Agent& last = restored.agents().back();
    EXPECT_EQ(last.def.priority, 80);
    EXPECT_EQ(last.def.layer, 16u);
    EXPECT_EQ(last.def.mask, 17u);
    EXPECT_EQ(restored.find(c.crosser)->def.priority, 0);
    EXPECT_EQ(restored.state_hash(), c.world.state_hash());
    for (int t = 0; t < 240; ++t) {
      c.world.step();
      restored.step();
    }
    EXPECT_EQ(restored.state_hash(), c.world.state_hash()) << to_string(m);
  }
}

// A priority outside [0, 99] is refused whole, for an explicit agent and for a count spawn.
TEST(Priority, OutOfRangeIsRefusedAndChangesNothing) {
  World world(WorldDef{});
  SpawnAgent bad = at(100, 100);
  bad.priority = 100;
  EXPECT_EQ(world.apply(Spawn{0, 0, {at(50, 50), bad}}).error, CommandError::out_of_bounds);
  Spawn many;
  many.count = 5;
  many.priority = 255;
  EXPECT_EQ(world.apply(many).error, CommandError::out_of_bounds);
  EXPECT_TRUE(world.agents().empty());
  many.priority = 99;
  EXPECT_TRUE(world.apply(many).ok());
  EXPECT_EQ(world.agents().front().def.priority, 99);
}

}  // namespace
}  // namespace herd::sim
