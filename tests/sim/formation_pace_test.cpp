// Paced formations at a tight spacing: members paced by their ways left and moving as one body
// fill a block at a diameter's gap.
#include <gtest/gtest.h>

#include <algorithm>

#include "geometry.hpp"
#include "herd/sim/metrics.hpp"
#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

// 300 agents of radius 3 from the world's random spawn into a 20 x 15 block at a diameter's gap
// (12 units apart, the old default): with members avoiding each other, paced by their ways from
// where they were sent, 2 of them were still outside after 60 s; paced by their ways left and
// moving as one body, it completes within 1.5 times the ideal (measured 1.24), without overlap.
TEST(FormationPace, ABlockAtADiametersGapCompletesFromARandomStart) {
  WorldDef def;
  def.width = 600;
  def.height = 450;
  def.agent_defaults.radius = 3;
  World world(def);
  ASSERT_TRUE(world.apply(Spawn{300, 0, {}}).ok());
  FormationDef block;
  block.shape = Shape::block;
  block.count = 1;
  block.columns = 20;
  block.spacing = 12;
  block.centre = {300, 225};
  const CommandOutcome out = world.apply(Form{{true, {}}, block});
  ASSERT_TRUE(out.ok()) << out.message;
  ASSERT_GT(world.assignments_pending(), 0u) << "its optimal places are worked out over ticks";
  ScenarioMetrics metrics(world);
  double ideal = 0, took = -1;
  for (int t = 1; t <= 60 * 10; ++t) {
    world.step();
    metrics.observe(world);
    const FormationRecord& f = formation_records(world).back();
    if (ideal == 0 && world.assignments_pending() == 0)
      for (std::size_t k = 0; k < f.agents.size(); ++k)
        ideal = std::max(ideal, length(f.slots[k] - world.find(f.agents[k])->behaviour.home) /
                                    AgentDef{}.max_speed);
    if (f.complete) {
      took = t * def.dt;
      break;
    }
  }
  ASSERT_GT(took, 0) << "complete within 10 s";
  EXPECT_LE(took, 1.5 * ideal) << "ideal " << ideal << " s";
  EXPECT_LT(metrics.report().max_overlap, 1.0);
}

}  // namespace
}  // namespace herd::sim
