// The trajectory recorder in process: the schema and meta it writes, frames at the frame rate equal
// to the world at their ticks, drops counted when the writer is held up (and the frames written
// still consecutive), new worlds and appended runs numbered after what the file holds, and only a
// trajectory database ever replaced.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "app/trajectories.hpp"
#include "net/trajectory_reader.hpp"
#include "scenarios/scenario.hpp"

namespace herd::app {
namespace {

namespace fs = std::filesystem;
using testing::TrajectoryReader;

sim::World scenario_world(const std::string& name) {
  auto loaded = scenario::load(name, HERD_SCENARIO_DIR);
  auto built = scenario::build_world(std::get<scenario::Scenario>(loaded));
  return std::move(std::get<sim::World>(built));
}

std::unique_ptr<TrajectoryRecorder> open_recorder(
    const std::string& path, const sim::World& world, double frame_rate = 20,
    TrajectoryRecorder::WhenFull when_full = TrajectoryRecorder::WhenFull::wait,
    bool append = false, std::size_t queue_frames = TrajectoryRecorder::kQueueFrames,
    std::string_view began = "start") {
  auto r = TrajectoryRecorder::open({path, frame_rate, when_full, append, queue_frames, {}}, world,
                                    "default", began);
  if (auto* why = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << *why;
    return nullptr;
  }
  return std::move(std::get<std::unique_ptr<TrajectoryRecorder>>(r));
}

class Trajectories : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("herd_trajectories_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "run.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string path_;
};

// Each column of `table`, in order.
std::vector<std::string> columns(TrajectoryReader& db, const std::string& table) {
  std::vector<std::string> names;
  db.each("PRAGMA table_info(" + table + ")", [&](sqlite3_stmt* s) {
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  });
  return names;
}

TEST_F(Trajectories, TheSchemaAndMetaAreThoseTheGuideDescribes) {
  sim::World world = scenario_world("default");
  auto r = open_recorder(path_, world);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->close(), "");
  TrajectoryReader db(path_);
  using V = std::vector<std::string>;
  EXPECT_EQ(columns(db, "meta"), (V{"key", "value"}));
  EXPECT_EQ(columns(db, "states"), (V{"state", "name"}));
  EXPECT_EQ(columns(db, "worlds"), (V{"world", "began", "scenario", "seed", "tick", "tick_rate",
                                      "frame_rate", "width", "height"}));
  EXPECT_EQ(columns(db, "frames"), (V{"frame", "world", "tick", "time", "agents"}));
  EXPECT_EQ(columns(db, "trajectory"), (V{"frame", "id", "x", "y", "vx", "vy", "state", "grp"}));
  EXPECT_EQ(columns(db, "measurement_lines"), (V{"frame", "id", "forward", "backward"}));
  EXPECT_EQ(columns(db, "measurement_areas"), (V{"frame", "id", "count", "density", "mean_speed"}));
  EXPECT_EQ(db.text("PRAGMA journal_mode"), "wal");
  const auto meta = db.meta();
  const std::map<std::string, std::string> expected = {{"format", "herd-trajectories"},
                                                       {"schema_version", "1"},
                                                       {"scenario", "default"},
                                                       {"seed", "1"},
                                                       {"width", "800"},
                                                       {"height", "600"},
                                                       {"tick_rate", "60"},
                                                       {"frame_rate", "20"},
                                                       {"frames_dropped", "0"},
                                                       {"complete", "1"},
                                                       {"herd_version", HERD_VERSION}};
  for (const auto& [key, value] : expected) EXPECT_EQ(meta.at(key), value) << key;
  std::set<std::string> keys;
  for (const auto& [key, value] : meta) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"format", "schema_version", "herd_version", "created",
                                         "scenario", "seed", "width", "height", "tick_rate",
                                         "frame_rate", "units", "frames_dropped", "complete"}));
  EXPECT_NE(meta.at("units").find("world units"), std::string::npos);
  EXPECT_EQ(db.text("SELECT group_concat(name, ',') FROM (SELECT name FROM states ORDER BY state)"),
            "idle,moving,arrived,unreachable");
}

