// herd-bench sim — what one world step costs, on crowds defined so that anyone can
// rebuild them with another library (RVO2, DetourCrowd):
//   circle: N agents evenly on a circle of radius 200*N/250, each going to the antipodal point;
//   random: N agents placed uniformly without overlap in a square of side sqrt(A*N) (A square units
//           per agent, default 100), each going to a uniformly random point in the square and given
//           a new one when within 1 unit of it.
// Both: radius 1.5, preferred speed 1 (herd's max_speed: the speed its behaviours ask for), dt
// 0.25.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "avoidance.hpp"
#include "bench.hpp"
#include "exec/step_clock.hpp"
#include "exec/thread_pool.hpp"
#include "fixtures.hpp"
#include "herd/sim/world.hpp"
#include "neighbour_scan.hpp"
#include "rng.hpp"
#include "spatial_grid.hpp"

namespace herd::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Case {
  std::string scenario = "random";
  long agents = 1000;
  double density = 100;
  sim::AvoidanceMode mode = sim::AvoidanceMode::cardioid;
  long threads = 1;
  long ticks = 100;
  long max_neighbours = sim::AvoidanceDef{}.max_neighbours;  // 0: no cap
};

// A line of /proc/self/status in MiB: VmHWM (peak resident memory) or VmRSS (resident now).
double status_mb(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(key, 0) == 0)
      return std::stod(line.substr(std::string_view(key).size())) / 1024.0;
  return 0;
}
double peak_rss_mb() { return status_mb("VmHWM:"); }

sim::World make_world(const Case& c, sim::Rng& rng, double& side) {
  const double n = static_cast<double>(c.agents);
  side = c.scenario == "circle" ? 2 * (200 * n / 250) + 20 : std::sqrt(c.density * n);
  sim::WorldDef def = crowd_def(static_cast<std::size_t>(c.agents), side, 0.25);
  def.avoidance.mode = c.mode;
  def.avoidance.max_neighbours = static_cast<std::uint32_t>(c.max_neighbours);
  sim::World world(def);
  std::vector<sim::SpawnAgent> agents;
  if (c.scenario == "circle") {
    const double r = 200 * n / 250, centre = side / 2;
    for (long i = 0; i < c.agents; ++i) {
      const double a = 2 * M_PI * static_cast<double>(i) / n;
      sim::SpawnAgent s;
      s.position = {centre + r * std::cos(a), centre + r * std::sin(a)};
      s.target = sim::Vec2{centre - r * std::cos(a), centre - r * std::sin(a)};
      agents.push_back(s);
    }
  } else {
    // Uniform without overlap (bench/crowd.hpp), each agent's target drawn as it is placed.
    place_crowd(side, static_cast<std::size_t>(c.agents), rng, [&](sim::Vec2 p) {
      sim::SpawnAgent s;
      s.position = p;
      s.target = sim::Vec2{rng.uniform(0, side), rng.uniform(0, side)};
      agents.push_back(s);
    });
  }
  for (std::size_t k = 0; k < agents.size(); k += 1000) {
    std::vector<sim::SpawnAgent> chunk(
        agents.begin() + static_cast<long>(k),
        agents.begin() + static_cast<long>(std::min(agents.size(), k + 1000)));
    world.apply(sim::Spawn{0, 0, chunk});
  }
  return world;
}

struct Result {
  double median_ms = 0, p99_ms = 0, ns_per_agent = 0, world_bytes = 0;
};

