// The real server driven by hand: pause, step and resume; commands answered as they arrive, between
// ticks; load_scenario, reset and set_param replacing the world and welcoming every client again.
// Nothing sleeps: every wait is for a message, bounded by a timeout.
#include <algorithm>

#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

TEST_F(ServerTest, PauseStepResumeDriveTheLoopByHand) {
  auto c = greeted(protocol::Role::commander);
  c->send(R"({"type":"command","seq":1,"cmd":"step"})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::not_paused);
  c->send(R"({"type":"command","seq":2,"cmd":"pause"})");
  const auto paused = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 2; });
  c->send(R"({"type":"command","seq":3,"cmd":"step","ticks":5})");
  const auto stepped = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 3; });
  EXPECT_EQ(stepped.tick, paused.tick + 5) << "exactly five ticks, none by the clock while paused";
  const auto snap =
      wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick == stepped.tick; });
  EXPECT_EQ(snap.tick, paused.tick + 5);
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/healthz").status, 200)
      << "paused on purpose is not late";
  c->send(R"({"type":"command","seq":4,"cmd":"resume"})");
  wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 4; });
  wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick > stepped.tick + 3; });
  auto viewer = greeted(protocol::Role::viewer);
  viewer->send(R"({"type":"command","seq":9,"cmd":"pause"})");
  EXPECT_EQ(wait_for<protocol::Error>(*viewer).code, protocol::ErrorCode::forbidden);
}

// `step 1000` runs in slices: snapshots of ticks inside the run go out, and another session's
// command is applied between slices, before the run's ack, which still comes after the last tick.
class StepSliceTest : public ServerTest {
 protected:
  void configure(ServerConfig&, sim::WorldDef& def) override { def.max_agents = 2000; }
};

TEST_F(StepSliceTest, StepRunsInSlicesThatLetSnapshotsAndOtherSessionsThrough) {
  auto c = greeted(protocol::Role::commander);
  auto viewer = greeted(protocol::Role::viewer);
  auto other = greeted(protocol::Role::commander);
  c->send(R"({"type":"command","seq":1,"cmd":"pause"})");
  const auto paused = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 1; });
  // Ticks that take a while, but not so long that a thousand of them outlast the test's waits
  // under the sanitizers on a loaded machine (2,000 agents took 18 s there).
  c->send(R"({"type":"command","seq":2,"cmd":"spawn","count":500})");
  const auto spawned = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 2; });
  ASSERT_TRUE(spawned.agents && spawned.agents->size() == 500);
  const std::uint64_t start = paused.tick, end = start + 1000;
  c->send(R"({"type":"command","seq":3,"cmd":"step","ticks":1000})");
  const auto mid =
      wait_for<protocol::Snapshot>(*viewer, [&](const auto& s) { return s.tick > start; });
  EXPECT_LT(mid.tick, end) << "a snapshot from inside the run";
  other->send(R"({"type":"command","seq":7,"cmd":"set_group","agents":"all","group":3})");
  const auto between = wait_for<protocol::Ack>(*other, [](const auto& a) { return a.seq == 7; });
  EXPECT_LE(between.tick, end) << "applied between slices, not after the thousandth tick";
  const auto stepped = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 3; });
  EXPECT_EQ(stepped.tick, end) << "exactly a thousand ticks, acked after the last";
  wait_for<protocol::Snapshot>(*viewer, [&](const auto& s) { return s.tick == end; });
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/healthz").status, 200);
  const auto metrics = client::http_request("127.0.0.1", port_, "/metrics");
  EXPECT_NE(metrics.body.find("\nherd_step_ticks_pending 0\n"), std::string::npos);
  EXPECT_NE(metrics.body.find("\nherd_path_queue 0\n"), std::string::npos);
}

