// Sources and exits: a source's schedule at fractional rates, seeded placements inside its
// rectangle without overlap, its agent template, waiting when crowded or full; exits removing and
// counting the agents that reach them; the books balancing every tick (spawned = removed +
// present, each exit's count the agents that vanished into it); checkpoints; bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

WorldDef quiet_world() {
  WorldDef def;
  def.avoidance.mode = AvoidanceMode::none;
  return def;
}

AddSource source(Vec2 min, Vec2 max, double rate, std::uint32_t total) {
  AddSource s;
  s.min = min;
  s.max = max;
  s.rate = rate;
  s.total = total;
  s.agent.radius = 2;
  return s;
}

SourceId add(World& w, const AddSource& s) {
  const CommandOutcome out = w.apply(s);
  EXPECT_TRUE(out.ok()) << out.message;
  return out.source.value_or(0);
}

ExitId add_exit(World& w, Vec2 min, Vec2 max) {
  const CommandOutcome out = w.apply(AddExit{min, max});
  EXPECT_TRUE(out.ok()) << out.message;
  return out.exit.value_or(0);
}

// Agent k (from 1) of a source of `rate` a second is due in the step of tick
// ceil(k / (rate * dt)) after it was added: at 2.5 a second and 60 ticks a second, one every 24
// ticks exactly (ticks 24, 48, ...), not drifting by a tick as a float summed per tick would; 3 a
// second gives 3 by tick 60, 60 by tick 1200.
TEST(Source, SpawnsOnItsScheduleAtAFractionalRate) {
  World w(quiet_world());
  const SourceId id = add(w, source({100, 100}, {700, 500}, 2.5, 10));
  EXPECT_EQ(id, 1u);
  for (std::uint64_t t = 1; t <= 300; ++t) {
    w.step();
    const std::uint64_t expected = std::min<std::uint64_t>(10, t / 24);
    ASSERT_EQ(w.agents().size(), expected) << "tick " << t;
    ASSERT_EQ(w.sources()[0].spawned, expected) << "tick " << t;
  }
  EXPECT_EQ(w.sources()[0].remaining(), 0u);

  World three(quiet_world());
  add(three, source({100, 100}, {700, 500}, 3, 100));
  for (int t = 0; t < 59; ++t) three.step();
  EXPECT_EQ(three.agents().size(), 2u);
  three.step();
  EXPECT_EQ(three.agents().size(), 3u);
  for (int t = 60; t < 1200; ++t) three.step();
  EXPECT_EQ(three.agents().size(), 60u);
}

// A source added after tick T counts its schedule from T; one above 60 a second makes several
// agents in a tick.
TEST(Source, TheScheduleStartsWhenTheSourceIsAddedAndMayMakeSeveralATick) {
  World w(quiet_world());
  for (int t = 0; t < 17; ++t) w.step();
  add(w, source({100, 100}, {700, 500}, 150, 1000));  // 2.5 a tick
  std::vector<std::size_t> counts;
  for (int t = 0; t < 4; ++t) {
    w.step();
    counts.push_back(w.agents().size());
  }
  EXPECT_EQ(counts, (std::vector<std::size_t>{2, 5, 7, 10}));
  EXPECT_EQ(w.sources()[0].created_tick, 17u);
}

