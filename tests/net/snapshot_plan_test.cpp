// The snapshot plan (publish/snapshot_plan.hpp) alone: every row (when its part goes, whether the
// welcome carries it, who takes it), which parts each snapshot carries against a world changed by
// commands, the parts a relay makes itself and keeps for its welcomes, and the JSON writer's
// tail per audience as the rows say.
#include "publish/snapshot_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "herd/sim/world.hpp"
#include "protocol/density.hpp"

namespace herd::publish {
namespace {

constexpr double kRate = 10;  // snapshots a second: a refresh every 50, a density layer every 5
constexpr std::uint64_t kPeriod = 50;
constexpr std::uint64_t kDensityPeriod = 5;
constexpr Takers kNobodyAsks{};

using Plan = SnapshotPlan;
using Refresh = Plan::Refresh;

// What each row must say: one expectation a part, so that a part added without its expectations
// here fails EveryPartHasItsRowAndEveryRowSaysWhatItShould. (A list: member pointers have no
// order to key a map by.)
struct Expected {
  const char* name;
  bool versioned;
  Refresh refresh;
  double period;
  bool in_welcome, first_snapshot;
  Fog teams;
  bool delayed;
  Among among;
  bool tail;  // written by a tail writer (JSON and the binary side section)
};
using Part = bool SnapshotParts::*;
const std::vector<std::pair<Part, Expected>>& expectations() {
  constexpr double kEvery = Plan::kEverySnapshot, kRefresh = protocol::kObstacleRefreshSeconds;
  static const std::vector<std::pair<Part, Expected>> kExpected = {
      {&SnapshotParts::agents,
       {"agents", false, Refresh::always, kEvery, false, false, Fog::sight, true, Among::every,
        false}},
      {&SnapshotParts::obstacles,
       {"obstacles", true, Refresh::always, kRefresh, true, false, Fog::whole, true, Among::every,
        true}},
      {&SnapshotParts::walls,
       {"walls", true, Refresh::while_any, kRefresh, true, true, Fog::whole, true, Among::every,
        true}},
      {&SnapshotParts::map,
       {"map", true, Refresh::never, kRefresh, true, false, Fog::whole, true, Among::every, true}},
      {&SnapshotParts::measurements,
       {"measurements", true, Refresh::never, kRefresh, false, false, Fog::left_out, true,
        Among::every, true}},
      {&SnapshotParts::sources,
       {"sources", true, Refresh::while_any, kRefresh, false, false, Fog::left_out, true,
        Among::every, true}},
      {&SnapshotParts::density,
       {"density", false, Refresh::always, protocol::kDensitySeconds, false, false, Fog::left_out,
        false, Among::asking, false}},
      {&SnapshotParts::formations,
       {"formations", false, Refresh::always, kEvery, false, false, Fog::ownership, true,
        Among::every, true}},
      {&SnapshotParts::collisions,
       {"collisions", false, Refresh::always, kEvery, false, false, Fog::sight, true, Among::every,
        true}},
      {&SnapshotParts::events,
       {"events", false, Refresh::always, kEvery, false, false, Fog::sight, true, Among::every,
        true}},
      {&SnapshotParts::memory,
       {"memory", false, Refresh::always, kEvery, false, false, Fog::ownership, true, Among::every,
        true}},
      {&SnapshotParts::traces,
       {"traces", false, Refresh::always, kEvery, false, false, Fog::sight, false,
        Among::inspecting, false}},
  };
  return kExpected;
}
// The expectations of `part`, or null.
const Expected* expected(Part part) {
  for (const auto& [p, e] : expectations())
    if (p == part) return &e;
  return nullptr;
}

TEST(SnapshotPlan, EveryPartHasItsRowAndEveryRowSaysWhatItShould) {
  ASSERT_EQ(Plan::rows().size(), expectations().size()) << "a row a part, each expected here";
  for (const Plan::Row& row : Plan::rows()) {
    ASSERT_NE(expected(row.part), nullptr) << "a row with no expectations in this test";
    const Expected& e = *expected(row.part);
    SCOPED_TRACE(e.name);
    EXPECT_EQ(&Plan::row(row.part), &row) << "one row a part";
    EXPECT_EQ(row.version != nullptr, e.versioned);
    EXPECT_EQ(row.refresh, e.refresh);
    EXPECT_EQ(row.period, e.period);
    EXPECT_EQ(row.any != nullptr, row.refresh == Refresh::while_any) << "while any: of what";
    EXPECT_EQ(row.welcome != nullptr, e.in_welcome);
    EXPECT_EQ(row.first_snapshot, e.first_snapshot);
    EXPECT_EQ(row.to.teams, e.teams);
    EXPECT_EQ(row.to.delayed, e.delayed);
    EXPECT_EQ(row.to.among, e.among);
    EXPECT_EQ(row.tail != nullptr, e.tail);
    // Who is sent it, as the row says.
    SnapshotParts all;
    all.*row.part = true;
    EXPECT_TRUE(Plan::carries(all, row.part, Audience::viewers)) << "the whole world's views";
    EXPECT_EQ(Plan::carries(all, row.part, Audience::team), e.teams != Fog::left_out);
    EXPECT_EQ(Plan::carries(all, row.part, Audience::delayed), e.delayed);
    SnapshotParts none;
    none.*row.part = false;
    for (Audience a : {Audience::viewers, Audience::team, Audience::delayed})
      EXPECT_FALSE(Plan::carries(none, row.part, a)) << "not in this snapshot";
  }
}

// What the rows' readers count on: a part of the tail (which the whole world's shared text and
// side section carry) reaches the delayed spectators, who are sent that text; a part a relay makes
// itself (asked for) needs no world to be due.
TEST(SnapshotPlan, TheRowsKeepWhatTheirReadersCountOn) {
  for (const Plan::Row& row : Plan::rows()) {
    SCOPED_TRACE(expected(row.part)->name);
    if (row.tail) {
      EXPECT_TRUE(row.to.delayed);
    }
    if (row.to.among == Among::asking) {
      EXPECT_EQ(row.version, nullptr);
      EXPECT_NE(row.refresh, Refresh::while_any);
    }
    if (row.welcome) {
      EXPECT_NE(row.version, nullptr) << "a welcome tells a version";
    }
  }
}

TEST(SnapshotPlan, AnUnchangedPartGoesOnlyWhenItsRowRefreshesIt) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  const SnapshotParts first = plan.next(world, 0, kRate, kNobodyAsks);
  EXPECT_FALSE(first.map) << "the welcome carried it";
  EXPECT_TRUE(first.obstacles) << "obstacles refresh always, the first time at once";
  EXPECT_FALSE(first.walls) << "no walls: nothing to refresh";
  EXPECT_FALSE(first.sources);
  const SnapshotParts second = plan.next(world, 1, kRate, kNobodyAsks);
  EXPECT_FALSE(second.obstacles);
  EXPECT_FALSE(plan.next(world, kPeriod - 1, kRate, kNobodyAsks).obstacles);
  EXPECT_TRUE(plan.next(world, kPeriod, kRate, kNobodyAsks).obstacles)
      << "again after the refresh period";
}

TEST(SnapshotPlan, AChangedPartGoesInTheNextSnapshotAndWallsRefreshWhileThereAreAny) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  plan.next(world, 0, kRate, kNobodyAsks);
  ASSERT_TRUE(world.apply(sim::AddObstacle{{100, 100}, 10}).ok());
  EXPECT_TRUE(plan.next(world, 1, kRate, kNobodyAsks).obstacles) << "changed: before its period";
  ASSERT_TRUE(world.apply(sim::AddWall{{{10, 10}, {200, 10}}}).ok());
  const SnapshotParts walled = plan.next(world, 2, kRate, kNobodyAsks);
  EXPECT_TRUE(walled.walls);
  EXPECT_FALSE(walled.obstacles);
  EXPECT_FALSE(plan.next(world, 3, kRate, kNobodyAsks).walls);
  EXPECT_TRUE(plan.next(world, 2 + kPeriod, kRate, kNobodyAsks).walls) << "while there are any";
}

