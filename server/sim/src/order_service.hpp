// herd::sim::OrderService — the orders as RTS players give them, a part of the world with its own
// state: what an agent's behaviour does not hold of its orders (the waypoints queued after the
// current one, a patrol's route, the enemies an attack-move has already engaged), by id, for the
// few agents with any; the next order number; and the stages that read them: deciding who settles,
// engages, turns or starts its next order; pacing movers that settle by contact; and keeping
// movers off those at rest. The commands that give orders (set_target, stop) are the world's
// (world_orders.cpp): they choose the agents and the goals, and hand each agent's order here.
// Orders and the next order number are world state (checkpoints, the state hash); the movers'
// starting points are remade every step.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "serial.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {

class OrderService {
 public:
  // What the orders' stages read and change of the world, handed in by the step (the step's
  // context, as Box2D passes its b2StepContext): nothing else of the world is reached.
  struct Scene {
    std::vector<Agent>& agents;  // ordered by id
    const WorldDef& def;
    const TileMap* map;       // null without one
    SpatialGrid& grid;        // this tick's grid of the agents (keep_off_stopped moves its points)
    double max_agent_radius;  // over every agent (the grid's widest)
    // This tick's sight of every team, by agent (World::seen_by's bits); empty in a world without
    // teams at odds. A team's attack-mover engages only enemies its team sees.
    std::span<const std::uint64_t> team_sight;
  };

  // One order for one agent, started now or queued.
  struct Waypoint {
    Vec2 point;
    BehaviourKind kind = BehaviourKind::arrive;
    Settle settle = Settle::none;
    std::uint32_t order = 0;
    double radius = 0;        // attack_move: sight
    std::vector<Vec2> route;  // patrol: the points after `point`
  };
  // What an agent's behaviour does not hold: for the few agents with any.
  struct Orders {
    std::vector<Waypoint> queue;  // after the current order, first next
    std::vector<Vec2> route;      // a patrol's: where it started, then its points; round and round
    std::uint32_t leg = 0;        // the route point it is heading for
    Settle route_settle = Settle::none;  // how it settles at each route point
    std::vector<AgentId> engaged;        // enemies this attack-move has engaged: not engaged again
    bool empty() const { return queue.empty() && route.empty() && engaged.empty(); }
  };

  static constexpr std::size_t kMaxQueue = World::kMaxQueue;
  static constexpr std::size_t kMaxRoute = World::kMaxRoute;
  static constexpr std::size_t kMaxEngaged = 64;  // the oldest is forgotten past this
  // Radii short of touching within which a mover settling by contact stops: inside the room the
  // avoidance keeps between neighbours, so one held off by it still settles.
  static constexpr double kSettleGap = 0.5;
  // A group order's tag: apart from every formation's (below kFormationBits' top bit).
  static constexpr std::uint32_t kOrderTag = 1u << 29;
  static constexpr double kStill = 1;  // units/s: slower than this, an agent stands still
  // Come to rest under a group order that settles: arrived and still. Its place is final: to
  // those still moving under orders it is as solid as an obstacle.
  static bool at_rest_in_order(const Agent& a) {
    return a.order != 0 && a.behaviour.settle != Settle::none && a.state == MoveState::arrived &&
           length_squared(a.velocity) < kStill * kStill;
  }

  // Some order was ever given: until then no agent has one, and the stages skip their scans.
  bool any_given() const { return next_order_ != 1; }
  // Some agent has queued orders, a route or an attack-move's memory.
  bool any_kept() const { return !orders_.empty(); }

  // For the commands. A new order's number.
  std::uint32_t new_order() { return next_order_++; }
  // Carrying out an order, or with orders queued.
  bool busy(const Agent& a) const;
  // Where its orders, queued ones included, end.
  Vec2 planned_end(const Agent& a) const;
  std::size_t queued(AgentId id) const;  // orders queued after its current one
  void enqueue(AgentId id, const Waypoint& w) { orders_[id].queue.push_back(w); }
  // Starts w at once: the agent's behaviour, and its route for a patrol.
  void start(Agent& a, const Waypoint& w);
  void forget(AgentId id) { orders_.erase(id); }
  // The agents at `indices` forget their orders.
  void forget(std::span<const Agent> agents, const std::vector<std::size_t>& indices);
  // The points agent `id` will go to after its current goal (snapshots' `waypoints`).
  std::vector<Vec2> upcoming(AgentId id) const;

