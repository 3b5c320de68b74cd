// herd::sim avoidance traces: what an inspected agent's avoidance did in the last step, part by
// part (World::trace), for inspectors that draw it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vec2.hpp"

namespace herd::sim {

// One obstacle's part, for the inspector: the red (raw) and blue (turned) pushes and the crossing
// fix's decision.
struct PushTrace {
  std::uint32_t id = 0;
  bool is_obstacle = false;
  Vec2 raw;               // red (after the crossing fix, when it applied)
  Vec2 adjusted;          // blue (after the crossing fix, when it applied)
  double weight = 1;      // cardioid r
  bool ignored = false;   // an obstacle being chased that cannot be caught
  bool crossing = false;  // the crossing fix looked at it
  bool yielded = false;   // the crossing fix: the other reaches the crossing first; push mirrored
  std::optional<Vec2> crossing_point;
  double t_self = 0, t_other = 0;  // s to the crossing
  double crossing_scale = 1;       // the crossing fix's ratio applied to both vectors
  Vec2 path_to;                    // end of the obstacle's look-ahead segment (from its position)
};

struct AvoidanceTrace {
  Vec2 desired_dir;  // u
  std::vector<PushTrace> pushes;
  Vec2 sum_raw;       // yellow
  Vec2 sum_adjusted;  // B, the sum of blue
  Vec2 split_fix;     // green, A
  double ig_factor = 0;
  Vec2 final_dir;
  Vec2 desired_path_to;  // own look-ahead along u
  Vec2 current_path_to;  // own look-ahead along the current velocity
};

}  // namespace herd::sim
