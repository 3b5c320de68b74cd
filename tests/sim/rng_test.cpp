#include "rng.hpp"

#include <gtest/gtest.h>

namespace herd::sim {
namespace {

TEST(Rng, MatchesTheReferenceSplitMix64Sequence) {
  // Reference values of splitmix64 seeded with 0 (Vigna's splitmix64.c).
  Rng rng(0);
  EXPECT_EQ(rng.next_u64(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next_u64(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(rng.next_u64(), 0x06C45D188009454Full);
}

TEST(Rng, UnitIsInHalfOpenRange) {
  Rng rng(42);
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.next_unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(Rng, SameSeedSameStream) {
  Rng a(7), b(7), c(8);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  EXPECT_NE(Rng(7).next_u64(), c.next_u64());
}

}  // namespace
}  // namespace herd::sim
