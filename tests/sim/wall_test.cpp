// Walls: the geometry (crossings, nearest points, the segment grid), add_wall and remove_wall
// with their refusals, the hard boundary (a thousand agents driven against segments, a polyline
// and polygons: no centre ever crosses one, no disc overlaps one), avoidance heeding them in
// every mode and in reciprocal moves, checkpoints, and that a world without walls steps as one
// always has.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "herd/sim/world.hpp"
#include "rng.hpp"
#include "walls.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

// ---- an independent check, written apart from the sim's -----------------------------------------

double side(Vec2 a, Vec2 b, Vec2 p) {
  return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// The move p0 -> p1 passes from strictly one side of segment a-b to strictly the other through it.
bool passes_through(Vec2 p0, Vec2 p1, Vec2 a, Vec2 b) {
  const double s0 = side(a, b, p0), s1 = side(a, b, p1);
  if (!((s0 > 0 && s1 < 0) || (s0 < 0 && s1 > 0))) return false;
  const double t0 = side(p0, p1, a), t1 = side(p0, p1, b);
  return (t0 <= 0 && t1 >= 0) || (t0 >= 0 && t1 <= 0);
}

double distance_to_segment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const double t = std::clamp(dot(p - a, d) / length_squared(d), 0.0, 1.0);
  return length(a + d * t - p);
}

// Even-odd ray casting: p inside the closed polygon.
bool inside_polygon(const std::vector<Vec2>& poly, Vec2 p) {
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2 a = poly[i], b = poly[j];
    if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) in = !in;
  }
  return in;
}

struct Seg {
  Vec2 a, b;
};

std::vector<Seg> segments_of(const World& w) {
  std::vector<Seg> out;
  for (const Wall& wall : w.walls()) {
    const std::size_t n = wall.points.size();
    for (std::size_t i = 0; i + 1 < n + (wall.closed ? 1 : 0); ++i)
      out.push_back({wall.points[i], wall.points[(i + 1) % n]});
  }
  return out;
}

WallId add_wall(World& w, std::vector<Vec2> points, bool closed = false) {
  const CommandOutcome out = w.apply(AddWall{std::move(points), closed});
  EXPECT_TRUE(out.ok()) << out.message;
  return out.wall.value_or(0);
}

SpawnAgent mover(Vec2 from, Vec2 to, double radius = 4, double speed = 100) {
  SpawnAgent s;
  s.position = from;
  s.target = to;
  s.radius = radius;
  s.max_speed = speed;
  s.max_force = 4000;
  return s;
}

// ---- geometry -------------------------------------------------------------------------------

TEST(WallGeometry, AMoveCrossesASegmentOnlyFromOneSideToTheOtherThroughIt) {
  const Vec2 a{0, 0}, b{0, 10};
  EXPECT_TRUE(crosses_segment({-1, 5}, {1, 5}, a, b));
  EXPECT_TRUE(crosses_segment({1, 5}, {-1, 5}, a, b));
  EXPECT_TRUE(crosses_segment({-1, 5}, {0, 5}, a, b)) << "ending on the wall is not allowed";
  EXPECT_TRUE(crosses_segment({-1, -1}, {1, 1}, a, b)) << "through its end";
  EXPECT_FALSE(crosses_segment({0, 5}, {1, 5}, a, b)) << "leaving the line is not crossing";
  EXPECT_FALSE(crosses_segment({-1, 11}, {1, 11}, a, b)) << "past its end";
  EXPECT_FALSE(crosses_segment({-1, 5}, {-0.5, 5}, a, b));
  EXPECT_FALSE(crosses_segment({-1, 5}, {-1, 5}, a, b));
  EXPECT_FALSE(crosses_segment({0, -5}, {0, 15}, a, b)) << "along its line";
}

