// Stalls over the real server: a mover pressed against a parked clump is stalled in the JSON
// snapshot (`stall`, `stall_for`, `stall_by`), /metrics counts it, and `herd-ctl why` says why,
// with its exit codes.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/ctl_run.hpp"
#include "common/process.hpp"

namespace herd {
namespace {

using namespace herd::testing;
using nlohmann::json;

class StallOverTheServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("herd_why_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    server_ = new Process({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_->string(),
                           "--scenario", "empty"},
                          *dir_ / "server.log", HERD_SERVER_BIN, Commands::as_user);
    port_ = listening_port(*dir_ / "server.log");
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(*dir_);
    delete dir_;
  }
  // herd-ctl with these arguments (its standard input `input`, when given); stdout and stderr.
  CtlRun ctl(std::vector<std::string> args, const std::string& input = {}) {
    return run_ctl(*dir_, runs_, std::move(args), "ws://127.0.0.1:" + std::to_string(port_) + "/ws",
                   input.empty() ? std::nullopt : std::optional<std::string>(input));
  }
  static inline fs::path* dir_ = nullptr;
  static inline Process* server_ = nullptr;
  static inline int port_ = -1;
  static inline int runs_ = 0;
};

// The sim's constructed case (tests/sim/stall_test.cpp), over the wire: a 5 x 5 clump of the most
// important priority, standing, and a mover sent into its middle without avoidance. A paused
// world sends no snapshots, so the world runs: the test reads the mover until it is stalled (2 s
// of world time after it is pressed against the clump, which holds it there for good).
TEST_F(StallOverTheServerTest, AStalledAgentCarriesItsReasonAndHerdCtlWhySaysIt) {
  ASSERT_GT(port_, 0);
  json clump = json::array();
  for (int row = 0; row < 5; ++row)
    for (int col = 0; col < 5; ++col)
      clump.push_back({{"x", 400 + 17 * col}, {"y", 300 + 17 * row}, {"priority", 0}});
  const std::string setup =
      R"({"type":"command","cmd":"set_avoidance","mode":"none"})"
      "\n" +
      json{{"type", "command"}, {"cmd", "spawn"}, {"agents", clump}}.dump() + "\n" +
      R"({"type":"command","cmd":"spawn","agents":[{"x":250,"y":334,"target":{"x":434,"y":334}}]})"
      "\n";
  CtlRun r = ctl({"--json", "send"}, setup);
  ASSERT_EQ(r.status, 0) << r.out;
  // The mover is the last agent spawned: agent 26 in the empty world.
  const std::uint32_t mover = 26;

  // Its object in the next snapshot, read again until it is stalled (each read waits for a
  // snapshot: about 3 s of them at most before the mover stalls; 600 reads are far more).
  json agent;
  for (int tries = 0; tries < 600 && !agent.contains("stall"); ++tries) {
    r = ctl({"--json", "why", std::to_string(mover)});
    ASSERT_EQ(r.status, 0) << r.out;
    agent = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(agent.is_discarded()) << r.out;
  }
  ASSERT_EQ(agent.value("stall", ""), "blocked_by_standing") << agent.dump();
  EXPECT_GT(agent.value("stall_for", 0.0), 2.0);
  ASSERT_TRUE(agent.contains("stall_by")) << agent.dump();
  ASSERT_FALSE(agent["stall_by"].empty());
  for (const json& id : agent["stall_by"]) {
    EXPECT_GE(id.get<int>(), 1);
    EXPECT_LE(id.get<int>(), 25) << "only the clump's agents are to blame";
  }

  // The same in the snapshot watch prints, and no parked agent is stalled.
  r = ctl({"watch", "--count", "1"});
  ASSERT_EQ(r.status, 0) << r.out;
  const json snapshot = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(snapshot.is_discarded()) << r.out;
  std::size_t stalled = 0;
  for (const json& a : snapshot["agents"]) {
    if (!a.contains("stall")) continue;
    ++stalled;
    EXPECT_EQ(a["id"], mover);
  }
  EXPECT_EQ(stalled, 1u);

  // For people: its state, the reason, for how long and by whom.
  r = ctl({"why", std::to_string(mover)});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("agent 26: moving at "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", stalled "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s: blocked_by_standing (by "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("going to (434, 334)"), std::string::npos) << r.out;
  r = ctl({"why", "3"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("agent 3: idle at 0 u/s, not stalled"), std::string::npos) << r.out;

  // /metrics counts it by reason.
  r = ctl({"stats"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("herd_stalled_agents{reason=\"blocked_by_standing\"} 1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("herd_stalled_agents{reason=\"queueing\"} 0\n"), std::string::npos);
}

TEST_F(StallOverTheServerTest, WhyRefusesAnUnknownAgentAndBadUsage) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"why", "99999"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("unknown_agent: no agent 99999"), std::string::npos) << r.out;
  r = ctl({"why"});
  EXPECT_EQ(r.status, 2) << r.out;
  r = ctl({"why", "ten"});
  EXPECT_EQ(r.status, 2) << r.out;
  const fs::path out = *dir_ / "unreachable.log";
  Process nobody({"--url", "ws://127.0.0.1:1/ws", "--timeout", "2", "why", "1"}, out, HERD_CTL_BIN);
  EXPECT_EQ(nobody.wait_exit(std::chrono::milliseconds(20000)), 3) << slurp(out);
}

}  // namespace
}  // namespace herd