// Placements: inside the rectangle, no two discs overlapping, from the world's generator (the
// same seed places the same, another seed elsewhere), with the template's settings.
TEST(Source, PlacesAgentsInsideItsAreaWithoutOverlapFromTheSeed) {
  auto run = [](std::uint64_t seed) {
    WorldDef def = quiet_world();
    def.seed = seed;
    World w(def);
    AddSource s = source({200, 150}, {300, 250}, 600, 40);  // 10 a tick
    s.agent.group = 3;
    s.agent.radius = 4;
    s.agent.max_speed = 50;
    s.agent.behaviour = BehaviourKind::arrive;
    s.agent.target = {700, 500};
    s.agent.movement = Movement::kinematic;
    add(w, s);
    w.step();
    return w;
  };
  World w = run(7);
  ASSERT_EQ(w.agents().size(), 10u);
  for (std::size_t i = 0; i < w.agents().size(); ++i) {
    const Agent& a = w.agents()[i];
    EXPECT_EQ(a.group, 3);
    EXPECT_EQ(a.def.radius, 4);
    EXPECT_EQ(a.def.max_speed, 50);
    EXPECT_EQ(a.movement, Movement::kinematic);
    EXPECT_EQ(a.behaviour.kind, BehaviourKind::arrive);
    EXPECT_EQ(a.behaviour.point, (Vec2{700, 500}));
    EXPECT_EQ(a.state, MoveState::moving);
    for (std::size_t j = 0; j < i; ++j)  // placed apart; one tick's move keeps them so
      EXPECT_GE(length(a.position - w.agents()[j].position), 8 - 2 * 50.0 / 60);
  }
  // Where they stood when made: one tick's move back from where they are.
  for (const Agent& a : w.agents()) {
    const Vec2 made = a.position - a.velocity * w.def().dt;
    EXPECT_GE(made.x, 200 - 1e-9);
    EXPECT_LE(made.x, 300 + 1e-9);
    EXPECT_GE(made.y, 150 - 1e-9);
    EXPECT_LE(made.y, 250 + 1e-9);
  }
  EXPECT_EQ(run(7).state_hash(), w.state_hash());
  EXPECT_NE(run(8).state_hash(), w.state_hash());
}

// A rectangle with room for one disc: the next agent waits (the source's count stays) while the
// first stands there, and comes in the step after it is gone; none is lost.
TEST(Source, ACrowdedAreaMakesTheRestWaitForRoom) {
  World w(quiet_world());
  AddSource s = source({100, 100}, {104, 104}, 60, 3);  // one a tick is due
  s.agent.radius = 5;                                   // any two discs in it overlap
  add(w, s);
  for (int t = 0; t < 10; ++t) w.step();
  EXPECT_EQ(w.agents().size(), 1u);
  EXPECT_EQ(w.sources()[0].spawned, 1u);
  ASSERT_TRUE(w.apply(Remove{Selection(true)}).ok());
  w.step();
  ASSERT_EQ(w.agents().size(), 1u);
  EXPECT_EQ(w.agents()[0].id, 2u);
  EXPECT_EQ(w.sources()[0].spawned, 2u);
  for (int t = 0; t < 10; ++t) w.step();
  EXPECT_EQ(w.sources()[0].spawned, 2u);
  ASSERT_TRUE(w.apply(Remove{Selection(true)}).ok());
  w.step();
  EXPECT_EQ(w.sources()[0].spawned, 3u);
  EXPECT_EQ(w.sources()[0].remaining(), 0u);
}

// A world at max_agents: the source waits, and goes on when agents are removed.
TEST(Source, AFullWorldMakesTheSourceWait) {
  WorldDef def = quiet_world();
  def.max_agents = 5;
  World w(def);
  add(w, source({100, 100}, {700, 500}, 60, 8));
  for (int t = 0; t < 20; ++t) w.step();
  EXPECT_EQ(w.agents().size(), 5u);
  EXPECT_EQ(w.sources()[0].remaining(), 3u);
  ASSERT_TRUE(w.apply(Remove{Selection(false, {1, 2})}).ok());
  w.step();
  EXPECT_EQ(w.agents().size(), 5u);
  EXPECT_EQ(w.sources()[0].remaining(), 1u);
}