TEST(WallGeometry, TheNearestPointOfASegmentIsAnEndOrTheFootOfThePerpendicular) {
  EXPECT_EQ(closest_on_segment({5, 3}, {0, 0}, {10, 0}), (Vec2{5, 0}));
  EXPECT_EQ(closest_on_segment({-5, 3}, {0, 0}, {10, 0}), (Vec2{0, 0}));
  EXPECT_EQ(closest_on_segment({15, -3}, {0, 0}, {10, 0}), (Vec2{10, 0}));
  EXPECT_EQ(closest_on_segment({1, 1}, {2, 2}, {2, 2}), (Vec2{2, 2}));
}

TEST(WallGeometry, TheGridFindsEverySegmentNearABox) {
  WallService walls;
  Rng rng(3);
  for (int k = 0; k < 40; ++k) {
    std::vector<Vec2> points;
    for (int i = 0; i < 4; ++i) points.push_back({rng.uniform(0, 500), rng.uniform(0, 300)});
    walls.add(points, k % 2 == 0, 500, 300);
  }
  std::vector<std::uint32_t> found;
  const auto segments = walls.segments();
  for (int q = 0; q < 2000; ++q) {
    const Vec2 c{rng.uniform(-20, 520), rng.uniform(-20, 320)};
    const double reach = rng.uniform(0.1, 40);
    walls.query(c - Vec2{reach, reach}, c + Vec2{reach, reach}, found);
    ASSERT_TRUE(std::is_sorted(found.begin(), found.end()));
    ASSERT_EQ(std::adjacent_find(found.begin(), found.end()), found.end());
    for (std::uint32_t k = 0; k < segments.size(); ++k)
      if (distance_to_segment(c, segments[k].a, segments[k].b) <= reach)
        ASSERT_TRUE(std::binary_search(found.begin(), found.end(), k))
            << "segment " << k << " within " << reach << " of (" << c.x << ", " << c.y << ")";
  }
}

// ---- commands -------------------------------------------------------------------------------

TEST(Walls, AddAndRemoveWithIdsNeverReused) {
  World w(WorldDef{});
  EXPECT_EQ(w.walls_version(), 0u);
  const WallId first = add_wall(w, {{100, 100}, {200, 100}});
  const WallId second = add_wall(w, {{300, 300}, {400, 300}, {350, 400}}, true);
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 2u);
  ASSERT_EQ(w.walls().size(), 2u);
  EXPECT_TRUE(w.walls()[1].closed);
  EXPECT_EQ(w.walls()[1].points.size(), 3u);
  EXPECT_EQ(w.walls_version(), 2u);
  const CommandOutcome removed = w.apply(RemoveWall{first});
  EXPECT_TRUE(removed.ok());
  EXPECT_EQ(removed.affected, 1u);
  EXPECT_EQ(w.walls_version(), 3u);
  ASSERT_EQ(w.walls().size(), 1u);
  EXPECT_EQ(w.walls()[0].id, second);
  EXPECT_EQ(w.apply(RemoveWall{first}).error, CommandError::unknown_wall);
  EXPECT_EQ(w.apply(RemoveWall{0}).error, CommandError::unknown_wall);
  EXPECT_EQ(add_wall(w, {{10, 10}, {20, 20}, {30, 10}}), 3u) << "an open polyline";
}

