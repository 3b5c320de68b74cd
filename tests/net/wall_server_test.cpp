// Walls over the wire, against the real server driven by hand (pause, step): add_wall's ack names
// the new wall, the welcome and the snapshots (JSON, and binary side sections) carry them, a crowd
// driven at them never crosses one tick after tick, remove_wall takes `wall` or `id`, and bad
// requests are refused with their codes, changing nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class WallServerTest : public SteppedServerTest {};

// The move p0 -> p1 passes from strictly one side of segment a-b to strictly the other through it.
bool passes_through(sim::Vec2 p0, sim::Vec2 p1, sim::Vec2 a, sim::Vec2 b) {
  const auto side = [](sim::Vec2 a, sim::Vec2 b, sim::Vec2 p) {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
  };
  const double s0 = side(a, b, p0), s1 = side(a, b, p1);
  if (!((s0 > 0 && s1 < 0) || (s0 < 0 && s1 > 0))) return false;
  const double t0 = side(p0, p1, a), t1 = side(p0, p1, b);
  return (t0 <= 0 && t1 >= 0) || (t0 >= 0 && t1 <= 0);
}

double distance_to_segment(sim::Vec2 p, sim::Vec2 a, sim::Vec2 b) {
  const sim::Vec2 d = b - a;
  const double t = std::clamp(sim::dot(p - a, d) / sim::length_squared(d), 0.0, 1.0);
  return sim::length(a + d * t - p);
}

TEST_F(WallServerTest, WallsReachEveryClientAndNoAgentCrossesOne) {
  auto binary = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  // 90 agents (the test world holds 100) in a block left of a wall across the world, sent to the
  // right, some of them into a triangle before it.
  std::string agents;
  for (int k = 0; k < 90; ++k) {
    const int x = 250 + 12 * (k % 10), y = 80 + 36 * (k / 10);
    agents += (k ? "," : "") + std::string(R"({"x":)") + std::to_string(x) + R"(,"y":)" +
              std::to_string(y) + R"(,"radius":4,"max_speed":160,"target":{"x":)" +
              std::to_string(760 - (k % 7) * 10) + R"(,"y":)" + std::to_string(y) + "}}";
  }
  ASSERT_TRUE(ok(R"({"cmd":"spawn","agents":[)" + agents + "]}").agents);
  // Across the whole world: there is no way round it.
  const auto segment = ok(R"({"cmd":"add_wall","points":[{"x":400,"y":0},{"x":400,"y":600}]})");
  ASSERT_TRUE(segment.wall);
  EXPECT_EQ(*segment.wall, 1u);
  const auto triangle = ok(
      R"({"cmd":"add_wall","points":[{"x":370,"y":150},{"x":395,"y":200},{"x":370,"y":250}],"closed":true})");
  ASSERT_TRUE(triangle.wall);
  EXPECT_EQ(*triangle.wall, 2u);

  // The next snapshot carries both; the one after leaves them out (nothing new).
  const protocol::Snapshot first = step(1);
  ASSERT_TRUE(first.walls);
  const std::vector<protocol::WallState> expected{{1, {{400, 0}, {400, 600}}, false},
                                                  {2, {{370, 150}, {395, 200}, {370, 250}}, true}};
  EXPECT_EQ(*first.walls, expected);
  EXPECT_FALSE(step(1).walls);

  // The binary viewer's frame of that tick has them in its side section.
  protocol::BinaryClient feed;
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    std::optional<std::string> data = binary->receive(Millis(200));
    if (!data || !protocol::is_binary_snapshot(*data)) continue;
    const auto r = feed.receive(*data);
    ASSERT_TRUE(r.frame) << r.error;
    if (r.ack) binary->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
    if (r.frame->header.tick != first.tick) continue;
    const auto snap = protocol::to_snapshot(*r.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const auto& w = std::get<protocol::Snapshot>(snap).walls;
    ASSERT_TRUE(w);
    EXPECT_EQ(*w, expected);
    seen = true;
  }
  EXPECT_TRUE(seen) << "no binary frame of the walls' tick";

  // A client that comes now is told them in its welcome.
  protocol::Welcome welcome;
  auto late = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome);
  EXPECT_EQ(welcome.walls, expected);

  // Tick by tick, the crowd presses on the walls and no centre crosses a segment.
  struct Seg {
    sim::Vec2 a, b;
  };
  const std::vector<Seg> segs{{{400, 0}, {400, 600}},
                              {{370, 150}, {395, 200}},
                              {{395, 200}, {370, 250}},
                              {{370, 250}, {370, 150}}};
  std::vector<protocol::AgentState> before = first.agents;
  int crossings = 0, touching = 0;
  double worst = 0;
  for (int t = 0; t < 180; ++t) {
    const protocol::Snapshot s = step(1);
    ASSERT_EQ(s.agents.size(), before.size());
    for (std::size_t i = 0; i < s.agents.size(); ++i) {
      const sim::Vec2 p0{before[i].x, before[i].y}, p1{s.agents[i].x, s.agents[i].y};
      for (const Seg& g : segs) {
        crossings += passes_through(p0, p1, g.a, g.b);
        const double d = distance_to_segment(p1, g.a, g.b);
        worst = std::max(worst, s.agents[i].r - d);
        touching += d < s.agents[i].r + 0.01;
      }
    }
    before = s.agents;
  }
  EXPECT_EQ(crossings, 0);
  // Positions travel rounded to thousandths: a disc touching a wall may seem to overlap by that.
  EXPECT_LE(worst, 1e-3);
  EXPECT_GT(touching, 500) << "the crowd must press on the walls";
  for (const auto& a : before) EXPECT_LT(a.x, 400) << "agent " << a.id << " got past the wall";

  // Removed by `wall`, then by `id`: each snapshot after lists those left.
  EXPECT_EQ(ok(R"({"cmd":"remove_wall","wall":1})").count, 1u);
  const protocol::Snapshot one = step(1);
  ASSERT_TRUE(one.walls);
  ASSERT_EQ(one.walls->size(), 1u);
  EXPECT_EQ((*one.walls)[0].id, 2u);
  EXPECT_EQ(ok(R"({"cmd":"remove_wall","id":2})").count, 1u);
  const protocol::Snapshot none = step(1);
  ASSERT_TRUE(none.walls);
  EXPECT_TRUE(none.walls->empty());
  EXPECT_EQ(refused(R"({"cmd":"remove_wall","wall":2})"), protocol::ErrorCode::unknown_wall);
}

