// The step on several threads gives the same world, bit for bit, as on one: the
// stages that run in parallel compute into per-agent scratch and commit afterwards.
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "avoidance.hpp"
#include "exec/thread_pool.hpp"
#include "herd/sim/world.hpp"
#include "neighbour_scan.hpp"
#include "rng.hpp"
#include "world_access.hpp"

namespace herd {
namespace {

TEST(ThreadPool, EveryIndexRunsExactlyOnceOnAKnownWorker) {
  for (std::size_t threads : {1u, 2u, 3u, 8u}) {
    exec::ThreadPool pool(threads);
    ASSERT_EQ(pool.workers(), threads);
    for (std::size_t n : {0u, 1u, 7u, 1000u, 100003u}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<bool> bad_worker{false};
      pool.parallel_for(n, [&](std::size_t begin, std::size_t end, std::size_t worker) {
        if (worker >= threads) bad_worker = true;
        for (std::size_t i = begin; i < end; ++i) ++hits[i];
      });
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(hits[i].load(), 1) << threads << ' ' << n << ' ' << i;
      EXPECT_FALSE(bad_worker);
    }
  }
}

// The threads a named pool starts carry its name and their number, as top -H and perf show them;
// a name over Linux's 15 characters is cut, not refused (which would leave the thread unnamed).
TEST(ThreadPool, StartedThreadsAreNamed) {
  const auto names = [] {
    std::multiset<std::string> seen;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      seen.insert(name);
    }
    return seen;
  };
  {
    exec::ThreadPool pool(3, "pool-test");
    const auto seen = names();
    EXPECT_EQ(seen.count("pool-test-1"), 1u);
    EXPECT_EQ(seen.count("pool-test-2"), 1u);
    EXPECT_EQ(seen.count("pool-test-3"), 0u);  // the caller is the third worker
  }
  std::latch named(1);  // the thread runs until it is named and its name read
  std::thread thread([&] { named.wait(); });
  exec::name_thread(thread, "herd-a-very-long-thread-name");
  char buffer[64] = {};
  pthread_getname_np(thread.native_handle(), buffer, sizeof buffer);
  named.count_down();
  thread.join();
  const std::string long_name = buffer;
  EXPECT_EQ(long_name, "herd-a-very-lon");
}

// A crowd large enough to run in parallel, with everything the parallel stages touch: the
// neighbour cap, pursuers, obstacles, collisions, an inspected agent.
sim::World crowd(std::uint32_t n, std::uint32_t max_neighbours) {
  sim::WorldDef def;
  def.width = def.height = std::sqrt(60.0 * n);
  def.max_agents = n + 1000;  // room for a test to add some
  def.dt = 0.1;
  def.agent_defaults.radius = 1.5;
  def.agent_defaults.max_speed = 2;
  def.avoidance.max_neighbours = max_neighbours;
  sim::World world(def);
  sim::Rng rng(5);
  std::vector<sim::SpawnAgent> agents;
  for (std::uint32_t i = 0; i < n; ++i) {
    sim::SpawnAgent s;
    s.position = {rng.uniform(0, def.width), rng.uniform(0, def.height)};
    s.target = sim::Vec2{rng.uniform(0, def.width), rng.uniform(0, def.height)};
    agents.push_back(s);
  }
  for (std::size_t k = 0; k < agents.size(); k += 1000)
    world.apply(
        sim::Spawn{0,
                   0,
                   {agents.begin() + static_cast<long>(k),
                    agents.begin() + static_cast<long>(std::min(agents.size(), k + 1000))}});
  for (int o = 0; o < 20; ++o)
    world.apply(sim::AddObstacle{{rng.uniform(0, def.width), rng.uniform(0, def.height)}, 6});
  // Some pursue their neighbour by id, so desires read other agents.
  for (sim::AgentId id = 2; id < 200; id += 3) {
    sim::SetBehaviour b;
    b.agents = {false, {id}};
    b.behaviour.kind = sim::BehaviourKind::pursue;
    b.behaviour.agent = id - 1;
    world.apply(b);
  }
  world.set_inspected({1, 5, 9});
  return world;
}

// Steps `serial` alone and `two` and `four` on pools of that many threads, 40 ticks, checking the
// state hashes agree after every tick. The pools stop with the function: the worlds are left
// without an executor.
void steps_alike_on_two_and_four_threads(sim::World& serial, sim::World& two, sim::World& four,
                                         const std::string& what) {
  exec::ThreadPool pool2(2), pool4(4);
  two.set_executor(&pool2);
  four.set_executor(&pool4);
  for (int t = 0; t < 40; ++t) {
    serial.step();
    two.step();
    four.step();
    ASSERT_EQ(two.state_hash(), serial.state_hash()) << what << ", tick " << t;
    ASSERT_EQ(four.state_hash(), serial.state_hash()) << what << ", tick " << t;
  }
  two.set_executor(nullptr);
  four.set_executor(nullptr);
}

TEST(ParallelStep, SameHashOnOneTwoAndFourThreads) {
  for (std::uint32_t cap : {16u, 0u}) {
    sim::World serial = crowd(5000, cap);
    ASSERT_GE(serial.agents().size(), sim::World::kParallelMinAgents);
    sim::World two = crowd(5000, cap), four = crowd(5000, cap);
    ASSERT_EQ(two.state_hash(), serial.state_hash());
    steps_alike_on_two_and_four_threads(serial, two, four, "cap " + std::to_string(cap));
    EXPECT_EQ(two.collisions(), serial.collisions());
    ASSERT_NE(serial.trace(5), nullptr);
    ASSERT_NE(two.trace(5), nullptr);
    EXPECT_EQ(two.trace(5)->final_dir, serial.trace(5)->final_dir);
    EXPECT_EQ(two.trace(5)->pushes.size(), serial.trace(5)->pushes.size());
  }
}

TEST(ParallelStep, SameHashWhileAMoveAvoidsReciprocally) {
  // A thousand of the crowd swap places (their members avoid each other by velocity obstacles, the
  // critical ones recounted every tick) among the rest, who avoid as usual.
  sim::World serial = crowd(5000, 16), two = crowd(5000, 16), four = crowd(5000, 16);
  sim::Selection some;
  for (sim::AgentId id = 1000; id < 2000; ++id) some.ids.push_back(id);
  for (sim::World* w : {&serial, &two, &four}) {
    w->step();  // spawned within a radius of the edge, an agent is confined into the world
    const sim::CommandOutcome out = w->apply(sim::Demo{some, sim::DemoMove::swap_places, 3});
    ASSERT_TRUE(out.ok()) << out.message;
    ASSERT_TRUE(formation_records(*w).back().reciprocal);
    w->set_inspected({1000});
  }
  steps_alike_on_two_and_four_threads(serial, two, four, "swapping");
  ASSERT_NE(serial.trace(1000), nullptr);
  EXPECT_EQ(four.trace(1000)->final_dir, serial.trace(1000)->final_dir);
  EXPECT_TRUE(serial.trace(1000)->pushes.empty()) << "a reciprocal member has no pushes";
}

TEST(ParallelStep, SameHashWithPrioritiesLayersAndOrcaMode) {
  // Some of the crowd more or less important and on other layers (some standing, so that they
  // step aside), in the anti-gravity cardioid mode, in orca mode and in cfsm mode (where standing
  // agents yield to anyone on the way and some take their places beside others).
  for (sim::AvoidanceMode mode :
       {sim::AvoidanceMode::cardioid, sim::AvoidanceMode::orca, sim::AvoidanceMode::cfsm}) {
    sim::World serial = crowd(5000, 16), two = crowd(5000, 16), four = crowd(5000, 16);
    for (sim::World* w : {&serial, &two, &four}) {
      sim::Spawn ranked;
      ranked.count = 300;
      ranked.priority = 10;
      ranked.layer = 2;
      ranked.mask = 2;
      ASSERT_TRUE(w->apply(ranked).ok());
      sim::Spawn idle;
      idle.count = 300;
      idle.priority = 90;
      ASSERT_TRUE(w->apply(idle).ok());
      sim::SetAvoidance set;
      set.mode = mode;
      ASSERT_TRUE(w->apply(set).ok());
    }
    steps_alike_on_two_and_four_threads(serial, two, four, std::string(sim::to_string(mode)));
    EXPECT_EQ(two.collisions(), serial.collisions());
  }
}

TEST(ParallelStep, SameHashAmongWalls) {
  // Walls across the crowd: its avoidance heeds them and their hard boundary holds it, on the
  // workers.
  auto walled = [] {
    sim::World w = crowd(5000, 16);
    const double side = w.def().width;
    for (int k = 1; k <= 4; ++k) {
      const double x = side * k / 5;
      EXPECT_TRUE(w.apply(sim::AddWall{{{x, side * 0.1}, {x, side * 0.9}}, false}).ok());
    }
    EXPECT_TRUE(
        w.apply(sim::AddWall{
                    {{side * 0.3, side * 0.3}, {side * 0.6, side * 0.35}, {side * 0.4, side * 0.7}},
                    true})
            .ok());
    return w;
  };
  sim::World serial = walled(), two = walled(), four = walled();
  steps_alike_on_two_and_four_threads(serial, two, four, "walls");
}

TEST(ParallelStep, SameHashWithEveryAvoidanceKernel) {
  // The SSE2 kernels (avoidance and neighbour search) and the widest this machine has, two threads
  // against one.
  ASSERT_TRUE(sim::use_avoidance_kernel("base"));
  ASSERT_TRUE(sim::scan::use_kernels("base"));
  sim::World narrow = crowd(3000, 16);
  for (int t = 0; t < 30; ++t) narrow.step();
  ASSERT_TRUE(sim::use_avoidance_kernel(""));
  ASSERT_TRUE(sim::scan::use_kernels(""));
  sim::World wide = crowd(3000, 16);
  exec::ThreadPool pool(2);
  wide.set_executor(&pool);
  for (int t = 0; t < 30; ++t) wide.step();
  EXPECT_EQ(wide.state_hash(), narrow.state_hash());
}

}  // namespace
}  // namespace herd
