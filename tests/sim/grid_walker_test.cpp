// The no-backtracking tile walker on the "No Backtracking" tutorial's own map: its scores, its
// tie-break, its step counts, and the oscillation the tutorial warns about.
#include "grid_walker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "astar.hpp"
#include "pathing_test_util.hpp"

namespace herd::sim {
namespace {

using test_util::seed_maze;

TileMap open_map(std::int32_t w, std::int32_t h) {
  return TileMap(TileMapDef{w, h, 40.0,
                            std::vector<std::uint8_t>(static_cast<std::size_t>(w * h), kWalkable)});
}

// Moves the walker from `start` towards `target` one whole move at a time; returns the number of
// moves when it arrives, or -1 after max_moves.
int moves_to_arrive(const TileMap& map, TileCoord start, TileCoord target, int max_moves,
                    const WalkerSettings& settings = {}) {
  WalkerState w;
  walker_place(w, start);
  EXPECT_EQ(walker_set_target(w, map, target), WalkerTargetError::none);
  for (int i = 0; i <= max_moves; ++i) {
    if (walker_advance(w, map, settings, i * settings.move_time) == WalkerStatus::arrived)
      return static_cast<int>(w.moves);
  }
  return -1;
}

struct PinnedWalk {
  std::int32_t x, y;
  int moves;
};

// Every walkable tile of the tutorial's map but two, with the number of moves the walker takes to
// reach it from (1, 1). Computed by running the tutorial's JavaScript verbatim (its map, character
// object, getDistance and a 16 ms frame loop) under node and counting the tiles it moves
// through: so this pins the port to the tutorial's own behaviour, ties and all.
constexpr PinnedWalk kSeedWalks[] = {
    {1, 1, 0},    {3, 1, 4},    {5, 1, 18},   {6, 1, 19},   {7, 1, 20},   {8, 1, 21},
    {9, 1, 22},   {11, 1, 34},  {12, 1, 35},  {13, 1, 36},  {14, 1, 39},  {15, 1, 36},
    {18, 1, 39},  {1, 2, 1},    {2, 2, 2},    {3, 2, 3},    {5, 2, 17},   {9, 2, 21},
    {11, 2, 33},  {15, 2, 33},  {16, 2, 36},  {17, 2, 37},  {18, 2, 38},  {1, 3, 2},
    {3, 3, 4},    {5, 3, 14},   {9, 3, 28},   {10, 3, 29},  {11, 3, 30},  {13, 3, 30},
    {14, 3, 29},  {15, 3, 32},  {16, 3, 33},  {18, 3, 37},  {1, 4, 3},    {3, 4, 5},
    {5, 4, 13},   {7, 4, 15},   {8, 4, 28},   {9, 4, 27},   {11, 4, 31},  {12, 4, 28},
    {13, 4, 27},  {15, 4, 33},  {18, 4, 38},  {1, 5, 4},    {3, 5, 10},   {5, 5, 12},
    {6, 5, 13},   {7, 5, 30},   {9, 5, 26},   {12, 5, 25},  {15, 5, 34},  {16, 5, 29},
    {18, 5, 39},  {1, 6, 5},    {3, 6, 9},    {5, 6, 11},   {9, 6, 25},   {10, 6, 24},
    {11, 6, 23},  {12, 6, 26},  {13, 6, 25},  {15, 6, 27},  {18, 6, 40},  {1, 7, 6},
    {2, 7, 7},    {3, 7, 8},    {4, 7, 9},    {5, 7, 10},   {6, 7, 11},   {7, 7, 12},
    {9, 7, 22},   {13, 7, 24},  {15, 7, 26},  {18, 7, 41},  {1, 8, 7},    {2, 8, 8},
    {3, 8, 9},    {7, 8, 13},   {9, 8, 19},   {11, 8, 21},  {12, 8, 22},  {13, 8, 23},
    {14, 8, 24},  {15, 8, 25},  {18, 8, 42},  {1, 9, 8},    {5, 9, 16},   {6, 9, 15},
    {7, 9, 14},   {9, 9, 18},   {10, 9, 19},  {11, 9, 20},  {15, 9, 26},  {16, 9, 27},
    {17, 9, 28},  {18, 9, 29},  {1, 10, 9},   {2, 10, 10},  {4, 10, 20},  {5, 10, 45},
    {6, 10, 16},  {7, 10, 15},  {8, 10, 16},  {9, 10, 17},  {11, 10, 21}, {12, 10, 22},
    {13, 10, 23}, {15, 10, 27}, {17, 10, 31}, {1, 11, 10},  {2, 11, 11},  {9, 11, 18},
    {11, 11, 32}, {13, 11, 34}, {14, 11, 35}, {15, 11, 36}, {17, 11, 42}, {1, 12, 11},
    {3, 12, 17},  {4, 12, 18},  {5, 12, 71},  {8, 12, 20},  {9, 12, 19},  {11, 12, 33},
    {13, 12, 35}, {15, 12, 37}, {17, 12, 41}, {1, 13, 12},  {2, 13, 13},  {7, 13, 46},
    {11, 13, 34}, {12, 13, 35}, {13, 13, 36}, {14, 13, 37}, {15, 13, 38}, {16, 13, 39},
    {17, 13, 40}, {18, 13, 41}};

TEST(GridWalker, ReachesEveryPinnedTargetInTheSeedsStepCount) {
  const TileMap map = seed_maze();
  ASSERT_EQ(std::size(kSeedWalks), 140u);  // the map's 142 walkable tiles less the two below
  for (const PinnedWalk& p : kSeedWalks) {
    EXPECT_EQ(moves_to_arrive(map, {1, 1}, {p.x, p.y}, 2000), p.moves)
        << "target (" << p.x << ", " << p.y << ")";
  }
}

// The tutorial: "the NPC may run madly backwards and forwards, unable to pass a confusing area of
// terrain". From (1, 1), targets (7, 12) and (3, 13) are reachable (A* finds paths), yet the
// walker's state (tile and history) repeats exactly: it cycles for ever. The tutorial's
// JavaScript repeats with the same start and period.
TEST(GridWalker, OscillatesForEverOnTheSeedsMapAsTheSeedWarns) {
  const TileMap map = seed_maze();
  struct Case {
    TileCoord target;
    std::uint64_t cycle_start, period;  // the tutorial's, under node
  };
  for (const Case c : {Case{{7, 12}, 30, 76}, Case{{3, 13}, 51, 118}}) {
    PathFinder finder;
    std::vector<TileCoord> path;
    ASSERT_TRUE(finder.find(map, {1, 1}, c.target, Neighbourhood::four, path).found());

    WalkerState w;
    walker_place(w, {1, 1});
    ASSERT_EQ(walker_set_target(w, map, c.target), WalkerTargetError::none);
    const WalkerSettings settings;
    std::map<std::vector<std::pair<int, int>>, std::uint64_t> seen;  // (tile, history) -> move
    std::vector<TileCoord> trail;
    std::uint64_t start = 0, period = 0;
    for (int i = 1; i <= 5000 && period == 0; ++i) {
      ASSERT_EQ(walker_advance(w, map, settings, i * settings.move_time), WalkerStatus::moving);
      std::vector<std::pair<int, int>> key{{w.to.x, w.to.y}};
      for (TileCoord h : w.history) key.emplace_back(h.x, h.y);
      trail.push_back(w.to);
      if (auto [it, fresh] = seen.emplace(key, w.moves); !fresh) {
        start = it->second;
        period = w.moves - it->second;
      }
    }
    EXPECT_EQ(start, c.cycle_start);
    EXPECT_EQ(period, c.period);
    // Backwards and forwards: within the cycle it steps straight back onto the tile it just left.
    int reversals = 0;
    for (std::size_t i = 2; i < trail.size(); ++i) reversals += trail[i] == trail[i - 2];
    EXPECT_GT(reversals, 0);
    for (TileCoord t : trail) EXPECT_FALSE(t == c.target);
  }
}

TEST(GridWalker, ScoreIsDistancePlusTenPlusTenTimesIndexPerHistoryEntry) {
  WalkerState w;
  w.target = {4, 0};
  w.from = {0, 0};
  const TileCoord n{1, 0};
  EXPECT_DOUBLE_EQ(walker_score(w, n), 3.0);
  w.history = {{9, 9}, {1, 0}, {5, 5}, {1, 0}};  // index 0 is the oldest
  EXPECT_DOUBLE_EQ(walker_score(w, n), 3.0 + (10 + 10 * 1) + (10 + 10 * 3));
  EXPECT_DOUBLE_EQ(walker_score(w, {0, 1}), std::sqrt(16.0 + 1.0));  // not in the history
}

TEST(GridWalker, TiesGoToTheSeedsPushOrderLeftRightUpDown) {
  const TileMap map = open_map(10, 10);
  WalkerState w;
  walker_place(w, {5, 5});
  w.target = {3, 3};  // left (4,5) and up (5,4) are both sqrt(5) away
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{4, 5}));
  w.target = {7, 3};  // right (6,5) and up (5,4): right comes first
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{6, 5}));
  w.target = {5, 5};  // all four at distance 1: left
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{4, 5}));
  w.history = {{4, 5}};  // left now costs 1 + 10: right is next in order
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{6, 5}));
}

