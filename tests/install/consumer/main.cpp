// Steps a world with herd's installed library alone (no server, no Boost, no JSON): 200 agents
// sent across a ring, on one thread and on a pool of two; prints both state hashes, which the
// world's determinism makes equal.
#include <cmath>
#include <cstdio>
#include <herd/exec/thread_pool.hpp>
#include <herd/sim/world.hpp>

namespace {

std::uint64_t run(herd::sim::Executor* executor) {
  using namespace herd::sim;
  WorldDef def;
  def.width = def.height = 600;
  def.seed = 7;
  World world(def);
  if (executor) world.set_executor(executor);
  Spawn spawn;
  for (int i = 0; i < 200; ++i) {
    const double a = 2 * M_PI * i / 200;
    SpawnAgent agent;
    agent.position = {300 + 250 * std::cos(a), 300 + 250 * std::sin(a)};
    agent.target = Vec2{300 - 250 * std::cos(a), 300 - 250 * std::sin(a)};
    spawn.agents.push_back(agent);
  }
  world.apply(spawn);
  for (int t = 0; t < 300; ++t) world.step();
  std::printf("tick %llu agents %zu ", static_cast<unsigned long long>(world.tick()),
              world.agents().size());
  return world.state_hash();
}

}  // namespace

int main() {
  const std::uint64_t one = run(nullptr);
  herd::exec::ThreadPool pool(2);
  const std::uint64_t two = run(&pool);
  std::printf("\none thread %016llx, two threads %016llx\n", static_cast<unsigned long long>(one),
              static_cast<unsigned long long>(two));
  return one == two ? 0 : 1;
}
