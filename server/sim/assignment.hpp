// herd::sim assignment: which agent takes which formation slot.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rng.hpp"
#include "vec2.hpp"

namespace herd::sim {

// Minimum total travel: the n agents at `from` to the n slots at `to`, minimising the sum of
// straight-line distances (which also means no two straight paths cross). Exact: the Hungarian
// method with potentials and shortest augmenting paths (Jonker-Volgenant's form), O(n^3) time,
// O(n^2) memory... without the matrix: costs are computed on the fly, O(n) memory.
// Returns slot[i] for agent i. from.size() must equal to.size().
std::vector<std::uint32_t> assign_optimal(std::span<const Vec2> from, std::span<const Vec2> to);

// Slot i for agent i (agents in the order given, e.g. by id).
std::vector<std::uint32_t> assign_in_order(std::size_t n);

// A seeded random permutation (Fisher-Yates with the world's generator): deliberate crossings.
std::vector<std::uint32_t> assign_shuffled(std::size_t n, Rng& rng);

// A seeded random cyclic permutation (Sattolo's algorithm): nobody keeps its own slot (n >= 2).
std::vector<std::uint32_t> assign_cycle(std::size_t n, Rng& rng);

// Sum of distances of an assignment, for tests and feedback.
double total_travel(std::span<const Vec2> from, std::span<const Vec2> to, std::span<const std::uint32_t> slot);

}  // namespace herd::sim
