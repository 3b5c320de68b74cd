// The world's pathing (path_service.hpp): plans through the tile map, the path queue, flow fields.
#include "path_service.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "agent_index.hpp"
#include "grid_walker.hpp"
#include "steering.hpp"
#include "tile_collision.hpp"

namespace herd::sim {
namespace {

constexpr std::size_t kMaxCachedFields = 64;  // a new goal past this drops the cache

Neighbourhood neighbourhood_of(std::uint8_t n) {
  return n == 4 ? Neighbourhood::four : Neighbourhood::eight;
}

std::string tile_text(TileCoord t) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, bug 105329) on chained operator+.
  std::string out = "(";
  out += std::to_string(t.x);
  out += ", ";
  out += std::to_string(t.y);
  out += ')';
  return out;
}

std::optional<TileCoord> goal_tile_of(const TileMap& map, const Desire& d) {
  return d.goal ? std::optional(map.tile_at(*d.goal)) : std::nullopt;
}

}  // namespace

const PathState& PathService::path_of(std::size_t i) const {
  static const PathState kNoPath;
  return i < paths_.size() ? paths_[i] : kNoPath;
}

PathQueueStats PathService::stats() const {
  PathQueueStats s = stats_;
  s.queued = queue_.size() + (search_.agent != kNoAgent);
  return s;
}

std::size_t PathService::agent_memory_bytes() const {
  std::size_t total = paths_.capacity() * sizeof(PathState);
  for (const PathState& p : paths_)
    total +=
        p.waypoints.capacity() * sizeof(Vec2) + p.walker.history.capacity() * sizeof(TileCoord);
  return total;
}

void PathService::map_loaded(std::size_t agents) {
  paths_.resize(agents);
  fields_.clear();
}

void PathService::map_cleared() {
  fields_.clear();
  paths_ = {};
  drop_queue();
}

const FlowField& PathService::flow_field_to(const TileMap& map, TileCoord goal,
                                            std::uint8_t neighbours) {
  const auto key = std::make_pair(map.index(goal), neighbours);
  auto it = fields_.find(key);
  if (it == fields_.end()) {
    if (fields_.size() >= kMaxCachedFields) fields_.clear();
    it = fields_.emplace(key, std::make_unique<FlowField>()).first;
  }
  FlowField& field = *it->second;
  if (!field.built() || field.map_revision() != map.revision())
    field.build(map, goal, neighbourhood_of(neighbours));
  return field;
}

CommandOutcome PathService::check_reachable(const TileMap& map, std::span<const Agent> agents,
                                            Vec2 goal, const std::vector<std::size_t>& indices) {
  const TileCoord tile = map.tile_at(goal);
  CommandOutcome out;
  if (map.blocked(tile)) {
    out.error = CommandError::unreachable;
    out.message = "the target is on tile " + tile_text(tile) + ", which is blocked";
    return out;
  }
  for (std::size_t i : indices) {
    const Agent& a = agents[i];
    if (a.pathing == Pathing::direct) continue;  // direct steering promises nothing
    if (!flow_field_to(map, tile, a.neighbours).reachable(map.tile_at(a.position))) {
      out.error = CommandError::unreachable;
      out.message = "agent " + std::to_string(a.id) + " cannot reach tile " + tile_text(tile) +
                    " from tile " + tile_text(map.tile_at(a.position));
      return out;
    }
  }
  return out;
}

// The path queue (DetourCrowd's dtPathQueue, counted in tile expansions instead of its
// iterations): A* agents whose plan is stale join a FIFO queue; each tick serves it with a fixed
// budget of expansions, slicing a long search over as many ticks as it needs. With budget to
// spare, every request is answered in the tick it was made, exactly as planning at once would.

// Stale A* agents with a goal, in agent order, join the queue (once: a pending one waits).
void PathService::request_paths(const Tick& t) {
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const Agent& a = t.agents[i];
    PathState& p = paths_[i];
    if (a.pathing != Pathing::astar || p.pending) continue;
    const std::optional<TileCoord> goal_tile = goal_tile_of(t.map, t.desires[i]);
    if (!goal_tile || (p.planned_for == goal_tile && p.planned_revision == t.map_version)) continue;
    p.pending = true;
    p.unreachable = false;  // not known until the search says so
    queue_.push_back(a.id);
  }
}

