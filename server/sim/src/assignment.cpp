#include "assignment.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
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
      const double cur = length_squared(to_[j - 1] - a) - u_[i0] - v_[j];
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

double total_travel(std::span<const Vec2> from, std::span<const Vec2> to,
                    std::span<const std::uint32_t> slot) {
  double sum = 0;
  for (std::size_t i = 0; i < from.size(); ++i) sum += length(to[slot[i]] - from[i]);
  return sum;
}

double total_squared_travel(std::span<const Vec2> from, std::span<const Vec2> to,
                            std::span<const std::uint32_t> slot) {
  double sum = 0;
  for (std::size_t i = 0; i < from.size(); ++i) sum += length_squared(to[slot[i]] - from[i]);
  return sum;
}

namespace {

// Assigns agents[a0, a1) to slots[s0, s1) (equal counts), both index lists, in place.
void bisect(std::span<const Vec2> from, std::span<const Vec2> to,
            std::vector<std::uint32_t>& agents, std::vector<std::uint32_t>& slots,
            std::size_t begin, std::size_t end, std::vector<std::uint32_t>& out) {
  const std::size_t n = end - begin;
  if (n <= kBisectionLeaf) {
    std::vector<Vec2> f, t;
    for (std::size_t k = begin; k < end; ++k) {
      f.push_back(from[agents[k]]);
      t.push_back(to[slots[k]]);
    }
    const std::vector<std::uint32_t> local = assign_optimal(f, t);
    for (std::size_t k = 0; k < n; ++k) out[agents[begin + k]] = slots[begin + local[k]];
    return;
  }
  // The slots' wider axis; ties in position broken by index, so the split is deterministic.
  double x0 = HUGE_VAL, x1 = -HUGE_VAL, y0 = HUGE_VAL, y1 = -HUGE_VAL;
  for (std::size_t k = begin; k < end; ++k) {
    const Vec2 p = to[slots[k]];
    x0 = std::min(x0, p.x);
    x1 = std::max(x1, p.x);
    y0 = std::min(y0, p.y);
    y1 = std::max(y1, p.y);
  }
  const bool along_x = x1 - x0 >= y1 - y0;
  auto key = [&](std::span<const Vec2> pts) {
    return [pts, along_x](std::uint32_t a, std::uint32_t b) {
      const double ka = along_x ? pts[a].x : pts[a].y, kb = along_x ? pts[b].x : pts[b].y;
      return ka < kb || (ka == kb && a < b);
    };
  };
  const std::size_t mid = begin + n / 2;
  const auto b = static_cast<std::ptrdiff_t>(begin), m = static_cast<std::ptrdiff_t>(mid),
             e = static_cast<std::ptrdiff_t>(end);
  std::nth_element(slots.begin() + b, slots.begin() + m, slots.begin() + e, key(to));
  std::nth_element(agents.begin() + b, agents.begin() + m, agents.begin() + e, key(from));
  bisect(from, to, agents, slots, begin, mid, out);
  bisect(from, to, agents, slots, mid, end, out);
}

}  // namespace

std::vector<std::uint32_t> assign_bisection(std::span<const Vec2> from, std::span<const Vec2> to) {
  std::vector<std::uint32_t> agents(from.size()), slots(to.size()), out(from.size());
  for (std::size_t i = 0; i < agents.size(); ++i)
    agents[i] = slots[i] = static_cast<std::uint32_t>(i);
  if (!from.empty()) bisect(from, to, agents, slots, 0, from.size(), out);
  return out;
}

}  // namespace herd::sim
