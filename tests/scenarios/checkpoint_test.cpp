// Checkpoints: a restored world is the saved world, bit for bit, and has its future;
// anything else is refused with a reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "scenarios/scenario.hpp"
#include "serial.hpp"
#include "world_access.hpp"

namespace herd::scenario {
namespace {

sim::World build(const std::string& name) {
  return std::get<sim::World>(build_world(std::get<Scenario>(load(name, HERD_SCENARIO_DIR))));
}

TEST(Checkpoint, EveryScenarioResumesBitForBit) {
  for (const std::string& name : list(HERD_SCENARIO_DIR)) {
    sim::World world = build(name);
    // Give it formations and inspection to carry too.
    sim::FormationDef circle;
    circle.centre = {world.def().width / 2, world.def().height / 2};
    circle.radius = std::min(world.def().width, world.def().height) / 4;
    for (int t = 0; t < 150; ++t) world.step();
    if (world.agents().size() >= 2 && !world.map()) {
      sim::CommandOutcome formed = world.apply(sim::Form{{true, {}}, circle});
      if (!formed.ok()) {  // a narrow world (a corridor) holds no circle of them: a line along it
        sim::FormationDef line = circle;
        line.shape = sim::Shape::line;
        line.vertical = world.def().height > world.def().width;
        formed = world.apply(sim::Form{{true, {}}, line});
      }
      ASSERT_TRUE(formed.ok()) << name << ": " << formed.message;
    }
    for (int t = 0; t < 150; ++t) world.step();

    const std::string saved = world.save_checkpoint();
    auto loaded = sim::World::load_checkpoint(saved);
    ASSERT_TRUE(std::holds_alternative<sim::World>(loaded))
        << name << ": " << std::get<std::string>(loaded);
    sim::World restored = std::move(std::get<sim::World>(loaded));
    EXPECT_EQ(restored.state_hash(), world.state_hash()) << name;
    EXPECT_EQ(restored.tick(), world.tick()) << name;
    EXPECT_EQ(restored.save_checkpoint(), saved)
        << name << ": a restored world saves the same bytes";
    for (int t = 0; t < 300; ++t) {
      world.step();
      restored.step();
    }
    EXPECT_EQ(restored.state_hash(), world.state_hash()) << name << ": the same future";
  }
}

// Format 1 (before AvoidanceDef::max_neighbours) is still read, as "no cap", so a world saved by
// the previous server goes on exactly as that server would have run it.
TEST(Checkpoint, Format1IsStillReadAsNoNeighbourCap) {
  sim::World world = build("default");
  sim::SetAvoidance no_cap;
  no_cap.max_neighbours = 0;
  ASSERT_TRUE(world.apply(no_cap).ok());
  for (int t = 0; t < 200; ++t) world.step();
  const std::string v2 = world.save_checkpoint();
  // v3: magic, u32 version, u64 payload length, payload, u64 checksum. The payload starts with the
  // world definition, whose last field (since format 2) is the u32 max_neighbours at byte 148,
  // and ends (since format 3) with the path queue and assignments: u32 and u64 budgets, a byte per
  // agent, u64 queue length, the search under way (u32 agent, two i32 tiles each, u8, u64, u32),
  // and the u64 count of pending assignments; then (since format 4) each formation's u64 obstacles
  // version, u64 count and unreachable places (u32, vec, bool, vec, bool each); then (since format
  // 5) a bool per formation, whether it is paced; then (since format 8) the flow fields: u64 plan
  // count, u64 fields kept, u64 count of kept fields (none without a map), u64 queue length
  // (none), and the build under way (bool, u32, u8, u64); then (since format 9) the orders: u32
  // next order, a u32 order and a u8 settling per agent, and the u64 count of agents with queued
  // orders, routes or engaged enemies (none: the default scenario gives behaviours, not orders);
  // then (since format 10) the measurements, (since 11) the steering state, (since 12) the sources
  // and exits and (since 13) the walls. Since format 17 the definition's u32 max_neighbours is
  // followed by the collision-free speed model's five f64 parameters.
  constexpr std::size_t kHead = 8 + 4 + 8, kCapAt = 148, kV8Tail = 8 + 8 + 8 + 8 + 1 + 4 + 1 + 8;
  ASSERT_FALSE(world.has_orders());
  const std::size_t v9_tail = 4 + 5 * world.agents().size() + 8;
  const std::size_t v10_tail = 4 + 8 + 8 + 8;  // no measurements: ids, version, two counts
  // No steering state: its stale flag and count, and (since 16) the count of its table of paths.
  const std::size_t v11_tail = 1 + 8 + 8;
  const std::size_t v12_tail = 4 + 4 + 8 + 8 + 8;  // no sources or exits: ids, version, counts
  const std::size_t v13_tail = 4 + 8 + 8;          // no walls: next id, version, count
  // Format 14: the defaults' and each agent's u8 priority, u32 layer and u32 mask.
  const std::size_t v14_tail = 9 * (1 + world.agents().size());
  // Format 15: the defaults' u32 sight, and each agent's u32 sight and u8 team.
  const std::size_t v15_tail = 4 + 5 * world.agents().size();
  // Format 18: each agent's stall record: u32 slow ticks, u8 reason, u32 reversals, u8 count of
  // agents responsible, four u32 ids, and its last heading as two u32 float bits.
  const std::size_t v18_tail = (4 + 1 + 4 + 1 + 16 + 8) * world.agents().size();
  // Format 19: the defaults' max_hp and weapon (four u32 float bits), each agent's u8 of which
  // settings it has (none: no more), and no sources' settings.
  const std::size_t v19_tail = 16 + world.agents().size();
  std::string payload = v2.substr(kHead, v2.size() - kHead - 8);
  std::size_t v4_tail = 0;
  for (const sim::FormationRecord& f : formation_records(world))
    v4_tail += 8 + 8 + f.unreachable.size() * (4 + 16 + 1 + 16 + 1) + 1;
  payload.erase(payload.size() - v19_tail - v18_tail - v15_tail - v14_tail - v13_tail - v12_tail -
                v11_tail - v10_tail - v9_tail - kV8Tail - v4_tail -
                (4 + 8 + world.agents().size() + 8 + 4 + 16 + 1 + 8 + 4 + 8));
  payload.erase(kCapAt, 4 + 5 * 8);
  std::string v1 = v2.substr(0, 8);
  sim::Writer w(v1);
  w.u32(1);
  w.bytes(payload);
  w.u64(sim::fnv1a(payload));

  auto loaded = sim::World::load_checkpoint(v1);
  ASSERT_TRUE(std::holds_alternative<sim::World>(loaded)) << std::get<std::string>(loaded);
  sim::World restored = std::move(std::get<sim::World>(loaded));
  EXPECT_EQ(restored.def().avoidance.max_neighbours, 0u);
  EXPECT_EQ(restored.state_hash(), world.state_hash());
  for (int t = 0; t < 300; ++t) {
    world.step();
    restored.step();
  }
  EXPECT_EQ(restored.state_hash(), world.state_hash());
  // Versions the server does not know are refused, saying which it reads.
  std::string v3 = v2;
  v3[8] = 20;
  const auto refused = sim::World::load_checkpoint(v3);
  ASSERT_TRUE(std::holds_alternative<std::string>(refused));
  EXPECT_NE(std::get<std::string>(refused).find("supported 1 to 19"), std::string::npos);
}

TEST(Checkpoint, DamagedCheckpointsAreRefusedWithAReason) {
  sim::World world = build("maze");
  for (int t = 0; t < 60; ++t) world.step();
  const std::string saved = world.save_checkpoint();
  auto error_of = [](std::string_view data) {
    auto r = sim::World::load_checkpoint(data);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r)
                                                  : std::string("accepted");
  };
  EXPECT_NE(error_of("").find("not a herd checkpoint"), std::string::npos);
  EXPECT_NE(error_of("hello world, not a checkpoint").find("not a herd checkpoint"),
            std::string::npos);
  // Every truncation is refused, none crashes.
  for (std::size_t n = 0; n < saved.size(); n += 1 + saved.size() / 500)
    ASSERT_NE(error_of(std::string_view(saved).substr(0, n)), "accepted") << "truncated at " << n;
  // Any flipped byte in the body is caught by the checksum.
  for (std::size_t at : {std::size_t{20}, saved.size() / 2, saved.size() - 9}) {
    std::string bad = saved;
    bad[at] = static_cast<char>(bad[at] ^ 0x40);
    EXPECT_NE(error_of(bad), "accepted") << "flipped byte " << at;
  }
  std::string other_version = saved;
  other_version[8] = 20;
  EXPECT_NE(error_of(other_version).find("format 20"), std::string::npos);
  // Bytes after the checksum: not what was written.
  for (const std::string tail : {std::string(1, '\0'), std::string("garbage"), saved})
    EXPECT_NE(error_of(saved + tail).find("bytes after its end"), std::string::npos)
        << tail.size() << " bytes appended";
  EXPECT_EQ(error_of(saved), "accepted");
}

// A checkpoint edited by hand, its checksum recomputed, holding what no command could make: a
// radius of 1e300 or a negative one, a mass of 0 or -1, a NaN or infinite position, an obstacle
// of radius 1e300, a tick of 2^64-1. Each is refused with a reason, the whole file with it.
TEST(Checkpoint, RecordsNoCommandCouldMakeAreRefused) {
  sim::WorldDef def;
  sim::World world(def);
  sim::Spawn spawn;
  sim::SpawnAgent a;
  a.position = {123.375, 456.625};
  a.radius = 7.25;
  a.mass = 3.125;
  spawn.agents = {a};
  ASSERT_TRUE(world.apply(spawn).ok());
  ASSERT_TRUE(world.apply(sim::AddObstacle{{300, 200}, 17.125}).ok());
  for (int t = 0; t < 258; ++t) world.step();  // tick 0x0102
  const std::string saved = world.save_checkpoint();
  constexpr std::size_t kHead = 8 + 4 + 8;
  const std::string payload = saved.substr(kHead, saved.size() - kHead - 8);
  std::string tick_bytes(8, '\0');
  tick_bytes[0] = 2;
  tick_bytes[1] = 1;
  ASSERT_EQ(payload.find(tick_bytes, payload.find(tick_bytes) + 1), std::string::npos)
      << "the tick's bytes are the tick's alone";

  auto bytes_of = [](auto v) {
    std::string b(sizeof v, '\0');
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  };
  // The payload with every place holding `from` (a position is also the agent's home) set to
  // `to`, in a file with a right checksum.
  auto edited = [&](const std::string& from, const std::string& to) {
    EXPECT_NE(payload.find(from), std::string::npos);
    std::string p = payload;
    for (std::size_t at = p.find(from); at != std::string::npos; at = p.find(from, at + to.size()))
      p.replace(at, from.size(), to);
    std::string file = saved.substr(0, 12);  // the magic and the format
    sim::Writer w(file);
    w.bytes(p);
    w.u64(sim::fnv1a(p));
    return file;
  };
  struct Case {
    const char* what;
    std::string from, to;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& c : std::vector<Case>{
           {"radius 1e300", bytes_of(7.25), bytes_of(1e300)},
           {"radius -50", bytes_of(7.25), bytes_of(-50.0)},
           {"mass 0", bytes_of(3.125), bytes_of(0.0)},
           {"mass -1", bytes_of(3.125), bytes_of(-1.0)},
           {"x NaN", bytes_of(123.375), bytes_of(std::nan(""))},
           {"y infinite", bytes_of(456.625), bytes_of(inf)},
           {"obstacle radius 1e300", bytes_of(17.125), bytes_of(1e300)},
           {"tick 2^64-1", bytes_of(std::uint64_t{258}), bytes_of(~std::uint64_t{0})}}) {
    const auto loaded = sim::World::load_checkpoint(edited(c.from, c.to));
    ASSERT_TRUE(std::holds_alternative<std::string>(loaded)) << c.what << " was loaded";
    EXPECT_NE(std::get<std::string>(loaded).find("checkpoint"), std::string::npos) << c.what;
  }
  // The same edit to the same value loads: the harness itself is sound.
  EXPECT_TRUE(std::holds_alternative<sim::World>(
      sim::World::load_checkpoint(edited(bytes_of(7.25), bytes_of(7.25)))));
}

}  // namespace
}  // namespace herd::scenario