// The step's stages and sub-stages (the world's own profile, herd/sim/profile.hpp): each one's
// median and p99 over the ticks and its share of the median step, as a table on stderr; a
// sub-stage is indented under its stage, whose time includes it.
void print_profile(const std::vector<sim::StepProfile>& ticks) {
  auto quantiles = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::pair{v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)]};
  };
  std::vector<double> step;
  for (const sim::StepProfile& p : ticks) step.push_back(static_cast<double>(p.step_ns) * 1e-6);
  const auto [step_median, step_p99] = quantiles(step);
  std::fprintf(stderr, "%-22s %10s %10s %7s\n", "stage", "median_ms", "p99_ms", "share");
  for (std::size_t s = 0; s < sim::kStageCount; ++s) {
    std::vector<double> ms;
    for (const sim::StepProfile& p : ticks) ms.push_back(static_cast<double>(p.stage_ns[s]) * 1e-6);
    const auto [median, p99] = quantiles(ms);
    const auto stage = static_cast<sim::Stage>(s);
    const std::string name =
        (sim::is_sub_stage(stage) ? "  " : "") + std::string(sim::stage_name(stage));
    std::fprintf(stderr, "%-22s %10.3f %10.3f %6.1f%%\n", name.c_str(), median, p99,
                 step_median > 0 ? 100 * median / step_median : 0.0);
  }
  std::fprintf(stderr, "%-22s %10.3f %10.3f\n", "step", step_median, step_p99);
}

Result run_case(const Case& c, bool header, bool profile = false) {
  sim::Rng rng(7);
  double side = 0;
  sim::World world = make_world(c, rng, side);
  exec::ThreadPool pool(static_cast<std::size_t>(c.threads));
  world.set_executor(&pool);
  if (profile) world.set_clock(exec::steady_ns);
  std::vector<double> ms;
  std::vector<sim::StepProfile> stages;
  for (long t = 0; t < c.ticks; ++t) {
    if (c.scenario == "random") {  // a new random target within 1 unit of the old one
      for (std::size_t i = 0; i < world.agents().size(); ++i) {
        const sim::Agent& a = world.agents()[i];
        if (sim::length(a.behaviour.point - a.position) < 1.0)
          world.apply(sim::SetTarget{{false, {a.id}},
                                     {rng.uniform(0, side), rng.uniform(0, side)},
                                     sim::BehaviourKind::arrive,
                                     {}});
      }
    }
    const auto t0 = Clock::now();
    world.step();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (profile) stages.push_back(world.profile());
  }
  if (profile) print_profile(stages);
  // What the world holds per agent: its own count of the heap bytes in its per-agent arrays
  // (resident memory is no measure of one object: the allocator keeps freed set-up buffers).
  const double world_bytes =
      static_cast<double>(world.agent_memory_bytes()) / static_cast<double>(c.agents);
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2], p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  // Neighbours within the avoidance reach, and overlapping pairs, at the end.
  std::vector<sim::Vec2> points;
  for (const sim::Agent& a : world.agents()) points.push_back(a.position);
  sim::SpatialGrid grid;
  const double reach = sim::push_cutoff(world.def().avoidance, 3.0);
  grid.rebuild(points, side, side, reach);
  double neighbours = 0;
  long overlaps = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
    grid.query(points[i], reach, [&](std::uint32_t j) {
      if (j == i) return;
      const double d2 = sim::length_squared(points[j] - points[i]);
      neighbours += d2 < reach * reach;
      overlaps += j > i && d2 < 3.0 * 3.0 - 1e-9;
    });
  if (header)
    std::printf(
        "scenario,agents,density,mode,max_neighbours,threads,ticks,median_tick_ms,p99_tick_ms,ns_"
        "per_agent_tick,avg_neighbours,overlaps,peak_rss_mb,world_bytes_per_agent,state_hash\n");
  std::printf("%s,%ld,%.0f,%s,%ld,%ld,%ld,%.3f,%.3f,%.0f,%.2f,%ld,%.1f,%.0f,%016llx\n",
              c.scenario.c_str(), c.agents, c.density, std::string(sim::to_string(c.mode)).c_str(),
              c.max_neighbours, c.threads, c.ticks, median, p99,
              median * 1e6 / static_cast<double>(c.agents),
              neighbours / static_cast<double>(points.size()), overlaps, peak_rss_mb(), world_bytes,
              static_cast<unsigned long long>(world.state_hash()));
  std::fflush(stdout);
  return {median, p99, median * 1e6 / static_cast<double>(c.agents), world_bytes};
}

