// herd::sim::PathService — the world's pathing, a part of the world with its own state: each
// agent's way to its goal through the tile map (PathState, parallel to the agents while a map is
// loaded), the path queue that serves A* requests within a per-tick budget of tile expansions
// (DetourCrowd's dtPathQueue), the search being sliced over ticks, and the flow fields every agent
// going to one tile shares, built under the same budget and kept by least recent use. All of it
// is world state (checkpoints, the state hash). The world tells it what its commands changed (a
// map, agents added or removed) and asks it in the pathing stage and in the commands'
// reachability checks.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "tile_regions.hpp"

namespace herd::sim {

// An agent's way to its goal through the tile map (world_pathing.cpp).
struct PathState {
  WalkerState walker;  // no_backtrack
  bool walker_placed = false;
  std::vector<Vec2> waypoints;           // astar: smoothed path, last is the exact goal
  std::size_t next = 0;                  // astar: the waypoint being steered to
  std::optional<TileCoord> planned_for;  // goal tile the plan (path or walker target) is for
  std::uint64_t planned_revision = 0;    // map version it was made against
  bool unreachable = false;
  // astar: a path request is in the world's path queue; meanwhile the agent follows its old path
  // (when it was for the same goal tile) or steers straight at its goal.
  bool pending = false;
};

// An agent's neighbours (4 or 8) as the grid's moves.
inline Neighbourhood neighbourhood_of(std::uint8_t n) {
  return n == 4 ? Neighbourhood::four : Neighbourhood::eight;
}

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
  // O(agents) against the map's regions, labelled once per map version and neighbourhood.
  CommandOutcome check_reachable(const TileMap& map, std::uint64_t map_version,
                                 std::span<const Agent> agents, Vec2 goal,
                                 const std::vector<std::size_t>& indices);

  // Flow fields kept at once: 64, fewer on maps so large that 64 would pass kFieldCacheBytes.
  static constexpr std::size_t kMaxCachedFields = 64;
  static constexpr std::size_t kFieldCacheBytes = std::size_t{256} << 20;
  static std::size_t field_capacity(const TileMap& map);

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
  // The flow fields' part: the goals waiting and the build under way, only when there are any
  // (worlds without flow keep their hashes). Which fields are kept shows in the agents' moves.
  template <class Mix>
  void hash_fields(Mix&& mix) const {
    if (field_queue_.empty() && !build_.active) return;
    mix(field_queue_.size());
    for (const FieldKey& key : field_queue_) mix((std::uint64_t(key.first) << 8) | key.second);
    if (build_.active) {
      mix((std::uint64_t(build_.key.first) << 8) | build_.key.second);
      mix(building_->work());
    }
  }
  // Checkpoints: a loaded agent's state (while there is a map), and the queue with the search
  // under way, replayed on load to the expansion it had reached (world_checkpoint.cpp).
  void restore_path(PathState p) { paths_.push_back(std::move(p)); }
  template <CheckpointStream S>
  bool serialize_queue(S& s, const TileMap* map, std::size_t agents);
  // The flow fields (format 8): each kept field's goal and last use, rebuilt on load; the goals
  // waiting; the build under way, replayed to the work it had done.
  template <CheckpointStream S>
  bool serialize_fields(S& s, const TileMap* map, std::uint64_t map_version);

 private:
  struct Search {
    AgentId agent = kNoAgent;  // kNoAgent: none under way
    TileCoord start, goal;
    std::uint8_t neighbours = 8;
    std::uint64_t revision = 0;  // the map version it began against
  };
  using FieldKey = std::pair<std::uint32_t, std::uint8_t>;  // goal tile index, neighbours
  struct CachedField {
    std::unique_ptr<FlowField> field;  // complete, for the map version the cache holds
    std::uint64_t last_used = 0;       // plans_ when an agent last steered by it
    std::uint64_t kept = 0;            // fields_kept_ when it was built: ties go to the oldest
  };
  struct FieldBuild {
    bool active = false;
    FieldKey key{};
    std::uint64_t version = 0;  // the map version it began against
  };
  static FieldKey field_key(const TileMap& map, TileCoord goal, std::uint8_t neighbours) {
    return {static_cast<std::uint32_t>(map.index(goal)), neighbours};
  }
  const FlowField* field_for(FieldKey key) const;
  void request_fields(const Tick& t);
  std::uint32_t serve_fields(const Tick& t, std::uint32_t budget);
  void begin_field(const Tick& t, FieldKey key);
  void keep_field(FieldKey key, std::size_t capacity);
  void drop_fields();
  void request_paths(const Tick& t);
  void serve_queue(const Tick& t);
  std::uint32_t serve_searches(const Tick& t, std::uint32_t budget);
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
  // Flow fields by (goal tile index, neighbours): shared by every agent going to the same tile,
  // all for the map version fields_version_.
  std::map<FieldKey, CachedField> fields_;
  std::uint64_t fields_version_ = 0;
  std::deque<FieldKey> field_queue_;  // goals agents wait for, oldest first
  std::set<FieldKey> field_queued_;   // the same, to look up
  FieldBuild build_;
  std::unique_ptr<FlowField> building_ = std::make_unique<FlowField>();
  std::uint64_t plans_ = 0;               // plan() calls: the fields' clock of use
  std::uint64_t fields_kept_ = 0;         // fields built and kept so far
  std::vector<FieldKey> fields_missing_;  // scratch: goals without a field this tick
  // Scratch, parallel to the agents: a flow agent sees its goal this tick (in its goal tile, or
  // a clear straight line to it for its disc), so the behaviour takes it there, with no field.
  std::vector<std::uint8_t> in_sight_;
  // The map's regions for 4 and 8 neighbours, with the map version each was labelled at.
  TileRegions regions_[2];
  std::uint64_t regions_version_[2] = {UINT64_MAX, UINT64_MAX};
};

}  // namespace herd::sim
