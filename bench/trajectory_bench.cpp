// herd-bench trajectories — what --trajectories costs: the tick thread's time per tick and the
// process's CPU, without and then with the recorder, and the database's bytes per agent-frame.
//
// The world is a scenario file (bench/scenarios/crowd_10k.json by default: 10,000 agents crossing
// 1000 x 1000) run at --tick-rate (60), its dt set to match. Ticks are paced as the server paces
// them (tick k due k periods after the start; one that is late runs at once), so the writer
// thread gets the time between ticks that it gets in a live server, and the recorder drops frames
// as a live server does (TrajectoryRecorder::WhenFull::drop). A tick's time is the step plus, when
// recording, the frame's capture (the copy the tick thread makes).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "app/trajectories.hpp"
#include "bench.hpp"
#include "exec/thread_pool.hpp"
#include "scenarios/scenario.hpp"

namespace herd::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string scenario = "bench/scenarios/crowd_10k.json";  // from the source tree's top
  long ticks = 600;
  double tick_rate = 60;
  double frame_rate = 20;
  long threads = 1;
  std::string file =
      (std::filesystem::temp_directory_path() / "herd-bench-trajectories.db").string();
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Run {
  std::vector<double> tick_ms, capture_ms;
  double cores = 0;  // process CPU over wall time
  std::size_t agents = 0;
  app::TrajectoryRecorder::Stats stats;
  std::uintmax_t db_bytes = 0;
};

// The database's bytes: the file and what is left in its write-ahead log (none after close()).
std::uintmax_t file_bytes(const std::string& path) {
  std::uintmax_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path + suffix, ec);
    if (!ec) total += n;
  }
  return total;
}

// Frames the recorder has made, queued or not: one more after a tick that had a frame due.
std::uint64_t frames_made(const app::TrajectoryRecorder& r) {
  const auto s = r.stats();
  return s.frames_written + s.frames_dropped + s.queued;
}

int run_once(const Options& o, const scenario::Scenario& sc, bool record, Run& out) {
  auto built = scenario::build_world(sc);
  if (auto* why = std::get_if<std::string>(&built)) {
    std::fprintf(stderr, "herd-bench: %s\n", why->c_str());
    return 2;
  }
  sim::World world = std::move(std::get<sim::World>(built));
  exec::ThreadPool pool(static_cast<std::size_t>(o.threads));
  world.set_executor(&pool);
  std::unique_ptr<app::TrajectoryRecorder> recorder;
  if (record) {
    auto opened = app::TrajectoryRecorder::open({o.file,
                                                 o.frame_rate,
                                                 app::TrajectoryRecorder::WhenFull::drop,
                                                 false,
                                                 app::TrajectoryRecorder::kQueueFrames,
                                                 {}},
                                                world, sc.name, "start");
    if (auto* why = std::get_if<std::string>(&opened)) {
      std::fprintf(stderr, "herd-bench: %s\n", why->c_str());
      return 2;
    }
    recorder = std::move(std::get<std::unique_ptr<app::TrajectoryRecorder>>(opened));
  }
  const auto period = std::chrono::duration<double>(1.0 / o.tick_rate);
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  for (long t = 1; t <= o.ticks; ++t) {
    const auto t0 = Clock::now();
    world.step();
    const auto t1 = Clock::now();
    const std::uint64_t frames = recorder ? frames_made(*recorder) : 0;
    if (recorder) recorder->capture(world);
    const auto t2 = Clock::now();
    out.tick_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
    if (recorder && frames_made(*recorder) != frames)  // a frame's tick: the copy's cost
      out.capture_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(period * t));
  }
  if (recorder) {
    recorder->capture_final(world);
    if (std::string why = recorder->close(); !why.empty()) {
      std::fprintf(stderr, "herd-bench: %s\n", why.c_str());
      return 1;
    }
  }
  out.cores =
      (cpu_seconds() - cpu_start) / std::chrono::duration<double>(Clock::now() - start).count();
  out.agents = world.agents().size();
  if (recorder) {
    out.stats = recorder->stats();
    out.db_bytes = file_bytes(o.file);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.file + suffix);
  }
  return 0;
}

int run_trajectories(const Options& o) {
  auto loaded = scenario::load(o.scenario, "");
  if (auto* why = std::get_if<std::string>(&loaded)) {
    std::fprintf(stderr, "herd-bench: %s\n", why->c_str());
    return 2;
  }
  scenario::Scenario& sc = std::get<scenario::Scenario>(loaded);
  sc.def.dt = 1.0 / o.tick_rate;
  std::printf(
      "recording,agents,ticks,tick_rate,frame_rate,threads,tick_p50_ms,tick_p99_ms,capture_p50_ms,"
      "capture_p99_ms,cpu_cores,frames_written,frames_dropped,batches,db_bytes,bytes_per_agent_"
      "frame\n");
  for (const bool record : {false, true}) {
    Run r;
    if (const int rc = run_once(o, sc, record, r); rc != 0) return rc;
    const std::uint64_t rows = r.stats.frames_written * r.agents;  // the crowd's size is fixed
    std::printf("%s,%zu,%ld,%g,%g,%ld,%.3f,%.3f,%.3f,%.3f,%.2f,%llu,%llu,%llu,%ju,%.1f\n",
                record ? "on" : "off", r.agents, o.ticks, o.tick_rate, record ? o.frame_rate : 0.0,
                o.threads, quantile(r.tick_ms, 0.5), quantile(r.tick_ms, 0.99),
                record ? quantile(r.capture_ms, 0.5) : 0.0,
                record ? quantile(r.capture_ms, 0.99) : 0.0, r.cores,
                static_cast<unsigned long long>(r.stats.frames_written),
                static_cast<unsigned long long>(r.stats.frames_dropped),
                static_cast<unsigned long long>(r.stats.batches), r.db_bytes,
                rows ? static_cast<double>(r.db_bytes) / static_cast<double>(rows) : 0.0);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

Runner add_trajectories(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option(
         "--scenario", o->scenario,
         "scenario file (its agents, its world; run from the source tree's top for the default)")
      ->capture_default_str();
  sub.add_option("--ticks", o->ticks, "ticks of each run")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sub.add_option("--tick-rate", o->tick_rate, "ticks per second (the world's dt is its inverse)")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  sub.add_option("--frame-rate", o->frame_rate,
                 "trajectory frames per second, at most the tick rate")
      ->check(CLI::Range(0.001, 1000.0))
      ->capture_default_str();
  sub.add_option("--threads", o->threads, "threads stepping the world")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  sub.add_option("--file", o->file, "the database written (removed after)")->capture_default_str();
  sub.footer(
      "Two runs of the same world, paced at the tick rate: without recording, then with it. A CSV\n"
      "row each: the tick thread's time per tick (the step, and the frame's copy when recording)\n"
      "p50 and p99, the copy alone on the ticks that make a frame, the process's CPU in cores "
      "over\n"
      "the run, frames written and dropped, transactions, the database's size and its bytes per\n"
      "agent-frame (size / rows).");
  return [o] {
    if (o->frame_rate > o->tick_rate) {
      std::fprintf(stderr, "herd-bench: --frame-rate must not exceed --tick-rate\n");
      return 2;
    }
    return run_trajectories(*o);
  };
}

}  // namespace herd::bench
