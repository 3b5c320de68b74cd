// Reynolds' catalogue over the wire, against the real server driven by hand (pause, step): wander,
// flock, follow_path, follow and queue given by set_behaviour, each held to its property in the
// snapshots a client receives, and their bad fields refused with codes that change nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class CatalogueServerTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    config.tick_rate = 60;
    def.dt = 1.0 / 60;
    def.width = 2000;
    def.height = 2000;
    def.max_agents = 1000;
  }
  static const protocol::AgentState& agent(const protocol::Snapshot& s, std::uint32_t id) {
    const auto it = std::find_if(s.agents.begin(), s.agents.end(),
                                 [id](const protocol::AgentState& a) { return a.id == id; });
    if (it == s.agents.end()) throw std::runtime_error("agent missing");
    return *it;
  }
};

TEST_F(CatalogueServerTest, WanderIsBoundedAndTheSameSeedWandersTheSameWay) {
  const auto run = [&] {
    const auto spawned = ok(R"({"cmd":"spawn","agents":[{"x":1000,"y":1000},{"x":500,"y":500}]})");
    EXPECT_EQ(ok(R"({"cmd":"set_behaviour","agents":"all","behaviour":"wander"})").count, 2u);
    std::vector<sim::Vec2> path;
    double fastest = 0;
    for (int t = 0; t < 120; ++t) {
      const protocol::Snapshot s = step(5);
      for (const protocol::AgentState& a : s.agents) {
        EXPECT_EQ(a.behaviour, sim::BehaviourKind::wander);
        fastest = std::max(fastest, std::hypot(a.vx, a.vy));
        path.push_back({a.x, a.y});
      }
    }
    EXPECT_LE(fastest, 120 + 0.01);  // snapshots round to thousandths
    EXPECT_GT(fastest, 100) << "it wanders at full speed";
    return path;
  };
  const std::vector<sim::Vec2> first = run();
  ok(R"({"cmd":"reset"})");
  ok(R"({"cmd":"pause"})");
  EXPECT_EQ(run(), first);
}

TEST_F(CatalogueServerTest, AFlockFromRandomHeadingsLinesUpWithoutTouching) {
  std::string agents;
  for (int k = 0; k < 300; ++k)
    agents += (k ? "," : "") + std::string(R"({"group":1,"x":)") +
              std::to_string(1000 + (k % 20 - 9.5) * 48) + R"(,"y":)" +
              std::to_string(1000 + (k / 20 - 7.0) * 48) + "}";
  ASSERT_TRUE(ok(R"({"cmd":"spawn","agents":[)" + agents + "]}").agents);
  EXPECT_EQ(ok(R"({"cmd":"set_behaviour","agents":{"group":1},"behaviour":"flock"})").count, 300u);
  double best = 0, closest = HUGE_VAL;
  for (int second = 0; second < 20; ++second) {
    const protocol::Snapshot s = step(60);
    sim::Vec2 sum{};
    for (const protocol::AgentState& a : s.agents) {
      const double v = std::hypot(a.vx, a.vy);
      if (v > 0) sum += sim::Vec2{a.vx, a.vy} * (1 / v);
      for (const protocol::AgentState& b : s.agents)
        if (b.id > a.id) closest = std::min(closest, std::hypot(a.x - b.x, a.y - b.y));
    }
    best = std::max(best, sim::length(sum) / 300);
  }
  EXPECT_GT(best, 0.9);
  EXPECT_GE(closest, 16 - 1e-6) << "no two flockmates overlap";
}

