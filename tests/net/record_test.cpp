// Record and replay: a live run's accepted commands, replayed headless, give the live
// run's final state hash; a damaged recording is refused with a clear message.
#include "app/recording.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "app/checkpoint_file.hpp"
#include "common/ws_client.hpp"
#include "net/server.hpp"
#include "protocol/codec.hpp"
#include "scenarios/scenario.hpp"

namespace herd::app {
namespace {

namespace fs = std::filesystem;
using client::Millis;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_record_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "run.jsonl").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Scenario `name` at 120 ticks a second, its run recorded at path_ (recorder_).
  scenario::Scenario recorded(const std::string& name) {
    auto sc = std::get<scenario::Scenario>(scenario::load(name, HERD_SCENARIO_DIR));
    sc.def.dt = 1.0 / 120;
    std::string why;
    recorder_ = Recorder::open(path_, {name, sc.def.seed, 120}, why);
    EXPECT_TRUE(recorder_) << why;
    return sc;
  }
  // A server's settings for it: loopback, 120 ticks and 30 snapshots a second, every applied
  // command recorded.
  net::ServerConfig recording_config() {
    net::ServerConfig config;
    config.address = "127.0.0.1";
    config.port = 0;
    config.web_root = dir_.string();
    config.tick_rate = 120;
    config.snapshot_rate = 30;
    config.on_applied = [this](std::uint64_t tick, const sim::Command& c) {
      recorder_->record(tick, c);
    };
    return config;
  }
  std::optional<Recorder> recorder_;
  fs::path dir_;
  std::string path_;
};

TEST_F(RecordTest, ReplayOfALiveRunEndsOnItsStateHash) {
  const auto sc = recorded("default");
  ASSERT_TRUE(recorder_);
  net::ServerConfig config = recording_config();
  net::Server server(config, std::get<sim::World>(scenario::build_world(sc)));
  const auto port = server.start();
  std::thread loop([&] { server.run(); });

  client::WsClient c;
  c.connect("127.0.0.1", port);
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "record-test", {}}));
  const char* commands[] = {
      R"({"type":"command","seq":1,"cmd":"spawn","count":30,"group":3})",
      R"({"type":"command","seq":2,"cmd":"set_target","agents":{"group":3},"target":{"x":100,"y":100}})",
      R"({"type":"command","seq":3,"cmd":"remove","agents":[99999]})",  // refused: not recorded
      R"({"type":"command","seq":4,"cmd":"formation","agents":"all","shape":"block","centre":{"x":400,"y":300},"count":2,"regroup":true})",
      R"({"type":"command","seq":5,"cmd":"add_obstacle","x":200,"y":200,"radius":20})",
      R"({"type":"command","seq":6,"cmd":"exchange","agents":"all"})",
  };
  int answered = 0, snapshots_between = 0;
  for (const char* cmd : commands) {
    c.send(cmd);
    // Commands are applied as they arrive: each waits for its answer, then (but the last) for a
    // snapshot, so that the world steps between them. The last is answered just before stop():
    // most likely applied after the last tick, which the replay must apply without a step.
    for (int i = 0; i < 200; ++i) {
      auto m = c.receive(Millis(50));
      if (m &&
          (m->find("\"ack\"") != std::string::npos || m->find("\"error\"") != std::string::npos)) {
        ++answered;
        break;
      }
    }
    if (cmd == commands[std::size(commands) - 1]) break;
    for (int i = 0; i < 200; ++i) {
      auto m = c.receive(Millis(50));
      if (m && m->find("\"snapshot\"") != std::string::npos) {
        ++snapshots_between;
        break;
      }
    }
  }
  EXPECT_EQ(answered, 6);
  EXPECT_EQ(snapshots_between, 5);
  server.stop();
  loop.join();
  const std::uint64_t live_hash = server.state_hash();
  recorder_->finish(server.stats().tick, live_hash);

  const auto result = replay(path_, HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<ReplayResult>(result)) << std::get<std::string>(result);
  const auto& r = std::get<ReplayResult>(result);
  EXPECT_EQ(r.commands, 5u) << "the refused remove is not in the recording";
  EXPECT_EQ(r.end_tick, server.stats().tick);
  EXPECT_EQ(r.state_hash, live_hash);
  ASSERT_TRUE(r.recorded_hash);
  EXPECT_EQ(*r.recorded_hash, live_hash);

  // Change one recorded command: the replay no longer ends on the recorded hash.
  std::string text = read(path_);
  const auto at = text.find("\"x\":100.0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "\"x\":101.0");
  std::ofstream(path_) << text;
  const auto changed = replay(path_, HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<ReplayResult>(changed));
  EXPECT_NE(std::get<ReplayResult>(changed).state_hash, live_hash);
}

