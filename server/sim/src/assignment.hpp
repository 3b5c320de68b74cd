// herd::sim assignment: which agent takes which formation slot.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "herd/sim/vec2.hpp"
#include "rng.hpp"

namespace herd::sim {

std::vector<std::uint32_t> assign_bisection(std::span<const Vec2> from, std::span<const Vec2> to);

// Optimal transport: the n agents at `from` to the n slots at `to`, minimising the sum of squared
// straight-line distances. Squared, not plain: the plain sum is the same for every assignment of a
// crowd moving along one direction (each row of a grid sent to a block beside it could be sent
// back to front, rear agents through the front ones), while the squared sum picks the
// translation-like one; and agents moving together along its straight paths, at speeds in
// proportion to their distances, never meet at one point (the paths of the optimal quadratic
// assignment are cyclically monotone: (a0 - b0) . (a1 - b1) >= 0 for any two agents a, b), so no
// two paths cross head on. Measured (herd-bench formations), 1,000 agents from a grid into a
// block: 2.22 times the ideal with the plain sum, 1.31 with the squared.
// Exact, by OptimalAssignment below. Returns slot[i] for agent i; from.size() must equal to.size().
std::vector<std::uint32_t> assign_optimal(std::span<const Vec2> from, std::span<const Vec2> to);

// The optimal assignment in steps, for a world that must not spend a whole one in one tick. The
// method: shortest augmenting paths with potentials (the Hungarian method in Jonker-Volgenant's
// form) over a sparse graph, each agent's kCandidates nearest slots, and then a check of every
// agent-slot pair against the potentials. A pair that would improve on the assignment (a negative
// reduced cost) joins the graph and its agent is assigned again, until none is left: then the
// potentials prove the assignment optimal (complementary slackness), exactly as the dense method,
// at a fraction of its O(n^3) work (1,000 agents from a random start into a block: about 4 million
// cost evaluations where the dense method made 100 million). An agent whose sparse graph reaches
// no free slot takes every slot as its candidates.
// Each step is one agent's candidates, one augmenting path or one agent's check; advance() takes
// whole steps until it has spent `budget` cost evaluations (at least one step), so the work per
// call is bounded by the budget plus one step's. The same steps in the same order: the answer is
// bit-identical to assign_optimal's, however the work is sliced.
class OptimalAssignment {
 public:
  static constexpr std::size_t kCandidates = 12;  // nearest slots per agent, to begin with
  // The most improving pairs an agent gains in the first check (twice as many in each later one).
  static constexpr std::size_t kAddedPerCheck = 8;
  // Work is counted in cost evaluations as the check makes them (about 2 ns each here): a
  // nearest-slot selection's pass costs about 4 of them a slot, a search's pair about 12 (heap
  // and scattered reads), so a budget bounds the time a slice takes whatever the phase.
  static constexpr std::uint64_t kSelectWork = 4, kSearchWork = 12;
  OptimalAssignment() = default;
  OptimalAssignment(std::vector<Vec2> from, std::vector<Vec2> to);
  // Takes steps until `budget` cost evaluations are spent or all are done; returns the evaluations.
  std::uint64_t advance(std::uint64_t budget);
  // Takes exactly `steps` steps, or fewer if it is done first (a checkpoint's replay).
  void advance_steps(std::uint64_t steps);
  bool done() const { return phase_ == Phase::done; }
  std::uint64_t steps_done() const { return steps_; }
  // An estimate of the cost evaluations left (for metrics).
  std::uint64_t work_left() const;
  std::size_t size() const { return from_.size(); }
  std::span<const Vec2> from() const { return from_; }
  std::span<const Vec2> to() const { return to_; }
  // slot[i] for agent i; only once done().
  std::vector<std::uint32_t> slots() const;

 private:
  enum class Phase : std::uint8_t { candidates, augment, check, done };
  static constexpr std::uint32_t kFree = 0xffffffffu;
  double cost(std::uint32_t i, std::uint32_t j) const { return length_squared(to_[j] - from_[i]); }
  std::uint64_t step();
  std::uint64_t find_candidates(std::uint32_t i);
  std::uint64_t augment(std::uint32_t i);
  std::uint64_t check(std::uint32_t i);
  std::vector<Vec2> from_, to_;
  std::vector<std::vector<std::uint32_t>> edges_;  // each agent's candidate slots
  std::vector<double> u_, v_;                      // potentials: agents', slots'
  std::vector<std::uint32_t> col_of_, row_of_;     // agent -> slot, slot -> agent (or kFree)
  std::vector<std::uint32_t> queue_;               // agents to assign (again), in order
  std::vector<std::uint32_t> hint_;  // a near-optimal assignment, while the graph is built
  // One search's scratch: shortest reduced distances, predecessors, the slots it touched.
  std::vector<double> dist_;
  std::vector<std::uint32_t> pred_, touched_, scanned_;
  std::vector<char> settled_;
  Phase phase_ = Phase::done;
  std::size_t next_ = 0;  // the next agent of this phase's pass (or of queue_)
  std::uint64_t steps_ = 0;
  std::uint32_t round_ = 0;  // checks of every pair made so far
};

// Near-minimal travel at any size: recursive bisection. The slots are split at the median of
// their wider axis, the agents at the same rank along that axis, and each half is assigned to
// its half, down to groups of at most kBisectionLeaf solved exactly by assign_optimal. Agents
// and places on the same side stay on the same side, so paths cross only within a group.
// O(n log^2 n); 5,000 agents take about 2 ms (herd-bench assign).
inline constexpr std::size_t kBisectionLeaf = 8;
std::vector<std::uint32_t> assign_bisection(std::span<const Vec2> from, std::span<const Vec2> to);

// Slot i for agent i (agents in the order given, e.g. by id).
std::vector<std::uint32_t> assign_in_order(std::size_t n);

// A seeded random permutation (Fisher-Yates with the world's generator): deliberate crossings.
std::vector<std::uint32_t> assign_shuffled(std::size_t n, Rng& rng);

// A seeded random cyclic permutation (Sattolo's algorithm): nobody keeps its own slot (n >= 2).
std::vector<std::uint32_t> assign_cycle(std::size_t n, Rng& rng);

// Sum of distances of an assignment, for tests and feedback.
double total_travel(std::span<const Vec2> from, std::span<const Vec2> to,
                    std::span<const std::uint32_t> slot);
// Sum of squared distances: what assign_optimal minimises.
double total_squared_travel(std::span<const Vec2> from, std::span<const Vec2> to,
                            std::span<const std::uint32_t> slot);

}  // namespace herd::sim
