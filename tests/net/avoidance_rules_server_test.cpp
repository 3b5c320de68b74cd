// Orca mode, avoidance priorities, layers and masks over the wire, against the real server driven
// by hand (pause, step): what a client sends is what the world does, snapshots say so, and bad
// values are refused with nothing changed.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class AvoidanceRulesServerTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    config.tick_rate = 60;
    def.dt = 1.0 / 60;
    def.width = def.height = 1000;
    def.max_agents = 200;
  }
  static const protocol::AgentState* agent(const protocol::Snapshot& s, std::uint32_t id) {
    for (const auto& a : s.agents)
      if (a.id == id) return &a;
    return nullptr;
  }
};

std::string point(double x, double y) {
  return R"({"x":)" + std::to_string(x) + R"(,"y":)" + std::to_string(y) + "}";
}

// RVO2's circle, sent by a client: 100 agents evenly on a ring of radius 400, each to the point
// opposite, in orca mode. Every one arrives and no collision is reported in any snapshot.
TEST_F(AvoidanceRulesServerTest, OrcaForEveryoneSwapsARingWithoutACollision) {
  std::string agents;
  for (int k = 0; k < 100; ++k) {
    const double a = 2 * std::numbers::pi * k / 100;
    const double x = 400 * std::cos(a), y = 400 * std::sin(a);
    agents += (k ? "," : "") + std::string(R"({"x":)") + std::to_string(500 + x) + R"(,"y":)" +
              std::to_string(500 + y) + R"(,"target":)" + point(500 - x, 500 - y) + "}";
  }
  ASSERT_EQ(ok(R"({"cmd":"spawn","agents":[)" + agents + "]}").agents->size(), 100u);
  ok(R"({"cmd":"set_avoidance","mode":"orca"})");
  std::size_t collisions = 0, arrived = 0;
  protocol::Snapshot s;
  for (int second = 0; second < 60 && arrived < 100; ++second) {
    s = step(60);
    EXPECT_EQ(s.avoidance, sim::AvoidanceMode::orca);
    collisions += s.collisions.size();
    arrived = 0;
    for (const auto& a : s.agents) arrived += a.state == sim::MoveState::arrived;
  }
  EXPECT_EQ(arrived, 100u) << "by tick " << s.tick;
  EXPECT_EQ(collisions, 0u);
}

// A standing crowd (idle, priority 50: 6 rows of 12, 24 units apart) and an agent of priority 0
// sent along its middle row at up to 120 units/s: in orca mode and in the default cardioid mode
// it keeps at least 80% of its speed all the way through, straight on, while the crowd steps
// aside; snapshots name its priority and leave the crowd's default out.
TEST_F(AvoidanceRulesServerTest, APriorityZeroAgentCrossesAStandingCrowdAtSpeed) {
  for (const std::string mode : {"orca", "cardioid"}) {
    SCOPED_TRACE(mode);
    ok(R"({"cmd":"remove","agents":"all"})");
    ok(R"({"cmd":"set_avoidance","mode":")" + mode + "\"}");
    std::string crowd;
    for (int row = 0; row < 6; ++row)
      for (int col = 0; col < 12; ++col)
        crowd += (crowd.empty() ? "" : ",") + point(235 + 24 * col, 225 + 24 * row);
    const auto ids = *ok(R"({"cmd":"spawn","agents":[)" + crowd + "]}").agents;
    const double row_y = 225 + 2 * 24;
    const auto crosser = ok(R"({"cmd":"spawn","agents":[{"x":60,"y":)" + std::to_string(row_y) +
                            R"(,"priority":0,"target":)" + point(740, row_y) + "}]}")
                             .agents->at(0);
    protocol::Snapshot s = step(1);
    ASSERT_TRUE(agent(s, crosser));
    EXPECT_EQ(agent(s, crosser)->priority, 0);
    EXPECT_EQ(agent(s, ids[0])->priority, 50);
    const double from = 235 - 30, to = 235 + 11 * 24 + 30;
    double entered = -1, left = -1, slowest = HUGE_VAL, swerve = 0;
    for (int t = 0; t < 600 && left < 0; t += 2) {
      s = step(2);
      const protocol::AgentState* a = agent(s, crosser);
      ASSERT_TRUE(a);
      if (a->x >= from && entered < 0) entered = s.time;
      if (a->x >= to && left < 0) left = s.time;
      if (entered >= 0 && left < 0) {
        slowest = std::min(slowest, std::hypot(a->vx, a->vy));
        swerve = std::max(swerve, std::abs(a->y - row_y));
      }
    }
    ASSERT_GT(left, 0) << "it got through";
    EXPECT_GE((to - from) / (left - entered), 0.8 * 120);
    EXPECT_GE(slowest, 0.8 * 120);
    EXPECT_LT(swerve, 1.0);
    double moved = 0;
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const protocol::AgentState* m = agent(s, ids[k]);
      ASSERT_TRUE(m);
      moved = std::max(moved, std::hypot(m->x - (235 + 24 * static_cast<double>(k % 12)),
                                         m->y - (225 + 24 * static_cast<double>(k / 12))));
    }
    EXPECT_GT(moved, 8) << "the crowd stepped aside";
  }
}

