// herd::sim tile geometry: line of sight over a TileMap and circles versus blocked tiles.
//
// All functions are pure, take world units, and never return NaN or infinity: non-finite inputs
// give "no line of sight" and a zero push. Out-of-bounds tiles are blocked (TileMap::blocked), so
// the map's border is a wall like any other.
#pragma once

#include "herd/sim/tile_map.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// True when the segment a-b passes only through walkable tiles: an exact grid traversal
// (Amanatides & Woo, "A Fast Voxel Traversal Algorithm", 1987) over the half-open tiles of
// tile_map.hpp, visiting every tile the segment has a point in. Where the segment passes exactly
// through a tile corner (within 1e-9 of the segment's length) both tiles beside that corner must
// be walkable too, the rule A* uses against corner cutting: no squeezing between two diagonal
// walls. Conservative by a hair: an endpoint lying exactly on a grid line also checks the tiles
// it only touches. O(number of tiles crossed).
bool line_of_sight(const TileMap& map, Vec2 a, Vec2 b);

// True when a disc of `radius` swept along a-b stays clear of every blocked tile: each blocked
// tile (out-of-bounds ones included) is strictly farther than `radius` from the segment, so a
// swept disc may not even touch one. radius <= 0 is line_of_sight(). Exact (segment-to-square
// distances) and visits only tiles within `radius` of the segment's rows: O(length/s * (1+2r/s)^2)
// at worst, s = tile size.
bool clear_segment(const TileMap& map, Vec2 a, Vec2 b, double radius);

// Minimal translation that moves a circle (centre, radius >= 0) out of the blocked tiles.
//
// Contacts are resolved one at a time, the deepest first, up to kMaxPushIterations times. A
// contact with one tile is its exact minimum translation: the nearest exposed face (its normal
// times the overlap) or, near a convex corner, away from the corner point. Faces shared by two
// blocked tiles are internal and never push, so a circle sliding along a wall made of many
// tiles feels one flat wall (no sideways "ghost" pushes at the seams), and an inner corner is
// resolved as its two walls, which sums to the exact minimum. A centre inside a blocked tile
// (or exactly on its edge or corner) leaves through the nearest face with a walkable tile
// beyond it (ties: left, right, up, down); walled in on all four sides, it heads for the
// nearest walkable tile (a tile toggled to blocked under an agent). A centre off the map is first
// clamped onto it.
// A circle that cannot fit (a corridor narrower than its diameter) gets the last iterate,
// which is finite but may still overlap. Result finite; {0, 0} for non-finite input.
Vec2 push_out(const TileMap& map, Vec2 centre, double radius);

// How deep the circle overlaps the blocked tiles: the largest contact depth push_out() would
// resolve first (units), 0 when the circle touches nothing. For tests and assertions.
double penetration(const TileMap& map, Vec2 centre, double radius);

inline constexpr int kMaxPushIterations = 8;

}  // namespace herd::sim
