// herd-bench assign — what slot assignment costs: n agents at random places in a square, n slots
// on a circle; the exact Hungarian method and recursive bisection of server/sim/assignment.cpp.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "sim/assignment.hpp"
#include "sim/formation.hpp"
#include "sim/rng.hpp"

namespace herd::bench {
namespace {

constexpr const char* kUsage =
    "usage: herd-bench assign [--agents N] [--repeat R] [--seed S]\n"
    "  --agents N  agents and slots, 1..20000 (default: the sweep 100, 500, 1000, 2000, 5000, 20000;\n"
    "              optimal only up to 2000, as the world allows)\n"
    "  --repeat R  runs per size, the median is reported, 1..100 (default 3)\n"
    "  --seed S    placement seed, >= 0 (default 1)\n"
    "prints a CSV header and one row per size: milliseconds per assignment (median) and the total\n"
    "travel, optimal and bisection, against keep_order's for comparison.\n";

}  // namespace

int run_assignment(Args args) {
  std::vector<long> sizes{100, 500, 1000, 2000, 5000, 20000};
  long repeat = 3, seed = 1;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "herd-bench assign: missing value after %.*s\n%s", static_cast<int>(args[i].size()), args[i].data(), kUsage);
      return 2;
    }
    const std::string_view flag = args[i], value = args[++i];
    long n = 0;
    bool ok = parse_number(value, n);
    if (flag == "--agents" && ok && n >= 1 && n <= 20000) sizes = {n};
    else if (flag == "--repeat" && ok && n >= 1 && n <= 100) repeat = n;
    else if (flag == "--seed" && ok && n >= 0) seed = n;
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "herd-bench assign: bad %.*s\n%s", static_cast<int>(flag.size()), flag.data(), kUsage);
      return 2;
    }
  }
  std::printf("agents,optimal_ms_median,optimal_total_travel,bisection_ms_median,bisection_total_travel,keep_order_total_travel\n");
  // Median milliseconds of `repeat` runs of assign(), and its last answer.
  const auto timed = [repeat](auto assign, std::vector<std::uint32_t>& slot) {
    std::vector<double> ms;
    for (long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      slot = assign();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
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
      optimal_cells = std::to_string(ms).substr(0, std::to_string(ms).find('.') + 3) + "," +
                      std::to_string(static_cast<long>(std::lround(sim::total_travel(from, slots, optimal))));
    }
    const double bisection_ms = timed([&] { return sim::assign_bisection(from, slots); }, bisection);
    std::printf("%ld,%s,%.2f,%.0f,%.0f\n", n, optimal_cells.c_str(), bisection_ms, sim::total_travel(from, slots, bisection),
                sim::total_travel(from, slots, sim::assign_in_order(from.size())));
  }
  return 0;
}

}  // namespace herd::bench