TEST(Walls, BadWallsAreRefusedWithACodeAndChangeNothing) {
  World w(WorldDef{});  // 800 x 600
  add_wall(w, {{100, 100}, {200, 100}});
  ASSERT_TRUE(w.apply(Spawn{10, 0, {}}).ok());
  const std::uint64_t hash = w.state_hash(), version = w.walls_version();
  std::vector<Vec2> many;
  for (int i = 0; i <= 256; ++i) many.push_back({1.0 + i, 10.0 + (i % 2)});
  const struct {
    AddWall wall;
    CommandError error;
    const char* what;
  } cases[] = {
      {{{}, false}, CommandError::out_of_bounds, "no points"},
      {{{{10, 10}}, false}, CommandError::out_of_bounds, "one point"},
      {{{{10, 10}, {20, 20}}, true}, CommandError::out_of_bounds, "a closed wall of two"},
      {{{{10, 10}, {801, 20}}, false}, CommandError::out_of_bounds, "a point outside"},
      {{{{-0.5, 10}, {20, 20}}, false}, CommandError::out_of_bounds, "a point outside"},
      {{{{10, 10}, {NAN, 20}}, false}, CommandError::out_of_bounds, "not a number"},
      {{{{10, 10}, {10, 10}}, false}, CommandError::out_of_bounds, "two equal points"},
      {{{{10, 10}, {20, 20}, {20, 20}, {5, 5}}, false}, CommandError::out_of_bounds, "equal ones"},
      {{{{10, 10}, {20, 20}, {30, 10}, {10, 10}}, true},
       CommandError::out_of_bounds,
       "a closed wall repeating its first point"},
      {{many, false}, CommandError::limit_exceeded, "257 points"},
  };
  for (const auto& c : cases) {
    const CommandOutcome out = w.apply(c.wall);
    EXPECT_EQ(out.error, c.error) << c.what << ": " << out.message;
    EXPECT_FALSE(out.message.empty()) << c.what;
    EXPECT_FALSE(out.wall) << c.what;
  }
  EXPECT_EQ(w.state_hash(), hash);
  EXPECT_EQ(w.walls_version(), version);
  EXPECT_EQ(w.walls().size(), 1u);
  many.pop_back();
  EXPECT_TRUE(w.apply(AddWall{many, false}).ok()) << "256 points";
}

TEST(Walls, AWorldHoldsAtMost1024WallsAnd16384PointsInAll) {
  World w(WorldDef{});
  for (int k = 0; k < 1024; ++k)
    ASSERT_TRUE(w.apply(AddWall{{{1.0 + k % 700, 10}, {1.0 + k % 700, 20}}, false}).ok());
  const CommandOutcome over = w.apply(AddWall{{{5, 50}, {6, 60}}, false});
  EXPECT_EQ(over.error, CommandError::limit_exceeded) << over.message;
  EXPECT_EQ(w.walls().size(), 1024u);

  World points(WorldDef{});
  std::vector<Vec2> wall;
  for (int i = 0; i < 256; ++i) wall.push_back({1.0 + i, 10.0 + (i % 2)});
  for (int k = 0; k < 64; ++k) ASSERT_TRUE(points.apply(AddWall{wall, false}).ok()) << k;
  const CommandOutcome full = points.apply(AddWall{{{5, 50}, {6, 60}}, false});
  EXPECT_EQ(full.error, CommandError::limit_exceeded) << full.message;
}

// ---- the hard boundary ------------------------------------------------------------------------

// The acceptance run: a thousand agents of radii 1.5 to 4 and speeds up to 400 units/s (the
// fastest move further in a tick than the smallest are wide), each heading for a point mirrored
// across the world's middle, where a long wall stands; a zigzag polyline, a segment and three
// polygons (one with an acute notch and acute inner corners) in the way, agents inside some of
// them. Crowds press on every wall, collisions pushing from behind. Every tick: no centre passed
// through a segment, no disc overlaps one, and no agent is in or out of a polygon other than it
// was after the first tick.
struct Acceptance {
  std::uint64_t crossings = 0;  // moves through a segment
  std::uint64_t changed = 0;    // agents that left or entered a polygon
  double worst_overlap = 0;     // units a disc reached into a wall at worst
  double pressed = 0;           // agent-ticks touching a wall (within 1% of the radius)
};

