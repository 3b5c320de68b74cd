// herd-bench sim — what one world step costs (issue 10), on crowds defined so that anyone can
// rebuild them with another library (RVO2, DetourCrowd):
//   circle: N agents evenly on a circle of radius 200*N/250, each going to the antipodal point;
//   random: N agents placed uniformly without overlap in a square of side sqrt(A*N) (A square units
//           per agent, default 100), each going to a uniformly random point in the square and given
//           a new one when within 1 unit of it.
// Both: radius 1.5, preferred speed 1 (herd's max_speed: the speed its behaviours ask for), dt 0.25.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "exec/thread_pool.hpp"
#include "sim/rng.hpp"
#include "sim/spatial_grid.hpp"
#include "sim/world.hpp"

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

constexpr const char* kUsage =
    "usage: herd-bench sim [--scenario random|circle] [--agents N] [--density A] [--mode none|circle|cardioid]\n"
    "                      [--threads T] [--ticks K] [--max-neighbours M]\n"
    "  with no option: the sweep N = 1000, 10000, 100000 x each mode (random, A = 100).\n"
    "prints a CSV header and one row per case: median and p99 tick time, ns per agent per tick,\n"
    "average neighbours within the avoidance reach, overlapping pairs at the end, peak memory.\n";

template <class T>
bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

sim::World make_world(const Case& c, sim::Rng& rng, double& side) {
  sim::WorldDef def;
  def.dt = 0.25;
  def.seed = 1;
  def.max_agents = static_cast<std::uint32_t>(c.agents);
  def.agent_defaults.radius = 1.5;
  def.agent_defaults.max_speed = 1;
  def.agent_defaults.max_force = 4;   // reaches full speed in one tick of 0.25 s
  def.agent_defaults.slow_radius = 2;
  def.avoidance.mode = c.mode;
  def.avoidance.max_neighbours = static_cast<std::uint32_t>(c.max_neighbours);
  const double n = static_cast<double>(c.agents);
  side = c.scenario == "circle" ? 2 * (200 * n / 250) + 20 : std::sqrt(c.density * n);
  def.width = def.height = side;
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
    // Uniform without overlap: rejection sampling against a cell list of the agents placed so far
    // (cells as wide as a diameter, so only the 3x3 cells around a candidate can hold an overlap).
    const double gap = 3.0;
    const long cells = std::max(1L, static_cast<long>(side / gap));
    std::vector<long> head(static_cast<std::size_t>(cells * cells), -1), next;
    std::vector<sim::Vec2> placed;
    auto cell = [&](double v) { return std::clamp(static_cast<long>(v / gap), 0L, cells - 1); };
    auto clear = [&](sim::Vec2 p) {
      for (long cy = cell(p.y) - 1; cy <= cell(p.y) + 1; ++cy)
        for (long cx = cell(p.x) - 1; cx <= cell(p.x) + 1; ++cx) {
          if (cx < 0 || cy < 0 || cx >= cells || cy >= cells) continue;
          for (long k = head[static_cast<std::size_t>(cy * cells + cx)]; k >= 0; k = next[static_cast<std::size_t>(k)])
            if (sim::length_squared(placed[static_cast<std::size_t>(k)] - p) < gap * gap) return false;
        }
      return true;
    };
    for (long i = 0; i < c.agents; ++i) {
      sim::Vec2 p;
      int attempts = 0;
      do p = {rng.uniform(1.5, side - 1.5), rng.uniform(1.5, side - 1.5)};
      while (!clear(p) && ++attempts < 100000);
      const std::size_t at = static_cast<std::size_t>(cell(p.y) * cells + cell(p.x));
      next.push_back(head[at]);
      head[at] = static_cast<long>(placed.size());
      placed.push_back(p);
      sim::SpawnAgent s;
      s.position = p;
      s.target = sim::Vec2{rng.uniform(0, side), rng.uniform(0, side)};
      agents.push_back(s);
    }
  }
  for (std::size_t k = 0; k < agents.size(); k += 1000) {
    std::vector<sim::SpawnAgent> chunk(agents.begin() + static_cast<long>(k),
                                       agents.begin() + static_cast<long>(std::min(agents.size(), k + 1000)));
    world.apply(sim::Spawn{0, 0, chunk});
  }
  return world;
}

