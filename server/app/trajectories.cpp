#include "app/trajectories.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "exec/thread_pool.hpp"

namespace herd::app {
namespace {

// The database's bytes on disk: the file and its write-ahead log (SQLite's WAL mode).
std::uint64_t database_bytes(const std::string& path) {
  std::uint64_t bytes = 0;
  for (const std::string& p : {path, path + "-wal"}) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(p, ec);
    if (!ec) bytes += n;
  }
  return bytes;
}

// A number as people write it (20, 0.5, 60), exactly enough to read back.
std::string number(double v) {
  char buf[32];
  double back = 0;
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::sscanf(buf, "%lf", &back) == 1 && back == v) break;
  }
  return buf;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

WorldRow world_row(const sim::World& world, std::uint32_t index, const std::string& scenario,
                   std::string_view began, double frame_rate) {
  const sim::WorldDef& def = world.def();
  const double tick_rate = 1.0 / def.dt;
  return {index,
          std::string(began),
          scenario,
          def.seed,
          world.tick(),
          tick_rate,
          std::min(frame_rate, tick_rate),
          def.width,
          def.height};
}

}  // namespace

TrajectoryDb::Meta trajectory_meta(const sim::World& world, const std::string& scenario,
                                   double frame_rate) {
  const WorldRow w = world_row(world, 0, scenario, "start", frame_rate);
  return {{"herd_version", HERD_VERSION},
          {"created", utc_now()},
          {"scenario", w.scenario},
          {"seed", std::to_string(w.seed)},
          {"width", number(w.width)},
          {"height", number(w.height)},
          {"tick_rate", number(w.tick_rate)},
          {"frame_rate", number(w.frame_rate)},
          {"units",
           "x, y, width, height: world units (x to the right, y downwards); time: seconds; vx, vy, "
           "mean_speed: world units per second; density: agents per square world unit"},
          {"frames_dropped", "0"},
          {"complete", "0"}};
}

std::variant<std::unique_ptr<TrajectoryRecorder>, std::string> TrajectoryRecorder::open(
    Settings settings, const sim::World& first, const std::string& scenario,
    std::string_view began) {
  assert(settings.queue_frames >= 1 && settings.frame_rate > 0);
  const TrajectoryDb::Meta meta = trajectory_meta(first, scenario, settings.frame_rate);
  auto db = settings.append ? TrajectoryDb::append(settings.path, meta)
                            : TrajectoryDb::create(settings.path, meta);
  if (auto* why = std::get_if<std::string>(&db)) return std::move(*why);
  TrajectoryDb& opened = std::get<TrajectoryDb>(db);
  // A file written after a checkpoint is open again: not complete until this run closes it.
  if (opened.next_frame() > 0) {
    if (std::string why = opened.set_meta({{"complete", "0"}}); !why.empty()) return why;
  }
  std::unique_ptr<TrajectoryRecorder> r(
      new TrajectoryRecorder(std::move(settings), std::move(opened)));
  r->begin_world(first, scenario, began);
  return r;
}

TrajectoryRecorder::TrajectoryRecorder(Settings settings, TrajectoryDb db)
    : settings_(std::move(settings)), db_(std::move(db)) {
  next_frame_ = db_.next_frame();
  next_world_ = db_.next_world();
  writer_ = std::thread([this] { write_loop(); });
  exec::name_thread(writer_, "herd-traj");
}

TrajectoryRecorder::~TrajectoryRecorder() { close(); }

void TrajectoryRecorder::begin_world(const sim::World& world, const std::string& scenario,
                                     std::string_view began) {
  WorldRow row = world_row(world, next_world_++, scenario, began, settings_.frame_rate);
  world_ = row.world;
  dt_ = world.def().dt;
  cadence_ = net::SnapshotCadence(row.tick_rate, row.frame_rate);
  last_frame_tick_.reset();
  {
    const std::lock_guard lock(mutex_);
    worlds_.push_back(std::move(row));
  }
  work_.notify_one();
  enqueue(world);
}

void TrajectoryRecorder::capture(const sim::World& world) {
  if (world.tick() > 0 && cadence_.due(world.tick())) enqueue(world);
}

void TrajectoryRecorder::capture_final(const sim::World& world) {
  if (last_frame_tick_ != world.tick()) enqueue(world);
}

