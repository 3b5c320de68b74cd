// Sources and exits over the wire, against the real server driven by hand (pause, step): acks name
// the new ids, every tick's snapshot balances the books (agents made by sources and commands =
// agents removed by exits and commands + agents present, each exit's count the agents that
// vanished beside it), binary side sections and /metrics carry the counts, a client that comes
// later is told them, and bad requests are refused with their codes and change nothing.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class SourceServerTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    config.tick_rate = 60;
    def.dt = 1.0 / 60;
    def.max_agents = 400;
  }
};

// Two sources in the west send agents to two exits in the east; commands spawn and remove some
// too. Each tick's snapshot balances, and each exit's count rises by the agents that vanished
// within a few units of it.
TEST_F(SourceServerTest, EveryTickSpawnedEqualsRemovedPlusPresentAndTheExitCountsMatch) {
  step(1);
  const auto north = ok(
      R"({"cmd":"add_source","area":{"x":20,"y":60,"width":80,"height":160},"rate":12,"total":90,)"
      R"("target":{"x":770,"y":140},"behaviour":"seek","radius":5,"max_speed":150})");
  ASSERT_TRUE(north.source);
  EXPECT_EQ(*north.source, 1u);
  const auto south = ok(
      R"({"cmd":"add_source","area":{"x":20,"y":380,"width":80,"height":160},"rate":7.5,"total":60,)"
      R"("target":{"x":770,"y":460},"radius":5,"max_speed":150,"group":2})");
  ASSERT_TRUE(south.source);
  EXPECT_EQ(*south.source, 2u);
  const auto upper = ok(R"({"cmd":"add_exit","area":{"x":740,"y":80,"width":60,"height":120}})");
  const auto lower = ok(R"({"cmd":"add_exit","area":{"x":740,"y":400,"width":60,"height":120}})");
  ASSERT_TRUE(upper.exit && lower.exit);
  EXPECT_EQ(*upper.exit, 1u);
  EXPECT_EQ(*lower.exit, 2u);

  std::uint64_t made_otherwise = 0, removed_otherwise = 0;
  std::map<std::uint32_t, std::uint32_t> spawned;             // by source, as last told
  std::map<std::uint32_t, std::uint64_t> removed;             // by exit, as last told
  std::map<std::uint32_t, std::pair<double, double>> before;  // the last snapshot's agents
  std::uint64_t vanished_upper = 0, vanished_lower = 0;
  for (int t = 0; t < 900; ++t) {
    if (t % 150 == 20) {  // a few by command, sent to the upper exit
      const auto a = ok(R"({"cmd":"spawn","agents":[{"x":400,"y":300,"target":{"x":780,"y":140}},)"
                        R"({"x":420,"y":330,"target":{"x":780,"y":140}}]})");
      ASSERT_TRUE(a.agents);
      made_otherwise += a.agents->size();
    }
    if (t % 200 == 199 && !before.empty()) {
      const std::uint32_t id = before.begin()->first;
      EXPECT_EQ(ok(R"({"cmd":"remove","agents":[)" + std::to_string(id) + "]}").count, 1u);
      before.erase(id);
      ++removed_otherwise;
    }
    const protocol::Snapshot s = step(1);
    ASSERT_EQ(s.sources.has_value(), s.exits.has_value());
    if (s.sources) {
      for (const protocol::SourceState& src : *s.sources) {
        EXPECT_EQ(src.spawned + src.remaining, src.total);
        spawned[src.id] = src.spawned;
      }
      for (const protocol::ExitState& e : *s.exits) removed[e.id] = e.removed;
    }
    std::set<std::uint32_t> now;
    for (const protocol::AgentState& a : s.agents) now.insert(a.id);
    std::uint64_t near_upper = 0, near_lower = 0;
    for (const auto& [id, p] : before) {
      if (now.contains(id)) continue;
      const bool east = p.first >= 740 - 10;
      near_upper += east && p.second >= 80 - 10 && p.second <= 200 + 10;
      near_lower += east && p.second >= 400 - 10 && p.second <= 520 + 10;
    }
    const std::uint64_t made = spawned[1] + spawned[2] + made_otherwise;
    ASSERT_EQ(made, removed[1] + removed[2] + removed_otherwise + s.agents.size())
        << "tick " << s.tick;
    vanished_upper += near_upper;
    vanished_lower += near_lower;
    ASSERT_EQ(removed[1], vanished_upper) << "tick " << s.tick;
    ASSERT_EQ(removed[2], vanished_lower) << "tick " << s.tick;
    before.clear();
    for (const protocol::AgentState& a : s.agents) before[a.id] = {a.x, a.y};
  }
  // It was busy: both sources are done and both exits took most of their agents.
  EXPECT_EQ(spawned[1], 90u);
  EXPECT_EQ(spawned[2], 60u);
  EXPECT_GT(removed[1], 60u);
  EXPECT_GT(removed[2], 40u);
  EXPECT_EQ(metric(R"(herd_source_spawned_total{id="1"})"), 90);
  EXPECT_EQ(metric(R"(herd_source_remaining{id="2"})"), 0);
  EXPECT_EQ(metric(R"(herd_exit_removed_total{id="1"})"), static_cast<double>(removed[1]));
  EXPECT_EQ(metric(R"(herd_exit_removed_total{id="2"})"), static_cast<double>(removed[2]));
}