TEST(SnapshotPlan, ANewWorldSendsEveryPartItsWelcomeDoesNotCarry) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  plan.next(world, 0, kRate, kNobodyAsks);
  sim::World next(sim::WorldDef{});
  plan.new_world(next);
  const SnapshotParts parts = plan.next(next, 1, kRate, kNobodyAsks);
  EXPECT_FALSE(parts.map) << "in the new world's welcome";
  EXPECT_FALSE(parts.obstacles) << "in the new world's welcome, and not due";
  EXPECT_TRUE(parts.measurements);
  EXPECT_TRUE(parts.sources);
  EXPECT_TRUE(parts.walls) << "in the welcome, and in a new world's first snapshot too";
}

TEST(SnapshotPlan, TheAgentsCollisionsAndFormationsGoInEverySnapshot) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  for (std::uint64_t serial = 0; serial < 3; ++serial) {
    const SnapshotParts parts = plan.next(world, serial, kRate, kNobodyAsks);
    EXPECT_TRUE(parts.agents);
    EXPECT_TRUE(parts.collisions);
    EXPECT_TRUE(parts.formations);
  }
}

// The density layer goes every kDensitySeconds of snapshots while someone asks for it; asked for
// after a while, at once (nothing was counted sent meanwhile); in a new world, at once.
TEST(SnapshotPlan, TheDensityLayerGoesEveryPeriodWhileSomeoneAsks) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  const Takers asking{.asking = true};
  EXPECT_FALSE(plan.next(world, 0, kRate, kNobodyAsks).density) << "nobody asks";
  EXPECT_TRUE(plan.next(world, 7, kRate, asking).density) << "asked for: at once";
  EXPECT_FALSE(plan.next(world, 8, kRate, asking).density);
  EXPECT_FALSE(plan.next(world, 7 + kDensityPeriod - 1, kRate, asking).density);
  EXPECT_TRUE(plan.next(world, 7 + kDensityPeriod, kRate, asking).density);
  sim::World next(sim::WorldDef{});
  plan.new_world(next);
  EXPECT_TRUE(plan.next(next, 7 + kDensityPeriod + 1, kRate, asking).density)
      << "the old world's layer is no picture of the new one";
}

