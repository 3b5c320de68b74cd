// herd-bench assign — what slot assignment costs: n agents at random places in a square, n slots
// on a circle; the exact Hungarian method and recursive bisection of server/sim/src/assignment.cpp.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "assignment.hpp"
#include "bench.hpp"
#include "formation.hpp"
#include "rng.hpp"

namespace herd::bench {
namespace {

struct Options {
  std::vector<long> sizes{100, 500, 1000, 2000, 5000, 20000};
  long repeat = 3, seed = 1;
};

int run_assignment(const Options& o) {
  const std::vector<long>& sizes = o.sizes;
  const long repeat = o.repeat, seed = o.seed;
  std::printf(
      "agents,optimal_ms_median,optimal_total_travel,bisection_ms_median,bisection_total_travel,"
      "keep_order_total_travel\n");
  // Median milliseconds of `repeat` runs of assign(), and its last answer.
  const auto timed = [repeat](auto assign, std::vector<std::uint32_t>& slot) {
    std::vector<double> ms;
    for (long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      slot = assign();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  for (long n : sizes) {
    sim::Rng rng(static_cast<std::uint64_t>(seed));
    const double side = std::sqrt(100.0 * static_cast<double>(n)) * 4;
    std::vector<sim::Vec2> from(static_cast<std::size_t>(n));
    for (sim::Vec2& p : from) p = {rng.uniform(0, side), rng.uniform(0, side)};
    sim::FormationDef circle;
    circle.centre = {side / 2, side / 2};
    circle.spacing = 5;
    const auto slots = sim::formation_slots(circle, from.size());
    std::vector<std::uint32_t> optimal, bisection;
    std::string optimal_cells = ",";
    if (n <= 2000) {
      const double ms = timed([&] { return sim::assign_optimal(from, slots); }, optimal);
      optimal_cells =
          std::to_string(ms).substr(0, std::to_string(ms).find('.') + 3) + "," +
          std::to_string(static_cast<long>(std::lround(sim::total_travel(from, slots, optimal))));
    }
    const double bisection_ms =
        timed([&] { return sim::assign_bisection(from, slots); }, bisection);
    std::printf("%ld,%s,%.2f,%.0f,%.0f\n", n, optimal_cells.c_str(), bisection_ms,
                sim::total_travel(from, slots, bisection),
                sim::total_travel(from, slots, sim::assign_in_order(from.size())));
  }
  return 0;
}

}  // namespace

Runner add_assignment(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option_function<long>(
         "--agents", [o](long n) { o->sizes = {n}; },
         "agents and slots (default: the sweep 100, 500, 1000, 2000, 5000, 20000; optimal only up "
         "to 2000, as the world allows)")
      ->check(CLI::Range(1, 20000));
  sub.add_option("--repeat", o->repeat, "runs per size, the median is reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub.add_option("--seed", o->seed, "placement seed")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub.footer(
      "Prints a CSV header and one row per size: milliseconds per assignment (median) and the "
      "total\n"
      "travel, optimal and bisection, against keep_order's for comparison.");
  return [o] { return run_assignment(*o); };
}

}  // namespace herd::bench
