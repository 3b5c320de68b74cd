// herd::sim agents: their settings (AgentDef), what they are doing (Behaviour) and their state.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "types.hpp"
#include "vec2.hpp"

namespace herd::sim {

// An agent's weapon, as an RTS unit's: `damage` hit points a hit takes off its target, `range`
// units between the two discs within which it hits (0: at contact, the seeds' body slam, a hit
// being the collision of the two), `cooldown` seconds between two hits. Damage 0: unarmed, and an
// unarmed agent's attack is the seeds' (one body slam, then home). Floats: an AgentDef holds
// them in 12 bytes.
struct Weapon {
  float damage = 0.0F;    // hit points, [0, 1e9]
  float range = 0.0F;     // units, [0, 1e4]
  float cooldown = 1.0F;  // seconds, [1e-3, 3600]
  bool armed() const { return damage > 0; }
  friend bool operator==(const Weapon&, const Weapon&) = default;
};

// Per-agent settings, with defaults in the manner of Box2D's b2BodyDef.
struct AgentDef {
  double radius = 8.0;       // units, [0.1, 100]
  double mass = 1.0;         // [0.001, 1e6]; steering and collisions use it
  double max_speed = 120.0;  // units/s, [0, 1e4]
  double max_force = 400.0;  // steering force limit, units/s² at mass 1, [0, 1e5]
  // units: arrive starts slowing down inside this distance. 0 (the default) derives it from the
  // agent's own speed and force (slow_radius_of): a fixed number suits one speed only.
  double slow_radius = 0.0;
  double arrive_tolerance = 0.05;  // units: an arriving agent this close and this slow has arrived
  // Avoidance layers and mask, as Godot's avoidance_layers and avoidance_mask: an agent avoids
  // only the agents whose layer shares a bit with its mask (layer & mask != 0). Avoidance only:
  // collisions stay physical. The defaults (layer 1, every bit of the mask) avoid everyone.
  std::uint32_t layer = 1;
  std::uint32_t mask = 0xFFFFFFFF;
  // Avoidance priority, as Unity's NavMeshAgent.avoidancePriority: [0, 99], 0 the most
  // important. Of two agents the less important (the higher number) yields: the more important
  // leaves it out of its avoidance (in orca mode it takes none of the pair's avoidance, the other
  // all of it), a standing one steps out of its way, and in a collision the more important is to
  // it as immovable as a wall. Equal priorities share as they always have.
  std::uint8_t priority = 50;
  // How far the agent sees (units, [0, 1e5]): its team sees every agent within this distance of
  // it (fog of war). A float, in what would be padding: an AgentDef is no larger for it.
  float sight = 200.0F;
  // Hit points when unhurt, (0, 1e9]: a hit takes its damage off Agent::hp, and at 0 the agent
  // dies (removed at the end of the tick).
  float max_hp = 100.0F;
  Weapon weapon;
};

// Health and weapon settings as a spawn, a source or a scenario gives them: each unset one is the
// world's (WorldDef::agent_defaults). `hp` is what it starts with (at most max_hp; unset: max_hp).
struct CombatSettings {
  std::optional<double> max_hp, hp, damage, range, cooldown;
  bool any() const { return max_hp || hp || damage || range || cooldown; }
  // Sets the given ones on `def`, and the start's hit points on `hp`.
  void apply(AgentDef& def, float& hp) const {
    if (max_hp) def.max_hp = static_cast<float>(*max_hp);
    if (damage) def.weapon.damage = static_cast<float>(*damage);
    if (range) def.weapon.range = static_cast<float>(*range);
    if (cooldown) def.weapon.cooldown = static_cast<float>(*cooldown);
    hp = this->hp ? static_cast<float>(*this->hp) : def.max_hp;
  }
  friend bool operator==(const CombatSettings&, const CombatSettings&) = default;
};

struct Agent {
  AgentId id = 0;
  std::uint8_t group = 0;
  Movement movement = Movement::inertial;
  Pathing pathing = Pathing::direct;
  std::uint8_t neighbours = 8;  // astar/flow: 8 (diagonals, no corner cutting) or 4
  MoveState state = MoveState::idle;
  bool collided = false;  // the collided mark: set by a collision, cleared when it reaches its goal
  // Its team, [0, AgentDefLimits::kMaxTeam]: 0 is nobody's. A player commands its own team's
  // agents and sees what they see (World::seen_by). In what would be padding.
  std::uint8_t team = 0;
  // The order (set_target, attack_move, patrol) it was last given, numbered by the world from 1; 0
  // for none. Agents settling by contact stop beside those of their own order only. In what
  // would be padding: an Agent is no larger for it.
  std::uint32_t order = 0;
  // Hit points left, (0, def.max_hp] (an agent at 0 is dead and gone by the end of its tick), and
  // ticks until its weapon can hit again (0: ready): counted in whole ticks, so a cooldown of
  // 0.5 s at 60 Hz is 30 ticks exactly, never a rounding more.
  float hp = 100.0F;
  std::uint32_t reload = 0;
  Behaviour behaviour;
  Vec2 position;
  Vec2 velocity;
  AgentDef def;
};

// A static circular obstacle.
struct Obstacle {
  ObstacleId id = 0;
  Vec2 position;
  double radius = 10.0;
  friend bool operator==(const Obstacle&, const Obstacle&) = default;
};

struct Desire {
  Vec2 velocity;             // units/s, length <= max_speed
  std::optional<Vec2> goal;  // the point it is heading for, if any (snapshots show it)
  bool arriving = false;     // the goal is to be stopped at (arrive, hold, home)
  // Set by the avoidance stage: the avoidance moves it off its behaviour's wish (a standing
  // agent stepping out of a more important one's way, an orca agent giving way), so it is not
  // stopped dead at its goal this tick. In what would be padding: a Desire is no larger for it.
  bool aside = false;
};

// One collision in a tick: agent a with agent b, or with static obstacle b.
struct CollisionEvent {
  AgentId a = 0;
  std::uint32_t b = 0;
  bool with_obstacle = false;
  Vec2 point;          // the collision point, between the centres
  double impulse = 0;  // |change of momentum| of a (mass * units/s)
  friend bool operator==(const CollisionEvent&, const CollisionEvent&) = default;
};

// What befell an agent in a tick, as a game tells its players (World::events): a hit it took
// (`by` hit it for `damage`, leaving it `hp`), its death (`by` dealt the last hit; the agent is
// gone by the end of the tick), or its order done (it arrived where its last order sent it,
// nothing queued after). `at` is where it was; `team` and `by_team` whose the two are; `seen` the
// teams that saw it then (bit t for team t, as World::seen_by; an order done: its own team's),
// its own and the hitter's included: those whose players may be told.
// `seen` is not the sim's: a server tells a team's players of an enemy their team sees for the
// first time (its memory of the team, publish::TeamMemory).
enum class EventKind : std::uint8_t { hit, death, order_done, seen };
// The wire's names of the kinds ("hit", "death", "order_done", "seen").
constexpr std::string_view event_name(EventKind k) {
  switch (k) {
    case EventKind::hit:
      return "hit";
    case EventKind::death:
      return "death";
    case EventKind::order_done:
      return "order_done";
    case EventKind::seen:
      return "seen";
  }
  return "hit";
}
struct GameEvent {
  EventKind kind = EventKind::hit;
  std::uint8_t team = 0, by_team = 0;
  AgentId agent = 0;
  AgentId by = 0;
  float damage = 0.0F;
  float hp = 0.0F;
  Vec2 at;
  std::uint64_t tick = 0;  // the tick whose step it happened in (World::tick() after it)
  std::uint64_t seen = 0;
  friend bool operator==(const GameEvent&, const GameEvent&) = default;
};

enum class WalkerStatus : std::uint8_t {
  arrived,  // standing on the target tile
  moving,   // between two tiles, or about to leave one
  stuck,    // on a tile with no free 4-neighbour: it cannot move until the map changes
};

// One walker. The no-backtracking tutorial's character object without the drawing: from, to,
// target, history.
struct WalkerState {
  TileCoord from;    // the tile last reached
  TileCoord to;      // the tile being moved to; == from when standing still
  TileCoord target;  // where it is going
  // The current chain of moves started at chain_start (world seconds) and has completed
  // chain_moves moves, so the current move departed at chain_start + chain_moves*move_time:
  // products of whole moves rather than a sum accumulated move by move, as world time is.
  double chain_start = 0.0;
  std::uint64_t chain_moves = 0;
  std::vector<TileCoord> history;  // oldest first; at most max_history entries
  std::uint64_t moves = 0;         // moves started since placed (a counter for tests and stats)
  WalkerStatus status = WalkerStatus::arrived;
};

}  // namespace herd::sim
