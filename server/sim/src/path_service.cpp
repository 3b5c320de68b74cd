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
  s.fields_waiting = field_queue_.size() + build_.active;
  s.fields_kept = fields_.size();
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
  drop_fields();
}

void PathService::map_cleared() {
  drop_fields();
  paths_ = {};
  drop_queue();
}

std::size_t PathService::field_capacity(const TileMap& map) {
  const std::size_t per_field = std::max<std::size_t>(1, map.tile_count() * (sizeof(double) + 1));
  return std::clamp<std::size_t>(kFieldCacheBytes / per_field, 1, kMaxCachedFields);
}

CommandOutcome PathService::check_reachable(const TileMap& map, std::uint64_t map_version,
                                            std::span<const Agent> agents, Vec2 goal,
                                            const std::vector<std::size_t>& indices) {
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
    const int n = a.neighbours == 4 ? 0 : 1;
    if (regions_version_[n] != map_version) {
      regions_[n].label(map, neighbourhood_of(a.neighbours));
      regions_version_[n] = map_version;
    }
    if (!regions_[n].connected(map.tile_at(a.position), tile)) {
      out.error = CommandError::unreachable;
      out.message = "agent " + std::to_string(a.id) + " cannot reach tile " + tile_text(tile) +
                    " from tile " + tile_text(map.tile_at(a.position));
      return out;
    }
  }
  return out;
}

// Flow fields. Agents ask for the field to their goal tile; a goal without one joins a FIFO queue
// (once), and fields are built from it within the path budget, one at a time, sliced over ticks
// like a long search. Meanwhile the agents wait as pending. A finished field is kept, evicting the
// one used least recently (then the one kept longest) when the cache is full; a new map version
// voids them all. More distinct goals in use than the cache holds take turns: the tick stays
// within its budget, and agents whose field was evicted wait again.

void PathService::drop_fields() {
  fields_.clear();
  field_queue_.clear();
  field_queued_.clear();
  build_ = {};
}

void PathService::request_fields(const Tick& t) {
  if (fields_version_ != t.map_version) {
    fields_.clear();
    fields_version_ = t.map_version;
  }
  fields_missing_.clear();
  in_sight_.assign(t.agents.size(), 0);
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const Agent& a = t.agents[i];
    if (a.pathing != Pathing::flow) continue;
    const Desire& d = t.desires[i];
    const std::optional<TileCoord> goal_tile = goal_tile_of(t.map, d);
    // A goal off the map or on a wall needs no field: nothing reaches it (plan says so).
    if (!goal_tile || t.map.blocked(*goal_tile)) continue;
    // Nor does an agent in its goal tile, or one that had arrived beside it (within two tiles or
    // four radii, pushed a little off its place) with a clear way there: the behaviour takes it
    // the rest of the way. So a crowd standing at its places keeps no field from those still on
    // their way to theirs.
    const double beside = std::max(2 * t.map.tile_size(), 4 * a.def.radius);
    if (t.map.tile_at(a.position) == *goal_tile ||
        (a.state == MoveState::arrived && length_squared(*d.goal - a.position) <= beside * beside &&
         clear_segment(t.map, a.position, *d.goal, a.def.radius))) {
      in_sight_[i] = 1;
      continue;
    }
    const FieldKey key = field_key(t.map, *goal_tile, a.neighbours);
    if (fields_.contains(key)) continue;
    fields_missing_.push_back(key);
    if ((build_.active && build_.key == key) || !field_queued_.insert(key).second) continue;
    field_queue_.push_back(key);
  }
  // Goals no agent waits for any more leave the queue, and their build stops.
  std::sort(fields_missing_.begin(), fields_missing_.end());
  const auto wanted = [&](FieldKey key) {
    return std::binary_search(fields_missing_.begin(), fields_missing_.end(), key);
  };
  if (field_queue_.size() != fields_missing_.size()) {
    std::erase_if(field_queue_, [&](FieldKey key) {
      if (wanted(key)) return false;
      field_queued_.erase(key);
      return true;
    });
  }
  if (build_.active && !wanted(build_.key)) build_.active = false;
}