TEST_F(WallServerTest, BadWallsAreRefusedWithTheirCodesAndChangeNothing) {
  using protocol::ErrorCode;
  EXPECT_EQ(refused(R"({"cmd":"add_wall"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1}]})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":"across"})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":1,"y":1}]})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":2,"y":2}],"closed":true})"),
            ErrorCode::bad_field);
  EXPECT_EQ(
      refused(
          R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":2,"y":2},{"x":3,"y":1},{"x":1,"y":1}],"closed":true})"),
      ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":2,"y":2}],"closed":1})"),
            ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":2,"y":2,"z":3}]})"),
            ErrorCode::bad_field);
  auto points = [](int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += (i ? "," : "") + std::string(R"({"x":)") + std::to_string(1 + i) + R"(,"y":5})";
    return out;
  };
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[)" + points(257) + "]}"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":900,"y":2}]})"),
            ErrorCode::out_of_bounds);
  EXPECT_EQ(refused(R"({"cmd":"remove_wall","wall":7})"), ErrorCode::unknown_wall);
  EXPECT_EQ(refused(R"({"cmd":"remove_wall","id":1,"wall":1})"), ErrorCode::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"remove_wall"})"), ErrorCode::bad_field);
  // Nothing was made: the first wall added now is id 1; snapshots carry no wall till then.
  EXPECT_FALSE(step(1).walls);
  // 64 walls of 256 points fill the world's 16,384; one more point is over the limit.
  for (int k = 0; k < 64; ++k) {
    const auto ack = ok(R"({"cmd":"add_wall","points":[)" + points(256) + "]}");
    ASSERT_TRUE(ack.wall);
    ASSERT_EQ(*ack.wall, 1u + k);
  }
  EXPECT_EQ(refused(R"({"cmd":"add_wall","points":[{"x":1,"y":1},{"x":2,"y":2}]})"),
            ErrorCode::limit_exceeded);
  const protocol::Snapshot s = step(1);
  ASSERT_TRUE(s.walls);
  EXPECT_EQ(s.walls->size(), 64u);
}

}  // namespace
}  // namespace herd::net
