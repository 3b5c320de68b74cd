// herd::app::TrajectoryRecorder — --trajectories: every agent's position, velocity, state and
// group at a chosen rate, written to a SQLite database (trajectory_db.hpp) off the tick thread.
//
// The tick thread calls capture() after every step. At the frame rate's ticks it copies the rows
// a frame needs into a buffer from a small pool (build_frame, trajectory_frame.hpp) and queues
// it; the recorder's writer thread takes everything queued and writes it in one transaction, so
// batches grow when the disk is slow and a frame is written as soon as the writer is free. At
// most `queue_frames` frames wait. When they are all taken:
//   - a live server's tick never waits (WhenFull::drop): the frame is dropped and counted (the
//     log, /metrics' herd_trajectory_frames_dropped_total, the database's meta). Frames keep
//     consecutive numbers; their ticks show where one is missing.
//   - a headless run has no schedule to keep (WhenFull::wait): it waits for room, and every frame
//     is written.
// A write that fails (a full disk) stops the recording: the failure is logged once, the frames
// after it are counted as dropped, and the database keeps every batch before it. So does the
// database reaching its cap of bytes (Settings::max_bytes).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "app/trajectory_db.hpp"
#include "app/trajectory_frame.hpp"
#include "herd/sim/world.hpp"
#include "net/observability_text.hpp"
#include "net/tick_clock.hpp"

namespace herd::app {

class TrajectoryRecorder {
 public:
  enum class WhenFull : std::uint8_t { drop, wait };
  // Frames that may wait for the writer: 1.6 s at 20 frames a second (10,000 agents: 13 MB).
  static constexpr std::size_t kQueueFrames = 32;
  // Log lines (on the tick thread): a drop, at most one per 10 s of world time; a failure.
  using Log = std::function<void(net::LogLevel level, std::string_view event,
                                 std::initializer_list<net::LogField> fields)>;

  struct Settings {
    std::string path;
    double frame_rate = 20;  // frames per second of world time; a world's tick rate at most
    WhenFull when_full = WhenFull::drop;
    bool append = false;  // write after the file's last frame (a server restored from a checkpoint)
    std::size_t queue_frames = kQueueFrames;  // >= 1
    // The database's size (its write-ahead log included) at which the recording stops, as a
    // failed write does (logged once, `trajectory_full`; the frames after counted as dropped): a
    // world's agents must not fill the disk that holds its checkpoints. 0: no cap.
    std::uint64_t max_bytes = 0;
    Log log;  // none when empty
  };

  // Any thread.
  struct Stats {
    std::uint64_t frames_written = 0;
    std::uint64_t frames_dropped = 0;  // this run's
    std::uint64_t batches = 0;         // transactions committed
    std::uint64_t queued = 0;          // frames waiting for the writer (or being written)
    bool failed = false;
  };

  // Opens the database (TrajectoryDb::create, or append), starts the writer and begins the run's
  // first world with `first` (its state now is the first frame). `began`: "start", or
  // "checkpoint" for a world restored from one. A recorder, or a sentence saying why not.
  static std::variant<std::unique_ptr<TrajectoryRecorder>, std::string> open(
      Settings settings, const sim::World& first, const std::string& scenario,
      std::string_view began);

  ~TrajectoryRecorder();  // close()
  TrajectoryRecorder(const TrajectoryRecorder&) = delete;
  TrajectoryRecorder& operator=(const TrajectoryRecorder&) = delete;

  // The tick thread's calls. A new world is in place (reset, load_scenario): its row, and its
  // state now as its first frame.
  void begin_world(const sim::World& world, const std::string& scenario, std::string_view began);
  // After each step: a frame when one is due at the world's tick.
  void capture(const sim::World& world);
  // The world as it ends the run: a frame, unless its tick is one already.
  void capture_final(const sim::World& world);

  // Waits for the writer to write what is queued, sets the meta's closing rows (frames dropped,
  // complete) and closes the file. Empty, or why the recording failed. Idempotent.
  std::string close();

  Stats stats() const;
  const std::string& path() const { return settings_.path; }

 private:
  explicit TrajectoryRecorder(Settings settings, TrajectoryDb db);
  void enqueue(const sim::World& world);
  void note_drop(const sim::World& world);
  void write_loop();

  Settings settings_;
  TrajectoryDb db_;  // the writer thread's while it runs
  // The tick thread's.
  std::uint64_t next_frame_ = 0;
  std::uint32_t next_world_ = 0, world_ = 0;
  std::optional<std::uint64_t> last_frame_tick_;  // the current world's last frame queued
  net::SnapshotCadence cadence_{1, 1};
  double dt_ = 1;
  std::uint64_t next_drop_log_tick_ = 0;
  bool failure_logged_ = false;
  bool closed_ = false;
  // Shared with the writer, under mutex_.
  mutable std::mutex mutex_;
  std::condition_variable work_, room_;
  std::deque<std::unique_ptr<TrajectoryFrame>> queued_;
  std::vector<std::unique_ptr<TrajectoryFrame>> free_;
  std::size_t allocated_ = 0;  // frames made for the pool, at most queue_frames
  std::vector<WorldRow> worlds_;
  bool closing_ = false;
  std::string failure_;
  bool full_ = false;  // stopped at the cap of bytes, not by a failed write
  std::atomic<std::uint64_t> written_{0}, dropped_{0}, batches_{0}, queued_count_{0};
  std::atomic<bool> failed_{false};
  std::thread writer_;
};

// The meta table's rows for a run whose first world is `world` (docs/operations.md lists them).
TrajectoryDb::Meta trajectory_meta(const sim::World& world, const std::string& scenario,
                                   double frame_rate);

}  // namespace herd::app
