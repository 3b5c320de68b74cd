// herd::sim::StepRunner — how the world runs its step and what the host watches of it: the
// executor a host lent for the per-agent stages (none: all on the caller's thread), each worker's
// scratch, the clock a host lent for the step's profile with that profile, and the agents whose
// avoidance the host inspects with their traces. Nothing here is world state: it changes no result.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "avoidance.hpp"
#include "herd/sim/executor.hpp"
#include "herd/sim/profile.hpp"
#include "herd/sim/trace.hpp"
#include "neighbour_scan.hpp"
#include "reciprocal.hpp"

namespace herd::sim {

// What one agent's avoidance needs while it is computed (one per worker thread).
struct Scratch {
  NeighbourBatch batch;               // what gather_neighbours finds
  std::vector<std::uint32_t> ids;     // their ids, when gathered for a trace
  std::vector<Neighbour> neighbours;  // the same as a list, for a traced agent
  scan::Candidates found;             // the neighbour search's candidates
  std::vector<std::uint32_t> order;   // and its scratch
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // touching agents (collision stage)
  double moved2 = 0;  // the largest squared distance an agent moved in integration
  double min_radius = 0, max_radius = 0;        // over the agents this worker visited (stage_grid)
  std::vector<ReciprocalNeighbour> reciprocal;  // a reciprocal mover's neighbours
  std::vector<std::uint32_t> near_index;        // cfsm: their agents' indices (none: obstacles)
  std::vector<VelocityLine> lines;              // and its velocity constraints
  // Avoidance in chunks: each agent's push sums, then the chunk's directions at once; for each,
  // its index and the speed its direction is given.
  SumsBatch sums;
  std::vector<std::pair<std::uint32_t, double>> pending;
  std::vector<std::uint32_t> walls;  // wall segments near an agent (walls.hpp)
};

struct StepRunner {
  Executor* executor = nullptr;
  std::vector<AgentId> inspected;                          // sorted, at most World::kMaxInspected
  std::unordered_map<AgentId, AvoidanceTrace> traces;      // this step's, of the inspected
  std::vector<Scratch> scratch = std::vector<Scratch>(1);  // one per worker
  StepClock clock = nullptr;
  StepProfile profile;  // the last step's, when a clock was lent
  // This tick's sight of every team, by agent (World::seen_by's bits), while some team's agent
  // acts on another's or attack-moves; empty otherwise. Scratch: made from the state each tick.
  std::vector<std::uint64_t> team_sight;
};

}  // namespace herd::sim