TEST(GridWalker, NewerHistoryEntriesCostMoreSoTheOldestIsRevisitedFirst) {
  const TileMap map = open_map(10, 10);
  WalkerState w;
  walker_place(w, {5, 5});
  w.target = {5, 5};
  w.history = {{4, 5}, {6, 5}, {5, 4}};  // left +10, right +20, up +30; down is free
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{5, 6}));
  w.history.push_back({5, 6});  // down +40: left (oldest) is now the cheapest
  EXPECT_EQ(*walker_choose_next(w, map), (TileCoord{4, 5}));
}

TEST(GridWalker, HistoryIsBoundedAndClearedOnANewTarget) {
  const TileMap map = open_map(40, 3);
  WalkerSettings settings;
  settings.max_history = 5;
  WalkerState w;
  walker_place(w, {0, 1});
  ASSERT_EQ(walker_set_target(w, map, {39, 1}), WalkerTargetError::none);
  walker_advance(w, map, settings, 0.0);
  walker_advance(w, map, settings, 11.5 * settings.move_time);
  EXPECT_EQ(w.moves, 12u);
  ASSERT_EQ(w.history.size(), 5u);  // the five newest moves, oldest first
  for (std::int32_t i = 0; i < 5; ++i) EXPECT_EQ(w.history[i], (TileCoord{8 + i, 1}));
  ASSERT_EQ(walker_set_target(w, map, {0, 1}), WalkerTargetError::none);
  EXPECT_TRUE(w.history.empty());
  EXPECT_EQ(w.target, (TileCoord{0, 1}));

  settings.max_history = 0;  // no memory at all: the plain greedy chaser
  walker_advance(w, map, settings, 12.5 * settings.move_time);  // reaches (12, 1), turns back
  EXPECT_TRUE(w.history.empty());
  EXPECT_EQ(w.to, (TileCoord{11, 1}));
}

