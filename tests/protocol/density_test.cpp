// The density layer: its grid, the one pass over the agents, its JSON both ways and the errors of
// a layer or a request that is wrong.
#include "protocol/density.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "herd/sim/world.hpp"
#include "protocol/codec.hpp"
#include "publish/density.hpp"
#include "publish/world_messages.hpp"

namespace herd::protocol {
namespace {

TEST(DensityGrid, TheCellIsTheLongerSideOver64RoundedUpToAThousandth) {
  const auto grid = [](double w, double h) { return DensityGrid::over(w, h); };
  EXPECT_EQ(grid(800, 600), (DensityGrid{12.5, 64, 48}));
  EXPECT_EQ(grid(600, 800), (DensityGrid{12.5, 48, 64}));
  EXPECT_EQ(grid(1000, 1000), (DensityGrid{15.625, 64, 64}));
  EXPECT_EQ(grid(316, 316), (DensityGrid{4.938, 64, 64}));  // 4.9375 up to a thousandth
  EXPECT_EQ(grid(640, 10), (DensityGrid{10, 64, 1}));
  EXPECT_EQ(grid(10, 5), (DensityGrid{0.157, 64, 32}));
  EXPECT_EQ(grid(1e6, 1e6), (DensityGrid{15625, 64, 64}));
  // The smallest cell is a thousandth: a world narrower than 0.064 has fewer than 64 of them.
  EXPECT_EQ(grid(0.0625, 0.015625), (DensityGrid{0.001, 63, 16}));
  // Degenerate sizes give one cell, never zero or a NaN's count.
  EXPECT_EQ(grid(0, 0), (DensityGrid{0.001, 1, 1}));
  EXPECT_GE(grid(std::nan(""), 5).cells(), 1u);
  EXPECT_LE(grid(std::nan(""), 5).cells(), 64u * 64);
  EXPECT_LE(grid(std::numeric_limits<double>::infinity(), 5).cells(), 64u * 64);
}

TEST(DensityGrid, APointIsInTheCellUnderItAndOutsidePointsInTheNearestEdgeCell) {
  const DensityGrid g = DensityGrid::over(800, 600);  // 12.5, 64 x 48
  EXPECT_EQ(g.index(0, 0), 0u);
  EXPECT_EQ(g.index(12.4, 0), 0u);
  EXPECT_EQ(g.index(12.5, 0), 1u);  // a cell is closed at its top left, open at its bottom right
  EXPECT_EQ(g.index(100.5, 220.25), 17u * 64 + 8);
  EXPECT_EQ(g.index(800, 600), 48u * 64 - 1);  // the world's far corner: the last cell
  EXPECT_EQ(g.index(-5, 1e9), 47u * 64);
  EXPECT_EQ(g.index(std::nan(""), std::nan("")), 0u);
  EXPECT_EQ(g.index(std::numeric_limits<double>::infinity(), 3), 63u);
}

TEST(DensityBuilder, CountsEveryAgentOnceAndMeansTheSpeedsOfEachCell) {
  DensityBuilder b(800, 600);
  b.add(1, 1, 3, 4);    // speed 5
  b.add(2, 2, 0, 1);    // speed 1: cell 0's mean is 3
  b.add(13, 1, 0, 12);  // cell 1, speed 12: the largest mean
  b.add(799, 599, 0, 0);
  b.add(std::nan(""), 1, std::nan(""), 1);  // never NaN on the wire: speed 0, cell 0
  const DensityLayer d = b.finish();
  ASSERT_EQ(d.count.size(), 64u * 48);
  ASSERT_EQ(d.speed.size(), d.count.size());
  EXPECT_EQ(std::accumulate(d.count.begin(), d.count.end(), 0u), 5u);
  EXPECT_EQ(d.count[0], 3u);
  EXPECT_EQ(d.count[1], 1u);
  EXPECT_EQ(d.count.back(), 1u);
  EXPECT_EQ(d.speed_max, 12);
  EXPECT_EQ(d.speed[1], 255);
  EXPECT_EQ(d.speed[0], std::lround(2.0 / 12 * 255));  // (5 + 1 + 0) / 3
  EXPECT_EQ(d.speed.back(), 0);
  for (std::size_t i = 0; i < d.count.size(); ++i)
    if (d.count[i] == 0) EXPECT_EQ(d.speed[i], 0) << i;
}

TEST(DensityBuilder, TheSpeedScaleIsTheWiresNumberSoStepsTimesItIsTheMean) {
  DensityBuilder b(100, 100);
  b.add(1, 1, 1.23456, 0);
  b.add(50, 50, 0.61728, 0);
  const DensityLayer d = b.finish();
  EXPECT_EQ(d.speed_max, 1.235);                // rounded to three decimals, as JSON carries it
  EXPECT_EQ(d.speed[d.grid.index(1, 1)], 255);  // within the clamp though 1.23456 < 1.235
  EXPECT_NEAR(d.speed[d.grid.index(50, 50)] * d.speed_max / 255, 0.61728, d.speed_max / 510);
  DensityBuilder still(100, 100);
  still.add(3, 3, 0, 0);
  const DensityLayer s = still.finish();
  EXPECT_EQ(s.speed_max, 0);
  EXPECT_EQ(s.speed[s.grid.index(3, 3)], 0);
}

TEST(DensityLayer, AWorldsLayerIsItsAgentsPerCell) {
  sim::WorldDef def;  // 800 x 600
  sim::World world(def);
  std::vector<sim::SpawnAgent> spawn(3);
  spawn[0].position = {100.5, 220.25};
  spawn[1].position = {10, 20};
  spawn[2].position = {105, 215};
  world.apply(sim::Spawn{0, 0, spawn});
  const DensityLayer d = publish::density_layer(world);
  EXPECT_EQ(d.grid, DensityGrid::over(800, 600));
  EXPECT_EQ(d.count[17 * 64 + 8], 2u);
  EXPECT_EQ(d.count[1 * 64 + 0], 1u);
  EXPECT_EQ(std::accumulate(d.count.begin(), d.count.end(), 0u), 3u);
  // The same from the snapshot the world is written as (what a relay does), to the wire's
  // precision.
  auto decoded = decode_server(publish::encode_snapshot(world));
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  EXPECT_EQ(density_layer(snap.agents, 800, 600), d);
}

// The fixture the viewers' tests read is what the codec writes for the fixture's agents.
TEST(DensityLayer, TheFixtureIsTheLayerOfItsOwnAgents) {
  std::ifstream in(std::string(HERD_FIXTURE_DIR) + "/server/snapshot_density.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto d = decode_server(s);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(d)) << std::get<Error>(d).message;
  const Snapshot& snap = std::get<Snapshot>(std::get<ServerMessage>(d));
  ASSERT_TRUE(snap.density);
  EXPECT_EQ(*snap.density, density_layer(snap.agents, 800, 600));
  EXPECT_EQ(encode(snap), s);
}

Snapshot with_layer() {
  Snapshot s;
  s.tick = 7;
  DensityBuilder b(800, 600);
  b.add(1, 1, 3, 4);
  b.add(13, 1, 0, 10);
  b.add(799, 599, 0, 0);
  s.density = b.finish();
  return s;
}

TEST(DensityJson, EmptyCellsAreRunsAndSpeedsComeOnlyForCellsWithAgents) {
  const Snapshot s = with_layer();
  const std::string text = encode(s);
  EXPECT_NE(text.find(R"("density":{"cell":12.5,"cols":64,"rows":48,"count":[1,1,-3069,1],)"
                      R"("speed_max":10,"speed":[128,255,0]})"),
            std::string::npos)
      << text;
  auto back = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(back)) << std::get<Error>(back).message;
  EXPECT_EQ(std::get<Snapshot>(std::get<ServerMessage>(back)), s);
  // The member alone, as the server appends it to a shared snapshot's text.
  EXPECT_EQ(
      density_member(*s.density),
      "," + text.substr(text.find("\"density\""), text.size() - 1 - text.find("\"density\"")));
}

// Each way a layer can be wrong is refused with bad_field, naming the member.
TEST(DensityJson, ALayerThatDoesNotAddUpIsRefused) {
  const std::string head = R"({"type":"snapshot","tick":1,"time":0,"avoidance":"none","agents":[],)"
                           R"("collisions":[],"formations":[],"density":)";
  const auto refused = [&](const std::string& layer) {
    const auto d = decode_server(head + layer + "}");
    if (!std::holds_alternative<Error>(d)) return std::string("accepted");
    EXPECT_EQ(std::get<Error>(d).code, ErrorCode::bad_field);
    return std::get<Error>(d).message;
  };
  const std::string ok =
      R"({"cell":1,"cols":2,"rows":2,"count":[3,-2,1],"speed_max":2,"speed":[7,9]})";
  EXPECT_TRUE(std::holds_alternative<ServerMessage>(decode_server(head + ok + "}")));
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[3,-2],"speed_max":2,"speed":[7]})"),
            "accepted");  // three cells of four
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[3,-4],"speed_max":2,"speed":[7]})"),
            "accepted");  // five
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[3,0,-2],"speed_max":2,"speed":[7]})"),
            "accepted");  // an empty cell is a run
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[3,-2,1],"speed_max":2,"speed":[7]})"),
            "accepted");  // a speed short
  EXPECT_NE(
      refused(R"({"cell":1,"cols":2,"rows":2,"count":[3,-2,1],"speed_max":2,"speed":[7,256]})"),
      "accepted");
  EXPECT_NE(refused(R"({"cell":0,"cols":2,"rows":2,"count":[-4],"speed_max":2,"speed":[]})"),
            "accepted");
  EXPECT_NE(refused(R"({"cell":1,"cols":65,"rows":2,"count":[-130],"speed_max":2,"speed":[]})"),
            "accepted");
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[-4],"speed_max":-1,"speed":[]})"),
            "accepted");
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[-4],"speed_max":1,"speed":[],"x":1})"),
            "accepted");
  EXPECT_NE(refused(R"({"cell":1,"cols":2,"rows":2,"count":[-4.5],"speed_max":1,"speed":[]})"),
            "accepted");
  EXPECT_NE(refused(R"([1,2])"), "accepted");
  EXPECT_NE(
      refused(
          R"({"cell":1,"cols":2,"rows":2,"count":[-9223372036854775808],"speed_max":1,"speed":[]})"),
      "accepted");
  EXPECT_NE(
      refused(R"({"cell":1,"cols":2,"rows":2,"count":[-1,-1,-1,-1,-1],"speed_max":2,"speed":[]})")
          .find("count"),
      std::string::npos);
}

TEST(DensityRequest, DecodesStrictlyAndRoundTrips) {
  for (const bool on : {true, false}) {
    const std::string text = encode(DensityRequest{on});
    const auto d = decode_client(text);
    ASSERT_TRUE(std::holds_alternative<ClientMessage>(d)) << text;
    EXPECT_EQ(std::get<DensityRequest>(std::get<ClientMessage>(d)).on, on);
  }
  for (const char* bad :
       {R"({"type":"density"})", R"({"type":"density","on":1})", R"({"type":"density","on":"yes"})",
        R"({"type":"density","on":true,"cell":5})"}) {
    const auto d = decode_client(bad);
    ASSERT_TRUE(std::holds_alternative<Error>(d)) << bad;
    EXPECT_EQ(std::get<Error>(d).code, ErrorCode::bad_field) << bad;
    EXPECT_FALSE(std::get<Error>(d).message.empty());
  }
}

}  // namespace
}  // namespace herd::protocol
