// herd::sim grid walker — the no-backtracking tile walker of the "No Backtracking" tutorial,
// faithfully.
//
// Not a pathfinder, on purpose (the tutorial: "this method is not really pathfinding"): at each
// tile the walker takes the free 4-neighbour with the lowest score, where
//
//   score = distance(neighbour, target) + sum over history entries h equal to the neighbour of
//           (10 + 10*h)          (h = 0 is the oldest entry; the newest costs the most)
//
// and appends the chosen tile to a bounded history. It can run back and forth without arriving
// ("the NPC may run madly backwards and forwards, unable to pass a confusing area of terrain");
// that is the tutorial's behaviour and is kept (tests pin such a case on the tutorial's map).
//
// Per-walker state is the plain struct WalkerState, one per agent; the map and the settings are
// shared. Every function is pure apart from the state it is given; time is world time in seconds
// passed in by the caller (no clock).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/types.hpp"
#include "herd/sim/vec2.hpp"
#include "herd/sim/world_def.hpp"

namespace herd::sim {

// The tutorial's setPos: stands the walker on `tile` with no move under way; the target becomes the
// tile too (the tutorial's start sets both). Keeps nothing of the old history.
void walker_place(WalkerState& walker, TileCoord tile);

enum class WalkerTargetError : std::uint8_t { none, out_of_bounds, blocked };

// The tutorial's setTarget: clears the history and sets the target. A target off the map or on a
// blocked tile is refused (state unchanged): the tutorial's click handler only accepted walkable
// tiles, and the walker would otherwise wander forever. Whether the target is reachable at all
// is not checked here (use a FlowField or PathFinder for that). A move under way is finished.
WalkerTargetError walker_set_target(WalkerState& walker, const TileMap& map, TileCoord target);

// The tutorial's choice from `walker.from`: the free 4-neighbour with the lowest score (formula
// above). Candidates are scored in the tutorial's push order left (x-1), right (x+1), up (y-1),
// down (y+1); the first lowest wins, which is what the tutorial's stable sort picks. Empty when no
// neighbour is free. O(4 * history size).
std::optional<TileCoord> walker_choose_next(const WalkerState& walker, const TileMap& map);

// The score above, for one neighbour (exposed for tests).
double walker_score(const WalkerState& walker, TileCoord neighbour);

// Advances the walker to world time `now` (seconds, non-decreasing between calls): finishes the
// moves whose time is up and starts the next ones, each one tile taking settings.move_time.
// Returns the new status (also stored in walker.status).
WalkerStatus walker_advance(WalkerState& walker, const TileMap& map, const WalkerSettings& settings,
                            double now);

// The walker's world position at `now`: the centre of `from`, moving linearly to the centre of `to`
// over move_time (the tutorial's realPos, which drew a 30-unit square at the tile's corner + 5,
// i.e. centred on the tile). Continuous from one move to the next.
Vec2 walker_position(const WalkerState& walker, const TileMap& map, const WalkerSettings& settings,
                     double now);

}  // namespace herd::sim