// A binary viewer's side section carries them as the JSON snapshot does; a snapshot with nothing
// new about them leaves them out; a viewer that comes later is told them within the obstacles'
// repeat; a removed source is gone from the next snapshot.
TEST_F(SourceServerTest, SideSectionsCarryThemAndLateViewersAreToldThem) {
  auto viewer = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  step(1);
  ASSERT_TRUE(ok(R"({"cmd":"add_source","area":{"x":100,"y":100,"width":200,"height":200},)"
                 R"("rate":60,"total":3,"group":1})")
                  .source);
  ASSERT_TRUE(ok(R"({"cmd":"add_exit","area":{"x":700,"y":0,"width":100,"height":600}})").exit);
  const protocol::Snapshot s = step(2);
  ASSERT_TRUE(s.sources && s.exits);
  ASSERT_EQ(s.sources->size(), 1u);
  const protocol::SourceState& src = (*s.sources)[0];
  EXPECT_EQ(src.min, (sim::Vec2{100, 100}));
  EXPECT_EQ(src.max, (sim::Vec2{300, 300}));
  EXPECT_EQ(src.rate, 60);
  EXPECT_EQ(src.spawned, 2u);
  EXPECT_EQ(src.remaining, 1u);
  ASSERT_EQ(s.exits->size(), 1u);
  EXPECT_EQ((*s.exits)[0].removed, 0u);
  EXPECT_EQ(s.agents.size(), 2u);

  protocol::BinaryClient feed;
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    std::optional<std::string> data = viewer->receive(Millis(200));
    if (!data || !protocol::is_binary_snapshot(*data)) continue;
    const auto r = feed.receive(*data);
    ASSERT_TRUE(r.frame) << r.error;
    if (r.ack) viewer->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
    if (r.frame->header.tick != s.tick) continue;
    const auto snap = protocol::to_snapshot(*r.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const protocol::Snapshot& b = std::get<protocol::Snapshot>(snap);
    ASSERT_TRUE(b.sources && b.exits);
    EXPECT_EQ(*b.sources, *s.sources);
    EXPECT_EQ(*b.exits, *s.exits);
    seen = true;
  }
  EXPECT_TRUE(seen) << "no binary frame of the tick";

  EXPECT_TRUE(step(1).sources);   // the third agent
  EXPECT_FALSE(step(1).sources);  // nothing new
  // A viewer that comes now is told them within the repeat (5 s of snapshots at 30 a second).
  auto late = greeted(protocol::Role::viewer);
  bool told = false;
  for (int i = 0; i < 160 && !told; ++i) {
    const std::uint64_t tick = step(1).tick;
    const auto got =
        wait_for<protocol::Snapshot>(*late, [&](const auto& snap) { return snap.tick == tick; });
    told = got.sources && got.sources->size() == 1 && (*got.sources)[0].spawned == 3;
  }
  EXPECT_TRUE(told);
  EXPECT_EQ(ok(R"({"cmd":"remove_source","source":1})").count, 1u);
  const protocol::Snapshot gone = step(1);
  ASSERT_TRUE(gone.sources);
  EXPECT_TRUE(gone.sources->empty());
  EXPECT_EQ(gone.exits->size(), 1u);
}

TEST_F(SourceServerTest, BadSourcesAndExitsAreRefusedWithTheirCodesAndChangeNothing) {
  using protocol::ErrorCode;
  const std::string area = R"("area":{"x":100,"y":100,"width":50,"height":50})";
  auto source = [&](const std::string& rest) {
    return R"({"cmd":"add_source",)" + area + "," + rest + "}";
  };
  EXPECT_EQ(refused(R"({"cmd":"add_source","rate":1,"total":1})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("total":5)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":0,"total":5)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":-2,"total":5)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1e300,"total":5)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":"fast","total":5)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":0)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":1e12)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"radius":0)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"behaviour":"attack")")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"behaviour":"seek")")), ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"behaviour":"idle","target":{"x":1,"y":1})")),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"neighbours":6)")), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_source","area":{"x":100,"y":100,"width":0,"height":50},)"
                    R"("rate":1,"total":5})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_source","area":{"x":700,"y":100,"width":200,"height":50},)"
                    R"("rate":1,"total":5})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"target":{"x":-5,"y":1})")),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5,"pathing":"flow")")), ErrorCode::no_map);
  EXPECT_EQ(refused(R"({"cmd":"add_exit"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_exit","area":{"x":1,"y":1,"width":5}})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_exit","area":{"x":-1,"y":1,"width":5,"height":5}})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(R"({"cmd":"remove_source","id":1})"), ErrorCode::unknown_source);
  EXPECT_EQ(refused(R"({"cmd":"remove_exit","exit":1})"), ErrorCode::unknown_exit);
  EXPECT_EQ(refused(R"({"cmd":"remove_exit","id":1,"exit":1})"), ErrorCode::bad_field);
  // Nothing was made: the next snapshot has no agents and the first ids are still 1.
  const protocol::Snapshot s = step(5);
  EXPECT_TRUE(s.agents.empty());
  const auto first = ok(source(R"("rate":1,"total":5)"));
  ASSERT_TRUE(first.source);
  EXPECT_EQ(*first.source, 1u);
  for (int k = 1; k < 64; ++k) ASSERT_TRUE(ok(source(R"("rate":1,"total":5)")).source);
  EXPECT_EQ(refused(source(R"("rate":1,"total":5)")), ErrorCode::limit_exceeded);
  for (int k = 0; k < 64; ++k) ASSERT_TRUE(ok(R"({"cmd":"add_exit",)" + area + "}").exit);
  EXPECT_EQ(refused(R"({"cmd":"add_exit",)" + area + "}"), ErrorCode::limit_exceeded);
}

}  // namespace
}  // namespace herd::net
