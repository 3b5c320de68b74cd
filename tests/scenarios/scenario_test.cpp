// server/scenarios: every shipped scenario loads and builds; its world is pinned by a hash.
#include "scenarios/scenario.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

namespace herd::scenario {
namespace {

Scenario load_ok(const std::string& name) {
  auto s = load(name, HERD_SCENARIO_DIR);
  if (auto* why = std::get_if<std::string>(&s)) {
    ADD_FAILURE() << *why;
    return {};
  }
  return std::get<Scenario>(s);
}

std::string load_error(std::string_view text) {
  auto s = parse(text, "t");
  if (auto* why = std::get_if<std::string>(&s)) return *why;
  auto w = build_world(std::get<Scenario>(s));
  if (auto* why = std::get_if<std::string>(&w)) return *why;
  return "";
}

TEST(Scenarios, EveryShippedScenarioLoadsAndBuilds) {
  const auto names = list(HERD_SCENARIO_DIR);
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    const Scenario s = load_ok(name);
    EXPECT_EQ(s.name, name);
    EXPECT_FALSE(s.description.empty()) << name;
    auto w = build_world(s);
    EXPECT_TRUE(std::holds_alternative<sim::World>(w)) << name << ": " << std::get<std::string>(w);
  }
}

// The pinned hash: if this changes, the simulation's results changed. Update it only on purpose,
// and say why in the commit. `ring` is the antipodal circle crossed once: after 10 s every agent
// has arrived.
TEST(Scenarios, RingIsDeterministicAndPinned) {
  const Scenario s = load_ok("ring");
  auto run = [&](std::optional<std::uint64_t> seed) {
    sim::World world = std::get<sim::World>(build_world(s, seed));
    for (int t = 0; t < 600; ++t) world.step();
    return world.state_hash();
  };
  const auto first = run({});
  EXPECT_EQ(first, run({}));
  EXPECT_EQ(first, 0xa74512ecd97a787dull) << std::hex << "pinned hash changed: 0x" << first;
  sim::World world = std::get<sim::World>(build_world(s));
  EXPECT_EQ(world.agents().size(), 48u);
  for (int t = 0; t < 600; ++t) world.step();
  for (const sim::Agent& a : world.agents())
    EXPECT_EQ(a.state, sim::MoveState::arrived) << "agent " << a.id;
}

// The scenario a server opens with is alive whenever someone comes to look: the ring patrols, so
// in every 5 s window of its first two minutes most of it is on the move, and every agent has
// turned back at least once a minute.
TEST(Scenarios, DefaultKeepsMovingForLaterVisitors) {
  const Scenario s = load_ok("default");
  sim::World world = std::get<sim::World>(build_world(s));
  ASSERT_EQ(world.agents().size(), 48u);
  std::map<sim::AgentId, int> turns;
  std::map<sim::AgentId, sim::Phase> phase;
  for (const sim::Agent& a : world.agents()) phase[a.id] = a.behaviour.phase;
  for (int window = 0; window < 24; ++window) {
    std::size_t moving_ticks = 0;
    for (int t = 0; t < 300; ++t) {
      world.step();
      for (const sim::Agent& a : world.agents()) {
        moving_ticks += sim::length(a.velocity) > 1.0;
        if (a.behaviour.phase != phase[a.id]) ++turns[a.id];
        phase[a.id] = a.behaviour.phase;
      }
    }
    EXPECT_GT(moving_ticks, 300u * 48 / 2) << "window " << window << " (5 s each)";
  }
  for (const sim::Agent& a : world.agents())
    EXPECT_GE(turns[a.id], 2) << "agent " << a.id << " turned " << turns[a.id] << " times";
  const auto hash = [&] {
    sim::World w = std::get<sim::World>(build_world(s));
    for (int t = 0; t < 600; ++t) w.step();
    return w.state_hash();
  };
  const auto first = hash();
  EXPECT_EQ(first, hash());
  EXPECT_EQ(first, 0xd37a9f7a5ec206a4ull) << std::hex << "pinned hash changed: 0x" << first;
}

TEST(Scenarios, BadScenariosSayWhatIsWrong) {
  EXPECT_NE(load_error("[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(load_error(R"({"world":{"width":-1}})").find("width"), std::string::npos);
  EXPECT_NE(load_error(R"({"world":{"tick_rate":0}})").find("tick_rate"), std::string::npos);
  EXPECT_NE(load_error(R"({"world":{"seed":1.5}})").find("seed"), std::string::npos);
  EXPECT_NE(load_error(R"({"world":{"agent":{"radius":"big"}}})").find("radius"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"commands":[{"cmd":"fly"}]})").find("commands[0]"), std::string::npos);
  EXPECT_NE(
      load_error(R"({"commands":[{"cmd":"spawn","agents":[{"x":5000,"y":1}]}]})").find("outside"),
      std::string::npos);
  EXPECT_NE(load_error(R"({"name":5})").find("scenario"), std::string::npos);
  for (const char* bad :
       {R"({"world":{"agent":{"priority":100}}})", R"({"world":{"agent":{"priority":-1}}})",
        R"({"world":{"agent":{"layer":1.5}}})", R"({"world":{"agent":{"mask":4294967296}}})"})
    EXPECT_NE(load_error(bad).find("world.agent"), std::string::npos) << bad;
}

// The world's agent block sets every agent's avoidance priority, layer and mask unless a spawn
// gives its own.
TEST(Scenarios, TheAgentBlockSetsAvoidanceRules) {
  const auto parsed =
      parse(R"({"world":{"agent":{"priority":10,"layer":4,"mask":6}},)"
            R"("commands":[{"cmd":"spawn","agents":[{"x":1,"y":1},{"x":9,"y":9,"priority":70}]}]})",
            "rules");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<std::string>(parsed);
  auto built = build_world(std::get<Scenario>(parsed));
  ASSERT_TRUE(std::holds_alternative<sim::World>(built));
  const sim::World& w = std::get<sim::World>(built);
  EXPECT_EQ(w.agents()[0].def.priority, 10);
  EXPECT_EQ(w.agents()[0].def.layer, 4u);
  EXPECT_EQ(w.agents()[0].def.mask, 6u);
  EXPECT_EQ(w.agents()[1].def.priority, 70);
  EXPECT_EQ(w.agents()[1].def.mask, 6u);
}

// Walls are commands, so a scenario's set-up may hold them; a bad one fails the build with why.
TEST(Scenarios, AScenarioMayBuildWalls) {
  auto s = parse(R"({"world":{"width":400,"height":300},"commands":[
      {"cmd":"add_wall","points":[{"x":200,"y":20},{"x":200,"y":280}]},
      {"cmd":"add_wall","points":[{"x":50,"y":50},{"x":100,"y":50},{"x":75,"y":90}],"closed":true}]})",
                 "walled");
  ASSERT_TRUE(std::holds_alternative<Scenario>(s)) << std::get<std::string>(s);
  auto w = build_world(std::get<Scenario>(s));
  ASSERT_TRUE(std::holds_alternative<sim::World>(w)) << std::get<std::string>(w);
  const sim::World& world = std::get<sim::World>(w);
  ASSERT_EQ(world.walls().size(), 2u);
  EXPECT_FALSE(world.walls()[0].closed);
  EXPECT_TRUE(world.walls()[1].closed);
  EXPECT_EQ(world.walls()[1].points.size(), 3u);
  EXPECT_NE(load_error(R"({"world":{"width":400,"height":300},"commands":[
      {"cmd":"add_wall","points":[{"x":200,"y":20},{"x":500,"y":280}]}]})")
                .find("outside"),
            std::string::npos);
}