TEST(GridWalker, EachWalkerHasItsOwnHistory) {
  const TileMap map = seed_maze();
  const WalkerSettings settings;
  WalkerState a, b;
  walker_place(a, {1, 1});
  walker_place(b, {18, 13});
  walker_set_target(a, map, {9, 9});
  walker_set_target(b, map, {9, 9});
  walker_advance(a, map, settings, 0.0);
  walker_advance(a, map, settings, 3.5 * settings.move_time);
  EXPECT_EQ(a.history.size(), 4u);  // the move under way at 3.5 move times is the 4th
  EXPECT_TRUE(b.history.empty());
  walker_advance(b, map, settings, 1e-9);
  EXPECT_EQ(b.history.size(), 1u);
  EXPECT_EQ(a.history.size(), 4u);
}

TEST(GridWalker, OneTilePerMoveTimeWhateverTheTickRate) {
  // The tutorial loses up to two frames at every tile; here the walker is where the clock says.
  const TileMap map = open_map(60, 3);
  WalkerSettings settings;
  settings.move_time = 0.23;
  for (const double dt : {1.0 / 60, 1.0 / 7, 0.23, 0.5, 2.0}) {
    WalkerState w;
    walker_place(w, {0, 1});
    walker_set_target(w, map, {59, 1});
    const int ticks = static_cast<int>(std::floor(9.2 / dt));  // up to 9.2 s = 40 moves
    for (int i = 0; i <= ticks; ++i) walker_advance(w, map, settings, i * dt);
    const double now = ticks * dt;
    const Vec2 p = walker_position(w, map, settings, now);
    EXPECT_NEAR(p.x, (0.5 + now / 0.23) * 40.0, 1e-6) << "dt " << dt;
    EXPECT_EQ(p.y, 60.0);
  }
}