void TrajectoryRecorder::enqueue(const sim::World& world) {
  if (closed_) return;
  if (failed_) {
    if (!failure_logged_ && settings_.log) {
      std::string why;
      {
        const std::lock_guard lock(mutex_);
        why = failure_;
      }
      bool full = false;
      {
        const std::lock_guard lock(mutex_);
        full = full_;
      }
      settings_.log(full ? net::LogLevel::warn : net::LogLevel::error,
                    full ? "trajectory_full" : "trajectory_write_failed",
                    {{"file", settings_.path}, {"reason", why}});
    }
    failure_logged_ = true;
    ++dropped_;
    last_frame_tick_ = world.tick();  // this tick's frame is counted (capture_final asks)
    return;
  }
  std::unique_ptr<TrajectoryFrame> frame;
  {
    std::unique_lock lock(mutex_);
    if (settings_.when_full == WhenFull::wait)
      room_.wait(lock, [this] {
        return !free_.empty() || allocated_ < settings_.queue_frames || failed_;
      });
    if (!free_.empty()) {
      frame = std::move(free_.back());
      free_.pop_back();
    } else if (allocated_ < settings_.queue_frames) {
      frame = std::make_unique<TrajectoryFrame>();
      ++allocated_;
    }
  }
  if (!frame) return note_drop(world);
  // Filled outside the lock: the writer works on the frames before it meanwhile.
  build_frame(world, *frame);
  frame->frame = next_frame_++;
  frame->world = world_;
  last_frame_tick_ = world.tick();
  {
    const std::lock_guard lock(mutex_);
    queued_.push_back(std::move(frame));
    queued_count_ = queued_.size();
  }
  work_.notify_one();
}

void TrajectoryRecorder::note_drop(const sim::World& world) {
  const std::uint64_t total = ++dropped_;
  if (!settings_.log || world.tick() < next_drop_log_tick_) return;
  next_drop_log_tick_ = world.tick() + static_cast<std::uint64_t>(std::ceil(10.0 / dt_));
  settings_.log(net::LogLevel::warn, "trajectory_frames_dropped",
                {{"tick", std::to_string(world.tick())},
                 {"frames_dropped_total", std::to_string(total)},
                 {"queue_frames", std::to_string(settings_.queue_frames)}});
}

void TrajectoryRecorder::write_loop() {
  std::vector<std::unique_ptr<TrajectoryFrame>> batch;
  std::vector<const TrajectoryFrame*> view;
  std::vector<WorldRow> worlds;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [this] { return closing_ || !queued_.empty() || !worlds_.empty(); });
      if (queued_.empty() && worlds_.empty()) return;  // closing, and nothing left
      for (auto& f : queued_) batch.push_back(std::move(f));
      queued_.clear();
      worlds.swap(worlds_);
    }
    view.clear();
    for (const auto& f : batch) view.push_back(f.get());
    const std::uint64_t dropped = db_.frames_dropped_before() + dropped_.load();
    std::string why = db_.write(worlds, view, {{"frames_dropped", std::to_string(dropped)}});
    worlds.clear();
    {
      // Counted before the queue's gauge drops, so that written + dropped + queued never falls.
      const std::lock_guard lock(mutex_);
      if (why.empty()) {
        written_ += batch.size();
        ++batches_;
        if (const std::uint64_t bytes = database_bytes(settings_.path);
            settings_.max_bytes != 0 && bytes >= settings_.max_bytes) {
          failure_ = "the database reached " + std::to_string(bytes) + " bytes, its cap of " +
                     std::to_string(settings_.max_bytes) + " (--trajectory-max-bytes)";
          full_ = true;
          failed_ = true;
        }
      } else {
        failure_ = std::move(why);
        failed_ = true;
        dropped_ += batch.size();  // not in the file
      }
      for (auto& f : batch) free_.push_back(std::move(f));
      queued_count_ = queued_.size();
    }
    batch.clear();
    room_.notify_all();
    if (failed_) return;
  }
}

std::string TrajectoryRecorder::close() {
  if (closed_) return {};
  closed_ = true;
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_.notify_one();
  if (writer_.joinable()) writer_.join();
  std::string why;
  {
    const std::lock_guard lock(mutex_);
    why = full_ ? std::string() : failure_;  // a recording stopped at its cap is complete
    dropped_ += queued_.size();              // left behind by a writer that stopped
    queued_.clear();
    queued_count_ = 0;
  }
  if (why.empty()) {
    const std::uint64_t dropped = db_.frames_dropped_before() + dropped_.load();
    why = db_.set_meta({{"frames_dropped", std::to_string(dropped)}, {"complete", "1"}});
  }
  db_.close();
  return why;
}

TrajectoryRecorder::Stats TrajectoryRecorder::stats() const {
  return {written_.load(), dropped_.load(), batches_.load(), queued_count_.load(), failed_.load()};
}

}  // namespace herd::app
