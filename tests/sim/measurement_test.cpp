// Measurement lines and areas: exact crossing counts each way on known paths, density as count over
// area, the once-a-second reports, checkpoints, and that measuring changes nothing in the world.
#include <gtest/gtest.h>

#include <cmath>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

// A world without avoidance, where kinematic agents walk straight lines at 100 units/s.
WorldDef straight_world() {
  WorldDef def;
  def.avoidance.mode = AvoidanceMode::none;
  return def;
}

SpawnAgent walker(Vec2 from, Vec2 to) {
  SpawnAgent s;
  s.position = from;
  s.target = to;
  s.radius = 2;
  s.max_speed = 100;
  s.max_force = 10000;
  s.movement = Movement::kinematic;
  return s;
}

MeasurementId add(World& w, MeasurementKind kind, Vec2 a, Vec2 b) {
  const CommandOutcome out = w.apply(AddMeasurement{kind, a, b});
  EXPECT_TRUE(out.ok()) << out.message;
  return out.measurement.value_or(0);
}

const Measurement& find(const World& w, MeasurementId id) {
  for (const Measurement& m : w.measurements())
    if (m.id == id) return m;
  ADD_FAILURE() << "no measurement " << id;
  return w.measurements().front();
}

// A vertical line x = 400 from y = 200 to y = 400, drawn upwards (so that going right is forward).
// Seven walkers cross it rightwards within the segment, three leftwards, two pass beyond its ends
// and two stop short of it: exactly 7 forward and 3 backward, whatever the tick they cross on.
TEST(Measurement, ALineCountsExactlyTheAgentsThatCrossItEachWay) {
  World w(straight_world());
  const MeasurementId line = add(w, MeasurementKind::line, {400, 400}, {400, 200});
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 7; ++k) crowd.push_back(walker({300, 210.0 + 25 * k}, {520, 215.0 + 25 * k}));
  for (int k = 0; k < 3; ++k) crowd.push_back(walker({480, 260.0 + 40 * k}, {330, 250.0 + 40 * k}));
  crowd.push_back(walker({300, 150}, {520, 190}));  // above the segment all the way
  crowd.push_back(walker({300, 450}, {520, 410}));  // below it
  crowd.push_back(walker({300, 300}, {395, 300}));  // stops short
  crowd.push_back(walker({500, 320}, {405, 320}));
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  for (int t = 0; t < 240; ++t) w.step();
  const Measurement& m = find(w, line);
  EXPECT_EQ(m.totals.forward, 7u);
  EXPECT_EQ(m.totals.backward, 3u);
  // Every report window's counts add up to the totals.
  EXPECT_EQ(m.last.tick, 240u);
}

// The reports: once a second of world time (60 ticks here), each with the window's crossings; the
// mean gap is the time between consecutive crossings, from where in its tick each crossed.
TEST(Measurement, ReportsEverySecondWithFlowAndTimeGaps) {
  World w(straight_world());
  const MeasurementId line = add(w, MeasurementKind::line, {400, 500}, {400, 100});
  // Three walkers 10, 30 and 60 units short of the line at 100 units/s: they cross 0.1, 0.3 and
  // 0.6 s in (they are already at full speed: kinematic, with a force that reaches it in a tick).
  std::vector<SpawnAgent> crowd{walker({390, 200}, {700, 200}), walker({370, 250}, {700, 250}),
                                walker({340, 300}, {700, 300})};
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  std::uint64_t reports = 0;
  for (int t = 0; t < 60; ++t) {
    w.step();
    if (find(w, line).last.tick != 0) ++reports;
  }
  const Measurement& m = find(w, line);
  ASSERT_EQ(reports, 1u);  // only the 60th tick ends a second
  EXPECT_EQ(m.last.tick, 60u);
  EXPECT_DOUBLE_EQ(m.last.seconds, 1.0);
  EXPECT_EQ(m.last.forward, 3u);
  EXPECT_EQ(m.last.backward, 0u);
  ASSERT_TRUE(m.last.mean_gap.has_value());
  // Gaps 0.2 and 0.3 s (the first tick accelerates from rest: within a tick's travel).
  EXPECT_NEAR(*m.last.mean_gap, 0.25, 0.02);
  for (int t = 0; t < 60; ++t) w.step();
  EXPECT_EQ(find(w, line).last.tick, 120u);
  EXPECT_EQ(find(w, line).last.forward, 0u);  // a new window: nobody crossed in it
  EXPECT_FALSE(find(w, line).last.mean_gap.has_value());
  EXPECT_EQ(find(w, line).totals.forward, 3u);
}