Acceptance drive_against_walls(AvoidanceMode mode, bool reciprocal_move, int ticks) {
  WorldDef def;  // 800 x 600
  def.avoidance.mode = mode;
  def.seed = 11;
  World w(def);
  add_wall(w, {{400, 40}, {400, 560}});
  add_wall(w, {{60, 300}, {120, 340}, {180, 300}, {240, 340}, {300, 300}});
  add_wall(w, {{450, 300}, {560, 560}});
  add_wall(w, {{500, 80}, {740, 80}, {740, 260}, {620, 120}, {500, 260}}, true);
  add_wall(w, {{120, 420}, {320, 470}, {150, 560}}, true);
  add_wall(w, {{150, 60}, {280, 90}, {200, 200}, {190, 110}}, true);
  const std::vector<Seg> segs = segments_of(w);
  std::vector<std::vector<Vec2>> polygons;
  for (const Wall& wall : w.walls())
    if (wall.closed) polygons.push_back(wall.points);

  Rng rng(7);
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 1000; ++k) {
    const Vec2 at{rng.uniform(10, 790), rng.uniform(10, 590)};
    SpawnAgent s = mover(at, {800 - at.x, rng.uniform(10, 590)}, rng.uniform(1.5, 4),
                         k % 10 == 0 ? 400 : rng.uniform(40, 160));
    if (k % 7 == 0) s.movement = Movement::kinematic;
    crowd.push_back(s);
  }
  EXPECT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  if (reciprocal_move) {
    Selection some;
    for (AgentId id = 1; id <= 300; ++id) some.ids.push_back(id);
    const CommandOutcome out = w.apply(Demo{some, DemoMove::swap_places, 3});
    EXPECT_TRUE(out.ok()) << out.message;
  }
  Acceptance r;
  std::vector<Vec2> before;
  std::vector<std::vector<bool>> inside;
  for (int t = 0; t < ticks; ++t) {
    before.clear();
    for (const Agent& a : w.agents()) before.push_back(a.position);
    w.step();
    const auto agents = w.agents();
    EXPECT_EQ(agents.size(), before.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const Agent& a = agents[i];
      double nearest = HUGE_VAL;
      for (const Seg& s : segs) {
        if (passes_through(before[i], a.position, s.a, s.b)) {
          if (r.crossings++ == 0)
            ADD_FAILURE() << "agent " << a.id << " crossed (" << s.a.x << ", " << s.a.y << ")-("
                          << s.b.x << ", " << s.b.y << ") at tick " << w.tick();
        }
        nearest = std::min(nearest, distance_to_segment(a.position, s.a, s.b));
      }
      r.worst_overlap = std::max(r.worst_overlap, a.def.radius - nearest);
      r.pressed += nearest < a.def.radius * 1.01;
    }
    if (t == 0)
      for (const auto& poly : polygons) {
        inside.emplace_back();
        for (const Agent& a : agents) inside.back().push_back(inside_polygon(poly, a.position));
      }
    for (std::size_t p = 0; p < polygons.size(); ++p)
      for (std::size_t i = 0; i < agents.size(); ++i)
        if (inside_polygon(polygons[p], agents[i].position) != inside[p][i] && r.changed++ == 0)
          ADD_FAILURE() << "agent " << agents[i].id << " went "
                        << (inside[p][i] ? "out of" : "into") << " polygon " << p << " from ("
                        << before[i].x << ", " << before[i].y << ") to (" << agents[i].position.x
                        << ", " << agents[i].position.y << ") at tick " << w.tick();
  }
  return r;
}

constexpr double kOverlapEpsilon = 1e-6;  // units

TEST(Walls, NoAgentEverCrossesOneInAThousandDrivenAgainstThem) {
  for (AvoidanceMode mode : {AvoidanceMode::cardioid, AvoidanceMode::circle, AvoidanceMode::none}) {
    const Acceptance r = drive_against_walls(mode, false, 400);
    const std::string what = "mode " + std::string(to_string(mode));
    EXPECT_EQ(r.crossings, 0u) << what;
    EXPECT_EQ(r.changed, 0u) << what;
    EXPECT_LE(r.worst_overlap, kOverlapEpsilon) << what;
    EXPECT_GT(r.pressed, 1000) << what << ": the crowd must press on the walls";
    std::printf("[ walls    ] %s: worst overlap %.3g units, %.0f agent-ticks touching a wall\n",
                what.c_str(), r.worst_overlap, r.pressed);
  }
}