// A command is applied and answered as it arrives, between ticks: it does not wait for the next
// tick, even when there is none (paused). Its ack names the tick it takes effect at, and that
// tick's snapshot reflects it.
TEST_F(ServerTest, CommandsAreAnsweredAsTheyArriveEvenWhilePaused) {
  auto c = greeted(protocol::Role::commander);
  c->send(R"({"type":"command","seq":1,"cmd":"pause"})");
  const auto paused = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 1; });
  c->send(R"({"type":"command","seq":2,"cmd":"spawn","agents":[{"x":120,"y":80}]})");
  const auto spawned = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 2; });
  EXPECT_EQ(spawned.tick, paused.tick + 1) << "takes effect at the next tick";
  ASSERT_TRUE(spawned.agents && spawned.agents->size() == 1);
  const std::uint32_t id = spawned.agents->front();
  c->send(R"({"type":"command","seq":3,"cmd":"step"})");
  const auto stepped = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 3; });
  EXPECT_EQ(stepped.tick, spawned.tick);
  const auto snap =
      wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick == spawned.tick; });
  EXPECT_TRUE(std::any_of(snap.agents.begin(), snap.agents.end(),
                          [&](const auto& a) { return a.id == id; }));
}

// A viewer reads the old world's snapshots, then the new world's welcome, then only the new
// world's snapshots: none of the old one comes after the welcome (frames still waiting are
// dropped), and none of the new one before it.
TEST_F(ServerTest, AfterANewWorldsWelcomeEverySnapshotIsOfTheNewWorld) {
  auto c = greeted(protocol::Role::commander);
  auto viewer = greeted(protocol::Role::viewer);
  constexpr std::uint64_t kOld = 120;  // the old world has run a second (120 ticks a second)
  wait_for<protocol::Snapshot>(*viewer, [](const auto& s) { return s.tick >= kOld; });
  c->send(R"({"type":"command","seq":1,"cmd":"load_scenario","name":"other"})");
  bool welcomed = false;
  int new_snapshots = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (new_snapshots < 5 && std::chrono::steady_clock::now() < deadline) {
    auto text = viewer->receive(Millis(200));
    if (!text) continue;
    auto decoded = protocol::decode_server(*text);
    ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << *text;
    const auto& msg = std::get<ServerMessage>(decoded);
    if (const auto* w = std::get_if<protocol::Welcome>(&msg)) {
      EXPECT_FALSE(welcomed);
      EXPECT_EQ(w->world.width, 500);
      EXPECT_EQ(w->description, "a narrower world") << "the loaded scenario's own";
      welcomed = true;
    } else if (const auto* snap = std::get_if<protocol::Snapshot>(&msg)) {
      if (welcomed) {
        EXPECT_LT(snap->tick, kOld) << "an old world's snapshot after the new world's welcome";
        ++new_snapshots;
      } else {
        EXPECT_GE(snap->tick, kOld) << "a new world's snapshot before its welcome";
      }
    }
  }
  EXPECT_TRUE(welcomed);
  EXPECT_EQ(new_snapshots, 5);
}

