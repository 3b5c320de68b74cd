// Valid commands with hostile sizes, over the real server driven by hand (pause, step): each
// must cost the world no more than its ordinary work, whatever numbers a client chose.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <string>

#include "net/relay_world.hpp"
#include "server_fixture.hpp"

namespace herd::net {
namespace {

constexpr double kPi = 3.14159265358979323846;

class HostileCommandsTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    def.max_agents = 2000;
    def.width = 4000;
    def.height = 4000;
    // Each checkpoint the server takes, as the app would write it: its size.
    config.checkpoint_interval = 0.05;
    config.on_checkpoint = [this](const sim::World& world) {
      const std::size_t bytes = world.save_checkpoint().size();
      std::lock_guard lock(checkpoint_mutex_);
      checkpoints_.push_back(bytes);
      checkpoint_taken_.notify_all();
    };
  }
  // The size of the next checkpoint the running world takes (0: none within the bounded wait).
  std::size_t next_checkpoint() {
    std::unique_lock lock(checkpoint_mutex_);
    const std::size_t seen = checkpoints_.size();
    if (!checkpoint_taken_.wait_for(lock, kWait, [&] { return checkpoints_.size() > seen; }))
      return 0;
    return checkpoints_.back();
  }
  std::mutex checkpoint_mutex_;
  std::condition_variable checkpoint_taken_;
  std::vector<std::size_t> checkpoints_;
  // A spawn of group-1 agents at `points`, as JSON.
  static std::string spawn_at(const std::vector<sim::Vec2>& points) {
    std::string agents;
    for (const sim::Vec2& p : points)
      agents += (agents.empty() ? "" : ",") + std::string(R"({"group":1,"x":)") +
                std::to_string(p.x) + R"(,"y":)" + std::to_string(p.y) + "}";
    return R"({"cmd":"spawn","agents":[)" + agents + "]}";
  }
};

// A flock's radius may be as large as the wire takes (1e9): a flocker heeds its 64 nearest mates
// and reads a bounded number of agents, so a crowd of its group across the world, east or west,
// changes nothing. Before, every flocker read every agent (5,000 flockers: a tick 600 ms instead
// of 2.6) and the far crowd pulled it.
TEST_F(HostileCommandsTest, AFlockersWorldWideRadiusHeedsItsNearestMatesOnly) {
  const auto run = [&](double crowd_x) {
    std::vector<sim::Vec2> near = {{2000, 2000}};  // the flocker, agent 1
    const std::pair<int, double> rings[] = {{16, 40}, {24, 70}, {24, 100}};
    for (const auto& [n, r] : rings)
      for (int k = 0; k < n; ++k)
        near.push_back(sim::Vec2{2000, 2000} +
                       sim::Vec2{std::cos(2 * kPi * k / n), std::sin(2 * kPi * k / n)} * r);
    std::vector<sim::Vec2> crowd;
    for (int k = 0; k < 1000; ++k)
      crowd.push_back({crowd_x + (k % 32 - 15.5) * 20.0, 2000 + (k / 32 - 15.5) * 20.0});
    ok(spawn_at(near));
    ok(spawn_at(crowd));
    ok(R"({"cmd":"set_behaviour","agents":[1],"behaviour":"flock","radius":1e9})");
    const protocol::Snapshot s = step(120);
    EXPECT_EQ(s.agents.size(), 1065u);
    return sim::Vec2{s.agents.at(0).x, s.agents.at(0).y};
  };
  const sim::Vec2 east = run(3500);
  ok(R"({"cmd":"reset"})");
  ok(R"({"cmd":"pause"})");
  const sim::Vec2 west = run(500);
  EXPECT_EQ(east, west) << "east " << east.x << ", " << east.y << "; west " << west.x << ", "
                        << west.y;
}

