// Teams and fog of war in the world: who sees whom (World::seen_by, against a brute-force count),
// what a player's command may do (World::authorize), and checkpoints that keep teams and sight.
#include <gtest/gtest.h>

#include <cmath>

#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::sim {
namespace {

WorldDef def() {
  WorldDef d;
  d.width = 1000;
  d.height = 1000;
  return d;
}

AgentId spawn_one(World& w, Vec2 at, std::uint8_t team, std::optional<double> sight = {}) {
  Spawn s;
  SpawnAgent a;
  a.position = at;
  a.sight = sight;
  s.agents = {a};
  s.team = team;
  const CommandOutcome out = w.apply(s);
  EXPECT_TRUE(out.ok()) << out.message;
  return out.spawned.empty() ? 0 : out.spawned[0];
}

std::uint64_t brute_seen(const World& w, const Agent& target) {
  std::uint64_t mask = target.team ? std::uint64_t{1} << target.team : 0;
  for (const Agent& b : w.agents()) {
    if (b.team == 0) continue;
    const double d = length(target.position - b.position);
    if (d <= b.def.sight) mask |= std::uint64_t{1} << b.team;
  }
  return mask;
}

TEST(Teams, ATeamSeesItsOwnAndWhatIsWithinItsAgentsSight) {
  World w(def());
  const AgentId red = spawn_one(w, {100, 100}, 1);
  const AgentId near = spawn_one(w, {290, 100}, 2);           // 190 from red: inside 200
  const AgentId far = spawn_one(w, {800, 800}, 2);            // seen by no red
  const AgentId nobody = spawn_one(w, {100, 290}, 0);         // nobody's, near red
  const AgentId short_eyed = spawn_one(w, {60, 100}, 3, 10);  // sees only 10 units
  std::vector<std::uint64_t> seen;
  w.seen_by(seen);
  ASSERT_EQ(seen.size(), 5u);
  const auto bits = [&](AgentId id) { return seen[id - 1]; };  // ids count from 1, in order
  EXPECT_EQ(bits(red), 1u << 1 | 1u << 2);         // its own; blue's near agent sees it too
  EXPECT_EQ(bits(near), 1u << 1 | 1u << 2);        // blue's own, red's near
  EXPECT_EQ(bits(far), 1u << 2);                   // blue only
  EXPECT_EQ(bits(nobody), 1u << 1);                // red sees it; nobody's agents see nothing
  EXPECT_EQ(bits(short_eyed), 1u << 1 | 1u << 3);  // red sees it, it sees none of them
}

TEST(Teams, SeenByIsTheBruteForceCountOnARandomCrowd) {
  WorldDef d = def();
  d.max_agents = 3000;
  World w(d);
  Rng rng(7);
  for (int k = 0; k < 2000; ++k) {
    const auto team = static_cast<std::uint8_t>(k % 9);  // 8 teams and nobody's
    // Odd teams see little of the world (they scatter: each member marks what it sees), even
    // ones much of it (they gather: each agent looks for a member that sees it).
    spawn_one(w, {rng.uniform(5, 995), rng.uniform(5, 995)}, team,
              rng.uniform(0, team % 2 ? 30 : 150));
  }
  for (int t = 0; t < 5; ++t) w.step();
  std::vector<std::uint64_t> seen;
  w.seen_by(seen);
  for (std::size_t i = 0; i < w.agents().size(); ++i)
    ASSERT_EQ(seen[i], brute_seen(w, w.agents()[i])) << "agent " << w.agents()[i].id;
}

class Authority : public ::testing::Test {
 protected:
  void SetUp() override {
    red1 = spawn_one(w, {100, 100}, 1);
    red2 = spawn_one(w, {150, 100}, 1);
    blue_near = spawn_one(w, {260, 100}, 2);
    blue_far = spawn_one(w, {900, 900}, 2);
  }
  CommandOutcome as_red(Command c) {
    CommandOutcome out = w.authorize(c, 1, TeamRules{0, Rect{{0, 0}, {200, 200}}});
    if (!out.ok()) return out;
    return w.apply(c);
  }
  World w{def()};
  AgentId red1 = 0, red2 = 0, blue_near = 0, blue_far = 0;
};

TEST_F(Authority, AllGroupsAndRectanglesMeanThePlayersOwn) {
  const std::uint64_t before = w.find(blue_near)->behaviour.kind == BehaviourKind::idle;
  CommandOutcome out = as_red(SetTarget{Selection(true), {500, 500}});
  ASSERT_TRUE(out.ok()) << out.message;
  EXPECT_EQ(out.affected, 2u);
  EXPECT_EQ(w.find(blue_near)->behaviour.kind, BehaviourKind::idle);
  EXPECT_TRUE(before);
  Stop stop;
  stop.agents.rect = Rect{{0, 0}, {1000, 1000}};
  out = as_red(stop);
  ASSERT_TRUE(out.ok()) << out.message;
  EXPECT_EQ(out.affected, 2u);
  // A rectangle holding only the enemy: nobody of its own, so nothing.
  stop.agents.rect = Rect{{800, 800}, {1000, 1000}};
  EXPECT_EQ(as_red(stop).error, CommandError::bad_selection);
}

TEST_F(Authority, AnotherTeamsAgentIsNotYoursWhenSeenAndUnknownWhenNot) {
  const std::uint64_t hash = w.state_hash();
  Stop stop;
  stop.agents.ids = {red1, blue_near};
  EXPECT_EQ(as_red(stop).error, CommandError::not_yours);
  stop.agents.ids = {red1, blue_far};
  const CommandOutcome unseen = as_red(stop);
  stop.agents.ids = {red1, 9999};
  const CommandOutcome missing = as_red(stop);
  EXPECT_EQ(unseen.error, CommandError::unknown_agent);
  EXPECT_EQ(missing.error, CommandError::unknown_agent);
  // Word for word what an id that never existed says, but the id.
  EXPECT_EQ(unseen.message, "agent " + std::to_string(blue_far) + " does not exist");
  EXPECT_EQ(missing.message, "agent 9999 does not exist");
  Selection theirs;
  theirs.team = 2;
  EXPECT_EQ(as_red(Stop{theirs}).error, CommandError::not_yours);
  EXPECT_EQ(w.state_hash(), hash) << "a refused command changed the world";
}

TEST_F(Authority, ABehaviourMayActOnAnEnemyTheTeamSeesOnly) {
  SetBehaviour pursue;
  pursue.agents.ids = {red1};
  pursue.behaviour.kind = BehaviourKind::pursue;
  pursue.behaviour.agent = blue_far;
  EXPECT_EQ(as_red(pursue).error, CommandError::unknown_agent);
  pursue.behaviour.agent = blue_near;
  const CommandOutcome out = as_red(pursue);
  ASSERT_TRUE(out.ok()) << out.message;
  EXPECT_EQ(w.find(red1)->behaviour.agent, blue_near);
}

TEST_F(Authority, WorldControlsAreTheOperatorsAndSpawnsAreTheTeams) {
  EXPECT_EQ(as_red(AddObstacle{{500, 500}, 10}).error, CommandError::forbidden);
  EXPECT_EQ(as_red(SetAvoidance{}).error, CommandError::forbidden);
  EXPECT_EQ(as_red(ClearMap{}).error, CommandError::forbidden);
  Spawn s;
  s.count = 3;
  const CommandOutcome out = as_red(s);
  ASSERT_TRUE(out.ok()) << out.message;
  for (AgentId id : out.spawned) {
    EXPECT_EQ(w.find(id)->team, 1);
    EXPECT_LE(w.find(id)->position.x, 200) << "in red's spawn area";
    EXPECT_LE(w.find(id)->position.y, 200);
  }
  s.team = 2;
  EXPECT_EQ(as_red(s).error, CommandError::not_yours);
}

// A team's spawn refused for the world's area says nothing of how many agents the world holds:
// a player would learn of agents it does not see.
TEST(Teams, ATeamsRefusedSpawnDoesNotCountTheWorld) {
  World world(WorldDef{});  // 800 x 600, radius 8: about 1,193 agents cover half of it
  ASSERT_TRUE(world.apply(Spawn{1000, 0, {}}).ok());
  Spawn s{1000, 0, {}};
  s.team = 1;
  const CommandOutcome refused = world.apply(s);
  EXPECT_EQ(refused.error, CommandError::limit_exceeded);
  EXPECT_NE(refused.message.find("half the world's area"), std::string::npos) << refused.message;
  EXPECT_EQ(refused.message.find_first_of("%0123456789", refused.message.find("agents ")),
            std::string::npos)
      << refused.message;
}

TEST(Teams, ACheckpointKeepsTeamsAndSight) {
  World w(def());
  spawn_one(w, {100, 100}, 1, 75.5);
  spawn_one(w, {300, 100}, 2);
  w.step();
  const auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  const World& back = std::get<World>(loaded);
  EXPECT_EQ(back.state_hash(), w.state_hash());
  ASSERT_EQ(back.agents().size(), 2u);
  EXPECT_EQ(back.agents()[0].team, 1);
  EXPECT_EQ(back.agents()[0].def.sight, 75.5F);
  EXPECT_EQ(back.agents()[1].team, 2);
  EXPECT_EQ(back.agents()[1].def.sight, 200.0F);
}

TEST(Teams, TeamAndSightAreHashedOnlyWhenSet) {
  World a(def()), b(def());
  spawn_one(a, {100, 100}, 0);
  spawn_one(b, {100, 100}, 1);
  EXPECT_NE(a.state_hash(), b.state_hash());
  Spawn bad;
  bad.count = 1;
  bad.team = 64;
  EXPECT_EQ(a.apply(bad).error, CommandError::out_of_bounds);
  bad.team = 1;
  bad.sight = -1;
  EXPECT_EQ(a.apply(bad).error, CommandError::out_of_bounds);
}

}  // namespace
}  // namespace herd::sim
