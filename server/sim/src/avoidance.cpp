// The anti-gravity avoidance pipeline (avoidance.hpp) and its batch kernel, in one unit
// past 400 lines on purpose: this file alone is compiled with -fno-trapping-math (CMakeLists.txt),
// which lets the kernel's branch-free loop run in vector registers.
#include "avoidance.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "geometry.hpp"
#include "quadrant_trig.hpp"

namespace herd::sim {
namespace {

constexpr double kDeadAhead =
    1e-9;  // |pi - |delta|| below this: exactly opposed, use the preferred side
// units/s: slower obstacles count as standing still (for the crossing fix)
constexpr double kMovingSpeed = 1e-3;

// +1 turns a push towards the agent's right (on screen), -1 towards its left.
double side_sign(Side s) { return s == Side::right ? 1.0 : -1.0; }

// The unit direction of a velocity, or zero below kMovingSpeed (no heading to keep a side by).
Vec2 heading_of(Vec2 velocity) {
  return length_squared(velocity) >= kMovingSpeed * kMovingSpeed ? normalized_or_zero(velocity)
                                                                 : Vec2{};
}

// The sign of an angle, with the exactly-opposed case decided by the preferred side (the published
// code's |delta|/delta gave +1 or -1 there depending on rounding).
double sign_of(double delta, Side preferred) {
  if (std::abs(kPi - std::abs(delta)) < kDeadAhead) return side_sign(preferred);
  return delta > 0 ? 1.0 : -1.0;
}

struct Push {
  Vec2 raw;       // red
  Vec2 adjusted;  // blue
  double weight;  // cardioid r
};

// Step 3 for an obstacle in front (dot(u, away) < 0): the raw push turned towards a side by up
// to 90 degrees. beta = |delta2| - 90 degrees = atan2(-along, |side|), and the inverted quarter
// ellipse of |delta2| is 1 - sqrt(1 - v^2) with v = beta / 90 degrees. The batch kernel below
// repeats these lines exactly.
//
// The side, once chosen, is kept (as the split fix's write-up says: choose one side, once): for an
// obstacle that the straight path along u still meets (`in_path`), the side is the one the agent's
// `heading` (its unit velocity; zero at rest) already passes it on. Without that, an agent that
// has turned right sees its goal, and so u, swing back past the obstacle's centre, turns left, and
// meets the obstacle head on. Dead ahead of the heading too, the preferred side.
double turn_sign(double side, double beta, double heading_side, bool in_path,
                 double preferred_sign) {
  const double geometric = kPi / 2 - beta < kDeadAhead ? preferred_sign : (side > 0 ? 1.0 : -1.0);
  const double kept = heading_side > 0 ? 1.0 : (heading_side < 0 ? -1.0 : geometric);
  return in_path ? kept : geometric;
}

Vec2 turned_push(Vec2 u, Vec2 away, Vec2 raw, double weight, Side preferred, Vec2 heading,
                 bool in_path) {
  const double along = dot(u, away), side = cross(u, away);
  const double beta = qt::atan2_first_quadrant(std::max(-along, 0.0), std::abs(side));
  const double v = beta * (2 / kPi);  // a product: no division per neighbour
  const double turn = kPi * weight * (1 - std::sqrt(std::max(0.0, 1 - v * v))) / 2;
  const double sign = turn_sign(side, beta, cross(heading, away), in_path, side_sign(preferred));
  const qt::SinCos r = qt::sin_cos_half_turn(-turn * sign);
  return {raw.x * r.cos - raw.y * r.sin, raw.y * r.cos + raw.x * r.sin};
}

// What every neighbour's part needs of the avoiding agent, computed once per agent.
struct Self {
  const Mover& mover;
  Vec2 u;                // unit desired direction
  double desired_speed;  // |desired|
  double speed;          // |velocity|
  Vec2 heading;          // heading_of(velocity): the side of an obstacle in the path is kept by it
};

Self self_of(const Mover& mover, Vec2 u) {
  return {mover, u, length(mover.desired), length(mover.velocity), heading_of(mover.velocity)};
}

// Steps 1-3 for one obstacle.
Push obstacle_push(const AvoidanceDef& def, const Self& s, const Neighbour& o) {
  const Mover& self = s.mover;
  const Vec2 u = s.u;
  const double radius_sum = self.radius + o.radius;
  const Vec2 away = self.position - o.position;
  double d = length(away);
  Vec2 away_unit = d > 1e-12 ? away * (1.0 / d) : Vec2{};
  if (d < 1e-3 * radius_sum) {
    // Coincident centres (the published code divided by zero): push towards the preferred side
    // of the path.
    away_unit = Vec2{-u.y, u.x} * side_sign(def.preferred_side);  // u turned by +-90 degrees
    d = 1e-3 * radius_sum;
  }
  const double mag = antigravity_magnitude(def.personal_space, radius_sum, d);
  const Vec2 raw = away_unit * mag;
  if (def.mode == AvoidanceMode::circle) return {raw, raw, 1.0};
  // In the path along u: the centres' distance across it is under the radii's sum.
  const bool in_path = d * std::abs(cross(u, away_unit)) < radius_sum;
  const CardioidPush c = cardioid_push(u, away_unit, raw, def.cardioid_exponent, def.preferred_side,
                                       s.heading, in_path);
  return {raw, c.adjusted, c.weight};
}

// A remark of the anti-gravity write-up, recalled with the crossing fix: "if we have no chance of
// catching the obstacle we are following, we might as well ignore its anti-gravity": it is ahead,
// moving away, along our path at least as fast as we want to go.
bool cannot_catch(const Self& s, const Neighbour& o) {
  const Vec2 to_o = o.position - s.mover.position;
  if (dot(to_o, s.u) <= 0) return false;                            // not ahead
  if (dot(o.velocity - s.mover.velocity, to_o) <= 0) return false;  // not moving away
  return dot(o.velocity, s.u) >= s.desired_speed;
}

// The crossing fix for one moving obstacle: may scale or mirror the push; true when it looked.
bool crossing_fix(const AvoidanceDef& def, const Self& s, const Neighbour& o, Push& p,
                  PushTrace* t) {
  const Mover& self = s.mover;
  const Vec2 u = s.u;
  const double speed1 = s.speed;
  // Cheap tests first (squared lengths): most neighbours are not close ahead of a moving agent.
  if (o.is_obstacle || speed1 < kMovingSpeed ||
      length_squared(o.velocity) < kMovingSpeed * kMovingSpeed)
    return false;
  const Vec2 to_o = o.position - self.position;
  // The crossing fix: d40 = |vel| * 40 frames + w/2; react only to what is close ahead
  // (|delta| < 90 degrees, the angle from u to the obstacle: a positive dot product).
  const double d40 = speed1 * def.crossing_activation + self.radius;
  if (!(dot(to_o, u) > 0 && length_squared(to_o) < d40 * d40)) return false;
  const double speed2 = length(o.velocity);
  const double dis = length(to_o);

  // Look-ahead segments: own desired path, own current path, the other's current path.
  const double h = def.lookahead;
  const Vec2 desired_end = self.position + u * (speed1 * h);
  const Vec2 current_end = self.position + self.velocity * h;
  const Vec2 other_end = o.position + o.velocity * h;
  const auto on_desired = segment_intersection(self.position, desired_end, o.position, other_end);
  const auto on_current = segment_intersection(self.position, current_end, o.position, other_end);
  if (t) {
    t->crossing = true;
    t->path_to = other_end;
  }
  const double closeness = dis / d40;
  const double ratio1 = closeness > 0.8 ? 0.0 : (1 - 1.25 * closeness) * (1 - 1.25 * closeness);
  if (!on_desired) {
    // No crossing: keep the push in proportion to how head-on they move (1 head-on, 0 side by
    // side), plus the closeness term.
    const Vec2 sum = normalized_or_zero(self.velocity) + normalized_or_zero(o.velocity);
    const double scale = std::max(0.0, 1 - length_squared(sum) / 2) + ratio1;
    p.raw *= scale;
    p.adjusted *= scale;
    if (t) t->crossing_scale = scale;
    return true;
  }
  // Right of way to whoever reaches the crossing first (on the current paths when they cross).
  const Vec2 point = on_current ? *on_current : *on_desired;
  const double t1 = length(point - self.position) / speed1;
  const double t2 = length(point - o.position) / speed2;
  if (t) {
    t->crossing_point = point;
    t->t_self = t1;
    t->t_other = t2;
  }
  if (t2 > t1 || t1 < kSeedFrame) return true;  // we get there first (or are all but across)
  const double ratio = t2 / t1;
  double ratio2 = 3;
  // The published code tested t2 - t1 > 50 frames, which can never hold here (t2 <= t1): the
  // intent is that an obstacle reaching the crossing much earlier than us needs less of a detour.
  if (t1 - t2 > 50 * kSeedFrame) ratio2 *= 1 - ((t1 - t2) - 50 * kSeedFrame) / (50 * kSeedFrame);
  ratio2 = std::max(ratio2, 0.0);
  if (t1 > 80 * kSeedFrame) ratio2 *= std::max(0.0, (120 * kSeedFrame - t1) / (40 * kSeedFrame));
  // Ease out as the crossing nears.
  if (t2 < 20 * kSeedFrame && !on_current) ratio2 *= (t2 / (20 * kSeedFrame)) * ratio;
  ratio2 += ratio1;
  p.raw = mirror_about(u, p.raw) * ratio2;
  p.adjusted = mirror_about(u, p.adjusted) * ratio2;
  if (t) {
    t->yielded = true;
    t->crossing_scale = ratio2;
  }
  return true;
}

}  // namespace

std::string_view to_string(AvoidanceMode mode) {
  switch (mode) {
    case AvoidanceMode::none:
      return "none";
    case AvoidanceMode::circle:
      return "circle";
    case AvoidanceMode::cardioid:
      return "cardioid";
    case AvoidanceMode::orca:
      return "orca";
    case AvoidanceMode::cfsm:
      return "cfsm";
  }
  return "none";
}

double antigravity_magnitude(double personal_space, double radius_sum, double distance) {
  const double d = std::max(distance, 1e-3 * radius_sum);
  if (d <= 0) return 0;  // two zero-radius points on top of each other: nothing to push
  return personal_space * radius_sum * radius_sum / (d * d);
}

double cardioid_weight(double delta, double exponent) {
  return std::pow((1 + std::cos(delta)) / 2, exponent);
}

CardioidPush cardioid_push(Vec2 u, Vec2 away, Vec2 raw, double exponent, Side preferred,
                           Vec2 heading, bool in_path) {
  const double along = dot(u, away);                          // cos delta2; cos delta1 = -along
  const double base = std::clamp((1 - along) / 2, 0.0, 1.0);  // |u|, |away| may be 1 + an ulp
  const double weight = exponent == 3.0 ? base * base * base : std::pow(base, exponent);
  // Obstacles beside or behind (|delta2| <= 90 degrees) push straight away: no turn.
  if (along >= 0) return {raw, weight};
  return {turned_push(u, away, raw, weight, preferred, heading, in_path), weight};
}

double push_cutoff_scale(const AvoidanceDef& def) {
  return std::sqrt(def.personal_space / def.push_epsilon);
}

double adjusted_push_angle(double raw_angle, double delta2, double weight, Side preferred) {
  // Inverted quarter ellipse: 0 when the push is at 90 degrees to the path or less, 1 when it is
  // straight against it; the rotation is up to 90 degrees, scaled by the cardioid weight too.
  const double a = std::abs(delta2);
  const double r2 = a >= kPi / 2 ? 1 - quarter_ellipse(a) : 0.0;
  const double turn = kPi * weight * r2 / 2;
  return raw_angle - turn * sign_of(delta2, preferred);
}

namespace {

// The published split-fix code for A, with its commented-out squaring line restored.
Vec2 seed_green(Vec2 sum_raw, double mag_old, double mag_new, double theta, Side preferred) {
  const double ratio = 1 - mag_new / mag_old;
  const double new_theta = -ratio * (1 / (mag_new + 1)) * (kPi / 2);
  const double delta = wrap_angle(angle_of(sum_raw) - theta);
  double side = 0;  // the published axxx: 0 unless the yellow points backwards, then a squared ramp
  if (std::abs(delta) > kPi / 2) {
    const double linear = (std::abs(delta) - kPi / 2) / (kPi / 2);
    // The published "square and give it a sign" line was commented out by a stray '/': the typo it
    // mentions. Restored here.
    side = linear * linear * sign_of(delta, preferred);
  }
  return rotate(sum_raw, new_theta * side) * (ratio * (1 / (mag_new + 1)) * std::abs(side));
}

// The stated idea for A: the yellow sum adjusted as if it were one obstacle (the side fix's
// rotation, with that obstacle's cardioid weight), counted in proportion to how much the adjusted
// pushes cancelled each other (1 - |B|/|Y|: 0 for a lone obstacle, whose B already is its
// adjustment). In vector form, as cardioid_push: the same to rounding as the angles (raw angle,
// delta1 = raw angle - pi - theta, delta2 = raw angle - theta; tests/sim/avoidance_test.cpp).
Vec2 summed_obstacle_green(Vec2 sum_raw, double mag_old, double mag_new, Vec2 u, Side preferred,
                           double exponent) {
  const Vec2 away = sum_raw * (1.0 / mag_old);
  return cardioid_push(u, away, away * (mag_old * (1 - mag_new / mag_old)), exponent, preferred)
      .adjusted;
}

// The angle between u and v (neither zero), in [0, pi].
double angle_between(Vec2 u, Vec2 v) {
  const double along = dot(u, v), side = std::abs(cross(u, v));
  return along >= 0 ? qt::atan2_first_quadrant(side, along)
                    : kPi - qt::atan2_first_quadrant(side, -along);
}

}  // namespace

SplitFix split_fix(Vec2 sum_raw, Vec2 sum_adjusted, Vec2 u, Side preferred, SplitFixMode mode,
                   double cardioid_exponent) {
  SplitFix out;
  const double mag_old = length(sum_raw);
  const double mag_new = length(sum_adjusted);
  // Only when the adjusted pushes cancelled (the sum of blue is shorter than the yellow).
  if (mag_old >= mag_new && mag_old > 0) {
    out.green =
        mode == SplitFixMode::seed
            ? seed_green(sum_raw, mag_old, mag_new, angle_of(u), preferred)
            : summed_obstacle_green(sum_raw, mag_old, mag_new, u, preferred, cardioid_exponent);
  }
  // igFac: B counts fully when A + B is square to the path, not at all when it is along or
  // against it (a quarter ellipse of the angle).
  const Vec2 combined = out.green + sum_adjusted;
  if (length_squared(combined) > 0) out.ig_factor = quarter_ellipse(angle_between(u, combined));
  return out;
}

namespace {

// Steps 5 and 6 from the sums of the pushes: the direction.
Vec2 combine(const AvoidanceDef& def, Vec2 u, Vec2 sum_raw, Vec2 sum_adjusted,
             AvoidanceTrace* trace) {
  Vec2 direction;
  if (def.mode == AvoidanceMode::circle) {
    direction = normalized_or_zero(u + sum_raw);
  } else {
    const SplitFix fix = split_fix(sum_raw, sum_adjusted, u, def.preferred_side, def.split_fix,
                                   def.cardioid_exponent);
    direction = normalized_or_zero(u + fix.green + sum_adjusted * fix.ig_factor);
    if (trace) {
      trace->split_fix = fix.green;
      trace->ig_factor = fix.ig_factor;
    }
  }
  if (trace) {
    trace->sum_raw = sum_raw;
    trace->sum_adjusted = sum_adjusted;
    trace->final_dir = direction;
  }
  return direction;
}

}  // namespace

Vec2 avoidance_direction(const AvoidanceDef& def, const Mover& self,
                         std::span<const Neighbour> neighbours, AvoidanceTrace* trace) {
  const Vec2 u = normalized_or_zero(self.desired);
  if (trace) {
    *trace = AvoidanceTrace{};
    trace->desired_dir = u;
    trace->desired_path_to = self.position + u * (length(self.velocity) * def.lookahead);
    trace->current_path_to = self.position + self.velocity * def.lookahead;
  }
  if (u == Vec2{} || def.mode == AvoidanceMode::none) {
    if (trace) trace->final_dir = u;
    return u;
  }
  const Self s = self_of(self, u);
  Vec2 sum_raw, sum_adjusted;
  for (const Neighbour& o : neighbours) {
    PushTrace* t = nullptr;
    if (trace) {
      trace->pushes.push_back({});
      t = &trace->pushes.back();
      t->id = o.id;
      t->is_obstacle = o.is_obstacle;
    }
    Push p = obstacle_push(def, s, o);
    if (def.mode == AvoidanceMode::cardioid) {
      if (!o.is_obstacle && cannot_catch(s, o)) {
        if (t) t->ignored = true;
        p.weight = 0;
      } else if (def.crossing) {
        crossing_fix(def, s, o, p, t);
      }
    }
    if (t) {
      t->raw = p.raw;
      t->adjusted = p.adjusted;
      t->weight = p.weight;
    }
    sum_raw += p.raw * p.weight;
    sum_adjusted += p.adjusted * p.weight;
  }
  return combine(def, u, sum_raw, sum_adjusted, trace);
}

// ---- The batch form ----------------------------------------------------------------------------

void NeighbourBatch::push(Vec2 position, Vec2 velocity, double r, bool is_obstacle) {
  resize(n_ + 1);
  set(n_ - 1, position, velocity, r, is_obstacle);
}

std::size_t NeighbourBatch::memory_bytes() const {
  std::size_t total = 0;
  for (const std::vector<double>* v : {&x, &y, &vx, &vy, &radius, &obstacle, &raw_x, &raw_y,
                                       &adjusted_x, &adjusted_y, &weight, &crossing})
    total += v->capacity() * sizeof(double);
  return total;
}

void NeighbourBatch::resize(std::size_t n) {
  const std::size_t lanes = whole_lanes(n);
  if (x.size() < lanes) {
    const std::size_t size = std::max(lanes, 2 * x.size());
    for (std::vector<double>* v : {&x, &y, &vx, &vy, &radius, &obstacle, &raw_x, &raw_y,
                                   &adjusted_x, &adjusted_y, &weight, &crossing})
      v->resize(size);
  }
  n_ = n;
}

Neighbour NeighbourBatch::at(std::size_t i, std::uint32_t id) const {
  return {id, obstacle[i] != 0, {x[i], y[i]}, {vx[i], vy[i]}, radius[i]};
}

namespace {

// What the kernel needs of the avoiding agent.
struct KernelSelf {
  double px, py, vx, vy, radius;
  double ux, uy;          // unit desired direction
  double perp_x, perp_y;  // u turned a quarter towards the preferred side
  double desired_speed, speed;
  double personal_space, preferred_sign, d40_sq;
  double hx, hy;  // unit velocity (heading_of), zero at rest
  bool crossing;
};

// The kernel, compiled for plain x86-64 (SSE2: two lanes) and, with GCC, for AVX2 (four) and
// AVX-512 (eight), the widest the processor has picked at run time. Both do the same IEEE
// operations per lane in the same order (no fused multiply-adds: -ffp-contract=off), so both give
// the same bits.
namespace base {
#include "avoidance_kernel.inc"
}  // namespace base
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HERD_AVX2_KERNEL 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "avoidance_kernel.inc"
}  // namespace avx2
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f", "prefer-vector-width=512")
namespace avx512 {
#include "avoidance_kernel.inc"
}  // namespace avx512
#pragma GCC pop_options
#endif

// One instruction set's kernels.
struct Kernel {
  decltype(&base::push_batch) push = nullptr;
  decltype(&base::combine_batch_kernel) combine = nullptr;
};
Kernel kernel_named(std::string_view name) {
#ifdef HERD_AVX2_KERNEL
  __builtin_cpu_init();  // this may run in a static initialiser, before libgcc's own
  if (name == "avx512" && __builtin_cpu_supports("avx512f"))
    return {&avx512::push_batch, &avx512::combine_batch_kernel};
  if (name == "avx2" && __builtin_cpu_supports("avx2"))
    return {&avx2::push_batch, &avx2::combine_batch_kernel};
#endif
  return name == "base" ? Kernel{&base::push_batch, &base::combine_batch_kernel} : Kernel{};
}
Kernel widest_kernel() {
  for (std::string_view name : {"avx512", "avx2"})
    if (Kernel k = kernel_named(name); k.push) return k;
  return {&base::push_batch, &base::combine_batch_kernel};
}
Kernel chosen_kernel = widest_kernel();

}  // namespace