// One follow_path of 1,024 points on 2,000 agents is one path in the checkpoint, not 2,000 copies
// (before: 32 MB here; 335 MB for 20,000 agents, written on the tick thread).
TEST_F(HostileCommandsTest, OneFollowPathOnManyAgentsIsCheckpointedOnce) {
  ok(R"({"cmd":"spawn","count":1000})");
  ok(R"({"cmd":"spawn","count":1000})");
  ok(R"({"cmd":"resume"})");
  const std::size_t standing = next_checkpoint();
  ASSERT_GT(standing, 0u) << "a checkpoint while the world runs";
  std::string points;
  for (int k = 0; k < 1024; ++k)
    points += (k ? "," : "") + std::string(R"({"x":)") + std::to_string(100 + (k % 32) * 100) +
              R"(,"y":)" + std::to_string(100 + (k / 32) * 100) + "}";
  ok(R"({"cmd":"set_behaviour","agents":"all","behaviour":"follow_path","path":[)" + points + "]}");
  next_checkpoint();  // one that may have begun before the command
  const std::size_t following = next_checkpoint();
  ASSERT_GT(following, 0u);
  const std::size_t path_bytes = 1024 * 16;
  EXPECT_LT(following, standing + 2 * path_bytes + 2000 * 120)
      << "the path once, and each agent's steering state";
}

// Every agent's order queue full (64 orders after its current one): a snapshot shows each agent's
// next 32 points, so each agent stays within what a relay allows an agent in the snapshots it
// reads (a quarter over the widest agent). Before, each agent carried all 64 (and a patrol's
// route behind them): 20,000 such agents made a 48.6 MB snapshot against a relay's 30.9 MB.
TEST_F(HostileCommandsTest, AFullOrderQueueKeepsASnapshotWithinWhatARelayReads) {
  ok(R"({"cmd":"spawn","count":100})");
  for (int k = 0; k < 65; ++k)
    ok(R"({"cmd":"set_target","agents":"all","target":{"x":)" + std::to_string(-999.5 + 4000 - k) +
       R"(,"y":3999.25},"queue":)" + (k ? "true" : "false") + "}");
  auto viewer = greeted(protocol::Role::viewer);
  ok(R"({"cmd":"step"})");
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (text.empty() && std::chrono::steady_clock::now() < deadline)
    if (auto got = viewer->receive(Millis(200));
        got && got->find(R"("type":"snapshot")") != std::string::npos)
      text = *got;
  ASSERT_FALSE(text.empty()) << "no snapshot";
  const auto s = std::get<protocol::Snapshot>(
      std::get<protocol::ServerMessage>(protocol::decode_server(text)));
  ASSERT_EQ(s.agents.size(), 100u);
  EXPECT_EQ(s.agents[0].waypoints.size(), protocol::kMaxWaypointsPerAgent);
  const std::size_t per_agent = max_snapshot_bytes(20001) - max_snapshot_bytes(20000);
  EXPECT_LT(text.size() / 100, per_agent) << "bytes per agent, against a relay's allowance";
}

// Four viewers inspecting 16 agents each (ids 1 to 64, all the world traces) do not stop the
// operator's trace: the operator's ids come first, then players', then watchers', one from each
// session in turn. Before, the world traced the 64 lowest ids of all lists, the operator's 70 not.
TEST_F(HostileCommandsTest, WatchersInspectingCannotStarveTheOperatorsTraces) {
  ok(R"({"cmd":"spawn","count":80})");
  std::vector<std::unique_ptr<WsClient>> viewers;
  for (std::uint32_t v = 0; v < 4; ++v) {
    viewers.push_back(greeted(protocol::Role::viewer));
    protocol::Inspect many;
    for (std::uint32_t k = 1; k <= 16; ++k) many.agents.push_back(16 * v + k);
    viewers.back()->send(protocol::encode(many));
  }
  for (auto& v : viewers) v->send(R"({"type":"ping","id":1})");
  for (auto& v : viewers) wait_for<protocol::Pong>(*v);
  c_->send(protocol::encode(protocol::Inspect{{70}}));
  bool traced = false;
  for (int t = 0; t < 30 && !traced; ++t)
    for (const auto& trace : step(1).inspect) traced = traced || trace.id == 70;
  EXPECT_TRUE(traced) << "the operator's agent 70 is traced";
}

}  // namespace
}  // namespace herd::net