// A template with flow pathing on a map: agents are made on walkable tiles only and follow the
// flow field to their target.
TEST(Source, TemplatePathingOnAMapPlacesOnWalkableTilesOnly) {
  World w(quiet_world());
  TileMapDef map;
  map.width = 20;
  map.height = 15;
  map.tile_size = 40;
  map.cells.assign(20 * 15, kWalkable);
  for (int y = 0; y < 15; ++y)
    for (int x = 0; x < 20; ++x)
      if ((x + y) % 2 == 0 && x < 5 && y < 5) map.cells[y * 20 + x] = kBlocked;  // a chequerboard
  ASSERT_TRUE(w.apply(LoadMap{map}).ok());
  AddSource s = source({0, 0}, {200, 200}, 600, 30);
  s.agent.behaviour = BehaviourKind::arrive;
  s.agent.target = {700, 500};
  s.agent.pathing = Pathing::flow;
  s.agent.neighbours = 4;
  add(w, s);
  w.step();
  ASSERT_EQ(w.agents().size(), 10u);
  ASSERT_EQ(path_states(w).size(), 10u);
  for (const Agent& a : w.agents()) {
    EXPECT_EQ(a.pathing, Pathing::flow);
    EXPECT_EQ(a.neighbours, 4);
    const Vec2 made = a.position - a.velocity * w.def().dt;
    EXPECT_FALSE(w.map()->blocked(w.map()->tile_at(made))) << made.x << ", " << made.y;
  }
}

// An exit removes every agent whose centre reaches it and counts it; ids are never given again,
// and a pursuer of a removed agent loses its subject.
TEST(Exit, RemovesAndCountsTheAgentsThatReachIt) {
  World w(quiet_world());
  const ExitId exit = add_exit(w, {600, 0}, {800, 600});
  std::vector<SpawnAgent> walkers;
  for (int k = 0; k < 6; ++k) {
    SpawnAgent s;
    s.position = {100, 50.0 + 80 * k};
    s.target = {k < 4 ? 700.0 : 400.0, 50.0 + 80 * k};  // four go in, two stop short
    walkers.push_back(s);
  }
  ASSERT_TRUE(w.apply(Spawn{0, 0, walkers}).ok());
  SpawnAgent hunter;
  hunter.position = {50, 500};
  ASSERT_TRUE(w.apply(Spawn{0, 0, {hunter}}).ok());
  SetBehaviour pursue;
  pursue.agents = Selection(false, {7});
  pursue.behaviour.kind = BehaviourKind::pursue;
  pursue.behaviour.agent = 1;
  ASSERT_TRUE(w.apply(pursue).ok());
  for (int t = 0; t < 900; ++t) w.step();
  EXPECT_EQ(w.exits()[0].id, exit);
  EXPECT_EQ(w.exits()[0].removed, 4u);
  EXPECT_GT(w.exits()[0].last_removal_tick, 0u);
  EXPECT_EQ(w.agents().size(), 3u);
  for (AgentId gone : {1u, 2u, 3u, 4u}) EXPECT_EQ(w.find(gone), nullptr);
  ASSERT_NE(w.find(7), nullptr);
  EXPECT_EQ(w.find(7)->behaviour.agent, 1u);  // names it still, but it is gone: no subject
  const CommandOutcome more = w.apply(Spawn{1, 0, {}});
  ASSERT_EQ(more.spawned.size(), 1u);
  EXPECT_EQ(more.spawned[0], 8u);
}

