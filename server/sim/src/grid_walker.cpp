#include "grid_walker.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

// Where this differs from the tutorial's code, and why (the idea is kept whole):
//  1. Time. The tutorial notices an arrival in the first frame after it
//     (t - departed >= moveSpeed), snaps to the tile, and chooses the next tile only in the frame
//     after that, departing at that frame's time: every tile takes 230 ms plus up to two frames,
//     so the walker's speed depends on the frame rate. Here a move that ends at time T starts the
//     next at T exactly, in the same call, so the speed is one tile per move_time whatever the
//     tick rate.
//  2. Targets. The tutorial's setTarget accepts any tile (only its click handler filtered out
//     walls); a blocked or off-map target makes the walker wander forever. walker_set_target
//     refuses it.
//  3. Dead ends. With no free neighbour the tutorial silently does nothing; here the status says
//     `stuck`, so a server can report it instead of stalling silently.
//  4. The tutorial's `for (h in this.history)` iterates string keys and relies on `h*10` coercing
//     them to numbers; here h is an integer index, with the same value (0 = oldest).

namespace herd::sim {
namespace {

// The tutorial's push order: left, right, up, down (y grows downwards, so "up" is y - 1).
constexpr TileCoord kSteps[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

// The tutorial's getDistance: Euclidean distance between tile coordinates.
double tile_distance(TileCoord a, TileCoord b) {
  const double dx = static_cast<double>(a.x) - b.x;
  const double dy = static_cast<double>(a.y) - b.y;
  return std::sqrt(dx * dx + dy * dy);
}

void push_history(WalkerState& walker, TileCoord tile, std::uint32_t max_history) {
  // The tutorial pushes, then shifts one entry when the list is longer than maxHistory.
  walker.history.push_back(tile);
  if (walker.history.size() > max_history) walker.history.erase(walker.history.begin());
}

}  // namespace

std::string validate(const WalkerSettings& s) {
  using L = WalkerLimits;
  if (s.max_history > L::kMaxHistory) return "walker max_history must be in [0, 1024]";
  if (!std::isfinite(s.move_time) || s.move_time < L::kMinMoveTime || s.move_time > L::kMaxMoveTime)
    return "walker move_time must be in [0.001, 60] s";
  return {};
}

void walker_place(WalkerState& walker, TileCoord tile) {
  walker.from = tile;
  walker.to = tile;
  walker.target = tile;
  walker.chain_start = 0.0;
  walker.chain_moves = 0;
  walker.history.clear();
  walker.moves = 0;
  walker.status = WalkerStatus::arrived;
}

WalkerTargetError walker_set_target(WalkerState& walker, const TileMap& map, TileCoord target) {
  if (!map.in_bounds(target)) return WalkerTargetError::out_of_bounds;
  if (map.blocked(target)) return WalkerTargetError::blocked;
  // The tutorial: "when we give the character a new target, we must remember to clear the history!"
  walker.history.clear();
  walker.target = target;
  if (walker.from == walker.to && walker.from != target) walker.status = WalkerStatus::moving;
  return WalkerTargetError::none;
}

double walker_score(const WalkerState& walker, TileCoord neighbour) {
  // The tutorial: n[i][2] = getDistance(...); then n[i][2] + 10 + (h*10) for every history entry
  // h equal to the tile, summed left to right in the tutorial's order so that equal scores (and
  // hence the tie-break) come out bit for bit as in the tutorial.
  double score = tile_distance(walker.target, neighbour);
  for (std::size_t h = 0; h < walker.history.size(); ++h) {
    if (walker.history[h] == neighbour) score = score + 10.0 + static_cast<double>(h) * 10.0;
  }
  return score;
}

std::optional<TileCoord> walker_choose_next(const WalkerState& walker, const TileMap& map) {
  std::optional<TileCoord> best;
  double best_score = 0.0;
  for (const TileCoord step : kSteps) {
    const TileCoord n{walker.from.x + step.x, walker.from.y + step.y};
    if (map.blocked(n)) continue;  // out of bounds counts as blocked, as in the tutorial's checks
    const double score = walker_score(walker, n);
    // Strictly lower only: among equal scores the first pushed wins, as after the tutorial's
    // n.sort((a, b) => a[2] - b[2]) with a stable sort (ES2019 requires sort to be stable).
    if (!best || score < best_score) {
      best = n;
      best_score = score;
    }
  }
  return best;
}

WalkerStatus walker_advance(WalkerState& walker, const TileMap& map, const WalkerSettings& settings,
                            double now) {
  assert(validate(settings).empty());
  // A walker standing still starts its next move now; one that reaches a tile during this call
  // starts the next move at the moment it arrived (difference 1 above).
  if (walker.from == walker.to) {
    walker.chain_start = now;
    walker.chain_moves = 0;
  }
  for (std::uint32_t i = 0; i < WalkerLimits::kMaxMovesPerAdvance; ++i) {
    if (walker.from != walker.to) {
      const double arrival =
          walker.chain_start + static_cast<double>(walker.chain_moves + 1) * settings.move_time;
      if (now < arrival) return walker.status = WalkerStatus::moving;
      walker.from = walker.to;  // the tutorial's setPos(to)
      ++walker.chain_moves;
    }
    if (walker.from == walker.target) return walker.status = WalkerStatus::arrived;
    const std::optional<TileCoord> next = walker_choose_next(walker, map);
    if (!next) return walker.status = WalkerStatus::stuck;
    walker.to = *next;
    ++walker.moves;
    push_history(walker, *next, settings.max_history);
  }
  return walker.status = WalkerStatus::moving;
}

Vec2 walker_position(const WalkerState& walker, const TileMap& map, const WalkerSettings& settings,
                     double now) {
  const Vec2 from = map.tile_centre(walker.from);
  if (walker.from == walker.to) return from;
  const double departed =
      walker.chain_start + static_cast<double>(walker.chain_moves) * settings.move_time;
  double f = (now - departed) / settings.move_time;
  f = f > 0.0 ? std::min(f, 1.0) : 0.0;  // also NaN -> 0
  return from + (map.tile_centre(walker.to) - from) * f;
}

}  // namespace herd::sim
