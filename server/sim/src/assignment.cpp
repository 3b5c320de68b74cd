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
  while (!a.done()) a.advance(std::numeric_limits<std::uint64_t>::max());
  return a.slots();
}

// Agents are rows, slots columns. Potentials u (rows) and v (columns) keep every reduced cost
// c(i, j) - u[i] - v[j] of the graph's pairs at or above zero, and those of assigned pairs at zero.
OptimalAssignment::OptimalAssignment(std::vector<Vec2> from, std::vector<Vec2> to)
    : from_(std::move(from)), to_(std::move(to)) {
  assert(from_.size() == to_.size());
  const std::size_t n = from_.size();
  edges_.resize(n);
  u_.assign(n, 0.0);
  v_.assign(n, 0.0);
  col_of_.assign(n, kFree);
  row_of_.assign(n, kFree);
  dist_.assign(n, std::numeric_limits<double>::infinity());
  pred_.assign(n, kFree);
  settled_.assign(n, 0);
  phase_ = n == 0 ? Phase::done : Phase::candidates;
}

std::uint64_t OptimalAssignment::advance(std::uint64_t budget) {
  std::uint64_t spent = 0;
  while (!done() && (spent == 0 || spent < budget)) spent += step();
  return spent;
}

void OptimalAssignment::advance_steps(std::uint64_t steps) {
  for (std::uint64_t k = 0; k < steps && !done(); ++k) step();
}

std::uint64_t OptimalAssignment::work_left() const {
  const std::uint64_t n = from_.size();
  switch (phase_) {
    case Phase::candidates:
      return (n - next_) * n + 2 * n * n;
    case Phase::augment:
      return (queue_.size() - next_) * kCandidates * kCandidates + n * n;
    case Phase::check:
      return (n - next_) * n;
    case Phase::done:
      break;
  }
  return 0;
}

std::uint64_t OptimalAssignment::step() {
  ++steps_;
  const std::size_t n = from_.size();
  std::uint64_t spent = 0;
  switch (phase_) {
    case Phase::candidates:
      spent = find_candidates(static_cast<std::uint32_t>(next_++));
      if (next_ == n) {
        hint_.clear();
        hint_.shrink_to_fit();
        queue_.resize(n);
        for (std::size_t i = 0; i < n; ++i) queue_[i] = static_cast<std::uint32_t>(i);
        phase_ = Phase::augment;
        next_ = 0;
      }
      break;
    case Phase::augment:
      spent = augment(queue_[next_++]);
      if (next_ == queue_.size()) {
        queue_.clear();
        next_ = 0;
        // With every slot a candidate of every agent the graph is whole: nothing to check.
        phase_ = n <= kCandidates ? Phase::done : Phase::check;
      }
      break;
    case Phase::check:
      spent = check(static_cast<std::uint32_t>(next_++));
      if (next_ == n) {
        next_ = 0;
        ++round_;
        phase_ = queue_.empty() ? Phase::done : Phase::augment;
      }
      break;
    case Phase::done:
      break;
  }
  return spent;
}

std::uint64_t OptimalAssignment::find_candidates(std::uint32_t i) {
  const std::size_t n = from_.size();
  if (i == 0 && n > kCandidates) hint_ = assign_bisection(from_, to_);
  std::vector<std::uint32_t>& e = edges_[i];
  const std::size_t k = std::min(n, kCandidates);
  // The k nearest to `p`, ties by index (one answer on any platform): one pass keeping the best
  // k so far in order, most slots failing the first comparison with the worst of them.
  std::vector<std::pair<double, std::uint32_t>> best;
  best.reserve(k + 1);
  const auto nearest = [&](Vec2 p) {
    best.clear();
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::pair<double, std::uint32_t> c{length_squared(to_[j] - p), j};
      if (best.size() == k && !(c < best.back())) continue;
      best.insert(std::upper_bound(best.begin(), best.end(), c), c);
      if (best.size() > k) best.pop_back();
    }
    for (const auto& [d, j] : best) e.push_back(j);
  };
  nearest(from_[i]);
  if (hint_.empty()) return kSelectWork * n;
  // And the slots round its place in a near-optimal assignment (bisection's, which it joins):
  // the graph then holds a whole assignment, so every search finds a free slot, and the optimal
  // place, near the near-optimal one, is mostly among them.
  nearest(to_[hint_[i]]);
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  e.shrink_to_fit();
  return 2 * kSelectWork * n;
}

