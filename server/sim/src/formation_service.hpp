// herd::sim::FormationService — the world's formations, a part of the world with its own state:
// the record of each formation and demo move (its members, their places, whether they are paced,
// go round a centre or avoid each other reciprocally, which places cannot be reached), the
// optimal assignments too large for one tick (served within a per-tick budget of cost
// evaluations), and the stages that read them: serving those assignments, pacing the members so
// they arrive together, and keeping the records. The slots' geometry and the assignments are in
// formation.hpp and assignment.hpp. Records and assignments are world state (checkpoints, the
// state hash); the members' tags for the avoidance stage are made again every tick.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "assignment.hpp"
#include "herd/sim/agent.hpp"
#include "herd/sim/commands.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "obstacle_index.hpp"
#include "rng.hpp"
#include "serial.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {

// A formation being formed (formation and demo commands): who goes to which slot.
struct FormationRecord {
  static constexpr std::uint64_t kNeverChecked = ~std::uint64_t{0};
  std::uint32_t id = 0;
  std::vector<AgentId> agents;
  std::vector<Vec2> slots;    // parallel to agents (a moved place replaces its slot)
  std::uint32_t members = 0;  // agents still heading for (or standing in) a place they can reach
  std::uint32_t arrived = 0;
  bool complete = false;  // every member has arrived; unreachable places do not hold it back
  bool paced = false;     // members arrive together (the pace stage)
  // Crossing moves (opposite, invert): the members go round this centre on the preferred side,
  // each outside a disc of orbit_scale times its own distance from it, paced so the crowd turns
  // and shrinks as one body (the pace stage).
  std::optional<Vec2> orbit;
  double orbit_scale = 1;
  // A move whose members cross one another every way (swap_places): until it is complete they
  // avoid one another by reciprocal velocity obstacles (reciprocal.hpp), members standing in place
  // included, instead of anti-gravity (the pace stage).
  bool reciprocal = false;
  std::vector<UnreachablePlace> unreachable;
  std::uint64_t checked_obstacles =
      kNeverChecked;  // the obstacles_version the places were checked at
};

class FormationService {
 public:
  // What the formations' commands and stages read and change of the world.
  struct Scene {
    std::vector<Agent>& agents;  // ordered by id; commands and assignments give them orders
    const WorldDef& def;
    const TileMap* map;  // null without one
    std::span<const Obstacle> obstacles;
    const ObstacleIndex& obstacle_index;  // over obstacles
    std::uint64_t obstacles_version;      // bumped by every obstacle added or removed
  };

  // Members' tags, by agent index (together()): the formation a member moves with (its id + 1, in
  // kFormationBits), 0 for none. Without kReciprocal the members move as one body and do not
  // avoid each other (their ways never meet); with it they avoid each other by reciprocal
  // velocity obstacles, and kCritical marks those with the farthest to go, who have the right of
  // way (the world's reciprocal_desire).
  static constexpr std::uint32_t kReciprocal = 1u << 31, kCritical = 1u << 30,
                                 kFormationBits = kCritical - 1;
  // The records kept: a new formation beyond them drops the oldest.
  static constexpr std::size_t kMaxRecords = 64;

  std::span<const FormationRecord> records() const { return records_; }
  // Cost evaluations the pending assignments still need, and how many are pending.
  std::uint64_t assignment_work_pending() const;
  std::size_t assignments_pending() const { return pending_.size(); }
  // This tick's tags, by agent index; empty when no formation moves its members together.
  std::span<const std::uint32_t> together() const { return together_; }

  // The commands, on the agents at `indices` (a selection in id order). Each refuses whole (a
  // place outside the world or on a blocked tile) or sends every agent to arrive at its place
  // and records the formation.
  CommandOutcome form(const Scene& scene, const std::vector<std::size_t>& indices,
                      const FormationDef& def, Rng& rng);
  CommandOutcome demo(const Scene& scene, const std::vector<std::size_t>& indices, const Demo& cmd,
                      Rng& rng);

  // The stages. Pending assignments, oldest first, within the tick's budget; each finished one
  // sends its members to their optimal places before they move this tick.
  void serve_assignments(const Scene& scene);
  // Paced and crossing members' desired velocities, and this tick's tags.
  void pace(const Scene& scene, std::span<Desire> desires);
  // Each record's members, arrivals and unreachable places; records nobody is in are dropped.
  void update(const Scene& scene);

  // The formations' share of the world's state hash: pending assignments (only when any, so
  // worlds that never defer keep their hashes), then the next formation id.
  template <class Mix>
  void hash(Mix&& mix) const {
    if (!pending_.empty()) {
      mix(pending_.size());
      for (const Pending& p : pending_) {
        mix(p.formation);
        mix(p.agents.size());
        mix(p.assignment.steps_done());
        for (AgentId id : p.agents) mix(id);
      }
    }
    mix(next_id_);
  }

  // Checkpoints, in the format's order (world_checkpoint.cpp): the next formation id; the
  // records; the pending assignments, replayed on load to the rows they had done; and the
  // records' fields that later formats added, each in its own tail.
  template <CheckpointStream S>
  void serialize_next_id(S& s);
  template <CheckpointStream S>
  void serialize_records(S& s);
  template <CheckpointStream S>
  void serialize_pending(S& s);
  template <CheckpointStream S>
  void serialize_record_tails(S& s);

 private:
  // An optimal assignment too large for one tick: its agents head for bisection's slots at once
  // (near-minimal travel: they start on nearly the right ways), and get their optimal ones when
  // the assignment is done.
  struct Pending {
    std::uint32_t formation = 0;
    std::vector<AgentId> agents;       // the assignment's rows
    std::vector<Vec2> provisional;     // the slot each was sent to meanwhile
    std::vector<std::uint32_t> parts;  // regroup: each slot's part; empty without regroup
    OptimalAssignment assignment;
  };

  CommandOutcome send_to(const Scene& scene, const std::vector<std::size_t>& indices,
                         const std::vector<Vec2>& targets);
  void finish_assignment(const Scene& scene, const Pending& p);
  void check_places(const Scene& scene, FormationRecord& f);
  void tag_reciprocal(const Scene& scene, const FormationRecord& f);
  void pace_straight(const Scene& scene, const FormationRecord& f, std::span<Desire> desires);
  void pace_round(const Scene& scene, const FormationRecord& f, std::span<Desire> desires);
  bool assigning(std::uint32_t formation) const;  // its optimal assignment is still pending

  std::vector<FormationRecord> records_;  // oldest first
  std::uint32_t next_id_ = 1;
  std::deque<Pending> pending_;  // oldest first, served in turn
  std::vector<std::uint32_t> together_;
};

}  // namespace herd::sim
