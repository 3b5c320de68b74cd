// herd::protocol — the messages of protocol/PROTOCOL.md as C++ values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "herd/sim/commands.hpp"
#include "herd/sim/stall.hpp"
#include "herd/sim/world_def.hpp"
#include "protocol/density.hpp"

namespace herd::protocol {

inline constexpr int kProtocolVersion = 1;
// Binary snapshots' position scales: quanta of 1 / 2^scale unit, from 1 unit (0) to 1/64 (6).
inline constexpr std::uint8_t kFinestScale = 6;
// The scale of a quantum in world units (1, 1/2, ... 1/64), or none for any other value.
inline std::optional<std::uint8_t> scale_of_quantum(double quantum) {
  for (std::uint8_t s = 0; s <= kFinestScale; ++s)
    if (quantum == 1.0 / static_cast<double>(1u << s)) return s;
  return std::nullopt;
}
inline constexpr std::size_t kMaxMessageBytes = 65536;  // larger frames: close 1009
inline constexpr std::size_t kMaxIdsPerCommand = 10000;
inline constexpr std::uint32_t kMaxSpawnPerCommand = 1000;
inline constexpr std::size_t kMaxClientNameBytes = 64;
inline constexpr std::size_t kMaxTokenBytes = 256;
inline constexpr int kMaxJsonDepth = 16;
inline constexpr std::size_t kMaxInspectPerSession = 16;
inline constexpr std::size_t kMaxCollisionsPerSnapshot =
    1000;  // more in one interval are not listed
// Hits a snapshot tells at most (every death is told): a battle of thousands hits each tick.
inline constexpr std::size_t kMaxEventsPerSnapshot = 4096;
// An agent's `waypoints` in a snapshot: its next points at most (queued orders and a patrol's
// route may hold 129), so that a snapshot of many agents with long queues stays within what a
// relay reads.
inline constexpr std::size_t kMaxWaypointsPerAgent = 32;
// Snapshots carry the obstacles when they change and at least this often (Snapshot::obstacles).
inline constexpr double kObstacleRefreshSeconds = 5;
// Session ids on the wire (welcome's `session`, kick's `session`) are at most this: JSON's safe
// integers.
inline constexpr std::uint64_t kMaxSessionId = std::uint64_t{1} << 53;
// Rows in one `sessions` answer; the rest are counted in its `omitted`.
inline constexpr std::size_t kMaxSessionsListed = 256;
// How a kicked session's WebSocket is closed: a code of the private-use range (RFC 6455 7.4.2),
// so that a client can tell a kick from any other close, and its reason.
inline constexpr std::uint16_t kKickedCloseCode = 4000;
inline constexpr std::string_view kKickedCloseReason = "kicked by the operator";

// Who a session is (hello's and welcome's `role`). commander: the operator, who may do everything
// (hello may say "operator", its name since players came; "commander" stays its alias). player: one
// team's, commanding its agents and seeing what they see. spectator: watches everything, behind
// the server's spectator delay. viewer: watches, on a server without players.
enum class Role : std::uint8_t { viewer, commander, player, spectator };
// Hello's `role` by name: "operator" is commander's (the caller keeps which name was used).
std::optional<Role> role_from_string(std::string_view s);

// How a session's snapshots are written (hello's `format`): JSON text (the default, for people),
// binary frames (PROTOCOL.md "Binary snapshots"), or auto: binary once the world its snapshots
// show holds more than kAutoBinaryAgents agents, JSON again once it holds kAutoJsonAgents or
// fewer (auto_binary).
enum class SnapshotFormat : std::uint8_t { json, binary, automatic };
inline constexpr std::size_t kAutoBinaryAgents = 1000;
inline constexpr std::size_t kAutoJsonAgents = 900;
// auto's format for the next snapshot of a stream whose last one was binary or not, of a world
// of `agents` agents: the gap between the two thresholds keeps a count that moves around one of
// them from switching the format snapshot after snapshot.
constexpr bool auto_binary(bool was_binary, std::size_t agents) {
  return agents > (was_binary ? kAutoJsonAgents : kAutoBinaryAgents);
}
inline constexpr double kMaxViewportCoordinate = 1e7;  // |x0|, |y0|, |x1|, |y1| at most this

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
  unknown_obstacle,
  invalid_target,
  no_map,
  bad_map,
  unreachable,
  bad_selection,
  not_paused,
  superseded,
  unknown_scenario,
  too_deep,
  rate_limited,
  unauthorized,
  upstream_unavailable,
  unknown_session,
  unknown_measurement,
  unknown_source,
  unknown_exit,
  unknown_wall,
  not_yours,  // the last: kErrorCodeCount
};
inline constexpr std::size_t kErrorCodeCount = static_cast<std::size_t>(ErrorCode::not_yours) + 1;