// Dijkstra over reduced costs from free agent s until a free slot; then the potentials of what
// it settled move so that the path's pairs are tight, and the path is flipped.
std::uint64_t OptimalAssignment::augment(std::uint32_t s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto n = static_cast<std::uint32_t>(from_.size());
  std::uint64_t spent = 0;
  // The heap's order: distance, then slot index (one order on any platform).
  using Entry = std::pair<double, std::uint32_t>;
  std::vector<Entry> heap;
  const auto later = [](const Entry& a, const Entry& b) { return a > b; };
  for (;;) {
    // A free agent's potential: the least of its pairs' c - v, so none of them is negative.
    double least = kInf;
    for (std::uint32_t j : edges_[s]) least = std::min(least, cost(s, j) - v_[j]);
    u_[s] = least;
    spent += edges_[s].size();
    heap.clear();
    touched_.clear();
    scanned_.clear();
    const auto relax = [&](std::uint32_t row, std::uint32_t j, double d) {
      if (settled_[j] || d >= dist_[j]) return;
      if (dist_[j] == kInf) touched_.push_back(j);
      dist_[j] = d;
      pred_[j] = row;
      heap.emplace_back(d, j);
      std::push_heap(heap.begin(), heap.end(), later);
    };
    for (std::uint32_t j : edges_[s]) relax(s, j, cost(s, j) - u_[s] - v_[j]);
    std::uint32_t found = kFree;
    double total = 0;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const auto [d, j] = heap.back();
      heap.pop_back();
      if (settled_[j] || d > dist_[j]) continue;
      settled_[j] = 1;
      scanned_.push_back(j);
      if (row_of_[j] == kFree) {
        found = j;
        total = d;
        break;
      }
      const std::uint32_t r = row_of_[j];
      for (std::uint32_t j2 : edges_[r]) relax(r, j2, d + cost(r, j2) - u_[r] - v_[j2]);
      spent += edges_[r].size();
    }
    if (found != kFree) {
      // Settled slots (and the agents on them) by how much shorter than the path they were
      // reached; the free slot found is reached at `total` and keeps its potential.
      for (std::uint32_t j : scanned_) {
        const double by = total - dist_[j];
        v_[j] -= by;
        if (row_of_[j] != kFree) u_[row_of_[j]] += by;
      }
      u_[s] += total;
      for (std::uint32_t j = found;;) {
        const std::uint32_t r = pred_[j];
        const std::uint32_t before = col_of_[r];
        col_of_[r] = j;
        row_of_[j] = r;
        if (r == s) break;
        j = before;
      }
    }
    for (std::uint32_t j : touched_) {
      dist_[j] = kInf;
      settled_[j] = 0;
      pred_[j] = kFree;
    }
    if (found != kFree) return kSearchWork * spent;
    // Its graph reaches no free slot: every slot becomes its candidate (then a free one is
    // among them), and it searches again.
    edges_[s].resize(n);
    for (std::uint32_t j = 0; j < n; ++j) edges_[s][j] = j;
  }
}

// Every slot against agent i's potential: pairs with a negative reduced cost (beyond rounding)
// would improve the assignment. The most improving join its graph and it is assigned again;
// lowering only its own potential keeps every other pair's reduced cost as it was.
std::uint64_t OptimalAssignment::check(std::uint32_t i) {
  const auto n = static_cast<std::uint32_t>(from_.size());
  std::vector<std::pair<double, std::uint32_t>> better;
  for (std::uint32_t j = 0; j < n; ++j) {
    const double c = cost(i, j);
    const double reduced = c - u_[i] - v_[j];
    if (reduced < -1e-9 * (1 + c)) better.emplace_back(reduced, j);
  }
  if (better.empty()) return n;
  std::sort(better.begin(), better.end());
  std::vector<std::uint32_t>& e = edges_[i];
  // Twice as many each round: crowds on top of one another, whose pairs tie, need many.
  const std::size_t add = kAddedPerCheck << std::min<std::uint32_t>(round_, 10);
  for (std::size_t k = 0; k < better.size() && k < add; ++k)
    if (std::find(e.begin(), e.end(), better[k].second) == e.end()) e.push_back(better[k].second);
  row_of_[col_of_[i]] = kFree;
  col_of_[i] = kFree;
  queue_.push_back(i);
  return n;
}

std::vector<std::uint32_t> OptimalAssignment::slots() const {
  assert(done());
  return col_of_;
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
