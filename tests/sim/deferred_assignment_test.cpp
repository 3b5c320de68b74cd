// Optimal formation assignments too large for one tick: worked out over ticks within a budget of
// cost evaluations, bit-identical to the assignment made at once, applied at a tick boundary, and
// carried through checkpoints.
#include <gtest/gtest.h>

#include <variant>

#include "assignment.hpp"
#include "formation.hpp"
#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

TEST(OptimalAssignment, InSlicesItIsTheAssignmentMadeAtOnceAndEachSliceKeepsToItsBudget) {
  Rng rng(11);
  const std::size_t n = 300;
  std::vector<Vec2> from(n), to(n);
  for (Vec2& p : from) p = {rng.uniform(0, 1000), rng.uniform(0, 1000)};
  for (Vec2& p : to) p = {rng.uniform(400, 600), rng.uniform(400, 600)};
  const auto whole = assign_optimal(from, to);
  OptimalAssignment sliced(from, to);
  constexpr std::uint64_t kBudget = 5000;
  int slices = 0;
  while (!sliced.done()) {
    const std::size_t rows = sliced.rows_done();
    const std::uint64_t spent = sliced.advance(kBudget);
    // Whole rows only: at most the budget plus the last row's n * (n + 1).
    EXPECT_LE(spent, kBudget + n * (n + 1));
    EXPECT_GT(sliced.rows_done(), rows);
    ++slices;
  }
  EXPECT_GT(slices, 10);
  EXPECT_EQ(sliced.slots(), whole);
}

struct FormWorld {
  static constexpr std::size_t kAgents = 600;
  World world;
  std::vector<Vec2> from;
  FormationDef def;
  explicit FormWorld(std::uint64_t budget) : world(make_def(budget)) {
    std::vector<SpawnAgent> spawns(kAgents);
    Rng rng(5);
    for (SpawnAgent& s : spawns) {
      s.position = {rng.uniform(20, 1980), rng.uniform(20, 1980)};
      s.radius = 2;
      from.push_back(s.position);
    }
    EXPECT_TRUE(world.apply(Spawn{0, 0, spawns}).ok());
    def.shape = Shape::block;
    def.centre = {1000, 1000};
    def.spacing = 10;
    def.assignment = SlotAssignment::optimal;
  }
  static WorldDef make_def(std::uint64_t budget) {
    WorldDef d;
    d.width = d.height = 2000;
    d.assignment_costs_per_tick = budget;
    return d;
  }
};

TEST(DeferredAssignment, ALargeOptimalFormationCompletesWithinItsTicksAndEqualsTheOptimalOne) {
  constexpr std::uint64_t kBudget = 2'000'000;
  FormWorld f(kBudget);
  Form form;
  form.agents.all = true;
  form.def = f.def;
  const CommandOutcome out = f.world.apply(form);
  ASSERT_TRUE(out.ok()) << out.message;
  EXPECT_EQ(f.world.assignments_pending(), 1u) << "600 agents are more than one command's work";
  {  // Meanwhile each heads for its place by bisection: near-minimal travel, nearly the right way.
    const std::vector<Vec2> slots = formation_slots(f.def, FormWorld::kAgents);
    const auto near_best = assign_bisection(f.from, slots);
    for (std::size_t k = 0; k < FormWorld::kAgents; ++k)
      ASSERT_EQ(f.world.agents()[k].behaviour.point, slots[near_best[k]])
          << "agent " << f.world.agents()[k].id;
  }
  // Each row costs at most n * (n + 1) evaluations: the whole is done within this many ticks.
  const std::uint64_t n = FormWorld::kAgents;
  const std::uint64_t bound = n * n * (n + 1) / kBudget + 2;
  std::uint64_t ticks = 0;
  while (f.world.assignments_pending() > 0 && ticks <= bound) {
    f.world.step();
    ++ticks;
  }
  ASSERT_EQ(f.world.assignments_pending(), 0u);
  EXPECT_GT(ticks, 1u) << "spread over ticks";
  EXPECT_LE(ticks, bound);
  const std::vector<Vec2> slots = formation_slots(f.def, FormWorld::kAgents);
  const auto best = assign_optimal(f.from, slots);
  ASSERT_EQ(f.world.formations().size(), 1u);
  const FormationRecord& record = f.world.formations().front();
  for (std::size_t k = 0; k < FormWorld::kAgents; ++k) {
    const Agent& a = f.world.agents()[k];
    ASSERT_EQ(a.behaviour.point, slots[best[k]]) << "agent " << a.id;
    ASSERT_EQ(record.slots[k], slots[best[k]]);
  }
}

TEST(DeferredAssignment, SmallOptimalFormationsAreStillAssignedInTheCommand) {
  FormWorld f(2'000'000);
  Form form;
  form.agents.ids = {1, 2, 3, 4, 5};
  form.def = f.def;
  ASSERT_TRUE(f.world.apply(form).ok());
  EXPECT_EQ(f.world.assignments_pending(), 0u);
}

TEST(DeferredAssignment, ACheckpointTakenMidAssignmentGoesOnBitForBit) {
  FormWorld f(300'000);
  Form form;
  form.agents.all = true;
  form.def = f.def;
  ASSERT_TRUE(f.world.apply(form).ok());
  for (int t = 0; t < 3; ++t) f.world.step();
  ASSERT_EQ(f.world.assignments_pending(), 1u);
  auto loaded = World::load_checkpoint(f.world.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(copy.state_hash(), f.world.state_hash());
  EXPECT_EQ(copy.assignment_work_pending(), f.world.assignment_work_pending());
  for (int t = 0; t < 1000 && f.world.assignments_pending() > 0; ++t) {
    f.world.step();
    copy.step();
    ASSERT_EQ(copy.state_hash(), f.world.state_hash()) << "tick " << t;
  }
  EXPECT_EQ(copy.assignments_pending(), 0u);
  f.world.step();
  copy.step();
  EXPECT_EQ(copy.state_hash(), f.world.state_hash());
}

}  // namespace
}  // namespace herd::sim