int run_case(const Case& c, bool header) {
  sim::Rng rng(7);
  double side = 0;
  sim::World world = make_world(c, rng, side);
  exec::ThreadPool pool(static_cast<std::size_t>(c.threads));
  world.set_executor(&pool);
  std::vector<double> ms;
  for (long t = 0; t < c.ticks; ++t) {
    if (c.scenario == "random") {  // a new random target within 1 unit of the old one
      for (std::size_t i = 0; i < world.agents().size(); ++i) {
        const sim::Agent& a = world.agents()[i];
        if (sim::length(a.behaviour.point - a.position) < 1.0)
          world.queue(sim::SetTarget{{false, {a.id}}, {rng.uniform(0, side), rng.uniform(0, side)}, sim::BehaviourKind::arrive, {}});
      }
    }
    const auto t0 = Clock::now();
    world.step();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
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
  if (header) std::printf("scenario,agents,density,mode,max_neighbours,threads,ticks,median_tick_ms,p99_tick_ms,ns_per_agent_tick,avg_neighbours,overlaps,peak_rss_mb\n");
  std::printf("%s,%ld,%.0f,%s,%ld,%ld,%ld,%.3f,%.3f,%.0f,%.2f,%ld,%.1f\n", c.scenario.c_str(), c.agents, c.density,
              std::string(sim::to_string(c.mode)).c_str(), c.max_neighbours, c.threads, c.ticks, median, p99,
              median * 1e6 / static_cast<double>(c.agents), neighbours / static_cast<double>(points.size()), overlaps,
              peak_rss_mb());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int run_sim(Args args) {
  Case c;
  bool any = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "herd-bench sim: missing value after %.*s\n%s", static_cast<int>(args[i].size()), args[i].data(), kUsage);
      return 2;
    }
    const std::string_view flag = args[i], v = args[++i];
    bool ok = true;
    any = true;
    if (flag == "--scenario") ok = (v == "random" || v == "circle") && (c.scenario = std::string(v), true);
    else if (flag == "--agents") ok = parse_number(v, c.agents) && c.agents >= 2 && c.agents <= 1'000'000;
    else if (flag == "--density") ok = parse_number(v, c.density) && c.density >= 10 && c.density <= 100000;
    else if (flag == "--threads") ok = parse_number(v, c.threads) && c.threads >= 1 && c.threads <= 64;
    else if (flag == "--ticks") ok = parse_number(v, c.ticks) && c.ticks >= 1 && c.ticks <= 100000;
    else if (flag == "--max-neighbours") ok = parse_number(v, c.max_neighbours) && c.max_neighbours >= 0 && c.max_neighbours <= 1000;
    else if (flag == "--mode") {
      ok = v == "none" || v == "circle" || v == "cardioid";
      c.mode = v == "none" ? sim::AvoidanceMode::none : v == "circle" ? sim::AvoidanceMode::circle : sim::AvoidanceMode::cardioid;
    } else ok = false;
    if (!ok) {
      std::fprintf(stderr, "herd-bench sim: bad %.*s\n%s", static_cast<int>(flag.size()), flag.data(), kUsage);
      return 2;
    }
  }
  if (any) return run_case(c, true);
  bool header = true;
  for (long n : {1000L, 10000L, 100000L})
    for (sim::AvoidanceMode m : {sim::AvoidanceMode::none, sim::AvoidanceMode::circle, sim::AvoidanceMode::cardioid}) {
      Case sweep;
      sweep.agents = n;
      sweep.mode = m;
      sweep.ticks = n >= 100000 ? 20 : 100;
      if (int rc = run_case(sweep, header); rc != 0) return rc;
      header = false;
    }
  return 0;
}

}  // namespace herd::bench
