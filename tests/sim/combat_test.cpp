// Health, weapons and death in the world (agent.hpp: Weapon, Agent::hp; world_combat.cpp): hits
// at contact and at range with their cooldown, death and its event, engagements that end with the
// enemy, a standing agent returning fire, hostility by team, a battle to the end that replays and
// restores bit for bit, and the settings' limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

WorldDef def(double width = 1000, double height = 600) {
  WorldDef d;
  d.width = width;
  d.height = height;
  return d;
}

struct Unit {
  Vec2 at;
  std::uint8_t group = 0;
  std::uint8_t team = 0;
  double damage = 0, range = 0, cooldown = 1, max_hp = 100;
};

AgentId spawn(World& w, const Unit& u) {
  Spawn s;
  SpawnAgent a;
  a.position = u.at;
  a.group = u.group;
  a.combat.max_hp = u.max_hp;
  if (u.damage > 0) a.combat.damage = u.damage;
  a.combat.range = u.range;
  a.combat.cooldown = u.cooldown;
  s.agents = {a};
  if (u.team) s.team = u.team;
  const CommandOutcome out = w.apply(s);
  EXPECT_TRUE(out.ok()) << out.message;
  return out.spawned.empty() ? 0 : out.spawned[0];
}

CommandOutcome attack(World& w, AgentId who, AgentId enemy) {
  SetBehaviour c;
  c.agents = Selection(false, {who});
  c.behaviour.kind = BehaviourKind::attack;
  c.behaviour.agent = enemy;
  return w.apply(c);
}

std::vector<GameEvent> run(World& w, int ticks) {
  std::vector<GameEvent> all;
  for (int t = 0; t < ticks; ++t) {
    w.step();
    all.insert(all.end(), w.events().begin(), w.events().end());
  }
  return all;
}

std::size_t count(const std::vector<GameEvent>& events, EventKind kind) {
  return static_cast<std::size_t>(std::count_if(
      events.begin(), events.end(), [&](const GameEvent& e) { return e.kind == kind; }));
}

TEST(Combat, ARangedAttackerStopsWithinRangeAndHitsOncePerCooldownUntilTheEnemyDies) {
  World w(def());
  const AgentId archer =
      spawn(w, {.at = {100, 300}, .group = 1, .damage = 10, .range = 60, .cooldown = 0.5});
  const AgentId target = spawn(w, {.at = {400, 300}, .group = 2, .max_hp = 45});
  ASSERT_TRUE(attack(w, archer, target).ok());
  std::vector<GameEvent> events;
  std::uint64_t first_hit = 0;
  double nearest_gap = HUGE_VAL;
  for (int t = 0; t < 600 && w.find(target); ++t) {
    w.step();
    const Agent* a = w.find(archer);
    const Agent* b = w.find(target);
    if (a && b) nearest_gap = std::min(nearest_gap, length(b->position - a->position) - 16);
    for (const GameEvent& e : w.events()) {
      events.push_back(e);
      if (first_hit == 0) first_hit = e.tick;
    }
  }
  ASSERT_EQ(w.find(target), nullptr) << "45 hit points take five hits of 10";
  ASSERT_EQ(count(events, EventKind::hit), 5u);
  ASSERT_EQ(count(events, EventKind::death), 1u);
  // It never closed to contact: it hit from within its range.
  EXPECT_GT(nearest_gap, 20.0);
  // One hit per cooldown: 0.5 s is 30 ticks at 60 Hz.
  std::vector<std::uint64_t> ticks;
  for (const GameEvent& e : events)
    if (e.kind == EventKind::hit) ticks.push_back(e.tick);
  for (std::size_t k = 1; k < ticks.size(); ++k) EXPECT_EQ(ticks[k] - ticks[k - 1], 30u);
  EXPECT_FLOAT_EQ(events[0].hp, 35.0F);
  EXPECT_FLOAT_EQ(events[0].damage, 10.0F);
  const GameEvent& death = events.back();
  EXPECT_EQ(death.kind, EventKind::death);
  EXPECT_EQ(death.agent, target);
  EXPECT_EQ(death.by, archer);
  EXPECT_FLOAT_EQ(death.hp, 0.0F);
  // Its engagement ended with the enemy: it goes home.
  w.step();
  const Agent* a = w.find(archer);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->behaviour.phase, Phase::retreat);
}

