// The World's pathing: how agents with a pathing mode other than direct get to their
// goal through the tile map, how everyone is kept out of walls, and what is refused up front.
#include <algorithm>
#include <cmath>

#include "steering.hpp"
#include "tile_collision.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

constexpr std::size_t kMaxCachedFields = 64;  // a new goal past this drops the cache

Neighbourhood neighbourhood_of(std::uint8_t n) { return n == 4 ? Neighbourhood::four : Neighbourhood::eight; }

std::string tile_text(TileCoord t) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, bug 105329) on chained operator+.
  std::string out = "(";
  out += std::to_string(t.x);
  out += ", ";
  out += std::to_string(t.y);
  out += ')';
  return out;
}

}  // namespace

const FlowField& WorldImpl::flow_field_to(TileCoord goal, std::uint8_t neighbours) {
  const auto key = std::make_pair(map_->index(goal), neighbours);
  auto it = fields_.find(key);
  if (it == fields_.end()) {
    if (fields_.size() >= kMaxCachedFields) fields_.clear();
    it = fields_.emplace(key, std::make_unique<FlowField>()).first;
  }
  FlowField& field = *it->second;
  if (!field.built() || field.map_revision() != map_->revision()) field.build(*map_, goal, neighbourhood_of(neighbours));
  return field;
}

CommandOutcome WorldImpl::check_reachable(Vec2 goal, const std::vector<std::size_t>& indices) {
  if (!map_) return {};
  const TileCoord tile = map_->tile_at(goal);
  CommandOutcome out;
  if (map_->blocked(tile)) {
    out.error = CommandError::unreachable;
    out.message = "the target is on tile " + tile_text(tile) + ", which is blocked";
    return out;
  }
  for (std::size_t i : indices) {
    const Agent& a = agents_[i];
    if (a.pathing == Pathing::direct) continue;  // direct steering promises nothing
    if (!flow_field_to(tile, a.neighbours).reachable(map_->tile_at(a.position))) {
      out.error = CommandError::unreachable;
      out.message = "agent " + std::to_string(a.id) + " cannot reach tile " + tile_text(tile) + " from tile " +
                    tile_text(map_->tile_at(a.position));
      return out;
    }
  }
  return out;
}

// The path queue (DetourCrowd's dtPathQueue, counted in tile expansions instead of its
// iterations): A* agents whose plan is stale join a FIFO queue; each tick serves it with a fixed
// budget of expansions, slicing a long search over as many ticks as it needs. With budget to
// spare, every request is answered in the tick it was made, exactly as planning at once would.

static std::optional<TileCoord> goal_tile_of(const TileMap& map, const Desire& d) {
  return d.goal ? std::optional(map.tile_at(*d.goal)) : std::nullopt;
}

// Stale A* agents with a goal, in agent order, join the queue (once: a pending one waits).
void WorldImpl::request_paths() {
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    PathState& p = paths_[i];
    if (a.pathing != Pathing::astar || p.pending) continue;
    const std::optional<TileCoord> goal_tile = goal_tile_of(*map_, desires_[i]);
    if (!goal_tile || (p.planned_for == goal_tile && p.planned_revision == map_version_)) continue;
    p.pending = true;
    p.unreachable = false;  // not known until the search says so
    path_queue_.push_back(a.id);
  }
}

void WorldImpl::serve_path_queue() {
  std::uint32_t budget = def_.path_expansions_per_tick;
  path_stats_.expansions_last_tick = 0;
  // A search begun on another map is void: its agent goes back to the head of the queue.
  if (path_search_.agent != kNoAgent && path_search_.revision != map_version_) {
    path_queue_.push_front(path_search_.agent);
    path_search_ = {};
  }
  while (budget > 0) {
    if (path_search_.agent == kNoAgent) {
      if (path_queue_.empty()) break;
      const AgentId id = path_queue_.front();
      path_queue_.pop_front();
      const std::size_t i = index_of(id);
      if (i == agents_.size() || !paths_[i].pending) continue;  // removed, or given another pathing
      const Agent& a = agents_[i];
      const std::optional<TileCoord> goal_tile = goal_tile_of(*map_, desires_[i]);
      if (a.pathing != Pathing::astar || !goal_tile) {
        paths_[i].pending = false;
        continue;
      }
      path_search_ = {id, map_->tile_at(a.position), *goal_tile, a.neighbours, map_version_};
      path_finder_.begin(*map_, path_search_.start, path_search_.goal, neighbourhood_of(a.neighbours));
    }
    const std::uint32_t before = path_finder_.result().expanded;
    const bool done = path_finder_.resume(*map_, budget, tile_path_);
    const std::uint32_t used = path_finder_.result().expanded - before;
    budget -= used;
    path_stats_.expansions_last_tick += used;
    if (!done) break;
    // Smoothing costs about a tile per path tile: charge it too.
    budget -= static_cast<std::uint32_t>(std::min<std::size_t>(budget, tile_path_.size()));
    finish_path();
  }
  path_stats_.expansions_total += path_stats_.expansions_last_tick;
  path_stats_.deferred_total += path_queue_.size() + (path_search_.agent != kNoAgent);
}

