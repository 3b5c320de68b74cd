// The step's profile: every stage and sub-stage named once, each sub-stage after its stage and
// timed within it, and timing that never changes the state.
#include "herd/sim/profile.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

// A clock that moves one nanosecond each time it is read: every timed stage takes at least one.
std::uint64_t ticking_ns() {
  static std::uint64_t now = 0;
  return ++now;
}

World crowd_with_orders() {
  WorldDef def;
  World world(def);
  std::vector<SpawnAgent> agents;
  for (int k = 0; k < 30; ++k) {
    SpawnAgent s;
    s.position = {100.0 + 12 * (k % 6), 100.0 + 12 * (k / 6)};
    agents.push_back(s);
  }
  EXPECT_TRUE(world.apply(Spawn{0, 0, agents}).ok());
  SetTarget go;  // a group order: its stages run (settling, pacing, keeping off those at rest)
  go.agents = {true, {}};
  go.target = {500, 400};
  EXPECT_TRUE(world.apply(go).ok());
  return world;
}

TEST(Profile, EveryStageIsNamedOnceAndEachSubStageFollowsItsStage) {
  std::set<std::string_view> names;
  std::string_view stage;
  for (std::size_t s = 0; s < kStageCount; ++s) {
    const Stage at = static_cast<Stage>(s);
    const std::string_view name = stage_name(at);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
    if (!is_sub_stage(at)) {
      stage = name;
      continue;
    }
    EXPECT_EQ(name.substr(0, name.find('.')), stage) << name;
  }
  EXPECT_FALSE(is_sub_stage(Stage::sources));  // the first is a stage
  EXPECT_EQ(stage_name(Stage::grid), "grid");  // the table's names line up with the enum
  EXPECT_EQ(stage_name(Stage::phases_orders), "phases.orders");
  EXPECT_EQ(stage_name(Stage::integrate_keep_off), "integrate.keep_off");
  EXPECT_EQ(stage_name(Stage::exits), "exits");
}

TEST(Profile, EverySubStageIsTimedWithinItsStageOnEveryStep) {
  World world = crowd_with_orders();
  world.set_clock(ticking_ns);
  for (int t = 0; t < 3; ++t) {
    world.step();
    const StepProfile& p = world.profile();
    std::size_t parent = 0;
    for (std::size_t s = 0; s < kStageCount; ++s) {
      const Stage at = static_cast<Stage>(s);
      EXPECT_GT(p.stage_ns[s], 0u) << stage_name(at);
      if (!is_sub_stage(at)) {
        parent = s;
        continue;
      }
      EXPECT_LT(p.stage_ns[s], p.stage_ns[parent]) << stage_name(at);
    }
  }
}

TEST(Profile, TimingChangesNoState) {
  World timed = crowd_with_orders(), untimed = crowd_with_orders();
  timed.set_clock(ticking_ns);
  for (int t = 0; t < 20; ++t) {
    timed.step();
    untimed.step();
  }
  EXPECT_EQ(timed.state_hash(), untimed.state_hash());
  for (std::size_t s = 0; s < kStageCount; ++s) EXPECT_EQ(untimed.profile().stage_ns[s], 0u);
}

}  // namespace
}  // namespace herd::sim