TEST(Combat, AMeleeAttackerHitsAtContactAndAnUnarmedOneKeepsTheSeedsSingleSlam) {
  World w(def());
  const AgentId brute = spawn(w, {.at = {100, 300}, .group = 1, .damage = 30, .cooldown = 0.25});
  const AgentId victim = spawn(w, {.at = {300, 300}, .group = 2});
  const AgentId unarmed = spawn(w, {.at = {100, 500}, .group = 1});
  const AgentId spared = spawn(w, {.at = {300, 500}, .group = 2});
  ASSERT_TRUE(attack(w, brute, victim).ok());
  ASSERT_TRUE(attack(w, unarmed, spared).ok());
  const std::vector<GameEvent> events = run(w, 900);
  EXPECT_EQ(w.find(victim), nullptr) << "four slams of 30 kill 100 hit points";
  ASSERT_NE(w.find(spared), nullptr);
  EXPECT_FLOAT_EQ(w.find(spared)->hp, 100.0F) << "an unarmed slam hurts nobody";
  EXPECT_EQ(w.find(unarmed)->behaviour.phase, Phase::done) << "one slam, home, done";
  EXPECT_EQ(count(events, EventKind::hit), 4u);
  for (const GameEvent& e : events) EXPECT_EQ(e.by, brute);
}

TEST(Combat, AStandingArmedAgentReturnsFireAtTheNearestEnemyWithinReach) {
  World w(def());
  const AgentId guard = spawn(w, {.at = {300, 300}, .group = 1, .damage = 5, .range = 80});
  const AgentId friendly = spawn(w, {.at = {340, 300}, .group = 1});
  const AgentId near = spawn(w, {.at = {300, 360}, .group = 2});
  const AgentId far = spawn(w, {.at = {300, 500}, .group = 2});
  run(w, 61);
  EXPECT_FLOAT_EQ(w.find(friendly)->hp, 100.0F);
  EXPECT_FLOAT_EQ(w.find(far)->hp, 100.0F) << "beyond its range";
  EXPECT_FLOAT_EQ(w.find(near)->hp, 90.0F) << "hit at once, then once a second";
  EXPECT_EQ(w.find(guard)->state, MoveState::idle) << "it fires where it stands";
}

TEST(Combat, AttackMoveOnTeamsEngagesOnlyOtherTeamsWhateverTheirGroups) {
  World w(def());
  // Red: groups 1 and 3; blue: group 2. Red's attack-movers pass their own group 3 first.
  std::vector<AgentId> red, red_other_group, blue;
  for (int k = 0; k < 4; ++k) {
    red.push_back(
        spawn(w, {.at = {100, 200.0 + 40 * k}, .group = 1, .team = 1, .damage = 10, .range = 20}));
    red_other_group.push_back(spawn(w, {.at = {300, 200.0 + 40 * k}, .group = 3, .team = 1}));
    blue.push_back(spawn(w, {.at = {700, 200.0 + 40 * k}, .group = 2, .team = 2}));
  }
  SetTarget go;
  go.agents = Selection(false, red);
  go.target = {900, 260};
  go.behaviour = BehaviourKind::attack_move;
  go.spread = Spread::keep;
  ASSERT_TRUE(w.apply(go).ok());
  bool engaged_own = false, engaged_blue = false;
  std::vector<GameEvent> events;
  for (int t = 0; t < 1800; ++t) {
    w.step();
    events.insert(events.end(), w.events().begin(), w.events().end());
    for (AgentId id : red) {
      const Agent* a = w.find(id);
      if (!a || a->behaviour.phase != Phase::engage) continue;
      const Agent* s = w.find(a->behaviour.agent);
      if (!s) continue;
      (s->team == 1 ? engaged_own : engaged_blue) = true;
    }
  }
  EXPECT_FALSE(engaged_own);
  EXPECT_TRUE(engaged_blue);
  for (const GameEvent& e : events) {
    if (e.kind == EventKind::order_done) continue;  // red's, at its point
    EXPECT_EQ(e.team, 2) << "only blue is hit";
    EXPECT_EQ(e.by_team, 1);
  }
  for (AgentId id : red_other_group) EXPECT_FLOAT_EQ(w.find(id)->hp, 100.0F);
  for (AgentId id : blue) EXPECT_EQ(w.find(id), nullptr) << "blue is unarmed: it dies";
}