// An area reports the agents whose centre is inside, count / area, and their mean speed.
TEST(Measurement, AnAreaReportsCountOverAreaAndMeanSpeed) {
  WorldDef def = straight_world();
  World w(def);
  const MeasurementId area = add(w, MeasurementKind::area, {100, 100}, {300, 150});  // 200 x 50
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 13; ++k) {  // standing inside, on its edges included
    SpawnAgent s;
    s.position = {100.0 + 200.0 * k / 12, 100.0 + 50.0 * (k % 2)};
    crowd.push_back(s);
  }
  for (int k = 0; k < 5; ++k) {  // outside, just
    SpawnAgent s;
    s.position = {99.5, 120.0 + k};
    crowd.push_back(s);
  }
  crowd.push_back(walker({150, 125}, {150, 125.001}));  // inside, nearly still
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  for (int t = 0; t < 60; ++t) w.step();
  const Measurement& m = find(w, area);
  EXPECT_EQ(m.last.count, 14u);
  EXPECT_DOUBLE_EQ(m.last.density, 14.0 / (200.0 * 50.0));
  ASSERT_TRUE(m.last.mean_speed.has_value());
  EXPECT_LT(*m.last.mean_speed, 1.0);
  EXPECT_EQ(m.totals.reports, 1u);
  EXPECT_DOUBLE_EQ(m.totals.max_density, m.last.density);
}

// A measurement added mid-second reports a shorter first window, from when it was added.
TEST(Measurement, TheFirstWindowStartsWhenTheMeasurementIsAdded) {
  World w(straight_world());
  for (int t = 0; t < 45; ++t) w.step();
  const MeasurementId area = add(w, MeasurementKind::area, {0, 0}, {800, 600});
  for (int t = 0; t < 15; ++t) w.step();
  EXPECT_EQ(find(w, area).last.tick, 60u);
  EXPECT_DOUBLE_EQ(find(w, area).last.seconds, 15.0 / 60.0);
}

// Measuring reads the world and changes none of it: the same steps with and without measurements
// give the same state hash.
TEST(Measurement, MeasuringChangesNothingInTheWorld) {
  WorldDef def;  // anti-gravity avoidance, a crowd
  auto run = [&](bool measure) {
    World w(def);
    EXPECT_TRUE(w.apply(Spawn{300, 1, {}}).ok());
    SetTarget go;
    go.agents = Selection(true);
    go.target = {400, 300};
    EXPECT_TRUE(w.apply(go).ok());
    if (measure) {
      add(w, MeasurementKind::line, {400, 0}, {400, 600});
      add(w, MeasurementKind::area, {300, 200}, {500, 400});
    }
    for (int t = 0; t < 200; ++t) w.step();
    return w.state_hash();
  };
  EXPECT_EQ(run(true), run(false));
}

// A checkpoint holds the measurements, their windows and where the lines last saw each agent: the
// loaded world reports exactly what the original does.
TEST(Measurement, ACheckpointContinuesTheCountsExactly) {
  World w(straight_world());
  add(w, MeasurementKind::line, {400, 500}, {400, 100});
  add(w, MeasurementKind::area, {350, 100}, {450, 500});
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 20; ++k)
    crowd.push_back(walker({300.0 - 5 * k, 120.0 + 18 * k}, {600, 120.0 + 18 * k}));
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  for (int t = 0; t < 75; ++t) w.step();  // mid-window, some crossed
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  for (int t = 0; t < 150; ++t) {
    w.step();
    copy.step();
  }
  ASSERT_EQ(w.measurements().size(), copy.measurements().size());
  for (std::size_t i = 0; i < w.measurements().size(); ++i)
    EXPECT_EQ(w.measurements()[i], copy.measurements()[i]);
  EXPECT_EQ(w.measurements()[0].totals.forward, 20u);
}

TEST(Measurement, BadMeasurementsAreRefusedAndChangeNothing) {
  World w(straight_world());
  EXPECT_EQ(w.apply(AddMeasurement{MeasurementKind::line, {10, 10}, {900, 10}}).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(w.apply(AddMeasurement{MeasurementKind::line, {10, 10}, {10, 10}}).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(w.apply(AddMeasurement{MeasurementKind::area, {100, 100}, {100, 200}}).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(w.apply(RemoveMeasurement{1}).error, CommandError::unknown_measurement);
  EXPECT_TRUE(w.measurements().empty());
  const std::uint64_t version = w.measurements_version();
  for (std::size_t k = 0; k < kMaxMeasurements; ++k)
    add(w, MeasurementKind::area, {1, 1}, {2.0 + static_cast<double>(k), 2});
  EXPECT_EQ(w.apply(AddMeasurement{MeasurementKind::line, {1, 1}, {2, 2}}).error,
            CommandError::limit_exceeded);
  EXPECT_EQ(w.measurements().size(), kMaxMeasurements);
  EXPECT_GT(w.measurements_version(), version);
  const CommandOutcome removed = w.apply(RemoveMeasurement{3});
  EXPECT_TRUE(removed.ok());
  EXPECT_EQ(w.measurements().size(), kMaxMeasurements - 1);
  EXPECT_EQ(w.apply(RemoveMeasurement{3}).error, CommandError::unknown_measurement);
}

}  // namespace
}  // namespace herd::sim