bool use_avoidance_kernel(std::string_view name) {
  Kernel k = name.empty() ? widest_kernel() : kernel_named(name);
  if (!k.push) return false;
  chosen_kernel = k;
  return true;
}

PushSums avoidance_sums(const AvoidanceDef& def, const Mover& self, NeighbourBatch& b) {
  const Vec2 u = normalized_or_zero(self.desired);
  if (u == Vec2{} || def.mode == AvoidanceMode::none) return {u, {}, {}};
  const std::size_t n = b.size();
  const Self s = self_of(self, u);
  const double d40 = s.speed * def.crossing_activation + self.radius;
  const Vec2 perp = Vec2{-u.y, u.x} * side_sign(def.preferred_side);  // as obstacle_push
  const KernelSelf k{self.position.x,
                     self.position.y,
                     self.velocity.x,
                     self.velocity.y,
                     self.radius,
                     u.x,
                     u.y,
                     perp.x,
                     perp.y,
                     s.desired_speed,
                     s.speed,
                     def.personal_space,
                     side_sign(def.preferred_side),
                     d40 * d40,
                     s.heading.x,
                     s.heading.y,
                     def.crossing};
  // The kernel runs whole vectors: the lanes past n hold a harmless obstacle (a unit away, at
  // rest), so the compiler's scalar remainder loop, many times slower per neighbour, never runs.
  // Each lane is computed on its own, and nothing reads the padding's results.
  const std::size_t lanes = NeighbourBatch::whole_lanes(n);
  for (std::size_t i = n; i < lanes; ++i) b.set(i, self.position + Vec2{1, 0}, {}, 1.0, true);
  chosen_kernel.push(k, b, lanes);
  const bool circle = def.mode == AvoidanceMode::circle;  // the kernel's pushes are cardioid ones
  Vec2 sum_raw, sum_adjusted;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 raw{b.raw_x[i], b.raw_y[i]};
    Push p =
        circle ? Push{raw, raw, 1.0} : Push{raw, {b.adjusted_x[i], b.adjusted_y[i]}, b.weight[i]};
    if (!circle && b.crossing[i] != 0) crossing_fix(def, s, b.at(i), p, nullptr);
    sum_raw += p.raw * p.weight;
    sum_adjusted += p.adjusted * p.weight;
  }
  return {u, sum_raw, sum_adjusted};
}

