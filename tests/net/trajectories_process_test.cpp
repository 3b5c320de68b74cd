// --trajectories on the real herd-server: a headless run's file and its last frame against the
// same scenario stepped here; a live server killed with SIGKILL leaves a database that opens and
// holds every frame it had committed; a reset begins a world and a clean stop completes the file;
// a restored server writes after its last frame; bad settings stop the start. Every wait is for
// an event (a line, a message, a file) with a timeout.
#include <gtest/gtest.h>

#include <fstream>

#include "app/checkpoint_file.hpp"
#include "common/process.hpp"
#include "common/ws_client.hpp"
#include "net/trajectory_reader.hpp"
#include "protocol/codec.hpp"
#include "scenarios/scenario.hpp"

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

class TrajectoryProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("herd_trajectory_process_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    db_ = (dir_ / "run.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A live server on the default scenario writing `db` (the test's file when empty).
  std::vector<std::string> live(std::vector<std::string> more = {}, std::string db = {}) const {
    std::vector<std::string> a = {
        "--address",      "127.0.0.1",          "--port",         "0",
        "--web-root",     dir_.string(),        "--scenario-dir", HERD_SCENARIO_DIR,
        "--trajectories", db.empty() ? db_ : db};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }

  fs::path dir_;
  std::string db_;
};

// A commander of the server at `port`.
struct Commander {
  client::WsClient c;
  explicit Commander(int port) {
    c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "trajectory-test", {}}));
  }
  // Sends a command (its JSON after the seq) and waits for its ack; false if none came.
  bool command(std::uint32_t seq, const std::string& rest) {
    c.send(R"({"type":"command","seq":)" + std::to_string(seq) + "," + rest + "}");
    const std::string want = "\"seq\":" + std::to_string(seq);
    for (int i = 0; i < 200; ++i)
      if (auto m = c.receive(Millis(50));
          m && m->find("\"ack\"") != std::string::npos && m->find(want) != std::string::npos)
        return true;
    return false;
  }
  // Waits for a snapshot of at least `tick`; its tick, or 0 if none came.
  std::uint64_t snapshot_from(std::uint64_t tick) {
    for (int i = 0; i < 400; ++i) {
      auto m = c.receive(Millis(50));
      if (!m) continue;
      auto d = protocol::decode_server(*m);
      if (auto* msg = std::get_if<protocol::ServerMessage>(&d))
        if (auto* snap = std::get_if<protocol::Snapshot>(msg); snap && snap->tick >= tick)
          return snap->tick;
    }
    return 0;
  }
};

// The game scenario and the pedestrian one (metres, a map, flow fields, measurements).
TEST_F(TrajectoryProcess, AHeadlessRunsLastFrameIsTheWorldSteppedAsMany) {
  for (const std::string name : {"default", "bottleneck"}) {
    SCOPED_TRACE(name);
    const fs::path out = dir_ / (name + ".log");
    const std::string db = (dir_ / (name + ".db")).string();
    Process run({"--headless", "--scenario-dir", HERD_SCENARIO_DIR, "--scenario", name, "--ticks",
                 "91", "--trajectories", db},
                out);
    ASSERT_EQ(run.wait_exit(), 0) << slurp(out);
    // 60 ticks a second, 20 frames: ticks 0, 3, ..., 90, and the last tick, 91.
    EXPECT_NE(slurp(out).find("herd: 32 trajectory frames written to " + db), std::string::npos)
        << slurp(out);
    auto loaded = scenario::load(name, HERD_SCENARIO_DIR);
    auto built = scenario::build_world(std::get<scenario::Scenario>(loaded));
    sim::World world = std::move(std::get<sim::World>(built));
    for (int t = 0; t < 91; ++t) world.step();

    TrajectoryReader reader(db);
    EXPECT_EQ(reader.broken_frames(), 0);
    EXPECT_EQ(reader.integer("SELECT count(*) FROM frames"), 32);
    EXPECT_EQ(reader.integer("SELECT tick FROM frames WHERE frame = 30"), 90);
    EXPECT_EQ(reader.integer("SELECT tick FROM frames WHERE frame = 31"), 91);
    EXPECT_EQ(reader.meta().at("complete"), "1");
    EXPECT_EQ(reader.meta().at("scenario"), name);
    std::size_t i = 0;
    const auto agents = world.agents();
    reader.each("SELECT id, x, y, vx, vy, state, grp FROM trajectory WHERE frame = 31 ORDER BY id",
                [&](sqlite3_stmt* s) {
                  ASSERT_LT(i, agents.size());
                  const sim::Agent& a = agents[i++];
                  EXPECT_EQ(sqlite3_column_int64(s, 0), a.id);
                  EXPECT_EQ(sqlite3_column_double(s, 1), a.position.x);
                  EXPECT_EQ(sqlite3_column_double(s, 2), a.position.y);
                  EXPECT_EQ(sqlite3_column_double(s, 3), a.velocity.x);
                  EXPECT_EQ(sqlite3_column_double(s, 4), a.velocity.y);
                  EXPECT_EQ(sqlite3_column_int(s, 5), static_cast<int>(a.state));
                  EXPECT_EQ(sqlite3_column_int(s, 6), a.group);
                });
    EXPECT_EQ(i, agents.size());
    EXPECT_GT(i, 0u);
  }
}