// Two walkers along y = 300 and y = 700, each at an agent standing in its way on layer 2 (mask
// 0: it avoids nobody). The first's mask leaves layer 2 out: its inspected trace has no push from
// the one in its way and it walks straight on; the second's mask has layer 2, and it avoids it.
TEST_F(AvoidanceRulesServerTest, AnAgentOutsideTheMaskIsNotAvoided) {
  const auto ids =
      *ok(R"({"cmd":"spawn","agents":[{"x":100,"y":300,"mask":4294967293,"target":)" +
          point(700, 300) +
          R"(},{"x":400,"y":300,"layer":2,"mask":0},{"x":100,"y":700,"mask":2,"target":)" +
          point(700, 700) + R"(},{"x":400,"y":700,"layer":2,"mask":0}]})")
           .agents;
  ASSERT_EQ(ids.size(), 4u);
  c_->send(protocol::encode(protocol::Inspect{{ids[0], ids[2]}}));
  bool blind_pushed = false, seeing_pushed = false;
  double blind_swerve = 0, seeing_swerve = 0;
  for (int t = 0; t < 90; ++t) {
    const protocol::Snapshot s = step(2);
    blind_swerve = std::max(blind_swerve, std::abs(agent(s, ids[0])->y - 300));
    seeing_swerve = std::max(seeing_swerve, std::abs(agent(s, ids[2])->y - 700));
    for (const auto& trace : s.inspect)
      for (const auto& p : trace.pushes) {
        if (trace.id == ids[0] && !p.obstacle && p.id == ids[1]) blind_pushed = true;
        if (trace.id == ids[2] && !p.obstacle && p.id == ids[3]) seeing_pushed = true;
      }
    EXPECT_EQ(agent(s, ids[1])->layer, 2u);
    EXPECT_EQ(agent(s, ids[1])->mask, 0u);
  }
  EXPECT_FALSE(blind_pushed);
  EXPECT_EQ(blind_swerve, 0.0);
  EXPECT_TRUE(seeing_pushed);
  EXPECT_GT(seeing_swerve, 8);
}

// Bad values are refused with bad_field and change nothing: no agent is spawned and the mode
// stays as it was.
TEST_F(AvoidanceRulesServerTest, BadValuesAreRefusedAndChangeNothing) {
  using protocol::ErrorCode;
  ok(R"({"cmd":"set_avoidance","mode":"circle"})");
  const std::size_t before = step(1).agents.size();
  for (const std::string bad : {
           R"({"cmd":"spawn","agents":[{"x":10,"y":10,"priority":100}]})",
           R"({"cmd":"spawn","agents":[{"x":10,"y":10},{"x":20,"y":10,"priority":-1}]})",
           R"({"cmd":"spawn","count":3,"priority":2.5})",
           R"({"cmd":"spawn","count":3,"priority":"high"})",
           R"({"cmd":"spawn","agents":[{"x":10,"y":10,"layer":-1}]})",
           R"({"cmd":"spawn","agents":[{"x":10,"y":10,"layer":1.5}]})",
           R"({"cmd":"spawn","count":3,"mask":4294967296})",
           R"({"cmd":"spawn","agents":[{"x":10,"y":10,"mask":"all"}]})",
           R"({"cmd":"spawn","priority":0,"agents":[{"x":10,"y":10}]})",
           R"({"cmd":"set_avoidance","mode":"rvo2"})",
           R"({"cmd":"set_avoidance","mode":3})",
       }) {
    EXPECT_EQ(refused(bad), ErrorCode::bad_field) << bad;
  }
  const protocol::Snapshot s = step(1);
  EXPECT_EQ(s.agents.size(), before);
  EXPECT_EQ(s.avoidance, sim::AvoidanceMode::circle);
}

}  // namespace
}  // namespace herd::net