TEST(SnapshotPlan, TracesGoWhileSomeAgentIsInspected) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  EXPECT_FALSE(plan.next(world, 0, kRate, kNobodyAsks).traces);
  const Takers inspecting{.inspecting = true};
  EXPECT_TRUE(plan.next(world, 1, kRate, inspecting).traces);
  EXPECT_TRUE(plan.next(world, 2, kRate, inspecting).traces) << "every snapshot";
}

// A relay holds no world: of the rows, it makes those that reach only the sessions that ask (the
// density layer, its link asking its upstream for none), and relays the others as they come.
TEST(SnapshotPlan, ARelayMakesOnlyThePartsItsSessionsAskFor) {
  SnapshotPlan plan;
  const Takers asking{.asking = true, .inspecting = true};
  const SnapshotParts first = plan.relayed(1, kRate, asking);
  for (const Plan::Row& row : Plan::rows())
    EXPECT_EQ(first.*row.part, row.to.among == Among::asking) << expected(row.part)->name;
  EXPECT_FALSE(plan.relayed(2, kRate, asking).density);
  EXPECT_TRUE(plan.relayed(1 + kDensityPeriod, kRate, asking).density);
  plan.new_world();
  EXPECT_TRUE(plan.relayed(2 + kDensityPeriod, kRate, asking).density) << "a new world: at once";
  EXPECT_FALSE(plan.relayed(3 * kDensityPeriod, kRate, kNobodyAsks).density) << "nobody asks";
}

