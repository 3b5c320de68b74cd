// Random worlds, including coincident agents and zero-size moves: no NaN, no infinity, nobody
// leaves the world, whatever the behaviours and the avoidance mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::sim {
namespace {

TEST(Property, RandomWorldsStayFiniteAndInside) {
  Rng pick(2024);
  for (int trial = 0; trial < 24; ++trial) {
    WorldDef def;
    def.seed = trial;
    def.width = pick.uniform(50, 600);
    def.height = pick.uniform(50, 600);
    def.avoidance.mode = static_cast<AvoidanceMode>(trial % 3);
    def.avoidance.split_fix = trial % 2 ? SplitFixMode::seed : SplitFixMode::sum_as_obstacle;
    // As crowded as a world may be (its agents' discs cover up to half its area): the 60 spread
    // agents up to a fifth of it, the stack below up to a fifth more.
    const double fifth = 0.2 * def.width * def.height / 3.14159265358979;
    def.agent_defaults.radius = std::min(8.0, std::sqrt(fifth / 60));
    World world(def);
    ASSERT_TRUE(world.apply(Spawn{60, 0, {}}).ok());
    std::vector<SpawnAgent> extra;
    for (int k = 0; k < 10; ++k) {  // a stack of coincident agents, some with zero-size moves
      SpawnAgent s;
      s.position = {def.width / 2, def.height / 2};
      s.radius = pick.uniform(0.1, std::min(20.0, std::sqrt(fifth / 10)));
      s.mass = pick.uniform(0.01, 50);
      s.movement = k % 2 ? Movement::kinematic : Movement::inertial;
      if (k % 3 == 0) s.target = s.position;
      extra.push_back(s);
    }
    ASSERT_TRUE(world.apply(Spawn{0, 1, extra}).ok());
    ASSERT_TRUE(
        world.apply(AddObstacle{{def.width / 3, def.height / 3}, pick.uniform(1, 30)}).ok());
    const auto ids = world.agents();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      Behaviour b;
      b.kind = static_cast<BehaviourKind>(pick.next_u64() % 9);
      b.point = {pick.uniform(0, def.width), pick.uniform(0, def.height)};
      b.agent = ids[(i + 1) % ids.size()].id;
      b.radius = pick.uniform(0, 100);
      b.response = pick.next_u64() % 2 ? BehaviourKind::pursue : BehaviourKind::evade;
      if (b.kind == BehaviourKind::seek || b.kind == BehaviourKind::arrive ||
          b.kind == BehaviourKind::flee || b.kind == BehaviourKind::hold ||
          b.kind == BehaviourKind::idle)
        b.agent = kNoAgent;
      world.apply(SetBehaviour{{false, {ids[i].id}}, b, false, {}, {}});
    }
    for (int t = 0; t < 400; ++t) {
      world.step();
      for (const Agent& a : world.agents()) {
        ASSERT_TRUE(std::isfinite(a.position.x) && std::isfinite(a.position.y))
            << trial << " " << t;
        ASSERT_TRUE(std::isfinite(a.velocity.x) && std::isfinite(a.velocity.y))
            << trial << " " << t;
        const double r = std::min({a.def.radius, def.width / 2, def.height / 2});
        ASSERT_GE(a.position.x, r - 1e-9);
        ASSERT_LE(a.position.x, def.width - r + 1e-9);
        ASSERT_GE(a.position.y, r - 1e-9);
        ASSERT_LE(a.position.y, def.height - r + 1e-9);
      }
      for (const CollisionEvent& e : world.collisions())
        ASSERT_TRUE(std::isfinite(e.impulse) && std::isfinite(e.point.x));
    }
  }
}

}  // namespace
}  // namespace herd::sim
