// The neighbour search's kernels: every instruction set keeps exactly the candidates the plain
// loops keep, in the same order, and the K nearest are the K first by (distance, index).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "neighbour_scan.hpp"
#include "rng.hpp"

namespace herd::sim::scan {
namespace {

class NeighbourScan : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    wide_ = kernels_named(GetParam());
    if (!wide_) GTEST_SKIP() << "this processor or compiler has no " << GetParam() << " kernels";
  }
  const Kernels* wide_ = nullptr;
  const Kernels& base_ = *kernels_named("base");
};

struct Kept {
  std::vector<double> d2;
  std::vector<std::uint32_t> slot, index;
  double nearest = 0;  // what the filter made of a starting nearest of 1000
};

struct SlotRun {
  std::vector<double> xs, ys;
  std::vector<std::uint32_t> items;
  std::uint32_t begin = 0, end = 0, self = 0, skip = 0;
  double px = 0, py = 0, le = 0, lt = 0;
};

Kept filter(const Kernels& k, const SlotRun& r) {
  Candidates c;
  c.reserve(r.end - r.begin);
  // Poison what the kernel may overwrite, so that a count past what it wrote shows.
  std::fill(c.d2.begin(), c.d2.end(), -1.0);
  double nearest = 1000;
  const std::size_t n =
      k.filter(r.xs.data(), r.ys.data(), r.items.data(), r.begin, r.end, r.px, r.py, r.le, r.lt,
               r.self, r.skip, c.d2.data(), c.slot.data(), c.index.data(), &nearest);
  const auto to = static_cast<std::ptrdiff_t>(n);
  return {{c.d2.begin(), c.d2.begin() + to},
          {c.slot.begin(), c.slot.begin() + to},
          {c.index.begin(), c.index.begin() + to},
          nearest};
}

TEST_P(NeighbourScan, TheFilterKeepsWhatThePlainLoopKeepsBitForBit) {
  Rng rng(5);
  int kept = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    SlotRun r;
    const std::uint32_t len = static_cast<std::uint32_t>(rng.uniform(0, 40));
    r.begin = static_cast<std::uint32_t>(rng.uniform(0, 9));
    r.end = r.begin + len;
    for (std::uint32_t s = 0; s < r.end; ++s) {
      r.xs.push_back(rng.uniform(0, 30));
      r.ys.push_back(rng.uniform(0, 30));
      r.items.push_back(1000 + 7 * s % 41);
    }
    r.px = rng.uniform(0, 30);
    r.py = rng.uniform(0, 30);
    if (len > 0 && trial % 5 == 0)
      r.xs[r.begin] = std::numeric_limits<double>::quiet_NaN();  // never kept
    r.le = rng.uniform(0, 400);
    r.lt = trial % 3 == 0 ? HUGE_VAL : rng.uniform(0, 400);
    if (len > 1 && trial % 4 == 0) {  // both bounds exactly on a candidate's distance
      const double dx = r.xs[r.begin + 1] - r.px, dy = r.ys[r.begin + 1] - r.py;
      r.le = dx * dx + dy * dy;
      r.lt = trial % 8 == 0 ? r.le : HUGE_VAL;
    }
    // The agent itself and its subject, in the run or not.
    r.self = len > 2 ? r.items[r.begin + 2] : 5;
    r.skip = trial % 2 == 0 && len > 0 ? r.items[r.end - 1] : 7;
    const Kept want = filter(base_, r);
    const Kept got = filter(*wide_, r);
    ASSERT_EQ(got.slot, want.slot) << "trial " << trial;
    ASSERT_EQ(got.index, want.index) << "trial " << trial;
    ASSERT_EQ(got.d2.size(), want.d2.size());
    if (!want.d2.empty())  // (memcmp takes no null pointer, even for no bytes)
      ASSERT_EQ(std::memcmp(got.d2.data(), want.d2.data(), got.d2.size() * sizeof(double)), 0)
          << "trial " << trial;
    for (std::size_t m = 0; m < want.slot.size(); ++m) {
      const std::uint32_t s = want.slot[m];
      EXPECT_TRUE(s >= r.begin && s < r.end);
      EXPECT_EQ(want.index[m], r.items[s]);
      EXPECT_NE(want.index[m], r.self);
      EXPECT_NE(want.index[m], r.skip);
      EXPECT_LE(want.d2[m], r.le);
      EXPECT_LT(want.d2[m], r.lt);
    }
    // The nearest: the least distance kept, or the 1000 it started with (every distance kept is
    // under 30^2 * 2, so some trials lower it and others, keeping nothing, do not).
    const double least = want.d2.empty()
                             ? 1000.0
                             : std::min(1000.0, *std::min_element(want.d2.begin(), want.d2.end()));
    EXPECT_EQ(want.nearest, least) << "trial " << trial;
    EXPECT_EQ(got.nearest, least) << "trial " << trial;
    kept += static_cast<int>(want.slot.size());
  }
  EXPECT_GT(kept, 2000);  // the trials did keep candidates
}

TEST_P(NeighbourScan, KeepsTheKNearestByDistanceThenIndexInTheirOrder) {
  Rng rng(9);
  std::vector<std::uint32_t> scratch;
  for (int trial = 0; trial < 3000; ++trial) {
    // Up to 100 candidates: the wide kernels rank up to 64 and count a histogram beyond.
    const std::size_t n = 2 + static_cast<std::size_t>(rng.uniform(0, 99));
    const std::size_t k = 1 + static_cast<std::size_t>(rng.uniform(0, static_cast<double>(n - 1)));
    const double limit = rng.uniform(1, 500);
    Candidates c;
    c.reserve(n);
    std::vector<std::uint32_t> indices(n);
    std::iota(indices.begin(), indices.end(), 0u);
    for (std::size_t m = 0; m < n; ++m) {  // distinct indices in a shuffled order
      const std::size_t other =
          m + static_cast<std::size_t>(rng.uniform(0, static_cast<double>(n - m)));
      std::swap(indices[m], indices[std::min(other, n - 1)]);
    }
    for (std::size_t m = 0; m < n; ++m) {
      // Many equal distances (a few values only, in some trials), and the limit itself.
      c.d2[m] = trial % 3 == 0 ? std::floor(rng.uniform(0, 4)) * limit / 4 : rng.uniform(0, limit);
      if (trial % 7 == 0 && m % 5 == 0) c.d2[m] = limit;
      c.index[m] = 1000 + indices[m];
      c.slot[m] = static_cast<std::uint32_t>(m);
    }
    // The reference: the k first by (d2, index), then back in their first order.
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return c.d2[a] < c.d2[b] || (c.d2[a] == c.d2[b] && c.index[a] < c.index[b]);
    });
    order.resize(k);
    std::sort(order.begin(), order.end());
    for (const Kernels* kernels : {&base_, wide_}) {
      Candidates run = c;
      ASSERT_EQ(kernels->keep_nearest(run, n, k, limit, scratch), k) << "trial " << trial;
      for (std::size_t m = 0; m < k; ++m) {
        ASSERT_EQ(run.slot[m], order[m]) << "trial " << trial << " n " << n << " k " << k;
        ASSERT_EQ(run.index[m], c.index[order[m]]);
        ASSERT_EQ(run.d2[m], c.d2[order[m]]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, NeighbourScan, ::testing::Values("base", "avx512"));

}  // namespace
}  // namespace herd::sim::scan
