// The real herd-server process: killed with SIGKILL between checkpoints, a restart resumes from
// the last checkpoint with a valid world; SIGTERM shuts down cleanly and writes one; a corrupt
// checkpoint is refused. Every wait is for an event (a line, a file, a message) with a timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "common/process.hpp"

#include "app/checkpoint_file.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"

#include <nlohmann/json.hpp>

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_process_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ckpt_ = (dir_ / "world.ckpt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> args() const {
    return {"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(), "--checkpoint", ckpt_,
            "--checkpoint-interval", "0.5"};
  }
  // The port from "listening on http://127.0.0.1:PORT/", once it is printed.
  static int port_of(const fs::path& out) {
    int port = -1;
    wait_until([&] {
      std::smatch m;
      const std::string text = slurp(out);
      if (std::regex_search(text, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+)/)"))) port = std::stoi(m[1]);
      return port > 0;
    });
    return port;
  }
  static std::uint64_t checkpoint_tick(const std::string& path) {
    auto w = app::read_checkpoint(path);
    return std::holds_alternative<sim::World>(w) ? std::get<sim::World>(w).tick() : 0;
  }

  fs::path dir_;
  std::string ckpt_;
};

TEST_F(ProcessTest, SigkillBetweenCheckpointsThenRestartResumesFromTheLastOne) {
  const fs::path out1 = dir_ / "first.log";
  Process first(args(), out1);
  const int port = port_of(out1);
  ASSERT_GT(port, 0) << slurp(out1);
  {
    client::WsClient c;
    c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "process-test", {}}));
    c.send(R"({"type":"command","seq":1,"cmd":"spawn","count":12,"group":7})");
    bool acked = false;
    for (int i = 0; i < 200 && !acked; ++i)
      if (auto m = c.receive(Millis(50))) acked = m->find("\"ack\"") != std::string::npos;
    ASSERT_TRUE(acked);
  }
  // Wait for a checkpoint taken after the spawn (60 agents), then kill without warning.
  ASSERT_TRUE(wait_until([&] {
    auto w = app::read_checkpoint(ckpt_);
    return std::holds_alternative<sim::World>(w) && std::get<sim::World>(w).agents().size() == 60;
  })) << slurp(out1);
  first.signal(SIGKILL);
  EXPECT_EQ(first.wait_exit(), 128 + SIGKILL);
  const std::uint64_t saved = checkpoint_tick(ckpt_);
  ASSERT_GT(saved, 0u);

  const fs::path out2 = dir_ / "second.log";
  Process second(args(), out2);
  const int port2 = port_of(out2);
  ASSERT_GT(port2, 0) << slurp(out2);
  EXPECT_NE(slurp(out2).find("restored from checkpoint " + ckpt_ + " at tick " + std::to_string(saved)), std::string::npos)
      << slurp(out2);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port2));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "", {}}));
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    auto m = c.receive(Millis(50));
    if (!m) continue;
    auto d = protocol::decode_server(*m);
    if (auto* msg = std::get_if<protocol::ServerMessage>(&d))
      if (auto* snap = std::get_if<protocol::Snapshot>(msg)) {
        EXPECT_GE(snap->tick, saved);
        EXPECT_EQ(snap->agents.size(), 60u) << "the spawned agents came back";
        EXPECT_EQ(std::count_if(snap->agents.begin(), snap->agents.end(), [](const auto& a) { return a.group == 7; }), 12);
        seen = true;
      }
  }
  EXPECT_TRUE(seen);
  c.close();
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait_exit(), 0) << slurp(out2);
  EXPECT_NE(slurp(out2).find("checkpoint_written"), std::string::npos);
  EXPECT_GE(checkpoint_tick(ckpt_), saved);
}

TEST_F(ProcessTest, ACorruptCheckpointIsRefusedUnlessToldToStartFresh) {
  std::ofstream(ckpt_) << "HERDCKPT but then nonsense";
  const fs::path out = dir_ / "refused.log";
  Process refused(args(), out);
  EXPECT_EQ(refused.wait_exit(), 2);
  EXPECT_NE(slurp(out).find("refused"), std::string::npos) << slurp(out);
  EXPECT_NE(slurp(out).find("--restore=0"), std::string::npos);

  auto fresh_args = args();
  fresh_args.push_back("--restore=0");
  const fs::path out2 = dir_ / "fresh.log";
  Process fresh(fresh_args, out2);
  ASSERT_GT(port_of(out2), 0) << slurp(out2);
  EXPECT_TRUE(wait_until([&] { return checkpoint_tick(ckpt_) > 0; })) << "a good checkpoint replaces the corrupt one";
  fresh.signal(SIGINT);
  EXPECT_EQ(fresh.wait_exit(), 0);
}

}  // namespace
}  // namespace herd

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

// The answer (an error's code and message, or "ack") to one load_scenario over the real server.
std::pair<std::string, std::string> load_scenario_answer(client::WsClient& c, std::uint32_t seq, const std::string& name) {
  c.send(nlohmann::json{{"type", "command"}, {"seq", seq}, {"cmd", "load_scenario"}, {"name", name}}.dump());
  for (int i = 0; i < 200; ++i) {
    auto m = c.receive(Millis(50));
    if (!m) continue;
    const auto j = nlohmann::json::parse(*m, nullptr, false);
    if (!j.is_object() || j.value("seq", 0u) != seq) continue;
    if (j.value("type", "") == "ack") return {"ack", ""};
    return {j.value("code", std::string()), j.value("message", std::string())};
  }
  return {"timeout", ""};
}

TEST(ScenarioByName, NoClientOpensAFileOnTheHost) {
  const fs::path dir = fs::temp_directory_path() / ("herd_names_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "server.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir.string()}, out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "names", {}}));
  // A readable file, a protected one, a missing one, a scenario file by path, a traversal and a
  // plain unknown name: one code and one message for all of them.
  const std::string scenario_file = std::string(HERD_SCENARIO_DIR) + "/default.json";
  const auto first = load_scenario_answer(c, 1, "/etc/passwd");
  EXPECT_EQ(first.first, "unknown_scenario");
  EXPECT_EQ(first.second.find('/'), std::string::npos) << first.second;
  std::uint32_t seq = 2;
  for (const std::string name : {"/etc/shadow", "/no/such/file", scenario_file.c_str(), "../../../etc/passwd", "nowhere"})
    EXPECT_EQ(load_scenario_answer(c, seq++, name), first) << name;
  EXPECT_EQ(load_scenario_answer(c, seq++, "empty").first, "ack") << "a scenario's name still loads it";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace herd
