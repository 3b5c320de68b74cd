// Stalls (herd/sim/stall.hpp): the rule's timer in ticks, each reason in a situation built for it
// (blocked by standing agents, pinned between pushes, oscillating at a goal, queueing at a door,
// unreachable, blocked by an obstacle), movers at speed never stalled, checkpoints keeping the
// records, and the state hash not reading them.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

// Agent id's stall record; none before its first step (stalls() is shorter until then).
const Stall& stall_of(const World& w, AgentId id) {
  static const Stall kNone;
  const auto i = static_cast<std::size_t>(w.find(id) - w.agents().data());
  return i < w.stalls().size() ? w.stalls()[i] : kNone;
}

SpawnAgent at(Vec2 p, std::optional<Vec2> target = std::nullopt) {
  SpawnAgent s;
  s.position = p;
  s.target = target;
  return s;
}

std::vector<AgentId> spawn(World& w, std::vector<SpawnAgent> agents) {
  const CommandOutcome out = w.apply(Spawn{0, 0, std::move(agents)});
  EXPECT_TRUE(out.ok()) << out.message;
  return out.spawned;
}

void no_avoidance(World& w) {
  SetAvoidance a;
  a.mode = AvoidanceMode::none;
  ASSERT_TRUE(w.apply(a).ok());
}

// Steps until agent `id` is stalled (at most `ticks`); its reason then, or none.
StallReason step_until_stalled(World& w, AgentId id, int ticks) {
  for (int t = 0; t < ticks; ++t) {
    w.step();
    if (stall_of(w, id).stalled()) return stall_of(w, id).reason;
  }
  return StallReason::none;
}

// Every agent past the mark has a reason, and only those; every reason's count adds up.
void expect_rule_kept(const World& w) {
  const std::uint32_t mark = StallRule::mark(w.def().dt);
  std::array<std::uint32_t, kStallReasonCount> counts{};
  for (std::size_t i = 0; i < w.agents().size(); ++i) {
    const Stall& s = w.stalls()[i];
    EXPECT_EQ(s.stalled(), s.slow_ticks > mark) << "agent " << w.agents()[i].id;
    if (s.slow_ticks > 0) EXPECT_TRUE(StallRule::slow(w.agents()[i]));
    ++counts[static_cast<std::size_t>(s.reason)];
  }
  EXPECT_EQ(counts, w.stalled_by_reason());
}

TEST(Stall, NamesAreTheWiresAndReadBack) {
  EXPECT_EQ(stall_name(StallReason::blocked_by_standing), "blocked_by_standing");
  EXPECT_EQ(stall_name(StallReason::queueing), "queueing");
  for (std::size_t k = 0; k < kStallReasonCount; ++k)
    EXPECT_EQ(stall_from_name(kStallReasonNames[k]), static_cast<StallReason>(k));
  EXPECT_FALSE(stall_from_name("stuck"));
  EXPECT_EQ(StallRule::mark(1.0 / 60), 120u);  // 2 s at 60 Hz: stalled on the 121st slow tick
  EXPECT_EQ(StallRule::mark(0.05), 40u);
}

// A wall across a mover's way: it stops at the wall (a wall takes the velocity into it), slow from
// that tick, stalled on the tick after the 2 s mark and not before, `blocked` (no agent is to
// blame), and the timer keeps counting.
void wall_across(World& w) { ASSERT_TRUE(w.apply(AddWall{{{300, 200}, {300, 400}}, false}).ok()); }

TEST(Stall, TheTimerCountsTicksAndTheReasonComesPastTwoSeconds) {
  World w{WorldDef{}};
  no_avoidance(w);
  wall_across(w);
  const AgentId a = spawn(w, {at({200, 300}, Vec2{400, 300})}).at(0);
  const std::uint32_t mark = StallRule::mark(w.def().dt);
  int first_slow = -1;
  for (int t = 0; t < 600 && !stall_of(w, a).stalled(); ++t) {
    w.step();
    const Stall& s = stall_of(w, a);
    if (s.slow_ticks == 1) first_slow = t;
    if (s.slow_ticks > 0 && s.slow_ticks <= mark) EXPECT_FALSE(s.stalled());
  }
  ASSERT_GE(first_slow, 0);
  const Stall& s = stall_of(w, a);
  EXPECT_EQ(s.slow_ticks, mark + 1);
  EXPECT_EQ(s.reason, StallReason::blocked);
  EXPECT_EQ(s.by_count, 0);
  EXPECT_GT(s.seconds(w.def().dt), StallRule::kStallSeconds);
  for (int t = 0; t < 30; ++t) w.step();
  EXPECT_EQ(stall_of(w, a).slow_ticks, mark + 31);
  EXPECT_EQ(stall_of(w, a).reason, StallReason::blocked);
  expect_rule_kept(w);
}