// Which of an army's units carry a weapon of range 0 (the body slam) and which one with a range.
enum class Mix { melee, ranged, half };

// Two armies of 30 attack-moving through each other: 100 hit points, 12 damage a hit, a hit every
// 0.6 s; ranks of 5 a side, 30 units apart, jittered by the seed.
World battle(std::uint64_t seed, Mix mix = Mix::half) {
  WorldDef d = def(1200, 600);
  d.seed = seed;
  World w(d);
  for (std::uint8_t team : {1, 2}) {
    Spawn s;
    s.count = 0;
    s.team = team;
    for (int k = 0; k < 30; ++k) {
      SpawnAgent a;
      const double x0 = team == 1 ? 100 : 1100;
      // Ranks jittered by up to 5 units from the seed, so each seed is another battle.
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      const double jx = static_cast<double>(seed >> 40 & 0xFF) / 255 * 10 - 5;
      const double jy = static_cast<double>(seed >> 48 & 0xFF) / 255 * 10 - 5;
      a.position = {x0 + (team == 1 ? 1 : -1) * 30.0 * (k % 5) + jx, 150 + 30.0 * (k / 5) + jy};
      a.group = team;
      a.combat.damage = 12;
      a.combat.range = mix == Mix::melee || (mix == Mix::half && k % 2 == 0) ? 0 : 40;
      a.combat.cooldown = 0.6;
      s.agents.push_back(a);
    }
    const CommandOutcome out = w.apply(s);
    EXPECT_TRUE(out.ok()) << out.message;
    SetTarget go;
    go.agents.team = team;
    go.target = {team == 1 ? 1100.0 : 100.0, 300};
    go.behaviour = BehaviourKind::attack_move;
    go.spread = Spread::keep;
    EXPECT_TRUE(w.apply(go).ok());
  }
  return w;
}

std::array<std::size_t, 3> alive_by_team(const World& w) {
  std::array<std::size_t, 3> n{};
  for (const Agent& a : w.agents()) ++n[a.team];
  return n;
}

// Ticks until one side (or both) is dead, at most a minute; -1 if both still stand then.
int fight(World& w, std::size_t& deaths) {
  for (int t = 0; t < 60 * 60; ++t) {
    w.step();
    deaths += count(w.events(), EventKind::death);
    const auto alive = alive_by_team(w);
    if (alive[1] == 0 || alive[2] == 0) return t + 1;
  }
  return -1;
}

TEST(Combat, TwoArmiesOfThirtyFightUntilOneSideIsDeadTheSameWayEveryTime) {
  for (const Mix mix : {Mix::half, Mix::melee, Mix::ranged}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      World w = battle(seed, mix);
      std::size_t deaths = 0;
      const int ended = fight(w, deaths);
      ASSERT_GT(ended, 0) << "mix " << int(mix)
                          << ": both sides still alive after 60 s: " << alive_by_team(w)[1]
                          << " red, " << alive_by_team(w)[2] << " blue";
      EXPECT_EQ(deaths, 60 - w.agents().size());
      // The same seed and commands: the same battle, tick for tick.
      World again = battle(seed, mix);
      for (int t = 0; t < ended; ++t) again.step();
      EXPECT_EQ(again.state_hash(), w.state_hash());
      EXPECT_EQ(alive_by_team(again), alive_by_team(w));
    }
  }
}

TEST(Combat, ABattleCheckpointedMidwayEndsAsTheOneThatRanOn) {
  World w = battle(5);
  for (int t = 0; t < 60 * 8; ++t) w.step();
  // Mid-battle: some hurt, some reloading.
  const bool hurt = std::any_of(w.agents().begin(), w.agents().end(),
                                [](const Agent& a) { return a.hp < a.def.max_hp; });
  ASSERT_TRUE(hurt);
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& restored = std::get<World>(loaded);
  EXPECT_EQ(restored.state_hash(), w.state_hash());
  for (int t = 0; t < 60 * 30; ++t) {
    w.step();
    restored.step();
  }
  EXPECT_EQ(restored.state_hash(), w.state_hash());
  EXPECT_EQ(alive_by_team(restored), alive_by_team(w));
}