// The sweep's plot: median tick time against agents, log-log, one line per mode and thread count.
struct Series {
  std::string label, colour;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // agents, ms
};

void write_svg(const std::string& path, const std::vector<Series>& series) {
  std::ofstream out(path);
  const double w = 640, h = 420, left = 70, right = 170, top = 30, bottom = 50;
  double y_lo = 1e9, y_hi = 0;
  for (const Series& s : series)
    for (const auto& [n, ms] : s.points) y_lo = std::min(y_lo, ms), y_hi = std::max(y_hi, ms);
  y_lo = std::pow(10, std::floor(std::log10(std::max(y_lo, 1e-3))));
  y_hi = std::pow(10, std::ceil(std::log10(std::max(y_hi, y_lo * 10))));
  auto x_of = [&](double n) { return left + (std::log10(n) - 3) / 2 * (w - left - right); };
  auto y_of = [&](double ms) {
    return h - bottom -
           (std::log10(ms) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo)) *
               (h - top - bottom);
  };
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
      << "' font-family='sans-serif' font-size='12'>\n"
      << "<rect width='100%' height='100%' fill='white'/>\n"
      << "<text x='" << left
      << "' y='18' font-size='14'>herd-bench sim: median tick time, random crowd, 100 square units "
         "per agent</text>\n";
  for (double n : {1e3, 1e4, 1e5}) {
    out << "<line x1='" << x_of(n) << "' y1='" << top << "' x2='" << x_of(n) << "' y2='"
        << h - bottom << "' stroke='#ddd'/>\n"
        << "<text x='" << x_of(n) << "' y='" << h - bottom + 18 << "' text-anchor='middle'>"
        << static_cast<long>(n) << "</text>\n";
  }
  for (double ms = y_lo; ms <= y_hi * 1.001; ms *= 10) {
    out << "<line x1='" << left << "' y1='" << y_of(ms) << "' x2='" << w - right << "' y2='"
        << y_of(ms) << "' stroke='#ddd'/>\n"
        << "<text x='" << left - 6 << "' y='" << y_of(ms) + 4 << "' text-anchor='end'>" << ms
        << " ms</text>\n";
  }
  // The 30 Hz budget.
  if (33.3 >= y_lo && 33.3 <= y_hi)
    out << "<line x1='" << left << "' y1='" << y_of(33.3) << "' x2='" << w - right << "' y2='"
        << y_of(33.3) << "' stroke='#c00' stroke-dasharray='2,3'/><text x='" << left + 4 << "' y='"
        << y_of(33.3) - 4 << "' fill='#c00'>33 ms (30 Hz)</text>\n";
  out << "<text x='" << (left + w - right) / 2 << "' y='" << h - 12
      << "' text-anchor='middle'>agents</text>\n";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    out << "<polyline fill='none' stroke='" << s.colour << "' stroke-width='2'"
        << (s.dashed ? " stroke-dasharray='6,4'" : "") << " points='";
    for (const auto& [n, ms] : s.points) out << x_of(n) << ',' << y_of(ms) << ' ';
    out << "'/>\n";
    const double ly = top + 16 * static_cast<double>(k);
    out << "<line x1='" << w - right + 10 << "' y1='" << ly << "' x2='" << w - right + 34
        << "' y2='" << ly << "' stroke='" << s.colour << "' stroke-width='2'"
        << (s.dashed ? " stroke-dasharray='6,4'" : "") << "/><text x='" << w - right + 40 << "' y='"
        << ly + 4 << "'>" << s.label << "</text>\n";
  }
  out << "</svg>\n";
}

struct Options {
  Case c;
  bool any = false;  // a case was given: run it alone, not the sweep
  std::string svg;   // the sweep's plot
};

