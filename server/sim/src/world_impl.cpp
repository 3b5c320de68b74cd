// The world's look-ups and state hash. Commands are applied in world_commands.cpp; the step's
// stages are in world_step.cpp.
#include "world_impl.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <string>

#include "steering.hpp"

namespace herd::sim {
namespace {

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

}  // namespace

WorldImpl::WorldImpl(const WorldDef& def) : def_(def), rng_(def.seed) {
  assert(validate(def).empty());
}

const Agent* WorldImpl::find(AgentId id) const {
  const std::size_t i = index_of(id);
  return i < agents_.size() ? &agents_[i] : nullptr;
}

bool WorldImpl::inside(Vec2 p) const {
  return finite(p) && p.x >= 0 && p.x <= def_.width && p.y >= 0 && p.y <= def_.height;
}

void WorldImpl::set_inspected(std::vector<AgentId> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > kMaxInspected) ids.resize(kMaxInspected);
  runner_.inspected = std::move(ids);
}

const AvoidanceTrace* WorldImpl::trace(AgentId id) const {
  auto it = runner_.traces.find(id);
  return it == runner_.traces.end() ? nullptr : &it->second;
}

std::uint64_t WorldImpl::state_hash() const {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  };
  auto mixd = [&mix](double d) { mix(std::bit_cast<std::uint64_t>(d)); };
  auto mixv = [&mixd](Vec2 v) {
    mixd(v.x);
    mixd(v.y);
  };
  mix(tick_);
  mix(next_id_);
  mix(obstacles_.next_id);
  mix(rng_.state());
  mix(agents_.size());
  for (const Agent& a : agents_) {
    mix(a.id);
    mix((std::uint64_t{a.group} << 32) | (std::uint64_t(a.movement) << 24) |
        (std::uint64_t(a.state) << 16) | (std::uint64_t(a.collided) << 8));
    const Behaviour& b = a.behaviour;
    mix((std::uint64_t(b.kind) << 16) | (std::uint64_t(b.response) << 8) | std::uint64_t(b.phase));
    mix(b.agent);
    mixv(b.point);
    mixv(b.home);
    mixd(b.radius);
    mixv(a.position);
    mixv(a.velocity);
    mixd(a.def.radius);
    mixd(a.def.mass);
    mixd(a.def.max_speed);
    mixd(a.def.max_force);
    mixd(a.def.slow_radius);
    mixd(a.def.arrive_tolerance);
    // Avoidance priority, layer and mask, when not the defaults: worlds without them hash as
    // they always have.
    if (a.def.priority != AgentDefLimits::kDefaultPriority || a.def.layer != 1 ||
        a.def.mask != ~std::uint32_t{0}) {
      mix(a.def.priority);
      mix((std::uint64_t{a.def.layer} << 32) | a.def.mask);
    }
    // Team and sight likewise, when not nobody's and the default sight.
    if (a.team != 0 || a.def.sight != AgentDef{}.sight)
      mix((std::uint64_t{a.team} << 32) | std::bit_cast<std::uint32_t>(a.def.sight));
    // Health and weapon likewise, when armed, hurt or not of the default hit points.
    if (a.def.weapon != Weapon{} || a.def.max_hp != AgentDef{}.max_hp || a.hp != a.def.max_hp ||
        a.reload != 0) {
      mix((std::uint64_t{std::bit_cast<std::uint32_t>(a.def.max_hp)} << 32) |
          std::bit_cast<std::uint32_t>(a.hp));
      mix((std::uint64_t{std::bit_cast<std::uint32_t>(a.def.weapon.damage)} << 32) |
          std::bit_cast<std::uint32_t>(a.def.weapon.range));
      mix((std::uint64_t{std::bit_cast<std::uint32_t>(a.def.weapon.cooldown)} << 32) | a.reload);
    }
  }
  mix(map_version_);
  if (map_) {
    mix((std::uint64_t(std::uint32_t(map_->width())) << 32) | std::uint32_t(map_->height()));
    mixd(map_->tile_size());
    std::uint64_t word = 0;
    int filled = 0;
    for (std::uint8_t c : map_->cells()) {
      word = (word << 8) | c;
      if (++filled == 8) {
        mix(word);
        word = 0;
        filled = 0;
      }
    }
    mix(word);
  }
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const PathState& p = path_of(i);
    mix((std::uint64_t(agents_[i].pathing) << 16) | (std::uint64_t(agents_[i].neighbours) << 8) |
        (std::uint64_t(p.pending) << 1) | p.unreachable);
    mix((std::uint64_t(std::uint32_t(p.walker.from.x)) << 32) | std::uint32_t(p.walker.from.y));
    mix((std::uint64_t(std::uint32_t(p.walker.to.x)) << 32) | std::uint32_t(p.walker.to.y));
    mix((std::uint64_t(std::uint32_t(p.walker.target.x)) << 32) | std::uint32_t(p.walker.target.y));
    mixd(p.walker.chain_start);
    mix(p.walker.chain_moves);
    for (TileCoord t : p.walker.history)
      mix((std::uint64_t(std::uint32_t(t.x)) << 32) | std::uint32_t(t.y));
    for (Vec2 w : p.waypoints) mixv(w);
    mix(p.next);
  }
  pathing_.hash_queue(mix);
  pathing_.hash_fields(mix);
  formations_.hash(mix);
  sources_.hash(mix, mixd);
  mix(contacts_.touching.size());
  for (std::uint64_t key : contacts_.touching) mix(key);
  mix(obstacles_.items.size());
  for (const Obstacle& o : obstacles_.items) {
    mix(o.id);
    mixv(o.position);
    mixd(o.radius);
  }
  const AvoidanceDef& av = def_.avoidance;
  mix((std::uint64_t(av.split_fix) << 24) | (std::uint64_t(av.mode) << 16) |
      (std::uint64_t(av.preferred_side) << 8) | std::uint64_t(av.crossing));
  mixd(av.personal_space);
  mixd(av.cardioid_exponent);
  mixd(av.push_epsilon);
  mixd(av.crossing_activation);
  mixd(av.lookahead);
  mix(av.max_neighbours);
  if (av.mode == AvoidanceMode::cfsm) {  // worlds in the other modes hash as they always have
    mixd(av.time_gap);
    mixd(av.repulsion_strength);
    mixd(av.repulsion_range);
    mixd(av.wall_repulsion_strength);
    mixd(av.wall_repulsion_range);
  }
  // Orders' state, once it can change the future (order_service.hpp): an order queued, a route,
  // an enemy engaged, or an agent settling by contact (whose order number it compares).
  orders_.hash(agents_, mix, mixv, mixd);
  // Wander's, flock's, follow_path's and follow's state: worlds without hash as they always have.
  steering_.hash(mix, mixv, mixd);
  // Walls, once a world has had one: worlds without hash as they always have.
  if (walls_.next_id() != 1) walls_.hash(mix);
  return h;
}

}  // namespace herd::sim