TEST(Scenarios, NamesCannotEscapeTheDirectoryAndMissingOnesListTheKnown) {
  auto bad = load("../etc/passwd", HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<std::string>(bad));
  auto missing = load("no_such_scenario", HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<std::string>(missing));
  EXPECT_NE(std::get<std::string>(missing).find("default"), std::string::npos)
      << std::get<std::string>(missing);
  auto weird = load("a b", HERD_SCENARIO_DIR);
  ASSERT_TRUE(std::holds_alternative<std::string>(weird));
  EXPECT_NE(std::get<std::string>(weird).find("bad scenario name"), std::string::npos);
}

TEST(Scenarios, ClientsLoadByNameOnlyAndEveryOtherNameGetsTheSameAnswer) {
  ASSERT_TRUE(std::holds_alternative<Scenario>(load_named("default", HERD_SCENARIO_DIR)));
  const std::string existing_path = std::string(HERD_SCENARIO_DIR) + "/default.json";
  std::optional<std::string> first;
  for (const std::string name :
       {"/etc/shadow", "/etc/passwd", "../etc/passwd", "/no/such/file.json", existing_path.c_str(),
        "default.json", "no_such_scenario", "a b", "", "..", "maps"}) {
    auto r = load_named(name, HERD_SCENARIO_DIR);
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << name;
    const std::string& why = std::get<std::string>(r);
    EXPECT_EQ(why.find('/'), std::string::npos) << "names no directory: " << why;
    if (!first) first = why;
    EXPECT_EQ(why, *first) << "'" << name
                           << "' is answered like any other name that is not a scenario";
  }
  EXPECT_NE(first->find("default"), std::string::npos) << "the known names help: " << *first;
}

// What each shipped scenario shows, as welcomes list it: every one has a description, whole.
TEST(Scenarios, EveryShippedScenarioIsDescribed) {
  const auto names = list(HERD_SCENARIO_DIR);
  const auto described = describe(HERD_SCENARIO_DIR);
  ASSERT_EQ(described.size(), names.size());
  for (const std::string& name : names) {
    auto s = load(name, HERD_SCENARIO_DIR);
    ASSERT_TRUE(std::holds_alternative<Scenario>(s)) << name;
    EXPECT_EQ(described.at(name), std::get<Scenario>(s).description) << name;
    EXPECT_LE(described.at(name).size(), kMaxDescriptionBytes) << name;
  }
}

TEST(Scenarios, ALongDescriptionIsCutBetweenCharacters) {
  EXPECT_EQ(cut_utf8("abc", 3), "abc");
  EXPECT_EQ(cut_utf8("abcd", 3), "abc");
  EXPECT_EQ(cut_utf8("ab\xc3\xa9", 3), "ab") << "not half of an e-acute";
  EXPECT_EQ(cut_utf8("a\xe2\x80\x94z", 3), "a") << "not two thirds of an em dash";
  EXPECT_EQ(cut_utf8("a\xe2\x80\x94z", 4), "a\xe2\x80\x94");
}

}  // namespace
}  // namespace herd::scenario