// The books, every tick of a busy run: two sources, two exits, spawn and remove commands too.
// Agents made (by sources and commands) = agents removed (by exits and commands) + agents
// present; each exit's count rises by exactly the agents that vanished in a step beside it.
TEST(SourcesAndExits, SpawnedEqualsRemovedPlusPresentEveryTickAndExitCountsMatch) {
  WorldDef def;  // anti-gravity avoidance: a crowd that pushes
  def.seed = 11;
  World w(def);
  AddSource left = source({20, 200}, {120, 400}, 7.5, 120);
  left.agent.behaviour = BehaviourKind::seek;
  left.agent.target = {780, 150};
  left.agent.radius = 6;
  AddSource right = source({680, 450}, {780, 580}, 4, 60);
  right.agent.behaviour = BehaviourKind::arrive;
  right.agent.target = {30, 30};
  add(w, left);
  add(w, right);
  const ExitId upper = add_exit(w, {740, 100}, {800, 200});
  const ExitId corner = add_exit(w, {0, 0}, {60, 60});
  std::uint64_t made_otherwise = 0, removed_otherwise = 0;
  std::map<ExitId, std::uint64_t> vanished_into;
  for (std::uint64_t t = 0; t < 1500; ++t) {
    if (t % 200 == 50) {  // a crowd spawned by command, sent to an exit
      const CommandOutcome out = w.apply(Spawn{10, 0, {}});
      ASSERT_TRUE(out.ok()) << out.message;
      made_otherwise += out.spawned.size();
      SetTarget go;
      go.agents = Selection(false, out.spawned);
      go.target = {770, 150};
      go.behaviour = BehaviourKind::seek;
      ASSERT_TRUE(w.apply(go).ok());
    }
    if (t % 300 == 299 && !w.agents().empty()) {
      const CommandOutcome out = w.apply(Remove{Selection(false, {w.agents().back().id})});
      ASSERT_TRUE(out.ok());
      removed_otherwise += out.affected;
    }
    std::map<AgentId, Vec2> before;
    for (const Agent& a : w.agents()) before[a.id] = a.position;
    const std::uint64_t upper_before = w.exits()[0].removed, corner_before = w.exits()[1].removed;
    w.step();
    std::set<AgentId> after;
    for (const Agent& a : w.agents()) after.insert(a.id);
    // Vanished: here before the step, gone after it; made and removed in one step: never seen.
    std::uint64_t near_upper = 0, near_corner = 0, vanished = 0;
    for (const auto& [id, p] : before) {
      if (after.contains(id)) continue;
      ++vanished;
      constexpr double reach = 10;  // more than a tick's move
      near_upper += p.x >= 740 - reach && p.y >= 100 - reach && p.y <= 200 + reach;
      near_corner += p.x <= 60 + reach && p.y <= 60 + reach;
    }
    const Exit& u = w.exits()[0];
    const Exit& c = w.exits()[1];
    ASSERT_EQ(u.id, upper);
    ASSERT_EQ(c.id, corner);
    std::uint64_t spawned = 0;
    for (const Source& s : w.sources()) spawned += s.spawned;
    ASSERT_EQ(spawned + made_otherwise,
              u.removed + c.removed + removed_otherwise + w.agents().size())
        << "tick " << w.tick();
    // Ids are given once: the newest agent's id counts every agent ever made.
    if (!w.agents().empty()) ASSERT_LE(w.agents().back().id, spawned + made_otherwise);
    const std::uint64_t made_this_step_and_gone =
        (u.removed - upper_before) + (c.removed - corner_before) - vanished;
    ASSERT_EQ(made_this_step_and_gone, 0u) << "tick " << w.tick();  // sources are far from exits
    ASSERT_EQ(u.removed - upper_before, near_upper) << "tick " << w.tick();
    ASSERT_EQ(c.removed - corner_before, near_corner) << "tick " << w.tick();
    vanished_into[upper] += near_upper;
    vanished_into[corner] += near_corner;
  }
  // It was busy: both sources finished, both exits took agents.
  EXPECT_EQ(w.sources()[0].remaining(), 0u);
  EXPECT_EQ(w.sources()[1].remaining(), 0u);
  EXPECT_GT(w.exits()[0].removed, 100u);
  EXPECT_GT(w.exits()[1].removed, 30u);
  EXPECT_EQ(vanished_into[upper], w.exits()[0].removed);
  EXPECT_EQ(vanished_into[corner], w.exits()[1].removed);
}

// An exit over a source: its agents are removed in the step that made them, and still counted.
TEST(SourcesAndExits, AnExitOverASourceRemovesItsAgentsAtOnce) {
  World w(quiet_world());
  add(w, source({100, 100}, {200, 200}, 60, 30));
  add_exit(w, {50, 50}, {250, 250});
  for (int t = 0; t < 40; ++t) w.step();
  EXPECT_TRUE(w.agents().empty());
  EXPECT_EQ(w.sources()[0].spawned, 30u);
  EXPECT_EQ(w.exits()[0].removed, 30u);
}