// Movers crossing an open world at speed, and agents that stand: none is ever slow for long.
TEST(Stall, AgentsMovingAtSpeedOrStandingNeverGetAReason) {
  World w{WorldDef{}};
  std::vector<SpawnAgent> agents;
  for (int k = 0; k < 8; ++k) {
    agents.push_back(at({50.0 + 80 * k, 60}, Vec2{50.0 + 80 * k, 560}));
    agents.push_back(at({50.0 + 80 * k, 300}));  // idle, to walk past
  }
  spawn(w, agents);
  for (int t = 0; t < 600; ++t) {
    w.step();
    for (std::size_t i = 0; i < w.agents().size(); ++i) {
      const Agent& a = w.agents()[i];
      if (a.state != MoveState::moving) EXPECT_EQ(w.stalls()[i].slow_ticks, 0u);
      EXPECT_FALSE(w.stalls()[i].stalled()) << "agent " << a.id << " at tick " << w.tick();
    }
  }
  EXPECT_EQ(w.stalled_by_reason()[0], w.agents().size());
}

// A stuck mover in small: a mover sent into the middle of a parked clump, pressed against
// it: blocked by standing agents, and those named are the clump's.
TEST(Stall, AMoverPressedAgainstAParkedClumpIsBlockedByStandingAgents) {
  World w{WorldDef{}};
  no_avoidance(w);
  std::vector<SpawnAgent> clump;
  for (int row = 0; row < 5; ++row)
    for (int col = 0; col < 5; ++col) {
      SpawnAgent s = at({400.0 + 17 * col, 300.0 + 17 * row});
      s.priority = 0;  // the most important: movers go round it, never through
      clump.push_back(s);
    }
  const std::vector<AgentId> parked = spawn(w, clump);
  const AgentId mover = spawn(w, {at({250, 334}, Vec2{434, 334})}).at(0);
  EXPECT_EQ(step_until_stalled(w, mover, 900), StallReason::blocked_by_standing);
  const Stall& s = stall_of(w, mover);
  ASSERT_GE(s.by_count, 1);
  for (std::size_t k = 0; k < s.by_count; ++k)
    EXPECT_NE(std::find(parked.begin(), parked.end(), s.by[k]), parked.end()) << s.by[k];
  expect_rule_kept(w);
}

// In a corridor one agent wide, an agent that wants out through the corridor's wall while two
// others push into it from either side, each trying to reach the far side of it: pinned, and
// both pushers named.
TEST(Stall, AnAgentSqueezedFromBothSidesIsPinned) {
  World w{WorldDef{}};
  no_avoidance(w);
  ASSERT_TRUE(w.apply(AddWall{{{0, 289}, {600, 289}}, false}).ok());
  ASSERT_TRUE(w.apply(AddWall{{{0, 307}, {600, 307}}, false}).ok());
  const AgentId a = spawn(w, {at({300, 298}, Vec2{300, 150})}).at(0);
  const std::vector<AgentId> sides =
      spawn(w, {at({283, 298}, Vec2{360, 298}), at({317, 298}, Vec2{240, 298})});
  EXPECT_EQ(step_until_stalled(w, a, 900), StallReason::pinned);
  const Stall& s = stall_of(w, a);
  const std::set<AgentId> by(s.by.begin(), s.by.begin() + s.by_count);
  EXPECT_EQ(by, std::set<AgentId>(sides.begin(), sides.end()));
  expect_rule_kept(w);
}

// A seeker (it never stops at its goal) a tenth of a unit from its goal: it swings back and forth
// through the goal, never fast: oscillating, nobody to blame.
TEST(Stall, ASeekerSwingingThroughItsGoalIsOscillating) {
  World w{WorldDef{}};
  const AgentId a = spawn(w, {at({300.1, 300})}).at(0);
  SetTarget seek;
  seek.agents.ids = {a};
  seek.target = {300, 300};
  seek.behaviour = BehaviourKind::seek;
  ASSERT_TRUE(w.apply(seek).ok());
  EXPECT_EQ(step_until_stalled(w, a, 600), StallReason::oscillating);
  EXPECT_EQ(stall_of(w, a).by_count, 0);
  EXPECT_GE(stall_of(w, a).flips, 2);
  expect_rule_kept(w);
}

