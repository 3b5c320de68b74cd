#include "assignment.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <utility>

namespace herd::sim {

std::vector<std::uint32_t> assign_optimal(std::span<const Vec2> from, std::span<const Vec2> to) {
  assert(from.size() == to.size());
  OptimalAssignment a({from.begin(), from.end()}, {to.begin(), to.end()});
  a.advance_rows(from.size());
  return a.slots();
}

// Rows are agents (1-based), columns slots (1-based); u, v the potentials; p[j] the row matched
// to column j; way[j] the previous column on the augmenting path. The standard O(n^3) scheme:
// add rows one at a time, growing a shortest-path tree over reduced costs until a free column.
OptimalAssignment::OptimalAssignment(std::vector<Vec2> from, std::vector<Vec2> to)
    : from_(std::move(from)), to_(std::move(to)) {
  assert(from_.size() == to_.size());
  const std::size_t n = from_.size();
  u_.assign(n + 1, 0.0);
  v_.assign(n + 1, 0.0);
  min_to_.assign(n + 1, 0.0);
  p_.assign(n + 1, 0);
  way_.assign(n + 1, 0);
  used_.assign(n + 1, 0);
}

std::uint64_t OptimalAssignment::advance(std::uint64_t budget) {
  std::uint64_t spent = 0;
  while (!done() && (spent == 0 || spent < budget)) spent += add_row();
  return spent;
}

void OptimalAssignment::advance_rows(std::size_t rows) {
  for (std::size_t r = 0; r < rows && !done(); ++r) add_row();
}

std::uint64_t OptimalAssignment::add_row() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::size_t n = from_.size();
  std::uint64_t evaluated = 0;
  const auto i = static_cast<std::uint32_t>(++rows_done_);
  p_[0] = i;
  std::uint32_t j0 = 0;
  std::fill(min_to_.begin(), min_to_.end(), kInf);
  std::fill(used_.begin(), used_.end(), 0);
  do {
    used_[j0] = 1;
    const std::uint32_t i0 = p_[j0];
    const Vec2 a = from_[i0 - 1];
    double delta = kInf;
    std::uint32_t j1 = 0;
    for (std::uint32_t j = 1; j <= n; ++j) {
      if (used_[j]) continue;
      const double cur = length(to_[j - 1] - a) - u_[i0] - v_[j];
      if (cur < min_to_[j]) {
        min_to_[j] = cur;
        way_[j] = j0;
      }
      if (min_to_[j] < delta) {
        delta = min_to_[j];
        j1 = j;
      }
    }
    evaluated += n;
    for (std::uint32_t j = 0; j <= n; ++j) {
      if (used_[j]) {
        u_[p_[j]] += delta;
        v_[j] -= delta;
      } else {
        min_to_[j] -= delta;
      }
    }
    j0 = j1;
  } while (p_[j0] != 0);
  do {  // flip the augmenting path
    const std::uint32_t j1 = way_[j0];
    p_[j0] = p_[j1];
    j0 = j1;
  } while (j0 != 0);
  return evaluated;
}

std::vector<std::uint32_t> OptimalAssignment::slots() const {
  assert(done());
  std::vector<std::uint32_t> slot(from_.size());
  for (std::uint32_t j = 1; j <= from_.size(); ++j) slot[p_[j] - 1] = j - 1;
  return slot;
}

std::vector<std::uint32_t> assign_in_order(std::size_t n) {
  std::vector<std::uint32_t> slot(n);
  for (std::size_t i = 0; i < n; ++i) slot[i] = static_cast<std::uint32_t>(i);
  return slot;
}

std::vector<std::uint32_t> assign_shuffled(std::size_t n, Rng& rng) {
  std::vector<std::uint32_t> slot = assign_in_order(n);
  for (std::size_t i = n; i > 1; --i) {
    // Unbiased enough for a permutation of at most a million (the bias is below 2^-40).
    const auto k = static_cast<std::size_t>(rng.next_u64() % i);
    std::swap(slot[i - 1], slot[k]);
  }
  return slot;
}

std::vector<std::uint32_t> assign_cycle(std::size_t n, Rng& rng) {
  std::vector<std::uint32_t> slot = assign_in_order(n);
  for (std::size_t i = n; i > 1; --i) {
    const auto k = static_cast<std::size_t>(rng.next_u64() % (i - 1));  // never i - 1 itself
    std::swap(slot[i - 1], slot[k]);
  }
  return slot;
}

double total_travel(std::span<const Vec2> from, std::span<const Vec2> to, std::span<const std::uint32_t> slot) {
  double sum = 0;
  for (std::size_t i = 0; i < from.size(); ++i) sum += length(to[slot[i]] - from[i]);
  return sum;
}

}  // namespace herd::sim