// A recording stops at its cap of bytes (--trajectory-max-bytes), said once in the log, the frames
// after counted as dropped, the file complete: a world's agents cannot fill the disk that holds
// its checkpoints (20,000 wandering agents wrote 12 MiB a second, with no end).
TEST_F(TrajectoryProcess, ARecordingStopsAtItsCapOfBytes) {
  const fs::path out = dir_ / "boids.log";
  Process run({"--headless", "--scenario-dir", HERD_SCENARIO_DIR, "--scenario", "boids", "--ticks",
               "600", "--trajectories", db_, "--trajectory-max-bytes", "1048576"},
              out);
  ASSERT_EQ(run.wait_exit(), 0) << slurp(out);
  const std::string log = slurp(out);
  EXPECT_NE(log.find("trajectory_full"), std::string::npos) << log;
  std::uintmax_t bytes = fs::file_size(db_);
  if (fs::exists(db_ + "-wal")) bytes += fs::file_size(db_ + "-wal");
  // 300 agents a frame, about 15 KB: the cap, and at most the batch that crossed it.
  EXPECT_LT(bytes, std::uintmax_t{3} << 20);
  TrajectoryReader reader(db_);
  EXPECT_EQ(reader.broken_frames(), 0);
  const auto frames = reader.integer("SELECT count(*) FROM frames");
  EXPECT_GT(frames, 10);
  EXPECT_LT(frames, 201) << "600 ticks at 20 frames a second are 201 frames uncapped";
  EXPECT_EQ(std::stoll(reader.meta().at("frames_dropped")) + frames, 201);
}