// The finished search's path, smoothed for its agent's radius from where the agent now stands
// (the first waypoint) to the goal, if the agent still waits for it.
void WorldImpl::finish_path() {
  const PathSearch search = path_search_;
  path_search_ = {};
  ++path_stats_.paths_served_total;
  const std::size_t i = index_of(search.agent);
  if (i == agents_.size() || !paths_[i].pending) return;
  const Agent& a = agents_[i];
  PathState& p = paths_[i];
  p.pending = false;
  p.planned_for = search.goal;
  p.planned_revision = search.revision;
  p.waypoints.clear();
  p.next = 1;
  p.unreachable = !path_finder_.result().found();
  if (p.unreachable) return;
  path_points(*map_, tile_path_, points_scratch_);
  points_scratch_.front() = a.position;
  string_pull(*map_, points_scratch_, a.def.radius, p.waypoints);
}

// A new map or none: queued requests are for tiles that no longer exist.
void WorldImpl::drop_path_queue() {
  path_queue_.clear();
  path_search_ = {};
}

PathQueueStats WorldImpl::path_queue_stats() const {
  PathQueueStats s = path_stats_;
  s.queued = path_queue_.size() + (path_search_.agent != kNoAgent);
  return s;
}

void WorldImpl::stage_pathing() {
  if (!map_) return;  // nothing to plan on (and paths_ is empty)
  paths_.resize(agents_.size());
  request_paths();
  serve_path_queue();
  const double next_time = static_cast<double>(tick_ + 1) * def_.dt;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    PathState& p = paths_[i];
    Desire& d = desires_[i];
    if (a.pathing == Pathing::direct) {
      p.unreachable = false;
      continue;
    }
    const TileCoord here = map_->tile_at(a.position);
    const std::optional<TileCoord> goal_tile = goal_tile_of(*map_, d);
    const bool stale = p.planned_for != goal_tile || p.planned_revision != map_version_;
    if (a.pathing == Pathing::no_backtrack) {
      // Seed 002's walker moves the agent itself, tile by tile (see stage_walls); no steering.
      if (!p.walker_placed) {
        walker_place(p.walker, here);
        p.walker_placed = true;
      }
      if (stale) {
        p.planned_for = goal_tile;
        p.planned_revision = map_version_;
        p.unreachable = goal_tile && walker_set_target(p.walker, *map_, *goal_tile) != WalkerTargetError::none;
      }
      if (!p.unreachable) walker_advance(p.walker, *map_, def_.walker, next_time);
      d.velocity = {};
      continue;
    }
    if (!goal_tile) continue;
    if (a.pathing == Pathing::astar) {
      // Waiting for a path: the old one while it leads to the same tile, else the behaviour's
      // own straight line (walls stop it).
      if (p.pending && (p.planned_for != goal_tile || p.waypoints.empty())) continue;
      if (p.unreachable || p.waypoints.empty()) {
        d.velocity = {};
        continue;
      }
      p.waypoints.back() = *d.goal;  // a moving goal within the same tile
      const double reach = std::max(a.def.radius, 0.25 * map_->tile_size());
      while (p.next + 1 < p.waypoints.size() && length(p.waypoints[p.next] - a.position) <= reach) ++p.next;
      // The last leg is the behaviour's own (arrive stops on the goal); before it, full speed on.
      if (p.next + 1 < p.waypoints.size()) d.velocity = seek_desired_velocity(a.position, p.waypoints[p.next], a.def.max_speed);
      continue;
    }
    // Flow: one field per goal tile, shared; the behaviour takes over once the goal is in sight.
    p.planned_for = goal_tile;
    p.planned_revision = map_version_;
    const FlowField& field = flow_field_to(*goal_tile, a.neighbours);
    p.unreachable = !field.reachable(here);
    if (p.unreachable) d.velocity = {};
    else if (here != *goal_tile && !clear_segment(*map_, a.position, *d.goal, a.def.radius))
      d.velocity = field.sample(a.position) * a.def.max_speed;
  }
}

void WorldImpl::stage_walls() {
  if (!map_) return;
  const double now = static_cast<double>(tick_ + 1) * def_.dt;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    const PathState& p = paths_[i];
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