// On a server with players, what is recorded is each command as authorized (a player's spawn
// of its own team at the places drawn in its spawn area, its "all" as its team's agents): the
// replay makes the same teams, places and sights and ends on the live run's state hash, which
// mixes them in.
TEST_F(RecordTest, APlayersRunReplaysWithItsTeamsAndSights) {
  const auto sc = recorded("empty");
  ASSERT_TRUE(recorder_);
  net::ServerConfig config = recording_config();
  config.command_token = "operator-token-0123456789";
  config.players = {{"red", 3, "red-token-0123456789"}};
  config.teams[3] = sim::TeamRules{0, sim::Rect{{250, 250}, {350, 350}}};
  net::Server server(config, std::get<sim::World>(scenario::build_world(sc)));
  const auto port = server.start();
  std::thread loop([&] { server.run(); });
  const auto session = [&](const char* role, const char* token) {
    auto c = std::make_unique<client::WsClient>();
    c->connect("127.0.0.1", port);
    c->send(std::string(R"({"type":"hello","protocol":1,"role":")") + role + R"(","token":")" +
            token + R"("})");
    return c;
  };
  auto op = session("operator", "operator-token-0123456789");
  auto red = session("player", "red-token-0123456789");
  const auto answer = [](client::WsClient& c, int seq) {
    const std::string want = "\"seq\":" + std::to_string(seq);
    for (int i = 0; i < 200; ++i)
      if (auto m = c.receive(Millis(50)); m && m->find(want) != std::string::npos) return *m;
    return std::string();
  };
  op->send(
      R"({"type":"command","seq":1,"cmd":"spawn","team":5,"agents":[{"x":300,"y":300,"sight":80},{"x":320,"y":300,"sight":30}]})");
  const std::string spawned = answer(*op, 1);
  EXPECT_NE(spawned.find("\"ack\""), std::string::npos) << spawned;
  red->send(R"({"type":"command","seq":2,"cmd":"spawn","count":4})");
  EXPECT_NE(answer(*red, 2).find("\"ack\""), std::string::npos);
  red->send(
      R"({"type":"command","seq":3,"cmd":"set_target","agents":"all","target":{"x":310,"y":300}})");
  const std::string moved = answer(*red, 3);
  EXPECT_NE(moved.find("\"count\":4"), std::string::npos) << "red's all is its four: " << moved;
  server.stop();
  loop.join();
  const std::uint64_t live_hash = server.state_hash();
  recorder_->finish(server.stats().tick, live_hash);

  const std::string text = read(path_);
  EXPECT_NE(text.find("\"team\":3"), std::string::npos) << "the player's spawn, as authorized";
  const auto result = replay(path_, HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<ReplayResult>(result)) << std::get<std::string>(result);
  const auto& r = std::get<ReplayResult>(result);
  EXPECT_EQ(r.commands, 3u);
  EXPECT_EQ(r.state_hash, live_hash);
}

TEST_F(RecordTest, DamagedRecordingsAreRefusedWithAReason) {
  auto error_of = [&](const std::string& text) {
    std::ofstream(path_) << text;
    const auto r = replay(path_, HERD_SCENARIO_DIR);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r)
                                                  : std::string("accepted");
  };
  const std::string header = R"({"herd_record":1,"scenario":"default","seed":1,"tick_rate":60})";
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("{\"hello\":1}\n").find("not a herd recording"), std::string::npos);
  EXPECT_NE(error_of(R"({"herd_record":1,"scenario":"nope","seed":1,"tick_rate":60})")
                .find("not a scenario of this server"),
            std::string::npos);
  EXPECT_NE(error_of(header + "\n{\"tick\":5,\"comm").find(":2:"), std::string::npos)
      << "names the line";
  EXPECT_NE(error_of(header +
                     "\n{\"tick\":5,\"command\":{\"type\":\"command\",\"seq\":0,\"cmd\":\"fly\"}}")
                .find("unknown command"),
            std::string::npos);
  EXPECT_NE(error_of(header + "\n{\"tick\":5,\"command\":" +
                     R"({"type":"command","seq":0,"cmd":"spawn","count":1})" +
                     "}\n{\"tick\":3,\"command\":" +
                     R"({"type":"command","seq":0,"cmd":"spawn","count":1})" + "}")
                .find("not after"),
            std::string::npos);
  EXPECT_EQ(error_of(std::string("nope")).find("accepted"), std::string::npos);
  EXPECT_NE(error_of(R"({"herd_record":1,"scenario":5,"seed":"x","tick_rate":60})")
                .find("scenario: must be"),
            std::string::npos)
      << "fields of the wrong type give a message, not an exception";
  EXPECT_NE(error_of(header + "\n{\"end_tick\":3,\"state_hash\":\"0xZZ\"}").find("bad state_hash"),
            std::string::npos);
  EXPECT_NE(
      error_of(header + "\n{\"tick\":\"five\",\"command\":{}}").find("tick must be a whole number"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"herd_record":1,"scenario":"default","seed":"x","tick_rate":60})")
                .find("not a usable recording"),
            std::string::npos)
      << "fields of the wrong type give a message, not an exception";
  EXPECT_NE(error_of(header + "\n").find("accepted"), std::string::npos)
      << "a run with no commands replays";
}

// Files the server writes are its owner's (0600), and a link planted where it writes is not
// followed: the file the link names keeps its bytes.
TEST_F(RecordTest, CheckpointsAndRecordingsAre0600AndFollowNoPlantedLink) {
  const fs::perms owner_only = fs::perms::owner_read | fs::perms::owner_write;
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "keep me";
  const std::string ckpt = (dir_ / "world.ckpt").string();
  fs::create_symlink(victim, ckpt + ".tmp");
  sim::World world(sim::WorldDef{});
  ASSERT_EQ(write_checkpoint(ckpt, world, "default"), "");
  EXPECT_EQ(read(victim), "keep me");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(ckpt)));
  EXPECT_EQ(fs::status(ckpt).permissions() & fs::perms::all, owner_only);
  EXPECT_TRUE(std::holds_alternative<sim::World>(read_checkpoint(ckpt)));

  std::string why;
  auto recorder = Recorder::open(path_, {"default", 1, 60, {}}, why);
  ASSERT_TRUE(recorder) << why;
  EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all, owner_only);
  const fs::path linked = dir_ / "linked.jsonl";
  fs::create_symlink(victim, linked);
  EXPECT_FALSE(Recorder::open(linked.string(), {"default", 1, 60, {}}, why));
  EXPECT_NE(why.find("cannot open"), std::string::npos) << why;
  EXPECT_EQ(read(victim), "keep me");
}

}  // namespace
}  // namespace herd::app
