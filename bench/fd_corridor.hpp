// The fundamental-diagram corridor (herd-bench fd, and the test that holds the cfsm mode to
// Weidmann's curve): one run at one density and avoidance mode, measured as PedPy's classic
// method measures. The corridor and the measurement are described in fd_bench.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::bench::fd {

constexpr double kLength = 100, kWidth = 4, kFilled = 60;
constexpr double kAreaFrom = 28, kAreaTo = 32;
constexpr double kFrom = 5, kTo = 15;  // s

// Weidmann (1993): the speed of people walking one way at density rho (per m²), in m/s.
inline double weidmann(double rho) {
  return rho <= 0 ? 1.34 : std::max(0.0, 1.34 * (1 - std::exp(-1.913 * (1 / rho - 1 / 5.4))));
}

struct Point {
  std::string mode;
  double asked = 0, density = 0, speed = 0, speed_sd = 0;
  std::size_t agents = 0;
};

inline Point run(double rho, sim::AvoidanceMode mode, const std::string& mode_name) {
  sim::WorldDef def;
  def.width = kLength;
  def.height = kWidth;
  def.dt = 1.0 / 60;
  def.seed = 1;
  def.agent_defaults.radius = 0.2;
  def.agent_defaults.max_speed = 1.34;
  def.agent_defaults.max_force = 2.68;  // 1.34 m/s in 0.5 s
  def.agent_defaults.slow_radius = 1;
  def.avoidance.mode = mode;
  const double spacing = 1 / std::sqrt(rho);
  const long rows = std::max(1L, std::lround(kWidth / spacing));
  const long columns = std::lround(kFilled / spacing);
  def.max_agents = static_cast<std::uint32_t>(rows * columns + 1);
  sim::World world(def);
  sim::Rng rng(7);
  std::vector<sim::SpawnAgent> crowd;
  const double dy = kWidth / static_cast<double>(rows);
  for (long c = 0; c < columns; ++c)
    for (long r = 0; r < rows; ++r) {
      sim::SpawnAgent a;
      const double jitter = spacing / 10;
      a.position = {std::clamp(spacing * (c + 0.5) + rng.uniform(-jitter, jitter), 0.2, kLength),
                    std::clamp(dy * (r + 0.5) + rng.uniform(-jitter, jitter), 0.2, kWidth - 0.2)};
      a.target = sim::Vec2{kLength - 0.3, a.position.y};
      crowd.push_back(a);
      if (crowd.size() == 1000) {
        world.apply(sim::Spawn{0, 0, crowd});
        crowd.clear();
      }
    }
  if (!crowd.empty()) world.apply(sim::Spawn{0, 0, crowd});
  Point p;
  p.mode = mode_name;
  p.asked = rho;
  p.agents = world.agents().size();
  std::vector<double> speeds;
  double density_sum = 0;
  long samples = 0;
  const long every = 6;  // ticks: a tenth of a second
  const long last = std::lround(kTo / def.dt);
  for (long t = 1; t <= last; ++t) {
    world.step();
    if (t % every != 0 || t * def.dt < kFrom) continue;
    std::size_t inside = 0;
    double speed = 0;
    for (const sim::Agent& a : world.agents()) {
      if (a.position.x < kAreaFrom || a.position.x > kAreaTo) continue;
      ++inside;
      speed += length(a.velocity);
    }
    density_sum += inside / ((kAreaTo - kAreaFrom) * kWidth);
    ++samples;
    if (inside > 0) speeds.push_back(speed / inside);
  }
  p.density = density_sum / samples;
  double sum = 0, sum2 = 0;
  for (double v : speeds) {
    sum += v;
    sum2 += v * v;
  }
  const double n = static_cast<double>(speeds.size());
  p.speed = n > 0 ? sum / n : 0;
  p.speed_sd = n > 1 ? std::sqrt(std::max(0.0, (sum2 - sum * sum / n) / (n - 1))) : 0;
  return p;
}

}  // namespace herd::bench::fd