TEST_F(TrajectoryProcess, AKilledServersDatabaseHoldsEveryFrameItCommitted) {
  const fs::path out = dir_ / "live.log";
  Process server(live(), out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  Commander c(port);
  ASSERT_GE(c.snapshot_from(60), 60u) << slurp(out);
  // Counted after each commit: every one of these frames must be in the file after the kill.
  const auto metrics =
      client::http_request("127.0.0.1", static_cast<std::uint16_t>(port), "/metrics");
  const std::string series = "\nherd_trajectory_frames_written_total ";
  const auto at = metrics.body.find(series);
  ASSERT_NE(at, std::string::npos) << metrics.body;
  const long committed = std::stol(metrics.body.substr(at + series.size()));
  EXPECT_GE(committed, 1);
  server.signal(SIGKILL);
  EXPECT_EQ(server.wait_exit(), 128 + SIGKILL);

  TrajectoryReader db(db_);
  EXPECT_EQ(db.text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(db.broken_frames(), 0) << "consecutive, complete frames";
  EXPECT_GE(db.integer("SELECT count(*) FROM frames"), committed);
  EXPECT_EQ(db.integer("SELECT min(agents) FROM frames"), 48);
  EXPECT_EQ(db.meta().at("complete"), "0") << "never closed";
}

TEST_F(TrajectoryProcess, AResetBeginsAWorldAndACleanStopCompletesTheFile) {
  const fs::path out = dir_ / "reset.log";
  Process server(live(), out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  {
    Commander c(port);
    ASSERT_TRUE(c.command(1, R"("cmd":"pause")"));
    ASSERT_TRUE(c.command(2, R"("cmd":"step","ticks":30)"));
    ASSERT_TRUE(c.command(3, R"("cmd":"reset")"));
    ASSERT_TRUE(c.command(4, R"("cmd":"step","ticks":10)"));  // still paused: ticks 1 to 10
  }
  server.signal(SIGTERM);
  ASSERT_EQ(server.wait_exit(), 0) << slurp(out);
  EXPECT_NE(slurp(out).find("trajectories_closed"), std::string::npos) << slurp(out);

  TrajectoryReader db(db_);
  EXPECT_EQ(db.broken_frames(), 0);
  EXPECT_EQ(db.meta().at("complete"), "1");
  EXPECT_EQ(db.meta().at("frames_dropped"), "0");
  EXPECT_EQ(db.integer("SELECT count(*) FROM worlds"), 2);
  EXPECT_EQ(db.text("SELECT began || ' ' || scenario FROM worlds WHERE world = 1"),
            "replaced default");
  std::vector<std::int64_t> ticks;
  db.each("SELECT tick FROM frames WHERE world = 1 ORDER BY frame",
          [&](sqlite3_stmt* s) { ticks.push_back(sqlite3_column_int64(s, 0)); });
  // Its start, the 20 Hz ticks, and the tick it stopped at.
  EXPECT_EQ(ticks, (std::vector<std::int64_t>{0, 3, 6, 9, 10}));
  EXPECT_NE(slurp(out).find("stopped at tick 10 "), std::string::npos) << slurp(out);
  EXPECT_LT(db.integer("SELECT max(frame) FROM frames WHERE world = 0"),
            db.integer("SELECT min(frame) FROM frames WHERE world = 1"));
}

TEST_F(TrajectoryProcess, ARestoredServerWritesAfterItsLastFrame) {
  const std::string ckpt = (dir_ / "world.ckpt").string();
  const fs::path out1 = dir_ / "first.log";
  {
    Process first(live({"--checkpoint", ckpt}), out1);
    const int port = listening_port(out1);
    ASSERT_GT(port, 0) << slurp(out1);
    Commander c(port);
    ASSERT_GE(c.snapshot_from(30), 30u);
    first.signal(SIGTERM);
    ASSERT_EQ(first.wait_exit(), 0) << slurp(out1);
  }
  auto saved = app::read_checkpoint(ckpt);
  ASSERT_TRUE(std::holds_alternative<sim::World>(saved));
  const std::uint64_t at = std::get<sim::World>(saved).tick();
  std::int64_t frames_before = 0;
  {
    TrajectoryReader db(db_);
    frames_before = db.integer("SELECT count(*) FROM frames");
    EXPECT_EQ(db.integer("SELECT max(tick) FROM frames"), static_cast<std::int64_t>(at));
  }
  const fs::path out2 = dir_ / "second.log";
  Process second(live({"--checkpoint", ckpt}), out2);
  const int port = listening_port(out2);
  ASSERT_GT(port, 0) << slurp(out2);
  second.signal(SIGTERM);
  ASSERT_EQ(second.wait_exit(), 0) << slurp(out2);

  TrajectoryReader db(db_);
  EXPECT_EQ(db.broken_frames(), 0);
  EXPECT_EQ(db.text("SELECT began FROM worlds WHERE world = 1"), "checkpoint");
  EXPECT_EQ(db.integer("SELECT tick FROM worlds WHERE world = 1"), static_cast<std::int64_t>(at));
  EXPECT_EQ(db.integer("SELECT min(frame) FROM frames WHERE world = 1"), frames_before);
  EXPECT_EQ(db.integer("SELECT tick FROM frames WHERE frame = " + std::to_string(frames_before)),
            static_cast<std::int64_t>(at));
  EXPECT_EQ(db.meta().at("complete"), "1");
}

TEST_F(TrajectoryProcess, AFileThatCannotBeWrittenOrABadRateStopsTheStart) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::string missing = (dir_ / "no" / "such" / "run.db").string();
  const std::string thesis = (dir_ / "thesis.txt").string();
  std::ofstream(thesis) << "chapter one\n";
  const std::vector<Case> cases = {
      {live({}, missing), "cannot open " + missing},
      {live({}, thesis), thesis + " exists and is not a herd trajectory database"},
      {{"--headless", "--scenario-dir", HERD_SCENARIO_DIR, "--trajectories", missing},
       "cannot open " + missing},
      {live({"--trajectory-rate", "61"}), "exceeds tick rate 60 (--trajectory-rate"},
      {live({"--trajectory-rate", "0"}), "--trajectory-rate: must be a number in (0, 1000]"},
  };
  for (const Case& c : cases) {
    const fs::path out = dir_ / "refused.log";
    Process server(c.args, out);
    EXPECT_EQ(server.wait_exit(), 2) << slurp(out);
    EXPECT_NE(slurp(out).find(c.says), std::string::npos) << slurp(out);
    if (c.says.find("cannot open") != std::string::npos)
      EXPECT_NE(slurp(out).find("(HERD_TRAJECTORIES)"), std::string::npos) << slurp(out);
    EXPECT_EQ(slurp(out).find("listening on"), std::string::npos) << "refused before serving";
  }
  EXPECT_EQ(slurp(thesis), "chapter one\n");
}

}  // namespace
}  // namespace herd