void PathService::serve_queue(const Tick& t) {
  std::uint32_t budget = t.def.path_expansions_per_tick;
  stats_.expansions_last_tick = 0;
  // A search begun on another map is void: its agent goes back to the head of the queue.
  if (search_.agent != kNoAgent && search_.revision != t.map_version) {
    queue_.push_front(search_.agent);
    search_ = {};
  }
  while (budget > 0) {
    if (search_.agent == kNoAgent) {
      if (queue_.empty()) break;
      const AgentId id = queue_.front();
      queue_.pop_front();
      const std::size_t i = index_of(t.agents, id);
      if (i == t.agents.size() || !paths_[i].pending)
        continue;  // removed, or given another pathing
      const Agent& a = t.agents[i];
      const std::optional<TileCoord> goal_tile = goal_tile_of(t.map, t.desires[i]);
      if (a.pathing != Pathing::astar || !goal_tile) {
        paths_[i].pending = false;
        continue;
      }
      search_ = {id, t.map.tile_at(a.position), *goal_tile, a.neighbours, t.map_version};
      finder_.begin(t.map, search_.start, search_.goal, neighbourhood_of(a.neighbours));
    }
    const std::uint32_t before = finder_.result().expanded;
    const bool done = finder_.resume(t.map, budget, tile_path_);
    const std::uint32_t used = finder_.result().expanded - before;
    budget -= used;
    stats_.expansions_last_tick += used;
    if (!done) break;
    // Smoothing costs about a tile per path tile: charge it too.
    budget -= static_cast<std::uint32_t>(std::min<std::size_t>(budget, tile_path_.size()));
    finish_path(t);
  }
  stats_.expansions_total += stats_.expansions_last_tick;
  stats_.deferred_total += queue_.size() + (search_.agent != kNoAgent);
}

// The finished search's path, smoothed for its agent's radius from where the agent now stands
// (the first waypoint) to the goal, if the agent still waits for it.
void PathService::finish_path(const Tick& t) {
  const Search search = search_;
  search_ = {};
  ++stats_.paths_served_total;
  const std::size_t i = index_of(t.agents, search.agent);
  if (i == t.agents.size() || !paths_[i].pending) return;
  const Agent& a = t.agents[i];
  PathState& p = paths_[i];
  p.pending = false;
  p.planned_for = search.goal;
  p.planned_revision = search.revision;
  p.waypoints.clear();
  p.next = 1;
  p.unreachable = !finder_.result().found();
  if (p.unreachable) return;
  path_points(t.map, tile_path_, points_scratch_);
  points_scratch_.front() = a.position;
  string_pull(t.map, points_scratch_, a.def.radius, p.waypoints);
}

void PathService::drop_queue() {
  queue_.clear();
  search_ = {};
}

void PathService::plan(const Tick& t) {
  paths_.resize(t.agents.size());
  request_paths(t);
  serve_queue(t);
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const Agent& a = t.agents[i];
    PathState& p = paths_[i];
    Desire& d = t.desires[i];
    if (a.pathing == Pathing::direct) {
      p.unreachable = false;
      continue;
    }
    const TileCoord here = t.map.tile_at(a.position);
    const std::optional<TileCoord> goal_tile = goal_tile_of(t.map, d);
    const bool stale = p.planned_for != goal_tile || p.planned_revision != t.map_version;
    if (a.pathing == Pathing::no_backtrack) {
      // Seed 002's walker moves the agent itself, tile by tile (see stage_walls); no steering.
      if (!p.walker_placed) {
        walker_place(p.walker, here);
        p.walker_placed = true;
      }
      if (stale) {
        p.planned_for = goal_tile;
        p.planned_revision = t.map_version;
        p.unreachable =
            goal_tile && walker_set_target(p.walker, t.map, *goal_tile) != WalkerTargetError::none;
      }
      if (!p.unreachable) walker_advance(p.walker, t.map, t.def.walker, t.next_time);
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
      const double reach = std::max(a.def.radius, 0.25 * t.map.tile_size());
      while (p.next + 1 < p.waypoints.size() && length(p.waypoints[p.next] - a.position) <= reach)
        ++p.next;
      // The last leg is the behaviour's own (arrive stops on the goal); before it, full speed on.
      if (p.next + 1 < p.waypoints.size())
        d.velocity = seek_desired_velocity(a.position, p.waypoints[p.next], a.def.max_speed);
      continue;
    }
    // Flow: one field per goal tile, shared; the behaviour takes over once the goal is in sight.
    p.planned_for = goal_tile;
    p.planned_revision = t.map_version;
    const FlowField& field = flow_field_to(t.map, *goal_tile, a.neighbours);
    p.unreachable = !field.reachable(here);
    if (p.unreachable)
      d.velocity = {};
    else if (here != *goal_tile && !clear_segment(t.map, a.position, *d.goal, a.def.radius))
      d.velocity = field.sample(a.position) * a.def.max_speed;
  }
}

// A loaded search under way, replayed to the expansion it had reached: the same inputs and the
// same count give the same open list (A* is deterministic). It was still running when saved, so
// the replay must end where it stopped, not finish.
bool PathService::replay_search(const TileMap* map, std::uint32_t expanded) {
  const Search& q = search_;
  if (q.agent == kNoAgent) return true;
  if (!map || (q.neighbours != 4 && q.neighbours != 8)) return false;
  finder_.begin(*map, q.start, q.goal, neighbourhood_of(q.neighbours));
  return finder_.running() && !finder_.resume(*map, expanded, tile_path_) &&
         finder_.result().expanded == expanded;
}

}  // namespace herd::sim
