// The wire names of herd's enums (PROTOCOL.md lists them).
#include <array>
#include <string_view>

#include "protocol/messages.hpp"

namespace herd::protocol {
namespace {

constexpr std::string_view kErrorNames[] = {
    "bad_json",
    "bad_type",
    "bad_field",
    "unknown_command",
    "hello_required",
    "already_greeted",
    "protocol_mismatch",
    "forbidden",
    "unknown_agent",
    "out_of_bounds",
    "limit_exceeded",
    "binary_not_supported",
    "unknown_obstacle",
    "invalid_target",
    "no_map",
    "bad_map",
    "unreachable",
    "bad_selection",
    "not_paused",
    "superseded",
    "unknown_scenario",
    "too_deep",
    "rate_limited",
    "unauthorized",
    "upstream_unavailable",
    "unknown_session",
    "unknown_measurement",
    "unknown_source",
    "unknown_exit",
    "unknown_wall",
    "not_yours",
};
static_assert(std::size(kErrorNames) == kErrorCodeCount, "an error code without its name");
constexpr std::string_view kPhaseNames[] = {"none", "approach", "retreat", "done",    "respond",
                                            "home", "out",      "back",    "advance", "engage"};
constexpr std::string_view kStateNames[] = {"idle", "moving", "arrived", "unreachable"};
constexpr std::string_view kPathingNames[] = {"direct", "no_backtrack", "astar", "flow"};

template <class E, std::size_t N>
std::optional<E> lookup(const std::string_view (&names)[N], std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

std::string_view to_string(ErrorCode code) { return kErrorNames[static_cast<std::size_t>(code)]; }
std::optional<ErrorCode> error_code_from_string(std::string_view s) {
  return lookup<ErrorCode>(kErrorNames, s);
}
constexpr std::string_view kRoleNames[] = {"viewer", "commander", "player", "spectator"};
std::string_view to_string(Role role) { return kRoleNames[static_cast<std::size_t>(role)]; }
std::optional<Role> role_from_string(std::string_view s) {
  if (s == "operator") return Role::commander;
  return lookup<Role>(kRoleNames, s);
}
std::string_view to_string(sim::MoveState state) {
  return kStateNames[static_cast<std::size_t>(state)];
}
std::string_view to_string(sim::BehaviourKind kind) { return sim::traits(kind).name; }
std::string_view to_string(sim::Phase phase) {
  return kPhaseNames[static_cast<std::size_t>(phase)];
}
std::string_view to_string(sim::Movement m) {
  return m == sim::Movement::kinematic ? "kinematic" : "inertial";
}
std::optional<sim::BehaviourKind> behaviour_from_string(std::string_view s) {
  for (const sim::BehaviourTraits& t : sim::kBehaviours)
    if (t.name == s) return t.kind;
  return std::nullopt;
}

std::string behaviour_names(std::string_view last_separator) {
  std::string out;
  for (std::size_t i = 0; i < sim::kBehaviourCount; ++i) {
    if (i > 0) out += i + 1 == sim::kBehaviourCount ? last_separator : std::string_view(", ");
    out += sim::kBehaviours[i].name;
  }
  return out;
}
std::optional<sim::Phase> phase_from_string(std::string_view s) {
  return lookup<sim::Phase>(kPhaseNames, s);
}
std::string_view to_string(sim::Pathing p) { return kPathingNames[static_cast<std::size_t>(p)]; }
std::optional<sim::Pathing> pathing_from_string(std::string_view s) {
  return lookup<sim::Pathing>(kPathingNames, s);
}
std::optional<sim::AvoidanceMode> avoidance_mode_from_string(std::string_view s) {
  if (s == "none") return sim::AvoidanceMode::none;
  if (s == "circle") return sim::AvoidanceMode::circle;
  if (s == "cardioid") return sim::AvoidanceMode::cardioid;
  if (s == "orca") return sim::AvoidanceMode::orca;
  if (s == "cfsm") return sim::AvoidanceMode::cfsm;
  return std::nullopt;
}

ErrorCode to_error_code(sim::CommandError error) {
  switch (error) {
    case sim::CommandError::unknown_agent:
      return ErrorCode::unknown_agent;
    case sim::CommandError::unknown_obstacle:
      return ErrorCode::unknown_obstacle;
    case sim::CommandError::out_of_bounds:
      return ErrorCode::out_of_bounds;
    case sim::CommandError::limit_exceeded:
      return ErrorCode::limit_exceeded;
    case sim::CommandError::invalid_target:
      return ErrorCode::invalid_target;
    case sim::CommandError::no_map:
      return ErrorCode::no_map;
    case sim::CommandError::bad_map:
      return ErrorCode::bad_map;
    case sim::CommandError::unreachable:
      return ErrorCode::unreachable;
    case sim::CommandError::bad_selection:
      return ErrorCode::bad_selection;
    case sim::CommandError::unknown_measurement:
      return ErrorCode::unknown_measurement;
    case sim::CommandError::unknown_source:
      return ErrorCode::unknown_source;
    case sim::CommandError::unknown_exit:
      return ErrorCode::unknown_exit;
    case sim::CommandError::unknown_wall:
      return ErrorCode::unknown_wall;
    case sim::CommandError::not_yours:
      return ErrorCode::not_yours;
    case sim::CommandError::forbidden:
      return ErrorCode::forbidden;
    case sim::CommandError::none:
      break;
  }
  return ErrorCode::bad_field;
}

}  // namespace herd::protocol
