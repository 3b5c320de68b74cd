// herd::sim commands: what clients (through the protocol) and scenarios ask the world to do, and
// what the world answers (CommandOutcome). A command is applied whole or not at all, between two
// ticks, by World::apply, in the order given; it takes effect before the next step, whose tick the
// outcome carries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "measurement.hpp"
#include "source.hpp"
#include "types.hpp"
#include "vec2.hpp"
#include "wall.hpp"

namespace herd::sim {

struct Rect {
  Vec2 min, max;
  friend bool operator==(const Rect&, const Rect&) = default;
};

// Which agents a command moves: every agent, the listed ids (each must exist), or the agents of a
// group, of a team, whose centre is inside a rectangle of the world, or several of these at once.
// A group, team or rectangle with nobody in it is refused (bad_selection).
struct Selection {
  Selection() = default;
  Selection(bool every, std::vector<AgentId> list = {})
      : all(every), ids(std::move(list)) {}  // {all, ids}
  bool all = false;
  std::vector<AgentId> ids;
  std::optional<std::uint8_t> group;
  std::optional<Rect> rect;
  std::optional<std::uint8_t> team;  // Agent::team
  friend bool operator==(const Selection&, const Selection&) = default;
};

// Where each of several agents sent to one point goes (SetTarget::spread).
enum class Spread : std::uint8_t {
  keep,       // the point plus its offset from the group's centre, the group no looser than a
              // packed clump (a scattered group converges into one)
  point,      // the point itself, stopping where it touches one of its order that has stopped
  formation,  // SetTarget::shape at the point, facing the direction of travel (a Form)
};

// An order to go to a point: seek or arrive there, attack-move there, or patrol to it (or through
// `points`) and back. Given to several agents, `spread` says where each goes; `queue` appends it
// to the agents' orders instead of replacing them.
struct SetTarget {
  Selection agents;
  Vec2 target;
  BehaviourKind behaviour = BehaviourKind::arrive;  // seek, arrive, attack_move or patrol
  std::optional<TileCoord> target_tile{};           // instead of target: that tile's centre
  // Unset: keep for more than one agent (point when they follow paths through a tile map, which
  // share one goal tile).
  std::optional<Spread> spread{};
  Shape shape = Shape::block;  // spread formation
  double spacing = 0;          // keep and formation: between neighbours; 0: the default
  bool queue = false;          // after the agents' current orders (not with spread formation)
  std::vector<Vec2> points;    // patrol: the route's points after `target` (target is the first)
  double radius = 0;           // attack_move: sight (0: kDefaultSight)
  friend bool operator==(const SetTarget&, const SetTarget&) = default;
};

// Stops agents where they are (behaviour idle) and forgets their queued orders and routes.
struct Stop {
  Selection agents;
  friend bool operator==(const Stop&, const Stop&) = default;
};

// Any behaviour. For attack and react the home is where each agent is when the command applies;
// for hold without a point, likewise.
struct SetBehaviour {
  Selection agents;
  Behaviour behaviour;
  bool hold_here = false;                // hold: at the current position instead of behaviour.point
  std::optional<TileCoord> target_tile;  // instead of behaviour.point: that tile's centre
  BehaviourParams params;                // wander, flock, follow_path, follow
  friend bool operator==(const SetBehaviour&, const SetBehaviour&) = default;
};

struct SetMovement {
  Selection agents;
  Movement movement = Movement::inertial;
  friend bool operator==(const SetMovement&, const SetMovement&) = default;
};

// One agent of an explicit spawn; unset fields take the world's AgentDef defaults.
struct SpawnAgent {
  Vec2 position;
  std::uint8_t group = 0;
  std::optional<double> radius;
  std::optional<double> max_speed;
  std::optional<double> max_force;
  std::optional<double> mass;
  std::optional<Vec2> target;  // arrive there
  Movement movement = Movement::inertial;
  std::optional<std::uint8_t> priority{};  // AgentDef::priority, [0, 99]
  std::optional<std::uint32_t> layer{};    // AgentDef::layer
  std::optional<std::uint32_t> mask{};     // AgentDef::mask
  std::optional<double> sight{};           // AgentDef::sight
  std::uint8_t team = 0;                   // Agent::team
  CombatSettings combat;                   // health and weapon
  friend bool operator==(const SpawnAgent&, const SpawnAgent&) = default;
};

// Either `count` agents at random positions (from the world's generator) in `group`,
// or the explicit `agents` (then count is 0). A count spawn's priority, layer, mask, sight and
// combat settings, when given, are every one of its agents'; `team`, when given, is every one's,
// the explicit agents' included.
struct Spawn {
  std::uint32_t count = 0;
  std::uint8_t group = 0;
  std::vector<SpawnAgent> agents;
  std::optional<std::uint8_t> priority{};
  std::optional<std::uint32_t> layer{};
  std::optional<std::uint32_t> mask{};
  std::optional<double> sight{};
  std::optional<std::uint8_t> team{};
  CombatSettings combat;  // a count spawn's, every agent's
  friend bool operator==(const Spawn&, const Spawn&) = default;
};

struct AddObstacle {
  Vec2 position;
  double radius = 10;
  friend bool operator==(const AddObstacle&, const AddObstacle&) = default;
};

struct RemoveObstacle {
  ObstacleId id = 0;
  friend bool operator==(const RemoveObstacle&, const RemoveObstacle&) = default;
};

// A measurement line from `a` to `b` (distinct points), or an area with corners `a` (min) and `b`
// (max, both larger), inside the world (measurement.hpp).
struct AddMeasurement {
  MeasurementKind kind = MeasurementKind::line;
  Vec2 a, b;
  friend bool operator==(const AddMeasurement&, const AddMeasurement&) = default;
};

struct RemoveMeasurement {
  MeasurementId id = 0;
  friend bool operator==(const RemoveMeasurement&, const RemoveMeasurement&) = default;
};

// A source (source.hpp): the rectangle [min, max] inside the world spawning `rate` agents a
// second (above 0, at most SourceLimits::kMaxRate), `total` in all (1 to kMaxTotal), made from
// `agent`.
struct AddSource {
  Vec2 min, max;
  double rate = 1;
  std::uint32_t total = 1;
  AgentTemplate agent;
  friend bool operator==(const AddSource&, const AddSource&) = default;
};

struct RemoveSource {
  SourceId id = 0;
  friend bool operator==(const RemoveSource&, const RemoveSource&) = default;
};

// An exit (source.hpp): the rectangle [min, max] inside the world.
struct AddExit {
  Vec2 min, max;
  friend bool operator==(const AddExit&, const AddExit&) = default;
};

struct RemoveExit {
  ExitId id = 0;
  friend bool operator==(const RemoveExit&, const RemoveExit&) = default;
};

// A static wall through `points` (wall.hpp): a segment, an open polyline, or with `closed` a
// polygon. Inside the world, within WallLimits, no two consecutive points equal.
struct AddWall {
  std::vector<Vec2> points;
  bool closed = false;
  friend bool operator==(const AddWall&, const AddWall&) = default;
};

struct RemoveWall {
  WallId id = 0;
  friend bool operator==(const RemoveWall&, const RemoveWall&) = default;
};

// Changes the world's avoidance settings; unset fields keep their value.
struct SetAvoidance {
  std::optional<AvoidanceMode> mode;
  std::optional<double> personal_space;
  std::optional<double> cardioid_exponent;
  std::optional<Side> preferred_side;
  std::optional<SplitFixMode> split_fix;
  std::optional<double> push_epsilon;
  std::optional<bool> crossing;
  std::optional<double> crossing_activation;
  std::optional<double> lookahead;
  std::optional<std::uint32_t> max_neighbours;
  std::optional<double> time_gap;
  std::optional<double> repulsion_strength;
  std::optional<double> repulsion_range;
  std::optional<double> wall_repulsion_strength;
  std::optional<double> wall_repulsion_range;
  friend bool operator==(const SetAvoidance&, const SetAvoidance&) = default;
};

// Tile maps. A map covers [0, width*tile_size] x [0, height*tile_size] and must fit in
// the world; what lies outside it counts as blocked.
struct LoadMap {
  TileMapDef map;
  friend bool operator==(const LoadMap&, const LoadMap&) = default;
};

struct ClearMap {
  friend bool operator==(const ClearMap&, const ClearMap&) = default;
};

struct TileChange {
  TileCoord tile;
  bool blocked = true;
  friend bool operator==(const TileChange&, const TileChange&) = default;
};

struct SetTiles {
  std::vector<TileChange> tiles;
  friend bool operator==(const SetTiles&, const SetTiles&) = default;
};

struct SetPathing {
  Selection agents;
  Pathing pathing = Pathing::direct;
  std::uint8_t neighbours = 8;  // 4 or 8
  friend bool operator==(const SetPathing&, const SetPathing&) = default;
};

// Formations and the formation demo's moves. Each sends the selected agents to arrive
// at new points and is tracked as a formation until they are all there.
struct SetGroup {
  Selection agents;
  std::uint8_t group = 0;
  friend bool operator==(const SetGroup&, const SetGroup&) = default;
};

struct Form {
  Selection agents;
  FormationDef def;
  friend bool operator==(const Form&, const Form&) = default;
};

enum class DemoMove : std::uint8_t {
  swap_places,  // B: each agent to another's place, a seeded random permutation
  opposite,     // T: split into `groups` sectors around the centre; all to the opposite side
  exchange,     // B after G: the two groups in the selection trade places
  invert,       // B after P: lines reverse their order and switch sides
};

struct Demo {
  Selection agents;
  DemoMove move = DemoMove::swap_places;
  std::uint32_t groups = 3;  // opposite only
  friend bool operator==(const Demo&, const Demo&) = default;
};

// Removes agents. Their ids are never given out again; behaviours that named them lose their
// subject (an attack retreats, a pursuit stops).
struct Remove {
  Selection agents;
  friend bool operator==(const Remove&, const Remove&) = default;
};

using Command = std::variant<SetTarget, Spawn, SetBehaviour, SetMovement, AddObstacle,
                             RemoveObstacle, SetAvoidance, LoadMap, ClearMap, SetTiles, SetPathing,
                             SetGroup, Form, Demo, Remove, Stop, AddMeasurement, RemoveMeasurement,
                             AddSource, RemoveSource, AddExit, RemoveExit, AddWall, RemoveWall>;

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
  unknown_obstacle,
  out_of_bounds,
  limit_exceeded,
  invalid_target,  // an agent told to pursue (attack, flee...) itself
  no_map,          // a tile command (or target_tile) without a map
  bad_map,         // a map that is malformed or does not fit the world
  unreachable,     // a goal on a blocked tile, or one some selected agent's pathing cannot reach
  bad_selection,   // a group or rectangle with nobody in it, or a selection a move cannot use
  unknown_measurement,
  unknown_source,  // remove_source names a source that does not exist (or no longer does)
  unknown_exit,    // remove_exit likewise
  unknown_wall,
  // A player's command (World::authorize): one naming an agent of another team that the player's
  // team sees, and one only the operator may give (the world's settings, obstacles, maps...).
  not_yours,
  forbidden,
};

struct CommandOutcome {
  CommandOrigin origin;
  std::uint64_t tick = 0;  // the tick whose step it precedes (World::tick() + 1 when applied)
  CommandError error = CommandError::none;
  std::string message;                       // for people, when error != none
  std::uint32_t affected = 0;                // commands on a selection: agents affected
  std::vector<AgentId> spawned;              // spawn: the new ids, in order
  std::optional<ObstacleId> obstacle;        // add_obstacle: the new id
  std::optional<std::uint32_t> formation;    // formation and demo moves: the formation's id
  std::optional<MeasurementId> measurement;  // add_measurement: the new id
  std::optional<SourceId> source;            // add_source: the new id
  std::optional<ExitId> exit;                // add_exit: the new id
  std::optional<WallId> wall;                // add_wall: the new id
  bool ok() const { return error == CommandError::none; }
};

}  // namespace herd::sim
