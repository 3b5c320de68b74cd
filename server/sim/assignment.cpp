#include "assignment.hpp"

#include <cassert>
#include <limits>

namespace herd::sim {

std::vector<std::uint32_t> assign_optimal(std::span<const Vec2> from, std::span<const Vec2> to) {
  assert(from.size() == to.size());
  const std::size_t n = from.size();
  // Rows are agents (1-based), columns slots (1-based); u, v the potentials; p[j] the row matched
  // to column j; way[j] the previous column on the augmenting path. The standard O(n^3) scheme:
  // add rows one at a time, growing a shortest-path tree over reduced costs until a free column.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0.0), v(n + 1, 0.0), min_to(n + 1);
  std::vector<std::uint32_t> p(n + 1, 0), way(n + 1, 0);
  std::vector<char> used(n + 1);
  for (std::uint32_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::uint32_t j0 = 0;
    std::fill(min_to.begin(), min_to.end(), kInf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const std::uint32_t i0 = p[j0];
      const Vec2 a = from[i0 - 1];
      double delta = kInf;
      std::uint32_t j1 = 0;
      for (std::uint32_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = length(to[j - 1] - a) - u[i0] - v[j];
        if (cur < min_to[j]) {
          min_to[j] = cur;
          way[j] = j0;
        }
        if (min_to[j] < delta) {
          delta = min_to[j];
          j1 = j;
        }
      }
      for (std::uint32_t j = 0; j <= n; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          min_to[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {  // flip the augmenting path
      const std::uint32_t j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<std::uint32_t> slot(n);
  for (std::uint32_t j = 1; j <= n; ++j) slot[p[j] - 1] = j - 1;
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
