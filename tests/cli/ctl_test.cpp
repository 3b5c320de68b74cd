// herd-ctl against a real herd-server: every subcommand's success and its error paths, with
// their exact exit codes (0 ack, 1 server error, 2 bad usage, 3 unreachable).
#include <gtest/gtest.h>

#include <regex>

#include "common/process.hpp"

namespace herd {
namespace {

using namespace herd::testing;

struct CtlRun {
  int status = -1;
  std::string out;
};

class CtlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("herd_ctl_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    server_ = new Process({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_->string(), "--scenario", "default"},
                          *dir_ / "server.log");
    port_ = listening_port(*dir_ / "server.log");
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(*dir_);
    delete dir_;
  }
  // herd-ctl with these arguments against the test's server (or `url`); stdout and stderr together.
  CtlRun ctl(std::vector<std::string> args, std::string url = {}) {
    if (url.empty()) url = "ws://127.0.0.1:" + std::to_string(port_) + "/ws";
    args.insert(args.begin(), {"--url", url, "--timeout", "10"});
    const fs::path out = *dir_ / ("ctl" + std::to_string(++runs_) + ".log");
    Process p(args, out, HERD_CTL_BIN);
    CtlRun r;
    r.status = p.wait_exit(std::chrono::milliseconds(20000));
    r.out = slurp(out);
    return r;
  }
  static inline fs::path* dir_ = nullptr;
  static inline Process* server_ = nullptr;
  static inline int port_ = -1;
  static inline int runs_ = 0;
};

TEST_F(CtlTest, CommandsAreAcknowledgedWithExitZero) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"spawn", "3", "--group", "4"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(R"("type":"ack")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("agents":[49,50,51])"), std::string::npos) << r.out;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"spawn", "--at", "100,100;120,100"},
           {"target", "49,50", "300", "200"},
           {"target", "group:4", "300", "200", "--seek"},
           {"formation", "circle", "all", "--centre", "400,300"},
           {"formation", "block", "group:0", "--centre", "400,300", "--count", "2", "--regroup"},
           {"behaviour", "1", "pursue", "--agent", "2"},
           {"behaviour", "3", "flee", "--target", "50,50", "--radius", "100"},
           {"remove", "51"},
           {"pause"},
           {"step", "4"},
           {"resume"},
           {"reset"},
           {"scenario", "demo32", "--seed", "3"},
       }) {
    r = ctl(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.out;
  }
}

TEST_F(CtlTest, ServerErrorsExitOneWithTheServersMessage) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"target", "99999", "10", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown_agent: agent 99999 does not exist"), std::string::npos) << r.out;
  r = ctl({"spawn", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad_field"), std::string::npos) << r.out;
  r = ctl({"scenario", "no_such_place"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown_scenario"), std::string::npos) << r.out;
  r = ctl({"step"});
  EXPECT_EQ(r.status, 1) << "not paused";
  EXPECT_NE(r.out.find("not_paused"), std::string::npos) << r.out;
}

TEST_F(CtlTest, BadUsageExitsTwoAndSaysHow) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"target", "1", "abc", "5"}, {"target", "1"}, {"spawn", "many"}, {"formation", "circle", "all"},
           {"step", "x"}, {"warp"}, {"load", "--viewers", "0", "--duration", "1"},
           {"load", "--viewers", "1", "--duration", "1", "--format", "xml"},
           {"load", "--viewers", "1", "--duration", "1", "--viewport", "10,10"}, {"watch", "--count", "zero"}}) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.out;
    EXPECT_NE(r.out.find("usage"), std::string::npos) << r.out;
  }
  EXPECT_EQ(ctl({"pause"}, "http://nowhere").status, 2);
}

TEST_F(CtlTest, AnUnreachableServerExitsThree) {
  const CtlRun r = ctl({"pause"}, "ws://127.0.0.1:1/ws");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("cannot connect"), std::string::npos) << r.out;
  EXPECT_EQ(ctl({"stats"}, "ws://127.0.0.1:1/ws").status, 3);
}

TEST_F(CtlTest, WatchStatsAndLoadReport) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"watch", "--count", "3"});
  EXPECT_EQ(r.status, 0) << r.out;
  std::size_t lines = 0, at = 0;
  while ((at = r.out.find(R"({"type":"snapshot")", at)) != std::string::npos) ++lines, ++at;
  EXPECT_EQ(lines, 3u);
  r = ctl({"stats"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("herd_tick_duration_seconds_count"), std::string::npos);
  r = ctl({"load", "--viewers", "5", "--duration", "1"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"connected\":5,\"failures\":0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("age_p99_ms"), std::string::npos);
  // The machine-stall probe ran beside the viewers (every 5 ms, so about 200 wakes in a second).
  EXPECT_NE(r.out.find("\"probe_late_wakes\":"), std::string::npos) << r.out;
  std::smatch probe;
  ASSERT_TRUE(std::regex_search(r.out, probe, std::regex(R"(woke over 20 ms late (\d+) times in (\d+))"))) << r.out;
  EXPECT_GT(std::stoul(probe[2]), 10u) << r.out;
  EXPECT_LE(std::stoul(probe[1]), std::stoul(probe[2]));
  ASSERT_TRUE(std::regex_search(r.out, probe, std::regex(R"("probe_work_us_p50":([0-9.]+))"))) << r.out;
  EXPECT_GT(std::stod(probe[1]), 0.0) << "the probe timed its fixed work";
  EXPECT_EQ(r.out.find("\"snapshots\":0,"), std::string::npos) << "the viewers received snapshots";
  // Binary viewers with viewports, acknowledging each frame, and a commander timing its commands.
  r = ctl({"load", "--viewers", "3", "--duration", "1.5", "--format", "binary", "--viewport", "300,200", "--commands", "10"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"format\":\"binary\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"decode_errors\":0,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"gaps\":0,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"commands\":0,"), std::string::npos) << "the commander's commands were acknowledged: " << r.out;
  EXPECT_NE(r.out.find("command latency: ack p50"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace herd