// A relay's welcomes hold the newest of every part a welcome carries that a snapshot told it.
TEST(SnapshotPlan, ARelayKeepsThePartsAWelcomeCarries) {
  protocol::Welcome welcome;
  welcome.map = protocol::MapState{1, 1, 10, {"."}};
  welcome.obstacles = {{1, 5, 5, 1}};
  protocol::Snapshot told;
  told.obstacles = std::vector<protocol::ObstacleState>{{2, 6, 6, 2}};
  told.walls = std::vector<protocol::WallState>{{3, {{0, 0}, {1, 1}}, false}};
  SnapshotPlan::keep_for_welcome(told, welcome);
  ASSERT_EQ(welcome.obstacles.size(), 1u);
  EXPECT_EQ(welcome.obstacles[0].id, 2u);
  ASSERT_EQ(welcome.walls.size(), 1u);
  EXPECT_TRUE(welcome.map) << "not told: as it was";
  protocol::Snapshot cleared;
  cleared.map_cleared = true;
  SnapshotPlan::keep_for_welcome(cleared, welcome);
  EXPECT_FALSE(welcome.map);
  EXPECT_EQ(welcome.obstacles.size(), 1u) << "not told: as it was";
}

// The JSON writer's tail for the whole world's view and a team's, each part as its row says (a
// team's view of what it does not see is checked over the real server: fog tests).
TEST(SnapshotPlan, TheJsonWriterCarriesEachTailPartToTheAudiencesItsRowNames) {
  sim::World world(sim::WorldDef{});
  ASSERT_TRUE(world.apply(sim::AddObstacle{{100, 100}, 10}).ok());
  ASSERT_TRUE(world.apply(sim::AddWall{{{10, 10}, {200, 10}}}).ok());
  ASSERT_TRUE(world.apply(sim::AddMeasurement{sim::MeasurementKind::line, {50, 0}, {50, 90}}).ok());
  ASSERT_TRUE(world.apply(sim::AddExit{{300, 300}, {320, 320}}).ok());
  const std::vector<std::pair<Part, const char*>> keys = {
      {&SnapshotParts::obstacles, "\"obstacles\":"},
      {&SnapshotParts::walls, "\"walls\":"},
      {&SnapshotParts::measurements, "\"measurements\":"},
      {&SnapshotParts::sources, "\"exits\":"},
      {&SnapshotParts::formations, "\"formations\":"},
      {&SnapshotParts::collisions, "\"collisions\":"}};
  SnapshotParts all;
  for (const auto& [part, key] : keys) all.*part = true;
  const std::vector<std::uint64_t> seen(world.agents().size(), 0);
  const std::string whole = encode_snapshot(world, {}, all);
  const std::string team = encode_snapshot(world, {}, all, 0, View{1, &seen, true});
  for (const auto& [part, key] : keys) {
    SCOPED_TRACE(key);
    EXPECT_NE(whole.find(key), std::string::npos);
    EXPECT_EQ(team.find(key) != std::string::npos, SnapshotPlan::reaches(part, Audience::team));
  }
}