TEST_F(CatalogueServerTest, FollowPathAndFollowersOverTheWire) {
  const auto leader = ok(R"({"cmd":"spawn","agents":[{"x":200,"y":200}]})");
  ASSERT_TRUE(leader.agents);
  const std::uint32_t id = leader.agents->at(0);
  EXPECT_EQ(
      ok(R"({"cmd":"set_behaviour","agents":[)" + std::to_string(id) +
         R"(],"behaviour":"follow_path","radius":25,"path":[{"x":200,"y":200},{"x":1200,"y":200},{"x":1200,"y":900}]})")
          .count,
      1u);
  const auto followers =
      ok(R"({"cmd":"spawn","agents":[{"x":100,"y":150},{"x":100,"y":250},{"x":60,"y":200}]})");
  ASSERT_TRUE(followers.agents);
  std::string ids;
  for (std::uint32_t f : *followers.agents) ids += (ids.empty() ? "" : ",") + std::to_string(f);
  EXPECT_EQ(ok(R"({"cmd":"set_behaviour","agents":[)" + ids + R"(],"behaviour":"follow","agent":)" +
               std::to_string(id) + "}")
                .count,
            3u);
  double off_path = 0;
  bool corner = false;
  protocol::Snapshot s;
  for (int t = 0; t < 300; ++t) {
    s = step(5);
    const protocol::AgentState& l = agent(s, id);
    // Distance to the path: its first leg along y = 200, its second along x = 1200.
    const double first = std::hypot(std::max({200 - l.x, l.x - 1200, 0.0}), l.y - 200);
    const double second = std::hypot(l.x - 1200, std::max({200 - l.y, l.y - 900, 0.0}));
    off_path = std::max(off_path, std::min(first, second));
    corner = corner || std::hypot(l.x - 1200, l.y - 200) <= 25;
    EXPECT_EQ(l.behaviour, sim::BehaviourKind::follow_path);
  }
  EXPECT_LE(off_path, 25.0);
  EXPECT_TRUE(corner) << "it visited the corner";
  const protocol::AgentState& l = agent(s, id);
  EXPECT_LT(std::hypot(l.x - 1200, l.y - 900), 1.0);
  EXPECT_EQ(l.state, sim::MoveState::arrived);
  for (std::uint32_t f : *followers.agents) {
    const protocol::AgentState& a = agent(s, f);
    EXPECT_EQ(a.behaviour, sim::BehaviourKind::follow);
    ASSERT_TRUE(a.subject);
    EXPECT_EQ(*a.subject, id);
    EXPECT_EQ(a.state, sim::MoveState::arrived) << f;
    EXPECT_LT(a.y, 900 - 8) << "behind the leader, who stopped heading down (+y)";
  }
}

TEST_F(CatalogueServerTest, AQueueNeverRunsIntoTheSlowOneAhead) {
  const auto spawned = ok(
      R"({"cmd":"spawn","agents":[{"x":500,"y":300,"max_speed":30},{"x":470,"y":300},{"x":440,"y":300},{"x":410,"y":300}]})");
  ASSERT_TRUE(spawned.agents);
  EXPECT_EQ(
      ok(R"({"cmd":"set_behaviour","agents":"all","behaviour":"queue","target":{"x":1900,"y":300}})")
          .count,
      4u);
  double closest = HUGE_VAL;
  for (int t = 0; t < 120; ++t) {
    const protocol::Snapshot s = step(5);
    for (std::size_t k = 1; k < s.agents.size(); ++k)
      closest = std::min(closest, std::hypot(s.agents[k].x - s.agents[k - 1].x,
                                             s.agents[k].y - s.agents[k - 1].y));
  }
  EXPECT_GE(closest, 16.0);
}

TEST_F(CatalogueServerTest, BadFieldsAreRefusedWithTheirCodesAndChangeNothing) {
  const auto spawned = ok(R"({"cmd":"spawn","agents":[{"x":100,"y":100}]})");
  ASSERT_TRUE(spawned.agents);
  const std::string id = std::to_string(spawned.agents->at(0));
  using protocol::ErrorCode;
  const std::string set = R"({"cmd":"set_behaviour","agents":[)" + id + "],";
  EXPECT_EQ(refused(set + R"("behaviour":"follow_path","path":[{"x":1,"y":1}]})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"follow_path"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"follow_path","path":[{"x":1,"y":1},{"x":2}]})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"follow_path","path":[{"x":1,"y":1},{"x":5000,"y":1}]})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(set + R"("behaviour":"flock","distance":3})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"flock","alignment":101})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"wander","offset":{"x":1,"y":1}})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"wander","jitter":-1})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"follow"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"follow","agent":)" + id + "}"),
            ErrorCode::invalid_target);
  EXPECT_EQ(refused(set + R"("behaviour":"follow","agent":999})"), ErrorCode::unknown_agent);
  EXPECT_EQ(refused(set + R"("behaviour":"queue"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(set + R"("behaviour":"queue","target":{"x":9000,"y":1}})"),
            ErrorCode::out_of_bounds);
  const protocol::Snapshot s = step(1);
  ASSERT_EQ(s.agents.size(), 1u);
  EXPECT_EQ(s.agents[0].behaviour, sim::BehaviourKind::idle);
}

}  // namespace
}  // namespace herd::net