  // The stages. Before the step's desires, on the grid just built: agents settle by contact,
  // attack-moves see and lose enemies, patrols turn at their route's points, and finished orders
  // give way to the next queued one (`hit_subject`: by agent index, touched its subject last
  // collision stage).
  void decide(const Scene& scene, std::span<const std::uint8_t> hit_subject);
  // After pathing: members of a group order moving to their own places (spread keep) are tagged
  // as one body into `tags` (by agent index, starting from the formations' `formed`; left empty
  // when none is), and movers settling by contact slow to stop short of those stopped.
  void pace(const Scene& scene, std::span<const std::uint32_t> formed, std::span<Desire> desires,
            std::vector<std::uint32_t>& tags) const;
  // Where integration will record each agent's position before it moves (by agent index), for
  // keep_off_stopped; empty while no order was ever given.
  std::span<Vec2> starts(std::size_t agents);
  // After integration, before collisions: a mover under an order never walks into an agent of an
  // order that has come to rest; it stops a hair short and slides along. `moved`: how far any
  // agent moved since the grid was built, widened by how far this moves one.
  void keep_off_stopped(const Scene& scene, double& moved);

  std::size_t memory_bytes() const { return starts_.capacity() * sizeof(Vec2); }

  // The orders' share of the world's state hash (world_impl.cpp), once they can change the
  // future: an order queued, a route, an enemy engaged, or an agent settling by contact.
  template <class Mix, class MixV, class MixD>
  void hash(std::span<const Agent> agents, Mix&& mix, MixV&& mixv, MixD&& mixd) const;
  // Checkpoints, format 9 (for Save and Load; world_checkpoint.cpp runs it in the format's order):
  // the next order number, each agent's order and settling, then the orders kept by id.
  template <CheckpointStream S>
  bool serialize(S& s, std::vector<Agent>& agents);

 private:
  // What decide() found for one agent under an order, applied once every agent was looked at.
  struct Decision {
    std::size_t i;
    enum Kind { settle, engage, disengage, next_leg, next_order } kind;
    Vec2 point;
    AgentId enemy = kNoAgent;
  };
  std::optional<Decision> decision_for(const Scene& scene,
                                       std::span<const std::uint8_t> hit_subject,
                                       std::size_t i) const;
  void carry_out(const Scene& scene, const Decision& d);
  // keep_off_stopped for the mover at grid slot k (`rest`: scratch for those at rest near it): how
  // far it ends from where integration put it (0 when it was not moved).
  double sweep(const Scene& scene, std::size_t k, double moved,
               std::vector<std::uint32_t>& rest) const;

  std::map<AgentId, Orders> orders_;
  std::uint32_t next_order_ = 1;
  std::vector<Vec2> starts_;  // positions before integration, once an order was given
};

template <class Mix, class MixV, class MixD>
void OrderService::hash(std::span<const Agent> agents, Mix&& mix, MixV&& mixv, MixD&& mixd) const {
  // An order to one agent is its behaviour alone: worlds without more hash as they always have.
  bool ordered = !orders_.empty();
  for (const Agent& a : agents) ordered = ordered || a.behaviour.settle != Settle::none;
  if (!ordered) return;
  mix(next_order_);
  for (const Agent& a : agents)
    mix((std::uint64_t{a.order} << 8) | std::uint64_t(a.behaviour.settle));
  for (const auto& [id, o] : orders_) {
    mix(id);
    for (const Waypoint& p : o.queue) {
      mixv(p.point);
      mix((std::uint64_t{p.order} << 16) | (std::uint64_t(p.kind) << 8) | std::uint64_t(p.settle));
      mixd(p.radius);
      for (Vec2 v : p.route) mixv(v);
    }
    for (Vec2 v : o.route) mixv(v);
    mix((std::uint64_t{o.leg} << 8) | std::uint64_t(o.route_settle));
    for (AgentId e : o.engaged) mix(e);
  }
}

}  // namespace herd::sim