// Forty agents, each to its own place beyond a gap in a wall one and a quarter agents wide, in
// orca mode (whose agents slow down to wait rather than push): those waiting behind others going
// through are queueing, and those named are movers going their way.
TEST(Stall, AgentsWaitingAtADoorAreQueueing) {
  WorldDef def;
  def.width = 600;
  def.height = 400;
  World w{def};
  SetAvoidance orca;
  orca.mode = AvoidanceMode::orca;
  ASSERT_TRUE(w.apply(orca).ok());
  ASSERT_TRUE(w.apply(AddWall{{{300, 0}, {300, 190}}, false}).ok());
  ASSERT_TRUE(w.apply(AddWall{{{300, 210}, {300, 400}}, false}).ok());
  std::vector<SpawnAgent> crowd;
  for (int row = 0; row < 8; ++row)
    for (int col = 0; col < 5; ++col)
      crowd.push_back(
          at({180.0 + 20 * col, 120.0 + 20 * row}, Vec2{520.0 - 20 * col, 120.0 + 20 * row}));
  spawn(w, crowd);
  std::size_t queueing = 0;
  for (int t = 0; t < 60 * 30; ++t) {
    w.step();
    for (std::size_t i = 0; i < w.agents().size(); ++i) {
      const Stall& s = w.stalls()[i];
      if (s.reason != StallReason::queueing) continue;
      ++queueing;
      ASSERT_GE(s.by_count, 1);
      for (std::size_t k = 0; k < s.by_count; ++k) {
        const Agent* b = w.find(s.by[k]);
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->state, MoveState::moving);
      }
    }
    expect_rule_kept(w);
  }
  EXPECT_GT(queueing, 0u) << "someone waited its turn at the door";
}

TileMap seed_maze() {
  std::ifstream in(HERD_MAPS_DIR "/seed_maze.txt");
  std::stringstream text;
  text << in.rdbuf();
  return std::get<TileMap>(parse_tile_map(text.str(), 40));
}

// A flow-field agent whose goal is walled in after it set off: its pathing gives up, it stands,
// and 2 s later its stall is `unreachable`.
TEST(Stall, AnAgentWhoseGoalIsWalledInIsUnreachable) {
  World w{WorldDef{}};
  const TileMap m = seed_maze();
  ASSERT_TRUE(w.apply(LoadMap{{m.width(), m.height(), m.tile_size(),
                               std::vector<std::uint8_t>(m.cells().begin(), m.cells().end())}})
                  .ok());
  const AgentId a = spawn(w, {at(m.tile_centre({1, 1}))}).at(0);
  ASSERT_TRUE(w.apply(SetPathing{{false, {a}}, Pathing::flow, 8}).ok());
  SetTarget go;
  go.agents.ids = {a};
  go.target_tile = TileCoord{18, 13};
  ASSERT_TRUE(w.apply(go).ok());
  for (int t = 0; t < 30; ++t) w.step();
  ASSERT_TRUE(w.apply(SetTiles{{{{17, 13}, true}, {{18, 12}, true}}}).ok());
  EXPECT_EQ(step_until_stalled(w, a, 900), StallReason::unreachable);
  EXPECT_EQ(w.find(a)->state, MoveState::unreachable);
  expect_rule_kept(w);
}

// A checkpoint keeps every record: the loaded world stalls on the same tick, for the same
// reason; an older format's world loads with none; the state hash does not read them.
TEST(Stall, CheckpointsKeepTheTimerAndTheHashLeavesItOut) {
  World w{WorldDef{}};
  no_avoidance(w);
  wall_across(w);
  const AgentId a = spawn(w, {at({200, 300}, Vec2{400, 300})}).at(0);
  for (int t = 0; t < 600 && stall_of(w, a).slow_ticks < 60; ++t) w.step();
  ASSERT_EQ(stall_of(w, a).slow_ticks, 60u);
  ASSERT_FALSE(stall_of(w, a).stalled());
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(stall_of(copy, a), stall_of(w, a));
  EXPECT_EQ(copy.state_hash(), w.state_hash());
  for (int t = 0; t < 70; ++t) {
    w.step();
    copy.step();
    ASSERT_EQ(stall_of(copy, a), stall_of(w, a)) << "tick " << w.tick();
  }
  EXPECT_TRUE(stall_of(copy, a).stalled());
  EXPECT_EQ(copy.stalled_by_reason(), w.stalled_by_reason());
  // Saved stalled, loaded stalled: the counts come back with the records.
  auto again = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(again));
  EXPECT_EQ(std::get<World>(again).stalled_by_reason(), w.stalled_by_reason());

  // Format 16 had no stall records: the agents start with none, and the future is the same.
  auto old = World::load_checkpoint(checkpoint_in_format(w, 16));
  ASSERT_TRUE(std::holds_alternative<World>(old)) << std::get<std::string>(old);
  World& before = std::get<World>(old);
  EXPECT_EQ(stall_of(before, a), Stall{});
  EXPECT_EQ(before.state_hash(), w.state_hash()) << "the hash reads no stall record";
  before.step();
  w.step();
  EXPECT_EQ(before.state_hash(), w.state_hash());
  EXPECT_EQ(stall_of(before, a).slow_ticks, 1u);
}

}  // namespace
}  // namespace herd::sim
