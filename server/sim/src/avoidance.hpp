// herd::sim avoidance: the "anti-gravity" pipeline, every part: the push and its cardioid
// weighting, the side fix, the crossing fix and the split fix (docs/simulation.md, Avoidance).
//
// For an agent moving in direction u (angle theta) and each obstacle within reach:
//   1. raw push (red): away from the obstacle, magnitude k (r1+r2)^2 / d^2;
//   2. cardioid weight: r = ((1 + cos delta)/2)^e, delta = angle to obstacle - theta,
//      so obstacles behind stop pushing;
//   3. the side fix: the push rotated up to 90 degrees towards a side, scaled by
//      the inverted quarter ellipse of its angle to the path (adjusted push, blue);
//   4. the crossing fix: for a moving obstacle close ahead, look-ahead segments of both paths;
//      whoever reaches the crossing first keeps going, the other mirrors its push about its
//      desired path, eased out near the crossing; without a crossing the push is scaled by how
//      head-on they move;
//   5. the split fix (a symmetric split): the sum of raw pushes (yellow) rotated towards a side
//      when it points backwards (green, A), plus the sum of adjusted pushes (B) scaled by igFac;
//   6. direction = normalise(u + A + igFac * B).
// `circle` mode is plain anti-gravity (u + sum of raw pushes), `none` leaves u alone, so the
// difference can be seen and measured. Angles are measured in world axes; with y growing
// downwards, +90 degrees from the heading is the agent's right-hand side on screen.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "herd/sim/trace.hpp"
#include "herd/sim/types.hpp"
#include "herd/sim/vec2.hpp"
#include "herd/sim/world_def.hpp"

namespace herd::sim {

// What an agent avoids: another agent (moving or not) or a static obstacle.
struct Neighbour {
  std::uint32_t id = 0;
  bool is_obstacle = false;
  Vec2 position;
  Vec2 velocity;
  double radius = 0;
};

// The avoiding agent.
struct Mover {
  Vec2 position;
  Vec2 velocity;
  double radius = 0;
  Vec2 desired;  // the behaviour's desired velocity; avoidance changes only its direction
};

// The direction to move in: unit length, or zero when there is no desire or (circle mode) pushes
// cancel it exactly. Neighbours must exclude the agent itself and its target.
Vec2 avoidance_direction(const AvoidanceDef& def, const Mover& self,
                         std::span<const Neighbour> neighbours, AvoidanceTrace* trace = nullptr);

// The neighbours as arrays (structure of arrays), the form the world's step gathers them in, and
// scratch for their pushes. The batch form of avoidance_direction runs the per-neighbour part of
// the pipeline over them in vector registers: the same operations in the same order as the span
// form, so the same bits (tests/sim/avoidance_batch_test.cpp), several neighbours at a time.
struct NeighbourBatch {
  // The arrays hold whole vectors of this many lanes past size() (the kernel pads them), and never
  // shrink: a step resizes a batch per agent without filling or freeing memory.
  static constexpr std::size_t kLanes = 8;
  // n rounded up to whole vectors of kLanes.
  static constexpr std::size_t whole_lanes(std::size_t n) {
    return (n + kLanes - 1) / kLanes * kLanes;
  }
  std::vector<double> x, y, vx, vy, radius, obstacle;  // obstacle: 1 for a static obstacle, else 0
  std::vector<double> raw_x, raw_y, adjusted_x, adjusted_y, weight, crossing;  // scratch
  std::size_t size() const { return n_; }
  void clear() { n_ = 0; }
  void push(Vec2 position, Vec2 velocity, double r, bool is_obstacle);
  void resize(std::size_t n);  // the count; then set() each new one
  void set(std::size_t i, Vec2 position, Vec2 velocity, double r, bool is_obstacle) {
    x[i] = position.x;
    y[i] = position.y;
    vx[i] = velocity.x;
    vy[i] = velocity.y;
    radius[i] = r;
    obstacle[i] = is_obstacle ? 1.0 : 0.0;
  }
  Neighbour at(std::size_t i, std::uint32_t id = 0) const;
  std::size_t memory_bytes() const;  // heap bytes held (the arrays' capacities)