TEST_F(Trajectories, EachFrameIsTheWorldAtItsTickAtTheFrameRate) {
  sim::World world = scenario_world("default");
  auto r = open_recorder(path_, world, 20);
  ASSERT_TRUE(r);
  // The world at each tick, kept to compare with what the file says of it.
  std::map<std::uint64_t, std::vector<sim::Agent>> seen;
  auto keep = [&] { seen[world.tick()].assign(world.agents().begin(), world.agents().end()); };
  keep();
  for (int t = 0; t < 31; ++t) {
    world.step();
    keep();
    r->capture(world);
  }
  r->capture_final(world);  // tick 31 is not one of 20 Hz's at 60 ticks/s: a frame of its own
  r->capture_final(world);  // and only one
  ASSERT_EQ(r->close(), "");
  EXPECT_EQ(r->stats().frames_written, 12u);
  TrajectoryReader db(path_);
  std::vector<std::uint64_t> ticks;
  db.each("SELECT frame, world, tick, time, agents FROM frames ORDER BY frame",
          [&](sqlite3_stmt* s) {
            EXPECT_EQ(sqlite3_column_int64(s, 0), static_cast<std::int64_t>(ticks.size()));
            EXPECT_EQ(sqlite3_column_int64(s, 1), 0);
            const auto tick = static_cast<std::uint64_t>(sqlite3_column_int64(s, 2));
            EXPECT_EQ(sqlite3_column_double(s, 3), static_cast<double>(tick) * world.def().dt);
            EXPECT_EQ(sqlite3_column_int64(s, 4), 48);
            ticks.push_back(tick);
          });
  EXPECT_EQ(ticks, (std::vector<std::uint64_t>{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 31}));
  std::size_t rows = 0;
  db.each(
      "SELECT f.tick, t.id, t.x, t.y, t.vx, t.vy, t.state, t.grp FROM trajectory t "
      "JOIN frames f USING (frame) ORDER BY t.frame, t.id",
      [&](sqlite3_stmt* s) {
        const auto& agents = seen.at(static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)));
        const sim::Agent& a = agents.at(rows++ % agents.size());
        EXPECT_EQ(sqlite3_column_int64(s, 1), a.id);
        // Exactly: the file holds the world's doubles, not a rounding of them.
        EXPECT_EQ(sqlite3_column_double(s, 2), a.position.x);
        EXPECT_EQ(sqlite3_column_double(s, 3), a.position.y);
        EXPECT_EQ(sqlite3_column_double(s, 4), a.velocity.x);
        EXPECT_EQ(sqlite3_column_double(s, 5), a.velocity.y);
        EXPECT_EQ(sqlite3_column_int(s, 6), static_cast<int>(a.state));
        EXPECT_EQ(sqlite3_column_int(s, 7), a.group);
      });
  EXPECT_EQ(rows, 12u * 48u);
  EXPECT_EQ(db.integer("SELECT count(DISTINCT state) FROM trajectory"), 1) << "all moving";
}

