// The batch form of avoidance gives the span form's result bit for bit: the world steps agents
// with the batch form and inspected ones with the span form (which traces), so watching an agent
// must not change where it goes.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "avoidance.hpp"
#include "rng.hpp"

namespace herd::sim {
namespace {

bool same_bits(Vec2 a, Vec2 b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every kernel this machine can run: the SSE2 one, and (GCC builds) AVX2 and AVX-512.
class AvoidanceBatch : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!use_avoidance_kernel(GetParam()))
      GTEST_SKIP() << "this processor or compiler has no " << GetParam() << " kernel";
  }
  void TearDown() override { use_avoidance_kernel(""); }
};

TEST_P(AvoidanceBatch, SameBitsAsTheSpanFormInEveryMode) {
  Rng rng(21);
  int checked = 0, crossings = 0;
  for (int world = 0; world < 3000; ++world) {
    AvoidanceDef def;
    def.mode = world % 5 == 0 ? AvoidanceMode::circle : AvoidanceMode::cardioid;
    def.preferred_side = world % 2 ? Side::left : Side::right;
    def.crossing = world % 7 != 0;
    def.split_fix = world % 3 == 0 ? SplitFixMode::seed : SplitFixMode::sum_as_obstacle;
    if (world % 11 == 0)
      def.cardioid_exponent = 1.5;  // the batch form hands these to the span form
    const Mover self{{rng.uniform(0, 50), rng.uniform(0, 50)},
                     {rng.uniform(-3, 3), rng.uniform(-3, 3)},
                     rng.uniform(0.5, 3),
                     {rng.uniform(-2, 2), rng.uniform(-2, 2)}};
    std::vector<Neighbour> list;
    NeighbourBatch batch;
    const int n = static_cast<int>(rng.uniform(0, 24));
    for (int i = 0; i < n; ++i) {
      Neighbour o{0,
                  rng.uniform(0, 1) < 0.2,
                  {rng.uniform(0, 50), rng.uniform(0, 50)},
                  {rng.uniform(-3, 3), rng.uniform(-3, 3)},
                  rng.uniform(0.5, 3)};
      if (i % 9 == 1) o.position = self.position;                       // coincident centres
      if (i % 9 == 2) o.position = self.position + self.desired * 0.3;  // dead ahead, close
      if (i % 9 == 3) o.velocity = self.desired * 1.5;                  // running away ahead
      if (o.is_obstacle) o.velocity = {};
      list.push_back(o);
      batch.push(o.position, o.velocity, o.radius, o.is_obstacle);
    }
    AvoidanceTrace trace;
    const Vec2 by_span = avoidance_direction(def, self, list, &trace);
    const Vec2 by_batch = avoidance_direction(def, self, batch);
    ASSERT_TRUE(same_bits(by_span, by_batch))
        << "world " << world << ": (" << by_span.x << ", " << by_span.y << ") vs (" << by_batch.x
        << ", " << by_batch.y << ")";
    for (const PushTrace& p : trace.pushes) crossings += p.crossing;
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
  EXPECT_GT(crossings, 100);  // the crossing fix ran often enough to be compared too
}

// The world sums each agent's pushes and combines a chunk of agents at once: every agent's
// direction must be the one avoidance_direction gives it alone, bit for bit, whatever its place
// in the chunk (vector lanes, the scalar remainder) and for every mode (combine_batch hands the
// ones it cannot run in lanes to the scalar combine).
TEST_P(AvoidanceBatch, CombiningAChunkGivesEachAgentItsOwnBits) {
  Rng rng(33);
  int checked = 0, cancelled = 0;
  for (int chunk = 0; chunk < 400; ++chunk) {
    AvoidanceDef def;
    def.preferred_side = chunk % 2 ? Side::left : Side::right;
    def.crossing = chunk % 5 != 0;
    if (chunk % 7 == 0) def.mode = AvoidanceMode::circle;
    if (chunk % 11 == 0) def.split_fix = SplitFixMode::seed;
    SumsBatch sums;
    std::vector<Vec2> alone;
    const int agents = 1 + static_cast<int>(rng.uniform(0, 40));
    for (int a = 0; a < agents; ++a) {
      Mover self{{rng.uniform(0, 50), rng.uniform(0, 50)},
                 {rng.uniform(-3, 3), rng.uniform(-3, 3)},
                 rng.uniform(0.5, 3),
                 {rng.uniform(-2, 2), rng.uniform(-2, 2)}};
      if (a % 13 == 5) self.desired = {};  // no desire: no direction
      NeighbourBatch batch;
      const int n = a % 6 == 0 ? 0 : static_cast<int>(rng.uniform(0, 20));
      for (int i = 0; i < n; ++i) {
        Vec2 at{rng.uniform(0, 50), rng.uniform(0, 50)};
        if (i % 9 == 2) at = self.position + self.desired * 0.3;  // dead ahead, close
        batch.push(at, {rng.uniform(-3, 3), rng.uniform(-3, 3)}, rng.uniform(0.5, 3), false);
      }
      if (a % 6 == 3) {  // a symmetric pair either side of the path: the adjusted pushes cancel
        const Vec2 u = normalized_or_zero(self.desired), across{-u.y, u.x};
        batch.push(self.position + u * 4.0 + across * 2.0, {}, 1.0, true);
        batch.push(self.position + u * 4.0 - across * 2.0, {}, 1.0, true);
      }
      NeighbourBatch copy = batch;
      alone.push_back(avoidance_direction(def, self, copy));
      const PushSums s = avoidance_sums(def, self, batch);
      cancelled += length_squared(s.sum_adjusted) < length_squared(s.sum_raw);
      sums.push(s);
    }
    combine_batch(def, sums);
    ASSERT_EQ(sums.size(), alone.size());
    for (std::size_t m = 0; m < alone.size(); ++m) {
      ASSERT_TRUE(same_bits(alone[m], {sums.dir_x[m], sums.dir_y[m]}))
          << "chunk " << chunk << " agent " << m << ": (" << alone[m].x << ", " << alone[m].y
          << ") vs (" << sums.dir_x[m] << ", " << sums.dir_y[m] << ")";
      ++checked;
    }
  }
  EXPECT_GT(checked, 6000);
  EXPECT_GT(cancelled, 1000);  // the split fix's green was computed often enough to be compared
}

INSTANTIATE_TEST_SUITE_P(Kernels, AvoidanceBatch, ::testing::Values("base", "avx2", "avx512"));

}  // namespace
}  // namespace herd::sim