// Removing a source stops it; removing an exit stops the removals. Ids are not given again.
TEST(SourcesAndExits, RemovedSourcesAndExitsStopAndTheirIdsAreNotReused) {
  World w(quiet_world());
  add(w, source({100, 100}, {300, 300}, 60, 100));
  for (int t = 0; t < 5; ++t) w.step();
  EXPECT_TRUE(w.apply(RemoveSource{1}).ok());
  for (int t = 0; t < 5; ++t) w.step();
  EXPECT_EQ(w.agents().size(), 5u);
  EXPECT_EQ(add(w, source({100, 100}, {300, 300}, 1, 1)), 2u);
  EXPECT_EQ(add_exit(w, {0, 0}, {10, 10}), 1u);
  EXPECT_TRUE(w.apply(RemoveExit{1}).ok());
  EXPECT_EQ(add_exit(w, {0, 0}, {10, 10}), 2u);
  EXPECT_EQ(w.apply(RemoveSource{1}).error, CommandError::unknown_source);
  EXPECT_EQ(w.apply(RemoveExit{1}).error, CommandError::unknown_exit);
}

// A checkpoint holds the sources' schedules and counts and the exits' counts: the loaded world
// continues bit for bit.
TEST(SourcesAndExits, ACheckpointContinuesExactly) {
  WorldDef def;
  World w(def);
  AddSource s = source({20, 20}, {200, 580}, 13.3, 500);
  s.agent.behaviour = BehaviourKind::arrive;
  s.agent.target = {790, 300};
  s.agent.max_speed = 80;
  add(w, s);
  add_exit(w, {700, 200}, {800, 400});
  for (int t = 0; t < 700; ++t) w.step();
  ASSERT_GT(w.exits()[0].removed, 0u);
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(copy.state_hash(), w.state_hash());
  EXPECT_EQ(copy.sources_version(), w.sources_version());
  for (int t = 0; t < 600; ++t) {
    w.step();
    copy.step();
  }
  EXPECT_EQ(copy.state_hash(), w.state_hash());
  ASSERT_EQ(copy.sources().size(), 1u);
  EXPECT_EQ(copy.sources()[0], w.sources()[0]);
  EXPECT_EQ(copy.exits()[0], w.exits()[0]);
  EXPECT_EQ(add(copy, source({1, 1}, {2, 2}, 1, 1)), 2u);  // the next id came along
}

// A template's avoidance priority, layer and mask go into every agent it makes, unset ones are the
// world's defaults, and a checkpoint keeps which were set.
TEST(Source, TemplateAvoidanceRulesReachItsAgentsAndCheckpoints) {
  World w(quiet_world());
  AddSource ranked = source({20, 20}, {200, 200}, 60, 5);
  ranked.agent.priority = 3;
  ranked.agent.mask = 6;
  add(w, ranked);
  add(w, source({400, 20}, {600, 200}, 60, 5));
  const std::uint64_t unset_hash = [] {
    World v(quiet_world());
    add(v, source({20, 20}, {200, 200}, 60, 5));
    return v.state_hash();
  }();
  for (int t = 0; t < 10; ++t) w.step();
  ASSERT_EQ(w.agents().size(), 10u);
  for (const Agent& a : w.agents()) {
    const bool from_ranked = a.position.x < 300;
    EXPECT_EQ(a.def.priority, from_ranked ? 3 : w.def().agent_defaults.priority) << a.id;
    EXPECT_EQ(a.def.layer, w.def().agent_defaults.layer) << a.id;
    EXPECT_EQ(a.def.mask, from_ranked ? 6u : w.def().agent_defaults.mask) << a.id;
  }
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(copy.sources()[0], w.sources()[0]);
  EXPECT_EQ(copy.sources()[1], w.sources()[1]);
  EXPECT_FALSE(copy.sources()[0].agent.layer.has_value());
  EXPECT_EQ(copy.state_hash(), w.state_hash());
  // The rules are part of the world's state.
  World other(quiet_world());
  add(other, source({20, 20}, {200, 200}, 60, 5));
  EXPECT_EQ(other.state_hash(), unset_hash);
  World ranked_only(quiet_world());
  add(ranked_only, ranked);
  EXPECT_NE(ranked_only.state_hash(), unset_hash);
  // A priority past 99 is refused, and changes nothing.
  AddSource bad = ranked;
  bad.agent.priority = 100;
  const std::uint64_t before = w.state_hash();
  EXPECT_FALSE(w.apply(bad).ok());
  EXPECT_EQ(w.state_hash(), before);
}