int run_sim(const Options& o) {
  const Case& c = o.c;
  const bool any = o.any;
  const std::string& svg = o.svg;
  if (any && svg.empty()) {
    run_case(c, true, true);
    return 0;
  }
  // The sweep: N x mode x threads, a CSV on stdout, a table on stderr, and the plot if asked.
  bool header = true;
  std::vector<Series> series;
  std::fprintf(stderr, "%8s %-9s %7s %12s %12s %12s\n", "agents", "mode", "threads", "median_ms",
               "p99_ms", "ns/agent");
  for (sim::AvoidanceMode m :
       {sim::AvoidanceMode::none, sim::AvoidanceMode::circle, sim::AvoidanceMode::cardioid})
    for (long threads : {1L, 2L}) {
      Series line;
      line.label = std::string(sim::to_string(m)) + (threads == 1 ? ", 1 thread" : ", 2 threads");
      line.colour = m == sim::AvoidanceMode::none     ? "#888"
                    : m == sim::AvoidanceMode::circle ? "#2a7"
                                                      : "#25c";
      line.dashed = threads == 2;
      for (long n : {1000L, 10000L, 100000L}) {
        Case sweep;
        sweep.agents = n;
        sweep.mode = m;
        sweep.threads = threads;
        sweep.ticks = n >= 100000 ? 20 : 100;
        const Result r = run_case(sweep, header);
        header = false;
        std::fprintf(stderr, "%8ld %-9s %7ld %12.3f %12.3f %12.0f\n", n,
                     std::string(sim::to_string(m)).c_str(), threads, r.median_ms, r.p99_ms,
                     r.ns_per_agent);
        line.points.emplace_back(static_cast<double>(n), r.median_ms);
      }
      series.push_back(line);
    }
  if (!svg.empty()) write_svg(svg, series);
  return 0;
}

}  // namespace

Runner add_sim(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  Case& c = o->c;
  sub.add_option("--scenario", c.scenario, "the crowd")
      ->check(CLI::IsMember({"random", "circle"}))
      ->capture_default_str();
  sub.add_option("--agents", c.agents, "agents")
      ->check(CLI::Range(2, 1'000'000))
      ->capture_default_str();
  sub.add_option("--density", c.density, "square units per agent (random)")
      ->check(CLI::Range(10, 100000))
      ->capture_default_str();
  sub.add_option_function<std::string>(
         "--mode", [&c](const std::string& v) { c.mode = mode_named(v); },
         "avoidance: none, circle, cardioid (default), orca or cfsm")
      ->check(CLI::IsMember(kModeNames));
  sub.add_option("--threads", c.threads, "threads stepping the world")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  sub.add_option("--ticks", c.ticks, "ticks timed")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.add_option("--max-neighbours", c.max_neighbours, "agents each avoids at most (0: no cap)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  sub.add_option_function<std::string>(
      "--kernels",
      [](const std::string& v) {
        if (!sim::use_avoidance_kernel(v) || !sim::scan::use_kernels(v))
          throw CLI::ValidationError(
              "--kernels", "'" + v + "' is not an instruction set this processor and build have");
      },
      "inner loops (avoidance, neighbour search) by instruction set: base, avx2 or avx512 "
      "(default: the widest)");
  sub.add_option("--svg", o->svg, "the sweep: also write its plot of tick time against N here");
  sub.footer(
      "With no case: the sweep N = 1000, 10000, 100000 x each mode x 1 and 2 threads (random, A = "
      "100),\n"
      "with a table on stderr and, with --svg, a plot. Prints a CSV header and one row per case: "
      "median\n"
      "and p99 tick time, ns per agent per tick, average neighbours within the avoidance reach,\n"
      "overlapping pairs at the end, peak memory, the world's bytes per agent and its state hash "
      "at\n"
      "the end; every --kernels choice gives the same state hash. A single case also prints the "
      "step's\n"
      "profile on stderr: each stage's median and p99 time and its share of the median step.");
  sub.final_callback([&sub, o] {
    for (const CLI::Option* opt : sub.get_options())
      if (opt->count() > 0 && opt->get_lnames() != std::vector<std::string>{"svg"}) o->any = true;
  });
  return [o] { return run_sim(*o); };
}

}  // namespace herd::bench