TEST(Walls, NoMemberOfAReciprocalMoveCrossesOne) {
  const Acceptance r = drive_against_walls(AvoidanceMode::cardioid, true, 300);
  EXPECT_EQ(r.crossings, 0u);
  EXPECT_EQ(r.changed, 0u);
  EXPECT_LE(r.worst_overlap, kOverlapEpsilon);
}

TEST(Walls, AFastSmallAgentIsStoppedAtTheWallItWouldJumpOver) {
  WorldDef def;
  def.avoidance.mode = AvoidanceMode::none;
  World w(def);
  add_wall(w, {{400, 100}, {400, 500}});
  SpawnAgent s = mover({300, 300}, {500, 300}, 0.5, 3000);  // 50 units a tick
  s.movement = Movement::kinematic;
  s.max_force = 1e5;
  ASSERT_TRUE(w.apply(Spawn{0, 0, {s}}).ok());
  for (int t = 0; t < 30; ++t) {
    const Vec2 from = w.agents()[0].position;
    w.step();
    ASSERT_FALSE(passes_through(from, w.agents()[0].position, {400, 100}, {400, 500}));
  }
  EXPECT_NEAR(w.agents()[0].position.x, 399.5, 1e-9) << "touching the wall";
  EXPECT_LE(w.agents()[0].velocity.x, 0) << "no velocity into the wall";
}

TEST(Walls, AWallAddedThroughADiscPushesItOutOnTheSideOfItsCentre) {
  WorldDef def;
  def.avoidance.mode = AvoidanceMode::none;
  World w(def);
  SpawnAgent a;
  a.position = {300, 300};
  a.radius = 5;
  SpawnAgent b = a;
  b.position = {500, 300};
  ASSERT_TRUE(w.apply(Spawn{0, 0, {a, b}}).ok());
  add_wall(w, {{302, 200}, {302, 400}});  // 2 to the right of the first centre
  add_wall(w, {{500, 200}, {500, 400}});  // through the second centre
  w.step();
  EXPECT_DOUBLE_EQ(w.agents()[0].position.x, 297);
  EXPECT_NEAR(std::abs(w.agents()[1].position.x - 500), 5, 1e-9);
}

TEST(Walls, ARemovedWallHoldsNoLonger) {
  WorldDef def;
  def.avoidance.mode = AvoidanceMode::none;
  World w(def);
  const WallId wall = add_wall(w, {{400, 100}, {400, 500}});
  ASSERT_TRUE(w.apply(Spawn{0, 0, {mover({300, 300}, {500, 300})}}).ok());
  for (int t = 0; t < 120; ++t) w.step();
  EXPECT_LT(w.agents()[0].position.x, 400);
  ASSERT_TRUE(w.apply(RemoveWall{wall}).ok());
  for (int t = 0; t < 240; ++t) w.step();
  EXPECT_NEAR(w.agents()[0].position.x, 500, 1);
}

// ---- avoidance --------------------------------------------------------------------------------

TEST(Walls, AvoidanceHeedsAWallAsAnObstacleAtItsNearestPoint) {
  for (AvoidanceMode mode : {AvoidanceMode::cardioid, AvoidanceMode::circle}) {
    WorldDef def;
    def.avoidance.mode = mode;
    World with(def), without(def);
    add_wall(with, {{330, 250}, {330, 350}});
    const SpawnAgent s = mover({320, 290}, {500, 300});
    for (World* w : {&with, &without}) {
      ASSERT_TRUE(w->apply(Spawn{0, 0, {s}}).ok());
      w->set_inspected({1});
      w->step();
    }
    const AvoidanceTrace* t = with.trace(1);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->pushes.size(), 1u) << to_string(mode);
    EXPECT_TRUE(t->pushes[0].is_obstacle);
    EXPECT_EQ(t->pushes[0].id, 0u) << "a wall's push has id 0";
    EXPECT_LT(t->pushes[0].raw.x, 0) << "away from the wall, at x = 330";
    EXPECT_TRUE(without.trace(1)->pushes.empty());
    EXPECT_NE(with.desires()[0].velocity, without.desires()[0].velocity) << to_string(mode);
  }
}