 private:
  std::size_t n_ = 0;
};

// The direction to move in, as the span form without a trace.
Vec2 avoidance_direction(const AvoidanceDef& def, const Mover& self, NeighbourBatch& neighbours);

// The batch form in two halves, for a caller finishing many agents' directions at once: steps 5
// and 6 (split fix, igFac, normalise) are a long chain of divisions, square roots and polynomials
// per agent, which combine_batch runs for several agents at a time in vector registers, with
// the same bits as avoidance_direction. It does so only where combines_in_batch(def): cardioid
// mode, exponent 3, split fix sum_as_obstacle (the defaults); elsewhere avoidance_direction.
bool combines_in_batch(const AvoidanceDef& def);

// Steps 1-4 for one agent: u (its unit desired direction, zero when it has none: then the
// direction is zero) and the weighted sums of the raw and adjusted pushes. The kernel weighs by
// the exponent 3: for another, avoidance_direction.
struct PushSums {
  Vec2 u, sum_raw, sum_adjusted;
};
PushSums avoidance_sums(const AvoidanceDef& def, const Mover& self, NeighbourBatch& neighbours);

// Many agents' sums as arrays, and the directions combine_batch writes for them.
struct SumsBatch {
  std::vector<double> ux, uy, raw_x, raw_y, adjusted_x, adjusted_y, dir_x, dir_y;
  std::size_t size() const { return n_; }
  void clear() { n_ = 0; }
  void push(const PushSums& s);
  std::size_t memory_bytes() const;

 private:
  std::size_t n_ = 0;
};
void combine_batch(const AvoidanceDef& def, SumsBatch& sums);

// For tests and benchmarks: runs the batch form's kernel built for "base" (SSE2), "avx2" or
// "avx512" from now on, or the widest this processor has for "". False (nothing changed) when
// the processor or the compiler lacks it. Not thread-safe: call it between steps.
bool use_avoidance_kernel(std::string_view name);

// The anti-gravity push: k (r1+r2)^2 / d^2, with d kept above 0.1% of r1+r2 (coincident
// centres: no infinity).
double antigravity_magnitude(double personal_space, double radius_sum, double distance);

// The cardioid weighting: ((1 + cos delta)/2)^exponent; 1 straight ahead, 0 straight behind.
double cardioid_weight(double delta, double exponent);

// Distance beyond which a push is below push_epsilon, for a pair with this radius sum: the radius
// sum times push_cutoff_scale(def), which a caller testing many pairs can compute once.
double push_cutoff_scale(const AvoidanceDef& def);
inline double push_cutoff(const AvoidanceDef& def, double radius_sum) {
  return radius_sum * push_cutoff_scale(def);
}

// The side fix: the angle of the adjusted (blue) push, from the raw push's angle, its angle to
// the path (delta2 = vTheta - theta) and the cardioid weight r.
double adjusted_push_angle(double raw_angle, double delta2, double weight, Side preferred);

// Steps 2-3 for one obstacle in vector form, what avoidance_direction runs: `u` is the unit
// desired direction, `away` the unit vector from the obstacle to the agent, `raw` the raw push
// (away * magnitude). Equal, to rounding, to cardioid_weight and adjusted_push_angle on the angles
// (delta1 = angle from u to -away, delta2 = angle from u to away) without their atan2, cos and pow
// per neighbour: cos delta1 = -dot(u, away), the side is the sign of cross(u, away), and an angle
// is computed only for obstacles in front, the ones whose push turns. For an obstacle the path
// along u meets (`in_path`), the turn keeps the side the agent's unit `heading` passes it on.
struct CardioidPush {
  Vec2 adjusted;  // blue
  double weight;  // cardioid r
};
CardioidPush cardioid_push(Vec2 u, Vec2 away, Vec2 raw, double exponent, Side preferred,
                           Vec2 heading = {}, bool in_path = false);

// The split fix: from the sums of raw and adjusted pushes and the unit desired direction u
// (the published code's theta is its angle), the green vector A and igFac.
struct SplitFix {
  Vec2 green;
  double ig_factor = 0;
};
SplitFix split_fix(Vec2 sum_raw, Vec2 sum_adjusted, Vec2 u, Side preferred,
                   SplitFixMode mode = SplitFixMode::sum_as_obstacle,
                   double cardioid_exponent = 3.0);

}  // namespace herd::sim
