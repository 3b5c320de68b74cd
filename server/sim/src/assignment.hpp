// herd::sim assignment: which agent takes which formation slot.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/vec2.hpp"
#include "rng.hpp"

namespace herd::sim {

// Optimal transport: the n agents at `from` to the n slots at `to`, minimising the sum of squared
// straight-line distances. Squared, not plain: the plain sum is the same for every assignment of a
// crowd moving along one direction (each row of a grid sent to a block beside it could be sent
// back to front, rear agents through the front ones), while the squared sum picks the
// translation-like one; and agents moving together along its straight paths, at speeds in
// proportion to their distances, never meet at one point (the paths of the optimal quadratic
// assignment are cyclically monotone: (a0 - b0) . (a1 - b1) >= 0 for any two agents a, b), so no
// two paths cross head on. Measured (herd-bench formations), 1,000 agents from a grid into a
// block: 2.22 times the ideal with the plain sum, 1.31 with the squared. Exact: the Hungarian
// method with potentials and shortest augmenting paths (Jonker-Volgenant's form), O(n^3) time,
// O(n^2) memory... without the matrix: costs are computed on the fly, O(n) memory.
// Returns slot[i] for agent i. from.size() must equal to.size().
std::vector<std::uint32_t> assign_optimal(std::span<const Vec2> from, std::span<const Vec2> to);

// The same method in slices, for a world that must not spend a whole O(n^3) assignment in one
// tick: each advance() adds whole rows (agents) until it has evaluated `budget` agent-slot costs
// (at least one row), so the work per call is bounded by the budget plus one row's worth. The
// rows are added in the same order with the same arithmetic as assign_optimal, so the answer is
// bit-identical to it, however the work is sliced.
class OptimalAssignment {
 public:
  OptimalAssignment() = default;
  OptimalAssignment(std::vector<Vec2> from, std::vector<Vec2> to);
  // Adds rows until `budget` cost evaluations are spent or all are done; returns the evaluations.
  std::uint64_t advance(std::uint64_t budget);
  // Adds exactly `rows` rows (a checkpoint's replay).
  void advance_rows(std::size_t rows);
  bool done() const { return rows_done_ == from_.size(); }
  std::size_t rows_done() const { return rows_done_; }
  std::size_t size() const { return from_.size(); }
  std::span<const Vec2> from() const { return from_; }
  std::span<const Vec2> to() const { return to_; }
  // slot[i] for agent i; only once done().
  std::vector<std::uint32_t> slots() const;

 private:
  std::uint64_t add_row();  // returns the cost evaluations it made
  std::vector<Vec2> from_, to_;
  std::vector<double> u_, v_, min_to_;
  std::vector<std::uint32_t> p_, way_;
  std::vector<char> used_;
  std::size_t rows_done_ = 0;
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
