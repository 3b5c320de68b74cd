// herd::sim commands: what clients (through the protocol) and scenarios ask the world to do.
// A command is applied whole or not at all, at the start of a tick, in the order queued.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agent.hpp"
#include "vec2.hpp"

namespace herd::sim {

// Which agents a command moves: every agent, or the listed ids (each must exist).
struct Selection {
  bool all = false;
  std::vector<AgentId> ids;
  friend bool operator==(const Selection&, const Selection&) = default;
};

struct SetTarget {
  Selection agents;
  Vec2 target;
  Behaviour behaviour = Behaviour::arrive;  // seek or arrive
  friend bool operator==(const SetTarget&, const SetTarget&) = default;
};

// One agent of an explicit spawn; unset fields take the world's AgentDef defaults.
struct SpawnAgent {
  Vec2 position;
  std::uint8_t group = 0;
  std::optional<double> radius;
  std::optional<double> max_speed;
  std::optional<double> max_force;
  std::optional<Vec2> target;  // arrive there
  friend bool operator==(const SpawnAgent&, const SpawnAgent&) = default;
};

// Either `count` agents at random positions (from the world's generator) in `group`,
// or the explicit `agents` (then count is 0).
struct Spawn {
  std::uint32_t count = 0;
  std::uint8_t group = 0;
  std::vector<SpawnAgent> agents;
  friend bool operator==(const Spawn&, const Spawn&) = default;
};

using Command = std::variant<SetTarget, Spawn>;

// Who asked: opaque to the world, handed back with the outcome (the server puts a session id and
// the command's seq here).
struct CommandOrigin {
  std::uint64_t client = 0;
  std::uint32_t seq = 0;
  friend bool operator==(const CommandOrigin&, const CommandOrigin&) = default;
};

enum class CommandError : std::uint8_t {
  none,
  unknown_agent,
  out_of_bounds,
  limit_exceeded,
};

struct CommandOutcome {
  CommandOrigin origin;
  std::uint64_t tick = 0;            // the tick at whose start it was applied
  CommandError error = CommandError::none;
  std::string message;               // for people, when error != none
  std::uint32_t affected = 0;        // set_target: agents that got the target
  std::vector<AgentId> spawned;      // spawn: the new ids, in order
  bool ok() const { return error == CommandError::none; }
};

}  // namespace herd::sim