void PathService::begin_field(const Tick& t, FieldKey key) {
  build_ = {true, key, t.map_version};
  building_->begin(t.map, t.map.coord(key.first), neighbourhood_of(key.second));
}

std::uint32_t PathService::serve_fields(const Tick& t, std::uint32_t budget) {
  std::uint32_t used = 0;
  while (used < budget) {
    if (!build_.active) {
      if (field_queue_.empty()) break;
      const FieldKey key = field_queue_.front();
      field_queue_.pop_front();
      field_queued_.erase(key);
      begin_field(t, key);
    } else if (build_.version != t.map_version) {
      begin_field(t, build_.key);  // the map changed under it: start again
    }
    const std::uint64_t before = building_->work();
    const bool done = building_->resume(t.map, budget - used);
    used += static_cast<std::uint32_t>(building_->work() - before);
    if (!done) break;
    build_.active = false;
    ++stats_.fields_built_total;
    keep_field(build_.key, field_capacity(t.map));
  }
  stats_.expansions_last_tick += used;
  return used;
}

void PathService::keep_field(FieldKey key, std::size_t capacity) {
  auto it = fields_.find(key);
  if (it == fields_.end()) {
    std::unique_ptr<FlowField> spare;
    while (fields_.size() >= capacity) {
      auto lru = fields_.begin();
      for (auto f = fields_.begin(); f != fields_.end(); ++f) {
        const CachedField& a = f->second;
        const CachedField& b = lru->second;
        if (a.last_used < b.last_used || (a.last_used == b.last_used && a.kept < b.kept)) lru = f;
      }
      spare = std::move(lru->second.field);
      fields_.erase(lru);
    }
    it = fields_.emplace(key, CachedField{}).first;
    it->second.field = std::move(spare);
  }
  std::swap(it->second.field, building_);
  if (!building_) building_ = std::make_unique<FlowField>();  // reuses an evicted one's buffers
  it->second.last_used = plans_;
  it->second.kept = ++fields_kept_;
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

// Searches and fields share the budget: with both waiting, fields take up to half of it first,
// searches what is left, and fields anything the searches did not need.
void PathService::serve_queue(const Tick& t) {
  const std::uint32_t budget = t.def.path_expansions_per_tick;
  const bool searches = search_.agent != kNoAgent || !queue_.empty();
  std::uint32_t left = budget;
  left -= serve_fields(t, searches ? budget / 2 : budget);
  left -= serve_searches(t, left);
  left -= serve_fields(t, left);
  stats_.expansions_total += stats_.expansions_last_tick;
  stats_.deferred_total += queue_.size() + (search_.agent != kNoAgent);
}

// Returns the budget used: each search's expansions and its path's smoothing.
std::uint32_t PathService::serve_searches(const Tick& t, std::uint32_t budget) {
  const std::uint32_t given = budget;
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
  return given - budget;
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
  ++plans_;
  paths_.resize(t.agents.size());
  stats_.expansions_last_tick = 0;
  request_paths(t);
  request_fields(t);
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
      // The no-backtracking walker moves the agent itself, tile by tile (see stage_walls); no
      // steering.
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
    // Waiting for the field: the behaviour's own straight line (walls stop it).
    p.planned_for = goal_tile;
    p.planned_revision = t.map_version;
    if (t.map.blocked(*goal_tile)) {  // off the map or on a wall: no field, nothing reaches it
      p.pending = false;
      p.unreachable = true;
      d.velocity = {};
      continue;
    }
    if (in_sight_[i]) {  // the behaviour's own way (request_fields asked for no field)
      p.pending = p.unreachable = false;
      continue;
    }
    const auto kept = fields_.find(field_key(t.map, *goal_tile, a.neighbours));
    p.pending = kept == fields_.end();
    if (p.pending) {
      p.unreachable = false;
      continue;
    }
    kept->second.last_used = plans_;
    const FlowField& field = *kept->second.field;
    p.unreachable = !field.reachable(here);
    if (p.unreachable)
      d.velocity = {};
    else if (!clear_segment(t.map, a.position, *d.goal, a.def.radius))
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