TEST(Combat, AWorldWithoutWeaponsHurtsNobody) {
  World w(def());
  for (int k = 0; k < 10; ++k)
    spawn(w, {.at = {100.0 + 20 * k, 300}, .group = std::uint8_t(k % 2)});
  SetBehaviour c;
  c.agents = Selection(false, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  c.behaviour.kind = BehaviourKind::attack;
  c.behaviour.agent = 1;
  ASSERT_TRUE(w.apply(c).ok());
  const std::vector<GameEvent> events = run(w, 600);
  EXPECT_TRUE(events.empty());
  for (const Agent& a : w.agents()) EXPECT_FLOAT_EQ(a.hp, 100.0F);
  EXPECT_EQ(w.agents().size(), 10u);
}

// An order's end is news for its team: told once, when the agent arrives where its last order
// sent it (not at a queued order's first point, never for a patrol).
TEST(Events, AnOrderDoneIsToldOnceAtTheEndOfItsLastLeg) {
  World w(def());
  const AgentId walker = spawn(w, {.at = {100, 300}, .team = 3});
  const AgentId patroller = spawn(w, {.at = {100, 500}});
  SetTarget go;
  go.agents = Selection(false, {walker});
  go.target = {300, 300};
  ASSERT_TRUE(w.apply(go).ok());
  go.target = {300, 100};
  go.queue = true;
  ASSERT_TRUE(w.apply(go).ok());
  SetTarget patrol;
  patrol.agents = Selection(false, {patroller});
  patrol.target = {200, 500};
  patrol.behaviour = BehaviourKind::patrol;
  ASSERT_TRUE(w.apply(patrol).ok());
  std::vector<GameEvent> done;
  for (int t = 0; t < 60 * 20; ++t) {
    w.step();
    for (const GameEvent& e : w.events())
      if (e.kind == EventKind::order_done) done.push_back(e);
  }
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].agent, walker);
  EXPECT_EQ(done[0].seen, std::uint64_t{1} << 3) << "its own team's news";
  EXPECT_LT(length(done[0].at - Vec2{300, 100}), 1.0) << "at the queued order's point";
  EXPECT_EQ(w.find(walker)->state, MoveState::arrived);
}

TEST(Combat, SettingsOutOfTheirLimitsAreRefusedWithNothingChanged) {
  World w(def());
  const auto try_spawn = [&](auto set) {
    Spawn s;
    SpawnAgent a;
    a.position = {100, 100};
    set(a.combat);
    s.agents = {a};
    return w.apply(s);
  };
  const std::uint64_t before = w.state_hash();
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.hp = 150; }).error, CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) {
              c.max_hp = 50;
              c.hp = 60;
            }).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.max_hp = 0; }).error, CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.damage = -1; }).error, CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.range = 1e5; }).error, CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.cooldown = 0; }).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(try_spawn([](CombatSettings& c) { c.damage = std::nan(""); }).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(w.state_hash(), before);
  EXPECT_TRUE(w.agents().empty());
  // Within them: it starts hurt.
  ASSERT_TRUE(try_spawn([](CombatSettings& c) {
                c.max_hp = 50;
                c.hp = 20;
              }).ok());
  EXPECT_FLOAT_EQ(w.agents()[0].hp, 20.0F);
  EXPECT_FLOAT_EQ(w.agents()[0].def.max_hp, 50.0F);
}

TEST(Combat, APlayerChoosesNoneOfItsUnitsHealthOrWeapon) {
  World w(def());
  for (const char* field : {"max_hp", "hp", "damage", "range", "cooldown"}) {
    Spawn s;
    SpawnAgent a;
    a.position = {100, 100};
    const std::string f = field;
    if (f == "max_hp") a.combat.max_hp = 500;
    if (f == "hp") a.combat.hp = 50;
    if (f == "damage") a.combat.damage = 1e6;
    if (f == "range") a.combat.range = 1000;
    if (f == "cooldown") a.combat.cooldown = 0.001;
    s.agents = {a};
    Command c = s;
    const CommandOutcome out = w.authorize(c, 1);
    EXPECT_EQ(out.error, CommandError::forbidden) << field;
    EXPECT_NE(out.message.find(field), std::string::npos) << out.message;
  }
}

}  // namespace
}  // namespace herd::sim
