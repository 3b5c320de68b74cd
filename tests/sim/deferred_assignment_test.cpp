// Optimal formation assignments too large for one tick: worked out over ticks within a budget of
// cost evaluations, bit-identical to the assignment made at once, applied at a tick boundary, and
// carried through checkpoints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>

#include "assignment.hpp"
#include "formation.hpp"
#include "herd/sim/world.hpp"
#include "world_access.hpp"

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
    const std::uint64_t steps = sliced.steps_done();
    // One step at a time, then whole steps until the budget is spent: a slice stops at the
    // first step that reaches it.
    const std::uint64_t one = sliced.advance(1);
    EXPECT_EQ(sliced.steps_done(), steps + 1);
    EXPECT_GT(one, 0u);
    if (sliced.done()) break;
    const std::uint64_t spent = sliced.advance(kBudget);
    EXPECT_TRUE(sliced.done() || spent >= kBudget) << spent;
    ++slices;
  }
  EXPECT_GT(slices, 10);
  EXPECT_EQ(sliced.slots(), whole);
}

// The dense Hungarian method (shortest augmenting paths over every pair, O(n^3)): the reference
// the sparse method must equal.
double dense_optimum(const std::vector<Vec2>& from, const std::vector<Vec2>& to) {
  const std::size_t n = from.size();
  std::vector<double> u(n + 1), v(n + 1), min_to(n + 1);
  std::vector<std::size_t> p(n + 1), way(n + 1);
  std::vector<char> used(n + 1);
  for (std::size_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::size_t j0 = 0;
    std::fill(min_to.begin(), min_to.end(), HUGE_VAL);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const std::size_t i0 = p[j0];
      double delta = HUGE_VAL;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = length_squared(to[j - 1] - from[i0 - 1]) - u[i0] - v[j];
        if (cur < min_to[j]) {
          min_to[j] = cur;
          way[j] = j0;
        }
        if (min_to[j] < delta) {
          delta = min_to[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          min_to[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const std::size_t j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  double total = 0;
  for (std::size_t j = 1; j <= n; ++j) total += length_squared(to[j - 1] - from[p[j] - 1]);
  return total;
}

// Exact on every kind of crowd: spread out, bunched in a corner far from the places (most of
// the sparse graph's first pairs are wrong and the check must add them), on top of each other,
// and a lattice onto a lattice (ties everywhere).
TEST(OptimalAssignment, TheSparseMethodFindsTheOptimumOfTheDenseOne) {
  Rng rng(3);
  for (std::size_t n : {1, 2, 5, 13, 50, 200, 400}) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<Vec2> from(n), to(n);
      for (std::size_t k = 0; k < n; ++k) {
        to[k] = {rng.uniform(400, 600), rng.uniform(400, 600)};
        switch (kind) {
          case 0:
            from[k] = {rng.uniform(0, 1000), rng.uniform(0, 1000)};
            break;
          case 1:
            from[k] = {rng.uniform(0, 60), rng.uniform(0, 60)};
            break;
          case 2:
            from[k] = k % 3 == 0 ? Vec2{10, 10} : Vec2{990, 10};
            break;
          default:
            from[k] = {static_cast<double>(k % 7) * 10, static_cast<double>(k / 7) * 10};
            to[k] = {500 + static_cast<double>(k % 9) * 10, static_cast<double>(k / 9) * 10};
        }
      }
      const std::vector<std::uint32_t> slot = assign_optimal(from, to);
      std::vector<std::uint32_t> sorted = slot;
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(sorted[k], k) << "a permutation";
      const double best = dense_optimum(from, to);
      EXPECT_NEAR(total_squared_travel(from, to, slot), best, 1e-9 * best + 1e-9)
          << n << " agents, crowd " << kind;
    }
  }
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
  ASSERT_EQ(formation_records(f.world).size(), 1u);
  const FormationRecord& record = formation_records(f.world).front();
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
