// Formations that fit the world they are made in: a layout given no spacing shrinks until it
// does, down to touching; one given a spacing is as asked or refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "geometry.hpp"
#include "herd/sim/metrics.hpp"
#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

// The default scenario's crowd: 48 agents of the default radius (8) on a ring in 800 x 600.
World ring_of_48() {
  World world(WorldDef{});
  std::vector<SpawnAgent> ring;
  for (int i = 0; i < 48; ++i) {
    SpawnAgent s;
    s.position = Vec2{400, 300} + from_angle(2 * kPi * i / 48, 240);
    s.group = static_cast<std::uint8_t>(i % 3);
    ring.push_back(s);
  }
  EXPECT_TRUE(world.apply(Spawn{0, 0, ring}).ok());
  return world;
}

// What the viewer's P sends (clients/web/demo_keys.js): two vertical lines, regrouped, in id order.
FormationDef demo_p() {
  FormationDef lines;
  lines.shape = Shape::lines;
  lines.centre = {400, 300};
  lines.vertical = true;
  lines.count = 2;
  lines.regroup = true;
  lines.assignment = SlotAssignment::keep_order;
  return lines;
}

// The smallest distance between two of the places (O(n^2): a few dozen here).
double closest_places(const std::vector<Vec2>& slots) {
  double closest = HUGE_VAL;
  for (std::size_t i = 0; i < slots.size(); ++i)
    for (std::size_t j = i + 1; j < slots.size(); ++j)
      closest = std::min(closest, length(slots[i] - slots[j]));
  return closest;
}

// Two lines of 24 at the default 4 radii (32 units) are 752 long, and the world is 600 high: the
// spacing shrinks until they fit (it was refused with out_of_bounds), no tighter than touching,
// and the lines complete.
TEST(FormationFit, TheDemosTwoLinesOfFortyEightFitItsWorldCloserTogether) {
  World world = ring_of_48();
  const CommandOutcome out = world.apply(Form{{true, {}}, demo_p()});
  ASSERT_TRUE(out.ok()) << out.message;
  EXPECT_EQ(out.affected, 48u);
  const FormationRecord& f = formation_records(world).back();
  for (const Vec2& p : f.slots) {
    EXPECT_GE(p.y, 8.0) << "inside the world";
    EXPECT_LE(p.y, 600.0 - 8.0) << "inside the world";
  }
  const double spacing = closest_places(f.slots);
  EXPECT_LT(spacing, 32.0) << "closer than the default";
  EXPECT_GE(spacing, 16.0) << "no closer than touching";
  // As close as fits, not closer: the lines' ends are within a unit of the world's edges.
  const auto [low, high] =
      std::minmax_element(f.slots.begin(), f.slots.end(), [](Vec2 a, Vec2 b) { return a.y < b.y; });
  EXPECT_LT(low->y, 8.0 + 1.0);
  EXPECT_GT(high->y, 600.0 - 8.0 - 1.0);
  ScenarioMetrics metrics(world);
  bool complete = false;
  for (int t = 0; t < 60 * 20 && !complete; ++t) {
    world.step();
    metrics.observe(world);
    complete = formation_records(world).back().complete;
  }
  EXPECT_TRUE(complete) << "the lines complete within 20 s";
}

// Given a spacing, the layout is as asked or refused: 32 units apart does not fit (as before).
TEST(FormationFit, AnExplicitSpacingThatDoesNotFitIsRefused) {
  World world = ring_of_48();
  const auto before = world.state_hash();
  FormationDef lines = demo_p();
  lines.spacing = 32;
  const CommandOutcome out = world.apply(Form{{true, {}}, lines});
  EXPECT_EQ(out.error, CommandError::out_of_bounds);
  EXPECT_NE(out.message.find("outside"), std::string::npos) << out.message;
  EXPECT_EQ(world.state_hash(), before) << "nothing changed";
  lines.spacing = 24;  // 23 x 24 + 16 = 568: fits
  EXPECT_TRUE(world.apply(Form{{true, {}}, lines}).ok());
}

// Refused only when even touching does not fit: two lines of 24 touching are 384 units long, and
// this world is 360 high. The message says so, with the place as people write it.
TEST(FormationFit, ALayoutThatDoesNotFitEvenTouchingIsRefused) {
  WorldDef def;
  def.width = 360;
  def.height = 360;
  World world(def);
  ASSERT_TRUE(world.apply(Spawn{48, 0, {}}).ok());
  const auto before = world.state_hash();
  FormationDef lines = demo_p();
  lines.centre = {180, 180};
  const CommandOutcome out = world.apply(Form{{true, {}}, lines});
  EXPECT_EQ(out.error, CommandError::out_of_bounds);
  EXPECT_NE(out.message.find("touching (16 apart)"), std::string::npos) << out.message;
  EXPECT_EQ(out.message.find(".000"), std::string::npos) << "coordinates as people write them";
  EXPECT_EQ(world.state_hash(), before) << "nothing changed";
  // 22 a line touching are 352 long: they fit.
  ASSERT_TRUE(world.apply(Remove{{false, {1, 2, 3, 4}}}).ok());
  EXPECT_TRUE(world.apply(Form{{true, {}}, lines}).ok());
}

}  // namespace
}  // namespace herd::sim