std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> error_code_from_string(std::string_view s);
std::string_view to_string(Role role);
std::string_view to_string(sim::MoveState state);
std::string_view to_string(sim::BehaviourKind kind);
std::string_view to_string(sim::Phase phase);
std::string_view to_string(sim::Movement movement);
std::string_view to_string(sim::Pathing pathing);
std::optional<sim::Pathing> pathing_from_string(std::string_view s);
std::optional<sim::BehaviourKind> behaviour_from_string(std::string_view s);
// Every behaviour's wire name in the table's order, separated by ", " and before the last by
// last_separator (", " or " or "): for messages and help.
std::string behaviour_names(std::string_view last_separator);
std::optional<sim::Phase> phase_from_string(std::string_view s);
std::optional<sim::AvoidanceMode> avoidance_mode_from_string(std::string_view s);

// What a command's failure in the world is called on the wire.
ErrorCode to_error_code(sim::CommandError error);

// ---- client to server ----------------------------------------------------------------------

struct Hello {
  int protocol = kProtocolVersion;
  Role role = Role::viewer;
  std::string client;
  std::string token;  // the operator's command token, or a player's (never logged)
  SnapshotFormat format = SnapshotFormat::json;
  // Binary frames' positions in quanta of 1 / 2^scale unit, scale in [0, 6] (`quantum` on the
  // wire: 1 down to 1/64, the default).
  std::uint8_t scale = kFinestScale;
  bool says_operator = false;  // role commander, asked for by its name "operator"
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

// Asks for the avoidance trace of these agents in every snapshot (replaces the previous list;
// empty stops it).
struct Inspect {
  std::vector<std::uint32_t> agents;
  friend bool operator==(const Inspect&, const Inspect&) = default;
};

// Commands on the server rather than the world: answered at once, between ticks.
struct Pause {
  friend bool operator==(const Pause&, const Pause&) = default;
};
struct Resume {
  friend bool operator==(const Resume&, const Resume&) = default;
};
struct StepTicks {
  std::uint32_t ticks = 1;  // [1, 1000], only while paused
  friend bool operator==(const StepTicks&, const StepTicks&) = default;
};
struct Reset {
  std::optional<std::uint64_t> seed;  // default: the running world's seed
  friend bool operator==(const Reset&, const Reset&) = default;
};
struct LoadScenario {
  std::string name;
  std::optional<std::uint64_t> seed;
  friend bool operator==(const LoadScenario&, const LoadScenario&) = default;
};
struct SetParam {
  std::optional<double> tick_rate;      // ticks per second of wall time (the world's dt is kept)
  std::optional<double> snapshot_rate;  // snapshots per second, <= tick rate
  friend bool operator==(const SetParam&, const SetParam&) = default;
};
// Ends another session (its id as its welcome said, [0, kMaxSessionId]): answered by the server
// that holds the session, never by a relay's upstream.
struct Kick {
  std::uint64_t session = 0;
  friend bool operator==(const Kick&, const Kick&) = default;
};
using Control = std::variant<Pause, Resume, StepTicks, Reset, LoadScenario, SetParam, Kick>;
struct ControlMsg {
  std::uint32_t seq = 0;
  Control control;
  friend bool operator==(const ControlMsg&, const ControlMsg&) = default;
};

// Binary snapshots: the client has decoded the snapshot of this tick and keeps it as a baseline.
struct SnapshotAck {
  std::uint64_t tick = 0;
  friend bool operator==(const SnapshotAck&, const SnapshotAck&) = default;
};

// Binary snapshots: send the next one whole (a keyframe), e.g. after a frame could not be decoded.
struct KeyframeRequest {
  friend bool operator==(const KeyframeRequest&, const KeyframeRequest&) = default;
};

// A rectangle of the world, world units, x0 < x1 and y0 < y1.
struct Viewport {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  friend bool operator==(const Viewport&, const Viewport&) = default;
};

// What the client looks at: binary snapshots then carry only the agents inside it plus a margin.
// No rectangle: the whole world again.
struct ViewportMsg {
  std::optional<Viewport> view;
  std::optional<std::uint8_t> scale;  // a new position quantum (Hello::scale); none: unchanged
  friend bool operator==(const ViewportMsg&, const ViewportMsg&) = default;
};

// A commander asks for the server's sessions (answered with SessionList, or error forbidden).
struct SessionsRequest {
  std::uint32_t seq = 0;
  friend bool operator==(const SessionsRequest&, const SessionsRequest&) = default;
};

// Asks for the density layer (`on`) in snapshots at a low rate (kDensitySeconds), or no more.
struct DensityRequest {
  bool on = false;
  friend bool operator==(const DensityRequest&, const DensityRequest&) = default;
};

using ClientMessage = std::variant<Hello, CommandMsg, Ping, Inspect, ControlMsg, SnapshotAck,
                                   KeyframeRequest, ViewportMsg, SessionsRequest, DensityRequest>;

// ---- server to client ----------------------------------------------------------------------

struct Error {
  std::optional<std::uint32_t> seq;
  ErrorCode code = ErrorCode::bad_json;
  std::string message;
  friend bool operator==(const Error&, const Error&) = default;
};

// A tile map on the wire: `rows` top to bottom, one character per tile, '#' blocked, '.' walkable.
struct MapState {
  std::int32_t width = 0, height = 0;
  double tile_size = 0;
  std::vector<std::string> rows;
  friend bool operator==(const MapState&, const MapState&) = default;
};

struct ObstacleState {
  std::uint32_t id = 0;
  double x = 0, y = 0, r = 0;
  friend bool operator==(const ObstacleState&, const ObstacleState&) = default;
};

// A wall (sim::Wall): a segment, an open polyline or (closed) a polygon through `points`.
struct WallState {
  std::uint32_t id = 0;
  std::vector<sim::Vec2> points;
  bool closed = false;
  friend bool operator==(const WallState&, const WallState&) = default;
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
  std::optional<MapState> map;
  std::string scenario;                // the running scenario's name (empty: not told)
  std::string description;             // what the running scenario shows (empty: not told)
  std::vector<std::string> scenarios;  // the names load_scenario accepts, sorted
  // What each of `scenarios` shows, by name (those that say).
  std::map<std::string, std::string> descriptions;
  bool paused = false;  // the world is paused (step runs it by hand)
  // From a relay only: its link to the server it relays, "connected" or "reconnecting" (empty:
  // not a relay).
  std::string upstream;
  // Every obstacle, as the welcome is sent; snapshots carry them again only when they change
  // (and now and then, Snapshot::obstacles).
  std::vector<ObstacleState> obstacles;
  // Every wall, as the welcome is sent (written only when there are some); snapshots carry them
  // again when they change (and now and then, Snapshot::walls).
  std::vector<WallState> walls;
  // Who the session is, in the head with its role: the operator by that name (as its hello asked;
  // else "commander"), and a player's name and team.
  bool says_operator = false;
  std::string player;
  std::optional<std::uint8_t> team;
  // A spectator's: how late its snapshots are, seconds of world time (0: not told, none).
  double delay = 0;
  // The players file's teams that have a colour (by team): what viewers draw them in.
  struct TeamColour {
    std::uint8_t team = 0;
    std::string colour;  // "#rrggbb"
    friend bool operator==(const TeamColour&, const TeamColour&) = default;
  };
  std::vector<TeamColour> teams;
  friend bool operator==(const Welcome&, const Welcome&) = default;
};

struct AgentState {
  std::uint32_t id = 0;
  double x = 0, y = 0, vx = 0, vy = 0, r = 0;
  std::uint8_t group = 0;
  sim::MoveState state = sim::MoveState::idle;
  std::optional<sim::Vec2> target;
  sim::BehaviourKind behaviour = sim::BehaviourKind::idle;
  sim::Phase phase = sim::Phase::none;
  bool collided = false;
  bool kinematic = false;
  sim::Pathing pathing = sim::Pathing::direct;
  std::vector<sim::TileCoord> history;  // no_backtrack walkers: tiles visited, oldest first
  bool path_pending = false;            // astar: its path request waits in the world's path queue
  std::optional<std::uint32_t>
      subject;  // the other agent its behaviour names (pursued, fled, guarded against...)
  std::vector<sim::Vec2> waypoints;  // where it goes after `target`: queued orders, a route's lap
  // Its avoidance priority, layer and mask (sim::AgentDef): on the wire only when not the
  // defaults.
  std::uint8_t priority = sim::AgentDefLimits::kDefaultPriority;
  std::uint32_t layer = 1;
  std::uint32_t mask = 0xFFFFFFFF;
  // Its team (0: nobody's), on the wire when not 0 and, on a server with players, always; its
  // sight, on the wire when not the world's default.
  std::optional<std::uint8_t> team;
  std::optional<double> sight;
  // Why it is stalled (sim::Stall, on the wire only when stalled): the reason, how long it has
  // been slow (s) and the agents responsible that the audience sees, nearest first.
  sim::StallReason stall = sim::StallReason::none;
  double stall_for = 0;
  std::vector<std::uint32_t> stall_by;
  // Its hit points and their most (sim::Agent::hp, AgentDef::max_hp): on the wire, both, for every
  // agent while some agent of the world is armed or hurt; absent, every agent is unhurt.
  std::optional<double> hp, max_hp;
  // Another team's agent in a player's snapshot: its orders are not told (no behaviour, phase,
  // target, waypoints or subject on the wire; `behaviour` reads idle).
  bool orders_hidden = false;
  friend bool operator==(const AgentState&, const AgentState&) = default;
};

// What befell an agent since the previous snapshot (sim::GameEvent): a hit (by `by`, for
// `damage`, leaving `hp`) or its death (`by` dealt the last hit). `by` is absent when the audience
// does not see the hitter. `x`, `y`: where the agent was. `tick`: the tick it happened in.
struct EventState {
  sim::EventKind kind = sim::EventKind::hit;
  std::uint64_t tick = 0;
  std::uint32_t agent = 0;
  std::optional<std::uint32_t> by;
  double x = 0, y = 0;
  double damage = 0, hp = 0;  // hit only
  friend bool operator==(const EventState&, const EventState&) = default;
};

// Binary frames' side section: the hit points of the agents in the frame's audience while some
// agent of the world is armed or hurt (JSON snapshots carry them on each agent).
struct HealthState {
  std::uint32_t id = 0;
  double hp = 0, max_hp = 0;
  friend bool operator==(const HealthState&, const HealthState&) = default;
};

// A team's memory under the fog (a player's snapshots only): an enemy it lost sight of, where and
// when it was last seen, with its size, group and team.
struct GhostState {
  std::uint32_t id = 0;
  double x = 0, y = 0, r = 0;
  std::uint8_t group = 0, team = 0;
  double time = 0;  // world seconds
  friend bool operator==(const GhostState&, const GhostState&) = default;
};
// And the ground it has explored: cols x rows cells of `cell` units from the world's origin, a
// bit each (row-major, the lowest bit of each byte first), base64 on the wire.
struct ExploredState {
  double cell = 0;
  std::uint32_t cols = 0, rows = 0;
  std::vector<std::uint8_t> bits;  // packed: (cols * rows + 7) / 8 bytes
  friend bool operator==(const ExploredState&, const ExploredState&) = default;
};

struct CollisionState {
  std::uint32_t a = 0, b = 0;
  bool obstacle = false;
  double x = 0, y = 0, impulse = 0;
  friend bool operator==(const CollisionState&, const CollisionState&) = default;
};

// One obstacle's part in an inspected agent's avoidance (the red raw and blue turned pushes).
struct PushState {
  std::uint32_t id = 0;
  bool obstacle = false;
  sim::Vec2 raw, adjusted;
  double weight = 0;
  bool ignored = false;
  bool crossing = false;  // the crossing fix looked at it; then the fields below are meaningful
  bool yielded = false;
  std::optional<sim::Vec2> point;
  double t_self = 0, t_other = 0, scale = 1;
  sim::Vec2 path_to;
  friend bool operator==(const PushState&, const PushState&) = default;
};

struct InspectState {
  std::uint32_t id = 0;
  sim::Vec2 desired, sum_raw, sum_adjusted, split_fix, final_dir, velocity, desired_path_to,
      current_path_to;
  double ig_factor = 0;
  std::vector<PushState> pushes;
  // The agent's stall, as its agent object carries it (AgentState::stall, stall_for, stall_by).
  sim::StallReason stall = sim::StallReason::none;
  double stall_for = 0;
  std::vector<std::uint32_t> stall_by;
  friend bool operator==(const InspectState&, const InspectState&) = default;
};

// A place of a formation its agent cannot reach (sim::UnreachablePlace).
struct UnreachableState {
  std::uint32_t agent = 0;
  double x = 0, y = 0;               // the place
  bool no_path = false;              // reason "no_path", else "obstacle"
  std::optional<double> to_x, to_y;  // where the agent goes instead (moved beside the obstacle)
  friend bool operator==(const UnreachableState&, const UnreachableState&) = default;
};

struct FormationState {
  std::uint32_t id = 0;
  std::uint32_t agents = 0;  // members still heading for their slots
  std::uint32_t arrived = 0;
  bool complete = false;
  std::vector<UnreachableState> unreachable;
  friend bool operator==(const FormationState&, const FormationState&) = default;
};

// A measurement line or area and its last report (sim::Measurement).
struct MeasurementState {
  std::uint32_t id = 0;
  bool line = true;                         // else an area
  sim::Vec2 a, b;                           // a line's two points; an area's min and max corners
  std::uint64_t forward = 0, backward = 0;  // lines: crossings each way since it was made
  // The last report window (tick 0: none yet, and the fields below are not told).
  std::uint64_t tick = 0;
  double seconds = 0;
  double flow_forward = 0, flow_backward = 0;  // lines: crossings per second in the window
  std::optional<double> mean_gap;              // lines: s between consecutive crossings
  std::uint32_t count = 0;                     // areas: agents inside at the window's end
  double density = 0;                          // areas: count / area
  std::optional<double> mean_speed;            // areas: of those inside
  friend bool operator==(const MeasurementState&, const MeasurementState&) = default;
};

// A source and its counts (sim::Source): the rectangle [min, max], its rate (agents a second),
// its total, and the agents it has made and has still to make.
struct SourceState {
  std::uint32_t id = 0;
  sim::Vec2 min, max;
  double rate = 0;
  std::uint32_t total = 0, spawned = 0, remaining = 0;
  friend bool operator==(const SourceState&, const SourceState&) = default;
};

// An exit and its count (sim::Exit): the rectangle [min, max] and the agents it has removed.
struct ExitState {
  std::uint32_t id = 0;
  sim::Vec2 min, max;
  std::uint64_t removed = 0;
  friend bool operator==(const ExitState&, const ExitState&) = default;
};

struct Snapshot {
  std::uint64_t tick = 0;
  double time = 0;
  sim::AvoidanceMode avoidance = sim::AvoidanceMode::cardioid;
  std::vector<AgentState> agents;
  // Every obstacle, present when they changed since the previous snapshot, and at least every
  // kObstacleRefreshSeconds (a client that missed a snapshot is right again soon); absent, the
  // client keeps the last ones it was told (welcome or snapshot).
  std::optional<std::vector<ObstacleState>> obstacles;
  std::vector<CollisionState> collisions;
  // Hits and deaths since the previous snapshot that its audience may be told (absent: none).
  std::vector<EventState> events;
  // A binary frame's side section only: hit points (see HealthState); absent, as in JSON.
  std::optional<std::vector<HealthState>> health;
  // A player's snapshots: its team's ghosts (every snapshot, [] for none) and explored ground
  // (when it grew, and every kObstacleRefreshSeconds); absent elsewhere.
  std::optional<std::vector<GhostState>> ghosts;
  std::optional<ExploredState> explored;
  // The avoidance traces of the agents this session inspects (no other session's).
  std::vector<InspectState> inspect;
  std::vector<FormationState> formations;
  // Every measurement, present when one was added or removed or a report was made since the
  // previous snapshot (about once a second while there are any); absent, as last told.
  std::optional<std::vector<MeasurementState>> measurements;
  // Every source and every exit, both present when one was added or removed or a count changed
  // since the previous snapshot; absent, as last told.
  std::optional<std::vector<SourceState>> sources;
  std::optional<std::vector<ExitState>> exits;
  // Every wall, present when they changed since the previous snapshot (a new world's first
  // included) and, while there are any, at least every kObstacleRefreshSeconds; absent, as last
  // told (welcome or snapshot).
  std::optional<std::vector<WallState>> walls;
  std::optional<MapState> map;  // present when the map changed since the previous snapshot
  bool map_cleared = false;     // the map was removed since the previous snapshot
  // The server's count of snapshots made, this one included (0: not told). A client that
  // receives serial n after n - k missed k - 1 snapshots the server skipped for it.
  std::uint64_t serial = 0;
  // The density layer, in some snapshots to a session that asked for it (DensityRequest).
  std::optional<DensityLayer> density;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

struct Ack {
  std::uint32_t seq = 0;
  std::uint64_t tick = 0;
  std::optional<std::uint32_t> count;                // commands on a selection
  std::optional<std::vector<std::uint32_t>> agents;  // spawn
  std::optional<std::uint32_t> obstacle;             // add_obstacle
  std::optional<std::uint32_t> formation;            // formation and demo moves
  std::optional<std::uint32_t> measurement;          // add_measurement
  std::optional<std::uint32_t> source;               // add_source
  std::optional<std::uint32_t> exit;                 // add_exit
  std::optional<std::uint32_t> wall;                 // add_wall
  friend bool operator==(const Ack&, const Ack&) = default;
};

struct Pong {
  std::uint32_t id = 0;
  std::uint64_t tick = 0;
  friend bool operator==(const Pong&, const Pong&) = default;
};

// One WebSocket session as the server sees it (a row of SessionList).
struct SessionInfo {
  std::uint64_t id = 0;
  std::optional<Role> role;              // the role granted; absent until its hello is answered
  std::optional<SnapshotFormat> format;  // hello's; absent until its hello is answered
  std::string client;                    // hello's `client` (empty: none given)
  std::string player;                    // a player's name (empty: not a player)
  std::optional<std::uint8_t> team;      // a player's team
  std::string address;                   // the peer, "ip:port"
  double connected_s = 0;                // seconds since the WebSocket was opened
  std::uint64_t bytes_sent = 0;          // WebSocket payload bytes written to it
  std::uint64_t snapshots_sent = 0;      // snapshot frames written to it
  std::uint64_t dropped = 0;             // snapshots replaced in its lane before being written
  std::optional<double> rtt_ms;          // the last WebSocket ping's round trip (none yet: absent)
  bool you = false;                      // the session that asked
  friend bool operator==(const SessionInfo&, const SessionInfo&) = default;
};

// The answer to SessionsRequest: the sessions by id, at most kMaxSessionsListed of them (the
// asker's always among them), and how many more there are.
struct SessionList {
  std::uint32_t seq = 0;
  std::vector<SessionInfo> sessions;
  std::uint64_t omitted = 0;
  friend bool operator==(const SessionList&, const SessionList&) = default;
};

using ServerMessage = std::variant<Welcome, Snapshot, Ack, Error, Pong, SessionList>;

}  // namespace herd::protocol
