// Measurement lines and areas over the wire, against the real server driven by hand (pause,
// step): the ack names the new measurement, snapshots (JSON and binary side sections) carry the
// once-a-second reports, /metrics has them by id, and bad requests are refused with their codes.
#include <gtest/gtest.h>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class MeasurementServerTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    def.avoidance.mode = sim::AvoidanceMode::none;  // straight walks: known crossings
    config.tick_rate = 60;                          // a report every 60 ticks
    def.dt = 1.0 / 60;
  }
};

// Six kinematic walkers cross a line rightwards within a second, two walk past its end: the
// report after 60 ticks counts six forward, the area before the line counts who stands in it.
TEST_F(MeasurementServerTest, ReportsReachJsonAndBinaryClientsAndMetrics) {
  auto viewer = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  // To a tick that ends a second, so that the next report's window is the next 60 ticks.
  const std::uint64_t start = step(1).tick;
  const std::uint64_t second = step(static_cast<int>(60 - start % 60)).tick;
  ASSERT_EQ(second % 60, 0u);
  std::string agents;
  for (int k = 0; k < 8; ++k) {
    const int y = k < 6 ? 220 + 30 * k : 100 + 400 * (k - 6) + 50;  // 150 and 550: past the ends
    agents += (k ? "," : "") + std::string(R"({"x":350,"y":)") + std::to_string(y) +
              R"(,"movement":"kinematic","target":{"x":600,"y":)" + std::to_string(y) + "}}";
  }
  ASSERT_TRUE(ok(R"({"cmd":"spawn","agents":[)" + agents + "]}").agents);
  const auto line = ok(R"({"cmd":"add_measurement","line":[{"x":400,"y":500},{"x":400,"y":200}]})");
  ASSERT_TRUE(line.measurement);
  EXPECT_EQ(*line.measurement, 1u);
  const auto area =
      ok(R"({"cmd":"add_measurement","area":{"x":300,"y":100,"width":50.5,"height":400}})");
  ASSERT_TRUE(area.measurement);
  EXPECT_EQ(*area.measurement, 2u);

  const protocol::Snapshot s = step(60);
  ASSERT_TRUE(s.measurements);
  ASSERT_EQ(s.measurements->size(), 2u);
  const protocol::MeasurementState& l = (*s.measurements)[0];
  EXPECT_TRUE(l.line);
  EXPECT_EQ(l.forward, 6u);
  EXPECT_EQ(l.backward, 0u);
  EXPECT_EQ(l.tick, second + 60);
  EXPECT_DOUBLE_EQ(l.seconds, 1.0);
  EXPECT_DOUBLE_EQ(l.flow_forward, 6.0);
  EXPECT_TRUE(l.mean_gap.has_value());
  const protocol::MeasurementState& a = (*s.measurements)[1];
  EXPECT_FALSE(a.line);
  EXPECT_EQ(a.b.x - a.a.x, 50.5);
  std::uint32_t inside = 0;
  for (const auto& ag : s.agents)
    inside += ag.x >= 300 && ag.x <= 350.5 && ag.y >= 100 && ag.y <= 500;
  EXPECT_EQ(a.count, inside);
  EXPECT_DOUBLE_EQ(a.density, inside / (50.5 * 400));

  EXPECT_EQ(metric(R"(herd_measurement_crossings_total{id="1",direction="forward"})"), 6);
  EXPECT_EQ(metric(R"(herd_measurement_crossings_total{id="1",direction="backward"})"), 0);
  EXPECT_EQ(metric(R"(herd_measurement_flow{id="1",direction="forward"})"), 6);
  EXPECT_EQ(metric(R"(herd_measurement_agents{id="2"})"), inside);

  // The binary viewer's frame of that tick carries them in its side section.
  protocol::BinaryClient feed;
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    std::optional<std::string> data = viewer->receive(Millis(200));
    if (!data || !protocol::is_binary_snapshot(*data)) continue;
    const auto r = feed.receive(*data);
    ASSERT_TRUE(r.frame) << r.error;
    if (r.ack) viewer->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
    if (r.frame->header.tick != second + 60) continue;
    const auto snap = protocol::to_snapshot(*r.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const auto& m = std::get<protocol::Snapshot>(snap).measurements;
    ASSERT_TRUE(m);
    EXPECT_EQ(*m, *s.measurements);
    seen = true;
  }
  EXPECT_TRUE(seen) << "no binary frame of the report's tick";

  // Removed: the next snapshot lists the one left.
  EXPECT_EQ(ok(R"({"cmd":"remove_measurement","id":1})").count, 1u);
  const protocol::Snapshot after = step(1);
  ASSERT_TRUE(after.measurements);
  ASSERT_EQ(after.measurements->size(), 1u);
  EXPECT_EQ((*after.measurements)[0].id, 2u);
  // And a snapshot with nothing new about them leaves them out.
  EXPECT_FALSE(step(1).measurements);
}

TEST_F(MeasurementServerTest, BadMeasurementsAreRefusedWithTheirCodes) {
  using protocol::ErrorCode;
  EXPECT_EQ(refused(R"({"cmd":"add_measurement"})"), ErrorCode::bad_field);
  EXPECT_EQ(
      refused(
          R"({"cmd":"add_measurement","line":[{"x":1,"y":1},{"x":2,"y":2}],"area":{"x":1,"y":1,"width":1,"height":1}})"),
      ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","line":[{"x":1,"y":1}]})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","line":[{"x":1,"y":1},{"x":1,"y":1}]})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","line":"across"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","area":{"x":1,"y":1,"width":0,"height":5}})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","area":{"x":1,"y":1,"width":5,"height":5,"z":1}})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","line":[{"x":1,"y":1},{"x":900,"y":2}]})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(R"({"cmd":"add_measurement","area":{"x":700,"y":1,"width":200,"height":5}})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(R"({"cmd":"remove_measurement","id":7})"), ErrorCode::unknown_measurement);
  EXPECT_EQ(refused(R"({"cmd":"remove_measurement","id":1,"measurement":1})"),
            ErrorCode::bad_field);
  // Nothing was made: the first measurement added now is id 1, removable by either name.
  const auto ack = ok(R"({"cmd":"add_measurement","area":{"x":1,"y":1,"width":5,"height":5}})");
  ASSERT_TRUE(ack.measurement);
  EXPECT_EQ(*ack.measurement, 1u);
  EXPECT_EQ(ok(R"({"cmd":"remove_measurement","measurement":1})").count, 1u);
}

}  // namespace
}  // namespace herd::net