TEST(GridWalker, PositionInterpolatesLinearlyBetweenTileCentres) {
  const TileMap map = open_map(10, 10);
  const WalkerSettings settings;  // 0.23 s
  WalkerState w;
  walker_place(w, {2, 2});
  EXPECT_EQ(walker_position(w, map, settings, 0.0), (Vec2{100, 100}));  // standing: the centre
  walker_set_target(w, map, {4, 2});
  walker_advance(w, map, settings, 1.0);  // departs at 1.0
  const Vec2 quarter = walker_position(w, map, settings, 1.0 + 0.25 * 0.23);
  EXPECT_NEAR(quarter.x, 110.0, 1e-9);
  EXPECT_NEAR(quarter.y, 100.0, 1e-12);
  // Continuous through the arrival at (3, 2) and the departure for (4, 2).
  const double arrival = 1.0 + 0.23;
  const Vec2 before = walker_position(w, map, settings, arrival - 1e-9);
  walker_advance(w, map, settings, arrival + 1e-9);
  const Vec2 after = walker_position(w, map, settings, arrival + 1e-9);
  EXPECT_EQ(w.from, (TileCoord{3, 2}));
  EXPECT_EQ(w.to, (TileCoord{4, 2}));
  EXPECT_NEAR(length(after - before), 2e-9 * 40 / 0.23, 1e-9);
  walker_advance(w, map, settings, 5.0);
  EXPECT_EQ(w.status, WalkerStatus::arrived);
  EXPECT_EQ(walker_position(w, map, settings, 5.0), (Vec2{180, 100}));
  // Never NaN, whatever time it is asked about.
  walker_set_target(w, map, {0, 2});
  walker_advance(w, map, settings, 6.0);
  const Vec2 odd = walker_position(w, map, settings, std::nan(""));
  EXPECT_TRUE(std::isfinite(odd.x) && std::isfinite(odd.y));
}

TEST(GridWalker, RefusesTargetsOffTheMapOrOnWalls) {
  const TileMap map = seed_maze();
  WalkerState w;
  walker_place(w, {1, 1});
  w.history = {{1, 2}};
  EXPECT_EQ(walker_set_target(w, map, {0, 0}), WalkerTargetError::blocked);
  EXPECT_EQ(walker_set_target(w, map, {20, 3}), WalkerTargetError::out_of_bounds);
  EXPECT_EQ(walker_set_target(w, map, {-1, 3}), WalkerTargetError::out_of_bounds);
  EXPECT_EQ(w.target, (TileCoord{1, 1}));  // unchanged, history kept
  EXPECT_EQ(w.history.size(), 1u);
}

TEST(GridWalker, WalledInIsStuckNotSilent) {
  TileMapDef def{3, 3, 40.0, {1, 1, 1, 1, 0, 1, 1, 1, 1}};
  TileMap map(def);
  map.set_blocked({2, 1}, false);
  WalkerState w;
  walker_place(w, {1, 1});
  ASSERT_EQ(walker_set_target(w, map, {2, 1}), WalkerTargetError::none);
  map.set_blocked({2, 1}, true);  // the way out closes after the target was set
  EXPECT_EQ(walker_advance(w, map, WalkerSettings{}, 1.0), WalkerStatus::stuck);
  EXPECT_EQ(w.moves, 0u);
  map.set_blocked({2, 1}, false);
  EXPECT_EQ(walker_advance(w, map, WalkerSettings{}, 2.0), WalkerStatus::moving);
  EXPECT_EQ(walker_advance(w, map, WalkerSettings{}, 2.5), WalkerStatus::arrived);
}

TEST(GridWalker, SettingsAreValidated) {
  EXPECT_TRUE(validate(WalkerSettings{}).empty());
  EXPECT_FALSE(validate(WalkerSettings{20, 0.0}).empty());
  EXPECT_FALSE(validate(WalkerSettings{20, std::nan("")}).empty());
  EXPECT_FALSE(validate(WalkerSettings{5000, 0.23}).empty());
  EXPECT_TRUE(validate(WalkerSettings{0, 0.23}).empty());
}

}  // namespace
}  // namespace herd::sim
