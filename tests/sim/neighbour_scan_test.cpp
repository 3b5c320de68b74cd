// The neighbour search's kernels: every instruction set keeps exactly the candidates the plain
// loops keep, in the same order, and the K nearest are the K first by (distance, index).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "sim/neighbour_scan.hpp"
#include "sim/rng.hpp"

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
  std::vector<std::uint32_t> slot;
};

Kept filter(const Kernels& k, const std::vector<double>& xs, const std::vector<double>& ys, std::uint32_t begin,
            std::uint32_t end, double px, double py, double le, double lt) {
  Candidates c;
  c.reserve(end - begin);
  // Poison what the kernel may overwrite, so that a count past what it wrote shows.
  std::fill(c.d2.begin(), c.d2.end(), -1.0);
  const std::size_t n = k.filter(xs.data(), ys.data(), begin, end, px, py, le, lt, c.d2.data(), c.slot.data());
  return {{c.d2.begin(), c.d2.begin() + static_cast<std::ptrdiff_t>(n)},
          {c.slot.begin(), c.slot.begin() + static_cast<std::ptrdiff_t>(n)}};
}

TEST_P(NeighbourScan, TheFilterKeepsWhatThePlainLoopKeepsBitForBit) {
  Rng rng(5);
  int kept = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint32_t len = static_cast<std::uint32_t>(rng.uniform(0, 40));
    const std::uint32_t begin = static_cast<std::uint32_t>(rng.uniform(0, 9));
    std::vector<double> xs(begin + len), ys(begin + len);
    for (std::size_t s = 0; s < xs.size(); ++s) {
      xs[s] = rng.uniform(0, 30);
      ys[s] = rng.uniform(0, 30);
    }
    const double px = rng.uniform(0, 30), py = rng.uniform(0, 30);
    if (len > 0 && trial % 5 == 0) xs[begin] = std::numeric_limits<double>::quiet_NaN();  // never kept
    double le = rng.uniform(0, 400), lt = trial % 3 == 0 ? HUGE_VAL : rng.uniform(0, 400);
    if (len > 1 && trial % 4 == 0) {  // both bounds exactly on a candidate's distance
      const double dx = xs[begin + 1] - px, dy = ys[begin + 1] - py;
      le = dx * dx + dy * dy;
      lt = trial % 8 == 0 ? le : HUGE_VAL;
    }
    const Kept want = filter(base_, xs, ys, begin, begin + len, px, py, le, lt);
    const Kept got = filter(*wide_, xs, ys, begin, begin + len, px, py, le, lt);
    ASSERT_EQ(got.slot, want.slot) << "trial " << trial;
    ASSERT_EQ(got.d2.size(), want.d2.size());
    ASSERT_EQ(std::memcmp(got.d2.data(), want.d2.data(), got.d2.size() * sizeof(double)), 0) << "trial " << trial;
    for (std::size_t m = 0; m < want.slot.size(); ++m) {
      const std::uint32_t s = want.slot[m];
      EXPECT_TRUE(s >= begin && s < begin + len);
      EXPECT_LE(want.d2[m], le);
      EXPECT_LT(want.d2[m], lt);
    }
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
      const std::size_t other = m + static_cast<std::size_t>(rng.uniform(0, static_cast<double>(n - m)));
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