TEST(Walls, AVertexTwoSegmentsShareIsHeededOnce) {
  WorldDef def;
  World w(def);
  add_wall(w, {{300, 200}, {330, 300}, {300, 400}});  // the corner points at the agent
  ASSERT_TRUE(w.apply(Spawn{0, 0, {mover({336, 300}, {500, 300})}}).ok());
  w.set_inspected({1});
  w.step();
  ASSERT_NE(w.trace(1), nullptr);
  EXPECT_EQ(w.trace(1)->pushes.size(), 1u);
}

TEST(Walls, MembersOfAReciprocalMoveHeedThem) {
  WorldDef def;
  World with(def), without(def);
  add_wall(with, {{200, 250}, {200, 350}});
  for (World* w : {&with, &without}) {
    ASSERT_TRUE(
        w->apply(Spawn{0, 0, {mover({100, 300}, {100, 300}), mover({300, 300}, {300, 300})}}).ok());
    const CommandOutcome out = w->apply(Demo{Selection{true}, DemoMove::swap_places, 3});
    ASSERT_TRUE(out.ok()) << out.message;
    ASSERT_TRUE(formation_records(*w).back().reciprocal);
  }
  for (int t = 0; t < 20; ++t) {
    with.step();
    without.step();
  }
  // Without the wall they meet in the middle; with it, ORCA has slowed them short of it.
  EXPECT_LT(with.agents()[0].position.x, without.agents()[0].position.x);
  EXPECT_LE(with.agents()[0].position.x, 200 - 4);
}

// ---- determinism and checkpoints --------------------------------------------------------------

TEST(Walls, AWorldWhoseWallsAreGoneStepsAsOneThatNeverHadAny) {
  WorldDef def;
  World plain(def), had(def);
  const WallId id = add_wall(had, {{400, 100}, {400, 500}, {500, 500}});
  ASSERT_TRUE(had.apply(RemoveWall{id}).ok());
  for (World* w : {&plain, &had}) ASSERT_TRUE(w->apply(Spawn{300, 0, {}}).ok());
  for (int t = 0; t < 200; ++t) {
    plain.step();
    had.step();
  }
  for (std::size_t i = 0; i < plain.agents().size(); ++i) {
    ASSERT_EQ(plain.agents()[i].position, had.agents()[i].position) << i;
    ASSERT_EQ(plain.agents()[i].velocity, had.agents()[i].velocity) << i;
  }
  EXPECT_NE(plain.state_hash(), had.state_hash()) << "the wall ids given out are state";
}

TEST(Walls, ACheckpointKeepsTheWallsAndTheFuture) {
  WorldDef def;
  World w(def);
  add_wall(w, {{400, 40}, {400, 560}});
  const WallId gone = add_wall(w, {{10, 10}, {20, 10}});
  add_wall(w, {{500, 80}, {740, 80}, {740, 260}, {620, 120}}, true);
  ASSERT_TRUE(w.apply(RemoveWall{gone}).ok());
  ASSERT_TRUE(w.apply(Spawn{400, 0, {}}).ok());
  ASSERT_TRUE(w.apply(SetTarget{Selection{true}, {780, 300}}).ok());
  for (int t = 0; t < 30; ++t) w.step();
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& back = std::get<World>(loaded);
  EXPECT_EQ(back.state_hash(), w.state_hash());
  ASSERT_EQ(back.walls().size(), w.walls().size());
  for (std::size_t k = 0; k < w.walls().size(); ++k) EXPECT_EQ(back.walls()[k], w.walls()[k]);
  EXPECT_EQ(back.walls_version(), w.walls_version());
  for (int t = 0; t < 60; ++t) {
    w.step();
    back.step();
  }
  EXPECT_EQ(back.state_hash(), w.state_hash());
  EXPECT_EQ(back.apply(AddWall{{{1, 1}, {2, 2}}, false}).wall, std::optional<WallId>{4});
}

}  // namespace
}  // namespace herd::sim
