// herd::scenario — named world set-ups, stored as JSON in server/scenarios/ (installed in
// share/herd/scenarios).
//
// A scenario is a world definition plus a list of set-up commands written exactly as the wire's
// `command` messages (without `type` and `seq`), decoded by the same protocol codec: anything a
// scenario can do, a client can do, and the other way round.
//
//   {
//     "name": "default", "description": "...",
//     "world": {"width": 800, "height": 600, "seed": 1, "tick_rate": 60, "max_agents": 20000,
//               "agent": {"radius": 8, "max_speed": 120, "max_force": 400, "slow_radius": 60}},
//     "commands": [{"cmd": "spawn", "agents": [{"x": 10, "y": 20, "target": {"x": 700, "y": 20}}]}]
//   }
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "herd/sim/commands.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"

namespace herd::scenario {

struct Scenario {
  std::string name;
  std::string description;
  sim::WorldDef def;
  std::vector<sim::Command> commands;  // applied in order before the first tick
};

template <class T>
using Loaded = std::variant<T, std::string>;  // a value, or a sentence saying what is wrong

// Parses a scenario's JSON text. `name` is used when the text has none.
Loaded<Scenario> parse(std::string_view json_text, std::string_view name);

// Loads `name_or_path`: a path to a .json file, or the name of a file in `dir`.
Loaded<Scenario> load(std::string_view name_or_path, std::string_view dir);

// Loads the scenario called `name` from `dir`, by name only (what clients may ask for): a name
// that is not one of list(dir), be it a path, a missing file or anything else, gets the same
// sentence whatever exists on disk, and no sentence names a directory.
Loaded<Scenario> load_named(std::string_view name, std::string_view dir);

// Builds the world at tick 0 with the set-up applied; `seed` overrides the scenario's seed.
// Fails when a set-up command does (an agent outside the world, too many agents).
Loaded<sim::World> build_world(const Scenario& scenario, std::optional<std::uint64_t> seed = {});

// Names of the scenarios in `dir`, sorted.
std::vector<std::string> list(std::string_view dir);

// What each scenario of `dir` shows (its "description"), by name: those that have one, at most
// kMaxDescriptionBytes each (cut at a character), from files of at most kMaxDescribedFileBytes
// (larger ones, and those that do not parse, are left out).
inline constexpr std::size_t kMaxDescriptionBytes = 600;
inline constexpr std::size_t kMaxDescribedFileBytes = std::size_t{4} << 20;
std::map<std::string, std::string> describe(std::string_view dir);

// `text` cut to at most `bytes`, not inside a UTF-8 character.
std::string cut_utf8(std::string text, std::size_t bytes);

}  // namespace herd::scenario
