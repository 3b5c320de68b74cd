// herd::sim::PathService — the world's pathing, a part of the world with its own state: each
// agent's way to its goal through the tile map (PathState, parallel to the agents while a map is
// loaded), the path queue that serves A* requests within a per-tick budget of tile expansions
// (DetourCrowd's dtPathQueue), the search being sliced over ticks, and the flow fields every agent
// going to one tile shares. All of it is world state (checkpoints, the state hash) but the fields,
// a cache. The world tells it what its commands changed (a map, agents added or removed) and asks
// it in the pathing stage and in the commands' reachability checks.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "astar.hpp"
#include "flow_field.hpp"
#include "herd/sim/agent.hpp"
#include "herd/sim/commands.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "serial.hpp"

namespace herd::sim {

class PathService {
 public:
  // What the pathing stage reads of the world this tick.
  struct Tick {
    const TileMap& map;
    std::uint64_t map_version;      // bumped by every map load, clear or tile change
    std::span<const Agent> agents;  // ordered by id
    std::span<Desire> desires;      // parallel to agents; pathing steers their velocity
    const WorldDef& def;
    double next_time;  // s: world time at the end of this tick (walkers)
  };

  // Each agent's pathing state, parallel to the agents while a map is loaded; empty without one.
  std::span<const PathState> paths() const { return paths_; }
  // Agent i's: a default one without a map.
  const PathState& path_of(std::size_t i) const;
  PathQueueStats stats() const;
  // Heap bytes per agent: the states, their waypoints and walker histories (not the fields).
  std::size_t agent_memory_bytes() const;

  // What the world's commands changed.
  void agents_added(std::size_t agents, bool has_map) {
    if (has_map) paths_.resize(agents);
  }
  // Removal keeps the id order: agent `from`'s state moves to `to` (to <= from), then the rest go.
  void keep(std::size_t from, std::size_t to) {
    if (from < paths_.size()) paths_[to] = std::move(paths_[from]);
  }
  void truncate(std::size_t agents) { paths_.resize(std::min(paths_.size(), agents)); }
  void replan(std::size_t i) {
    if (i < paths_.size()) paths_[i] = PathState{};
  }
  // A new map: every agent gets a state; fields remember a map revision, which a new map restarts.
  // A search under way is voided by its revision when next served.
  void map_loaded(std::size_t agents);
  // No map: walkers and paths belong to it (and without one cost no memory); queued requests are
  // for tiles that no longer exist.
  void map_cleared();

  // The pathing stage: stale A* agents join the queue, the queue is served within the budget, and
  // each agent's desired velocity follows its path, walker or flow field.
  void plan(const Tick& t);
  // A goal point for the agents at `indices`: on a walkable tile and reachable by their pathing.
  CommandOutcome check_reachable(const TileMap& map, std::span<const Agent> agents, Vec2 goal,
                                 const std::vector<std::size_t>& indices);

  // The queue's part of the world's state hash: only when it holds anything, so worlds that never
  // queue keep their hashes.
  template <class Mix>
  void hash_queue(Mix&& mix) const {
    if (queue_.empty() && search_.agent == kNoAgent) return;
    mix(queue_.size());
    for (AgentId id : queue_) mix(id);
    mix(search_.agent);
    mix((std::uint64_t(std::uint32_t(search_.start.x)) << 32) | std::uint32_t(search_.start.y));
    mix((std::uint64_t(std::uint32_t(search_.goal.x)) << 32) | std::uint32_t(search_.goal.y));
    mix(search_.revision);
    mix(finder_.result().expanded);
  }
  // Checkpoints: a loaded agent's state (while there is a map), and the queue with the search
  // under way, replayed on load to the expansion it had reached (world_checkpoint.cpp).
  void restore_path(PathState p) { paths_.push_back(std::move(p)); }
  template <CheckpointStream S>
  bool serialize_queue(S& s, const TileMap* map, std::size_t agents);

 private:
  struct Search {
    AgentId agent = kNoAgent;  // kNoAgent: none under way
    TileCoord start, goal;
    std::uint8_t neighbours = 8;
    std::uint64_t revision = 0;  // the map version it began against
  };
  const FlowField& flow_field_to(const TileMap& map, TileCoord goal, std::uint8_t neighbours);
  void request_paths(const Tick& t);
  void serve_queue(const Tick& t);
  void finish_path(const Tick& t);
  void drop_queue();
  bool replay_search(const TileMap* map, std::uint32_t expanded);

  std::vector<PathState> paths_;  // parallel to the agents while there is a map
  PathFinder finder_;
  std::deque<AgentId> queue_;  // A* agents waiting for a path, oldest first
  Search search_;
  PathQueueStats stats_;
  std::vector<TileCoord> tile_path_;
  std::vector<Vec2> points_scratch_;
  // Flow fields by (goal tile index, neighbours): shared by every agent going to the same tile.
  std::map<std::pair<std::size_t, std::uint8_t>, std::unique_ptr<FlowField>> fields_;
};

}  // namespace herd::sim