// What a viewer's scenario bar shows: the welcome names the running scenario and lists those
// load_scenario takes, and says whether the world is paused; pause and resume welcome everyone
// again. Snapshots are numbered (serial) one by one, so a viewer counts the ones it missed: none
// for a pause or a step.
TEST_F(ServerTest, WelcomesTellTheScenarioAndThePauseAndSnapshotsAreNumbered) {
  auto c = connect();
  c->send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "test", {}}));
  const auto first = wait_for<protocol::Welcome>(*c);
  EXPECT_EQ(first.scenario, "test-world");
  EXPECT_EQ(first.scenarios, (std::vector<std::string>{"other", "test-world"}));
  EXPECT_EQ(first.descriptions,
            (std::map<std::string, std::string>{{"other", "a narrower world"}}));
  EXPECT_EQ(first.description, "") << "the running one says nothing";
  EXPECT_FALSE(first.paused);
  auto viewer = greeted(protocol::Role::viewer);
  const auto running = wait_for<protocol::Snapshot>(*viewer);
  EXPECT_GT(running.serial, 0u);
  const auto next = wait_for<protocol::Snapshot>(*viewer);
  EXPECT_EQ(next.serial, running.serial + 1) << "a reader that keeps up misses none";
  c->send(R"({"type":"command","seq":1,"cmd":"pause"})");
  const auto paused = wait_for<protocol::Welcome>(*viewer);
  EXPECT_TRUE(paused.paused);
  EXPECT_EQ(paused.scenario, "test-world");
  // The step's snapshots: serials rising, the last at the step's tick. (They come in a burst, one
  // per snapshot interval stepped over, so a reader slower than the burst may find some replaced
  // in its latest-wins lane: gaps there are honest drops.)
  c->send(R"({"type":"command","seq":2,"cmd":"step","ticks":30})");
  const auto stepped = wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 2; });
  std::vector<protocol::Snapshot> seen;
  for (auto s = wait_for<protocol::Snapshot>(*viewer);; s = wait_for<protocol::Snapshot>(*viewer)) {
    seen.push_back(s);
    if (s.tick >= stepped.tick || s.serial == 0) break;
  }
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i].serial, seen[i - 1].serial);
  EXPECT_EQ(seen.back().tick, stepped.tick);
  c->send(R"({"type":"command","seq":3,"cmd":"resume"})");
  EXPECT_FALSE(wait_for<protocol::Welcome>(*viewer).paused);
  const auto after = wait_for<protocol::Snapshot>(*viewer);
  EXPECT_EQ(after.serial, seen.back().serial + 1) << "no serial skipped by the pause";
  c->send(R"({"type":"command","seq":4,"cmd":"load_scenario","name":"other"})");
  const auto loaded = wait_for<protocol::Welcome>(*viewer);
  EXPECT_EQ(loaded.scenario, "other");
  EXPECT_FALSE(loaded.paused);
  c->send(R"({"type":"command","seq":5,"cmd":"reset"})");
  EXPECT_EQ(wait_for<protocol::Welcome>(*viewer).scenario, "other") << "reset keeps the scenario";
}

TEST_F(ServerTest, LoadScenarioAndResetReplaceTheWorldAndWelcomeEveryone) {
  auto c = greeted(protocol::Role::commander);
  auto viewer = greeted(protocol::Role::viewer);
  c->send(command(1, sim::Spawn{3, 0, {}}));
  wait_for<protocol::Ack>(*c);
  c->send(R"({"type":"command","seq":2,"cmd":"load_scenario","name":"nowhere"})");
  const auto missing = wait_for<protocol::Error>(*c);
  EXPECT_EQ(missing.code, protocol::ErrorCode::unknown_scenario);
  EXPECT_EQ(missing.seq, 2u);
  c->send(R"({"type":"command","seq":3,"cmd":"load_scenario","name":"other","seed":9})");
  const auto welcome = wait_for<protocol::Welcome>(*viewer);
  EXPECT_EQ(welcome.world.width, 500) << "every client is welcomed to the new world";
  EXPECT_EQ(welcome.tick, 0u);
  const auto empty = wait_for<protocol::Snapshot>(*viewer);
  EXPECT_TRUE(empty.agents.empty());
  c->send(command(4, sim::Spawn{2, 0, {}}));
  wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 4; });
  c->send(R"({"type":"command","seq":5,"cmd":"reset"})");
  wait_for<protocol::Ack>(*c, [](const auto& a) { return a.seq == 5; });
  const auto again = wait_for<protocol::Welcome>(*viewer);
  EXPECT_EQ(again.world.width, 500) << "reset rebuilds the running scenario";
  EXPECT_TRUE(wait_for<protocol::Snapshot>(*viewer).agents.empty());
  c->send(R"({"type":"command","seq":6,"cmd":"set_param","tick_rate":240,"snapshot_rate":40})");
  const auto faster = wait_for<protocol::Welcome>(*viewer);
  EXPECT_EQ(faster.tick_rate, 240);
  EXPECT_EQ(faster.snapshot_rate, 40);
  c->send(R"({"type":"command","seq":7,"cmd":"set_param","snapshot_rate":500})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
}

}  // namespace
}  // namespace herd::net