Vec2 avoidance_direction(const AvoidanceDef& def, const Mover& self, NeighbourBatch& b) {
  if (def.mode == AvoidanceMode::cardioid && def.cardioid_exponent != 3.0) {
    // Another exponent needs std::pow per neighbour: the span form does it (on a list kept per
    // thread, so a step allocates nothing once warm).
    thread_local std::vector<Neighbour> list;
    list.clear();
    for (std::size_t i = 0; i < b.size(); ++i) list.push_back(b.at(i));
    return avoidance_direction(def, self, list);
  }
  const PushSums sums = avoidance_sums(def, self, b);
  if (sums.u == Vec2{} || def.mode == AvoidanceMode::none) return sums.u;
  return combine(def, sums.u, sums.sum_raw, sums.sum_adjusted, nullptr);
}

bool combines_in_batch(const AvoidanceDef& def) {
  return def.mode == AvoidanceMode::cardioid && def.cardioid_exponent == 3.0 &&
         def.split_fix == SplitFixMode::sum_as_obstacle;
}

void SumsBatch::push(const PushSums& s) {
  // Whole vectors of NeighbourBatch::kLanes, as the push kernel's arrays: the lanes past size()
  // are computed and never read.
  const std::size_t lanes = NeighbourBatch::whole_lanes(n_ + 1);
  if (ux.size() < lanes) {
    const std::size_t size = std::max(lanes, 2 * ux.size());
    for (std::vector<double>* v :
         {&ux, &uy, &raw_x, &raw_y, &adjusted_x, &adjusted_y, &dir_x, &dir_y})
      v->resize(size);
  }
  ux[n_] = s.u.x;
  uy[n_] = s.u.y;
  raw_x[n_] = s.sum_raw.x;
  raw_y[n_] = s.sum_raw.y;
  adjusted_x[n_] = s.sum_adjusted.x;
  adjusted_y[n_] = s.sum_adjusted.y;
  ++n_;
}

std::size_t SumsBatch::memory_bytes() const {
  std::size_t total = 0;
  for (const std::vector<double>* v :
       {&ux, &uy, &raw_x, &raw_y, &adjusted_x, &adjusted_y, &dir_x, &dir_y})
    total += v->capacity() * sizeof(double);
  return total;
}

void combine_batch(const AvoidanceDef& def, SumsBatch& sums) {
  const std::size_t n = sums.size();
  if (!combines_in_batch(def)) {  // the scalar combine, one at a time
    for (std::size_t i = 0; i < n; ++i) {
      const Vec2 d = combine(def, {sums.ux[i], sums.uy[i]}, {sums.raw_x[i], sums.raw_y[i]},
                             {sums.adjusted_x[i], sums.adjusted_y[i]}, nullptr);
      sums.dir_x[i] = d.x;
      sums.dir_y[i] = d.y;
    }
    return;
  }
  // Whole vectors (the padding lanes' inputs are whatever was there: each lane on its own).
  const std::size_t lanes = NeighbourBatch::whole_lanes(n);
  chosen_kernel.combine(side_sign(def.preferred_side), sums, lanes);
}

}  // namespace herd::sim
