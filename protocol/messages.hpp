// herd::protocol — the messages of protocol/PROTOCOL.md as C++ values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/command.hpp"

namespace herd::protocol {

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxMessageBytes = 65536;   // larger frames: close 1009
inline constexpr std::size_t kMaxIdsPerCommand = 10000;
inline constexpr std::uint32_t kMaxSpawnPerCommand = 1000;
inline constexpr std::size_t kMaxClientNameBytes = 64;
inline constexpr int kMaxJsonDepth = 16;

enum class Role : std::uint8_t { viewer, commander };

enum class ErrorCode : std::uint8_t {
  bad_json,
  bad_type,
  bad_field,
  unknown_command,
  hello_required,
  already_greeted,
  protocol_mismatch,
  forbidden,
  unknown_agent,
  out_of_bounds,
  limit_exceeded,
  binary_not_supported,
};

std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> error_code_from_string(std::string_view s);
std::string_view to_string(Role role);
std::string_view to_string(sim::MoveState state);

// What a command's failure in the world is called on the wire.
ErrorCode to_error_code(sim::CommandError error);

// ---- client to server ----------------------------------------------------------------------

struct Hello {
  int protocol = kProtocolVersion;
  Role role = Role::viewer;
  std::string client;
  friend bool operator==(const Hello&, const Hello&) = default;
};

struct CommandMsg {
  std::uint32_t seq = 0;
  sim::Command command;
  friend bool operator==(const CommandMsg&, const CommandMsg&) = default;
};

struct Ping {
  std::uint32_t id = 0;
  friend bool operator==(const Ping&, const Ping&) = default;
};

using ClientMessage = std::variant<Hello, CommandMsg, Ping>;

// ---- server to client ----------------------------------------------------------------------

struct Error {
  std::optional<std::uint32_t> seq;
  ErrorCode code = ErrorCode::bad_json;
  std::string message;
  friend bool operator==(const Error&, const Error&) = default;
};

struct WorldInfo {
  double width = 0;
  double height = 0;
  friend bool operator==(const WorldInfo&, const WorldInfo&) = default;
};

struct Welcome {
  int protocol = kProtocolVersion;
  std::string server;
  std::uint64_t session = 0;
  Role role = Role::viewer;
  double tick_rate = 0;
  double snapshot_rate = 0;
  double dt = 0;
  std::uint64_t tick = 0;
  WorldInfo world;
  std::uint32_t max_message_bytes = kMaxMessageBytes;
  std::uint32_t max_agents = 0;
  friend bool operator==(const Welcome&, const Welcome&) = default;
};

struct AgentState {
  std::uint32_t id = 0;
  double x = 0, y = 0, vx = 0, vy = 0, r = 0;
  std::uint8_t group = 0;
  sim::MoveState state = sim::MoveState::idle;
  std::optional<sim::Vec2> target;
  friend bool operator==(const AgentState&, const AgentState&) = default;
};

struct Snapshot {
  std::uint64_t tick = 0;
  double time = 0;
  std::vector<AgentState> agents;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

struct Ack {
  std::uint32_t seq = 0;
  std::uint64_t tick = 0;
  std::optional<std::uint32_t> count;                // set_target
  std::optional<std::vector<std::uint32_t>> agents;  // spawn
  friend bool operator==(const Ack&, const Ack&) = default;
};

struct Pong {
  std::uint32_t id = 0;
  std::uint64_t tick = 0;
  friend bool operator==(const Pong&, const Pong&) = default;
};

using ServerMessage = std::variant<Welcome, Snapshot, Ack, Error, Pong>;

}  // namespace herd::protocol
