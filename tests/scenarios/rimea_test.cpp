// RiMEA's test cases (the German guideline for evacuation software, "Richtlinie für Mikroskopische
// Entfluchtungsanalysen", its section of verification tests), those that apply to a 2D plane,
// each with the guideline's own pass criterion, run in cfsm mode (the pedestrian scenarios' mode).
// Test 4, the fundamental diagram, is fundamental_diagram_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "herd/sim/world.hpp"
#include "sim/pedestrians.hpp"
#include "tile_collision.hpp"

namespace herd::sim {
namespace {

// Test 1, keeping the walking speed in a corridor: one person walking at 1.33 m/s covers 40 m of
// a 2 m-wide corridor in 26 to 34 s.
TEST(Rimea, Test1KeepsItsWalkingSpeedAlongACorridor) {
  World w(pedestrian_world(44, 2));
  SpawnAgent walker;
  walker.position = {1, 1};
  walker.target = Vec2{43.5, 1};
  walker.max_speed = 1.33;
  ASSERT_TRUE(w.apply(Spawn{0, 0, {walker}}).ok());
  double started = -1, finished = -1;
  for (int t = 1; t <= 60 * 60 && finished < 0; ++t) {
    w.step();
    const double x = w.agents()[0].position.x, now = t * w.def().dt;
    if (started < 0 && x >= 2) started = now;
    if (finished < 0 && x >= 42) finished = now;
  }
  ASSERT_GT(finished, 0);
  EXPECT_GE(finished - started, 26.0);
  EXPECT_LE(finished - started, 34.0);
}

// Test 6, movement around a corner: twenty people spread over the first part of a 2 m-wide
// corridor that turns left go round the corner without passing through the walls. The corner:
// 12 m along, then 12 m up (y grows downwards: a left turn), walls of 0.25 m tiles.
TEST(Rimea, Test6TwentyGoRoundALeftCornerWithoutPassingThroughWalls) {
  World w(pedestrian_world(14, 14));
  TileMapDef map{56, 56, 0.25, std::vector<std::uint8_t>(56 * 56, kBlocked)};
  for (int y = 0; y < 56; ++y)
    for (int x = 0; x < 56; ++x) {
      const bool along = y >= 48;  // y in [12, 14]: the first leg, x in [0, 14]
      const bool up = x >= 48;     // x in [12, 14]: the second leg, y in [0, 14]
      if (along || up) map.cells[static_cast<std::size_t>(y * 56 + x)] = kWalkable;
    }
  ASSERT_TRUE(w.apply(LoadMap{map}).ok());
  std::vector<SpawnAgent> people;
  for (int k = 0; k < 20; ++k) {
    SpawnAgent s;
    s.position = {0.5 + 0.55 * (k / 4), 12.3 + 0.45 * (k % 4)};  // 5 columns of 4 across the leg
    s.target = Vec2{12.3 + 0.45 * (k % 4), 0.5 + 0.55 * (k / 4)};
    people.push_back(s);
  }
  ASSERT_TRUE(w.apply(Spawn{0, 0, people}).ok());
  ASSERT_TRUE(w.apply(SetPathing{Selection(true), Pathing::flow, 8}).ok());
  double deepest = 0;
  for (int t = 0; t < 90 * 60; ++t) {
    w.step();
    for (const Agent& a : w.agents()) {
      ASSERT_FALSE(w.map()->blocked(w.map()->tile_at(a.position)))
          << "agent " << a.id << " inside a wall at tick " << w.tick();
      deepest = std::max(deepest, penetration(*w.map(), a.position, a.def.radius));
    }
  }
  EXPECT_LE(deepest, 0.01) << "metres into a wall";
  for (const Agent& a : w.agents()) {
    EXPECT_LT(a.position.y, 6.0) << "agent " << a.id << " went round the corner";
    EXPECT_GT(a.position.x, 12.0) << a.id;
  }
}

}  // namespace
}  // namespace herd::sim