// The writer is held up by another connection's write lock: a live server's tick does not wait,
// it drops the frames no buffer is free for, and counts them; what is written stays consecutive.
TEST_F(Trajectories, FramesTheWriterHasNoRoomForAreDroppedAndCounted) {
  sim::World world = scenario_world("default");
  auto r = open_recorder(path_, world, 60, TrajectoryRecorder::WhenFull::drop, false, 2);
  ASSERT_TRUE(r);
  TrajectoryReader lock(path_);
  ASSERT_EQ(sqlite3_exec(lock.handle(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  for (int t = 0; t < 10; ++t) {
    world.step();
    r->capture(world);  // a frame every tick
  }
  const auto held = r->stats();
  // Two buffers: the frame the writer holds and one queued; the start frame may have been written
  // before the lock was taken, which frees one more.
  EXPECT_GE(held.frames_dropped, 8u);
  EXPECT_LE(held.frames_dropped, 9u);
  ASSERT_EQ(sqlite3_exec(lock.handle(), "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(r->close(), "");
  const auto done = r->stats();
  EXPECT_EQ(done.frames_written + done.frames_dropped, 11u);
  EXPECT_EQ(done.queued, 0u);
  TrajectoryReader db(path_);
  EXPECT_EQ(db.broken_frames(), 0);
  EXPECT_EQ(db.integer("SELECT count(*) FROM frames"),
            static_cast<std::int64_t>(done.frames_written));
  // The first frames made are those written: ticks 0, 1 (and 2).
  EXPECT_EQ(db.integer("SELECT max(tick) FROM frames"),
            static_cast<std::int64_t>(done.frames_written) - 1);
  EXPECT_EQ(db.meta().at("frames_dropped"), std::to_string(done.frames_dropped));
}

TEST_F(Trajectories, ANewWorldAndAnAppendedRunContinueTheFileNumbers) {
  sim::World world = scenario_world("default");
  {
    auto r = open_recorder(path_, world);
    ASSERT_TRUE(r);
    for (int t = 0; t < 6; ++t) {
      world.step();
      r->capture(world);  // frames at ticks 0, 3, 6
    }
    sim::World ring = scenario_world("ring");
    r->begin_world(ring, "ring", "replaced");  // its tick 0: frame 3
    ring.step();
    r->capture_final(ring);  // frame 4
    ASSERT_EQ(r->close(), "");
  }
  {
    auto r = open_recorder(path_, world, 20, TrajectoryRecorder::WhenFull::wait, true,
                           TrajectoryRecorder::kQueueFrames, "checkpoint");
    ASSERT_TRUE(r);
    TrajectoryReader db(path_);
    EXPECT_EQ(db.meta().at("complete"), "0") << "open again until this run closes it";
    world.step();
    world.step();
    world.step();
    r->capture(world);  // tick 9
    ASSERT_EQ(r->close(), "");
  }
  TrajectoryReader db(path_);
  EXPECT_EQ(db.broken_frames(), 0);
  std::vector<std::string> frames;
  db.each("SELECT world, tick FROM frames ORDER BY frame", [&](sqlite3_stmt* s) {
    frames.push_back(std::to_string(sqlite3_column_int(s, 0)) + ":" +
                     std::to_string(sqlite3_column_int(s, 1)));
  });
  EXPECT_EQ(frames, (std::vector<std::string>{"0:0", "0:3", "0:6", "1:0", "1:1", "2:6", "2:9"}));
  std::vector<std::string> worlds;
  db.each("SELECT world, began, scenario, tick FROM worlds ORDER BY world", [&](sqlite3_stmt* s) {
    worlds.push_back(std::to_string(sqlite3_column_int(s, 0)) + " " +
                     reinterpret_cast<const char*>(sqlite3_column_text(s, 1)) + " " +
                     reinterpret_cast<const char*>(sqlite3_column_text(s, 2)) + " " +
                     std::to_string(sqlite3_column_int(s, 3)));
  });
  EXPECT_EQ(worlds, (std::vector<std::string>{"0 start default 0", "1 replaced ring 0",
                                              "2 checkpoint default 6"}));
  EXPECT_EQ(db.meta().at("scenario"), "default") << "the meta keys are the first world's";
  EXPECT_EQ(db.meta().at("complete"), "1");
}

TEST_F(Trajectories, OnlyATrajectoryDatabaseIsReplacedOrWrittenAfter) {
  { std::ofstream(path_) << "a thesis, not a database\n"; }
  sim::World world = scenario_world("default");
  for (const bool append : {false, true}) {
    auto r = TrajectoryRecorder::open(
        {path_, 20, TrajectoryRecorder::WhenFull::wait, append, 4, {}}, world, "default", "start");
    ASSERT_TRUE(std::holds_alternative<std::string>(r));
    EXPECT_EQ(std::get<std::string>(r), path_ + " exists and is not a herd trajectory database");
  }
  std::ifstream in(path_);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "a thesis, not a database") << "untouched";

  fs::remove(path_);
  auto first = open_recorder(path_, world);
  ASSERT_TRUE(first);
  world.step();
  world.step();
  world.step();
  first->capture(world);
  ASSERT_EQ(first->close(), "");
  auto replaced = open_recorder(path_, world);  // a new run replaces it whole
  ASSERT_TRUE(replaced);
  ASSERT_EQ(replaced->close(), "");
  {
    TrajectoryReader db(path_);
    EXPECT_EQ(db.integer("SELECT count(*) FROM frames"), 1);
    EXPECT_EQ(db.integer("SELECT tick FROM frames"), 3);
    ASSERT_EQ(sqlite3_exec(db.handle(), "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  auto other = TrajectoryRecorder::open(
      {path_, 20, TrajectoryRecorder::WhenFull::wait, true, 4, {}}, world, "default", "start");
  ASSERT_TRUE(std::holds_alternative<std::string>(other));
  EXPECT_EQ(std::get<std::string>(other), path_ +
                                              " is a herd trajectory database of schema version "
                                              "99; this server writes version 1");
}

TEST_F(Trajectories, AMissingDirectorySaysWhy) {
  sim::World world = scenario_world("default");
  const std::string path = (dir_ / "no" / "such" / "run.db").string();
  auto r = TrajectoryRecorder::open({path, 20, TrajectoryRecorder::WhenFull::wait, false, 4, {}},
                                    world, "default", "start");
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find("cannot open " + path), std::string::npos)
      << std::get<std::string>(r);
  EXPECT_NE(std::get<std::string>(r).find("No such file or directory"), std::string::npos)
      << std::get<std::string>(r);
}

}  // namespace
}  // namespace herd::app