// A hit is told to the teams that saw it (the one hit, the hitter's, any that sees the one hit),
// and names its hitter to a team only where the team owns or sees it; the whole world's view is
// told everything. Hit points go on every agent while one is armed or hurt.
TEST(SnapshotPlan, EventsGoToTheTeamsThatSawThemAndNameOnlyHittersTheySee) {
  sim::World world(sim::WorldDef{});
  const auto spawn = [&](sim::Vec2 at, std::uint8_t team, double sight, double damage) {
    sim::SpawnAgent s;
    s.position = at;
    s.team = team;
    s.sight = sight;
    if (damage > 0) {
      s.combat.damage = damage;
      s.combat.range = 400;
    }
    const sim::CommandOutcome out = world.apply(sim::Spawn{0, 0, {s}});
    EXPECT_TRUE(out.ok()) << out.message;
    return out.spawned.at(0);
  };
  const sim::AgentId archer = spawn({100, 300}, 1, 350, 30);  // sees the target; shoots from afar
  const sim::AgentId target = spawn({400, 300}, 2, 50, 0);    // does not see the archer
  spawn({700, 50}, 3, 50, 0);                                 // far from both
  sim::SetBehaviour attack;
  attack.agents = sim::Selection(false, {archer});
  attack.behaviour.kind = sim::BehaviourKind::attack;
  attack.behaviour.agent = target;
  ASSERT_TRUE(world.apply(attack).ok());
  world.step();
  ASSERT_EQ(world.events().size(), 1u);
  std::vector<std::uint64_t> seen;
  world.seen_by(seen);
  const auto text = [&](std::uint8_t team) {
    return encode_snapshot(world, {}, {}, 0, View{team, team ? &seen : nullptr, true},
                           world.events());
  };
  const std::string hit = R"("events":[{"type":"hit","tick":1,"agent":)" + std::to_string(target);
  const std::string by = R"(,"by":)" + std::to_string(archer);
  EXPECT_NE(text(0).find(hit + by), std::string::npos) << text(0);
  EXPECT_NE(text(1).find(hit + by), std::string::npos) << "the hitter's team: " << text(1);
  EXPECT_NE(text(2).find(hit + R"(,"x")"), std::string::npos) << "hit, by one it does not see";
  EXPECT_EQ(text(3).find(R"("events")"), std::string::npos) << "saw nothing: " << text(3);
  EXPECT_NE(text(0).find(R"("hp":70,"max_hp":100)"), std::string::npos) << text(0);
  EXPECT_NE(text(0).find(R"("hp":100,"max_hp":100)"), std::string::npos) << "every agent's";
}

// A team's view of its own stalled agent: the reason, and the ids responsible only of the agents
// the team sees; another team's stalled agent shows no stall at all.
TEST(SnapshotPlan, AStallNamesOnlyTheAgentsTheTeamSees) {
  sim::World world(sim::WorldDef{});
  sim::SetAvoidance none;
  none.mode = sim::AvoidanceMode::none;
  ASSERT_TRUE(world.apply(none).ok());
  std::vector<sim::SpawnAgent> clump;
  for (int row = 0; row < 5; ++row)
    for (int col = 0; col < 5; ++col) {
      sim::SpawnAgent s;
      s.position = {400.0 + 17 * col, 300.0 + 17 * row};
      s.priority = 0;
      s.team = 2;
      clump.push_back(s);
    }
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, clump}).ok());
  sim::SpawnAgent mover;
  mover.position = {250, 334};
  mover.target = sim::Vec2{434, 334};
  mover.team = 1;
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, {mover}}).ok());
  world.step();  // the stall records are parallel to the agents from the first step on
  for (int t = 0; t < 400 && !world.stalls().back().stalled(); ++t) world.step();
  ASSERT_EQ(world.stalls().back().reason, sim::StallReason::blocked_by_standing);
  const std::string by = R"("stall":"blocked_by_standing")";
  // Team 1 sees its mover and none of the clump: the reason, no ids.
  std::vector<std::uint64_t> seen(world.agents().size(), 0);
  seen.back() = 1u << 1;
  std::string text = encode_snapshot(world, {}, {}, 0, View{1, &seen, true});
  EXPECT_NE(text.find(by), std::string::npos) << text;
  EXPECT_EQ(text.find("stall_by"), std::string::npos) << text;
  // Seeing the clump too, it is told who blocks it.
  for (auto& bits : seen) bits |= 1u << 1;
  text = encode_snapshot(world, {}, {}, 0, View{1, &seen, true});
  EXPECT_NE(text.find(by + R"(,"stall_for":)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("stall_by":[)"), std::string::npos) << text;
  // Team 2 sees the mover but is not told why another team's agent is stuck.
  for (auto& bits : seen) bits = 1u << 2;
  text = encode_snapshot(world, {}, {}, 0, View{2, &seen, true});
  EXPECT_EQ(text.find("stall"), std::string::npos) << text;
  EXPECT_NE(encode_snapshot(world).find("stall_by"), std::string::npos) << "the whole world's";
}

}  // namespace
}  // namespace herd::publish
