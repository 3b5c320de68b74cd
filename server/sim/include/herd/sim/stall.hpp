// herd::sim stalls: why an agent that has somewhere to be is not getting there (World::stalls).
//
// The rule, one place for the server, the viewers and the scenario lab: an agent whose state is
// `moving` (or `unreachable`) and whose speed is below kSlowFraction of its max_speed, tick after
// tick, is slow; slow for more than kStallSeconds of world time (counted in ticks, so the same
// run stalls at the same tick), it is stalled and gets a reason, and the agents responsible
// where there are any. Stalls change no motion: they only explain it.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "agent.hpp"
#include "types.hpp"

namespace herd::sim {

// Why a stalled agent is not getting anywhere. The names (stall_name) are the wire's.
enum class StallReason : std::uint8_t {
  none,                 // not stalled
  blocked_by_standing,  // agents standing (idle, arrived, holding) are in its way
  pinned,               // pushed from opposite sides (or head on) by others: the pushes cancel
  oscillating,          // its heading keeps reversing: it goes back and forth near its goal
  queueing,             // those in its way are moving the same way: it waits its turn
  unreachable,          // its pathing cannot reach its goal
  blocked,              // nothing above: a wall, an obstacle, the map or the world's edge, or
                        // its own steering holds it (no agent is responsible)
};
inline constexpr std::size_t kStallReasonCount = 7;

inline constexpr std::array<std::string_view, kStallReasonCount> kStallReasonNames = {
    "none", "blocked_by_standing", "pinned", "oscillating", "queueing", "unreachable", "blocked"};

constexpr std::string_view stall_name(StallReason r) {
  const auto k = static_cast<std::size_t>(r);
  return k < kStallReasonCount ? kStallReasonNames[k] : std::string_view("none");
}
constexpr std::optional<StallReason> stall_from_name(std::string_view name) {
  for (std::size_t k = 0; k < kStallReasonCount; ++k)
    if (kStallReasonNames[k] == name) return static_cast<StallReason>(k);
  return std::nullopt;
}

struct StallRule {
  static constexpr double kSlowFraction = 0.1;  // of max_speed: slower than this is slow
  static constexpr double kStallSeconds = 2.0;  // slow for more than this (world time): stalled
  static constexpr std::size_t kMaxBy = 4;      // responsible agents named, at most
  // A stalled agent's reason is found again every this many ticks (from the tick it stalls on),
  // so a jam of thousands costs a neighbour query each now and then, not every tick.
  static constexpr std::uint32_t kReclassifyTicks = 10;

  // Slow this tick: has somewhere to be (moving, or unreachable) and slower than a tenth of its
  // speed. An agent that cannot move (max_speed 0) is never slow.
  static bool slow(const Agent& a) {
    if (a.state != MoveState::moving && a.state != MoveState::unreachable) return false;
    const double limit = kSlowFraction * a.def.max_speed;
    return a.velocity.x * a.velocity.x + a.velocity.y * a.velocity.y < limit * limit;
  }
  // Ticks of slowness a tick of `dt` s must exceed to be stalled: slow_ticks > mark(dt).
  static std::uint32_t mark(double dt) {
    return static_cast<std::uint32_t>(std::floor(kStallSeconds / dt + 1e-9));
  }
};

// One agent's stall state, parallel to World::agents().
struct Stall {
  std::uint32_t slow_ticks = 0;            // consecutive ticks it has been slow (StallRule::slow)
  StallReason reason = StallReason::none;  // not none exactly while slow_ticks > mark(dt)
  std::uint8_t by_count = 0;               // how many of `by` name agents
  std::uint16_t flips = 0;  // times its heading reversed while slow (saturates at 65535)
  std::array<AgentId, StallRule::kMaxBy> by{};  // the agents responsible, nearest first
  // Its last heading while slow (unit vector, float), for counting reversals; zero when none.
  float heading_x = 0, heading_y = 0;

  bool stalled() const { return reason != StallReason::none; }
  double seconds(double dt) const { return static_cast<double>(slow_ticks) * dt; }
  friend bool operator==(const Stall&, const Stall&) = default;
};

}  // namespace herd::sim
