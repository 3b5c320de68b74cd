// The world's pathing stage and walls: agents with a pathing mode other than direct get to their
// goal through the tile map (the PathService plans), everyone is kept out of walls, and goals no
// pathing can reach are refused up front.
#include "tile_collision.hpp"
#include "world_impl.hpp"

namespace herd::sim {

CommandOutcome WorldImpl::check_reachable(Vec2 goal, const std::vector<std::size_t>& indices) {
  if (!map_) return {};
  return pathing_.check_reachable(*map_, map_version_, agents_, goal, indices);
}

void WorldImpl::stage_pathing() {
  if (!map_) return;  // nothing to plan on (and there are no paths)
  pathing_.plan(
      {*map_, map_version_, agents_, desires_, def_, static_cast<double>(tick_ + 1) * def_.dt});
}

void WorldImpl::stage_walls() {
  run_stage(Stage::walls_tiles, &WorldImpl::keep_out_of_tiles);
  run_stage(Stage::walls_segments, &WorldImpl::hold_at_walls);
}

void WorldImpl::keep_out_of_tiles() {
  if (!map_) return;
  const double now = static_cast<double>(tick_ + 1) * def_.dt;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    const PathState& p = pathing_.path_of(i);
    if (a.pathing == Pathing::no_backtrack && p.walker_placed) {
      // On rails: the walker's position is authoritative; collisions do not move it.
      const Vec2 at = walker_position(p.walker, *map_, def_.walker, now);
      a.velocity = (at - a.position) * (1.0 / def_.dt);
      a.position = at;
      continue;
    }
    const Vec2 push = push_out(*map_, a.position, a.def.radius);
    if (push == Vec2{}) continue;
    a.position += push;
    const Vec2 n = normalized_or_zero(push);
    const double into = dot(a.velocity, n);
    if (into < 0) a.velocity -= n * into;  // a wall stops the velocity into it
  }
}

}  // namespace herd::sim