// A world that never had a source or an exit hashes as before; one added changes the hash.
TEST(SourcesAndExits, OnlyWorldsWithThemHashThem) {
  World a(quiet_world()), b(quiet_world());
  EXPECT_EQ(a.state_hash(), b.state_hash());
  add_exit(b, {0, 0}, {10, 10});
  EXPECT_NE(a.state_hash(), b.state_hash());
}

TEST(SourcesAndExits, BadOnesAreRefusedAndChangeNothing) {
  World w(quiet_world());
  TileMapDef map;
  map.width = 20;
  map.height = 15;
  map.cells.assign(20 * 15, kWalkable);
  for (int x = 0; x < 5; ++x) map.cells[x] = kBlocked;  // (0..200, 0..40) blocked
  World mapped(quiet_world());
  ASSERT_TRUE(mapped.apply(LoadMap{map}).ok());
  const std::uint64_t hash = w.state_hash(), mapped_hash = mapped.state_hash();
  const AddSource good = source({100, 100}, {200, 200}, 2, 10);
  const auto refused = [&](World& world, AddSource s, CommandError error) {
    const CommandOutcome out = world.apply(s);
    EXPECT_EQ(out.error, error) << out.message;
    EXPECT_FALSE(out.message.empty());
    EXPECT_FALSE(out.source.has_value());
  };
  auto with = [&](auto change) {
    AddSource s = good;
    change(s);
    return s;
  };
  using E = CommandError;
  refused(w, with([](AddSource& s) { s.max = {900, 200}; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.min = {-1, 100}; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.max.x = s.min.x; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.max = {50, 50}; }), E::out_of_bounds);  // inside out
  refused(w, with([](AddSource& s) { s.min.x = NAN; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.rate = 0; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.rate = -1; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.rate = NAN; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.rate = INFINITY; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.rate = 1001; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.total = 0; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.total = 1'000'001; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.radius = 0; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.mass = -1; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.max_speed = NAN; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.behaviour = BehaviourKind::pursue; }),
          E::invalid_target);
  refused(w, with([](AddSource& s) {
            s.agent.behaviour = BehaviourKind::arrive;
            s.agent.target = {900, 10};
          }),
          E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.neighbours = 6; }), E::out_of_bounds);
  refused(w, with([](AddSource& s) { s.agent.pathing = Pathing::flow; }), E::no_map);
  refused(mapped, with([](AddSource& s) {
            s.agent.behaviour = BehaviourKind::arrive;
            s.agent.target = {100, 20};
          }),
          E::unreachable);
  refused(mapped, with([](AddSource& s) { s.min = {0, 0}, s.max = {199, 39}; }), E::out_of_bounds);
  EXPECT_EQ(w.apply(AddExit{{10, 10}, {10, 20}}).error, E::out_of_bounds);
  EXPECT_EQ(w.apply(AddExit{{10, 10}, {810, 20}}).error, E::out_of_bounds);
  EXPECT_EQ(w.apply(RemoveSource{1}).error, E::unknown_source);
  EXPECT_EQ(w.apply(RemoveExit{1}).error, E::unknown_exit);
  EXPECT_TRUE(w.sources().empty());
  EXPECT_TRUE(w.exits().empty());
  EXPECT_EQ(w.sources_version(), 0u);
  EXPECT_EQ(w.state_hash(), hash);
  EXPECT_EQ(mapped.state_hash(), mapped_hash);
  // The limits: 64 of each.
  for (std::size_t k = 0; k < SourceLimits::kMaxSources; ++k) add(w, good);
  refused(w, good, E::limit_exceeded);
  for (std::size_t k = 0; k < SourceLimits::kMaxExits; ++k) add_exit(w, {1, 1}, {2, 2});
  EXPECT_EQ(w.apply(AddExit{{1, 1}, {2, 2}}).error, E::limit_exceeded);
  EXPECT_EQ(w.sources().size(), SourceLimits::kMaxSources);
  EXPECT_EQ(w.exits().size(), SourceLimits::kMaxExits);
}

}  // namespace
}  // namespace herd::sim
