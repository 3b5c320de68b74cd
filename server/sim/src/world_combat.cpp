// The World's combat stage: health and weapons (agent.hpp: Weapon, Agent::hp), as an RTS keeps
// them in the engine. An armed agent hits the enemy it engages (attack's approach, an
// attack-move's engagement, a guard responding) once it is within its weapon's reach and the
// weapon is ready; a standing one (idle, arrived, holding) hits the nearest enemy within reach, as
// an idle unit returns fire. A hit takes the weapon's damage off the target's hit points; at 0 the
// target dies and is removed at the end of the stage. Serial, in id order: of two hits on an agent
// with hit points for one, the lower id's is the killing one and the other is not made (its
// weapon stays ready), so the same world always ends the same.
#include <algorithm>
#include <cmath>
#include <span>

#include "combat.hpp"
#include "visibility.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// The enemy an agent's behaviour engages, if it is engaging one now.
bool engaging(const Behaviour& b) {
  switch (b.kind) {
    case BehaviourKind::attack:
      return b.phase == Phase::approach;
    case BehaviourKind::attack_move:
      return b.phase == Phase::engage;
    case BehaviourKind::react:
      return b.phase == Phase::respond && b.response != BehaviourKind::flee &&
             b.response != BehaviourKind::evade;
    default:
      return false;
  }
}

// Standing: no order moving it (an idle unit, one arrived, one holding its ground).
bool standing(const Agent& a) {
  return a.state != MoveState::moving || a.behaviour.kind == BehaviourKind::hold;
}

}  // namespace

std::size_t WorldImpl::combat_target(std::size_t i) const {
  const Agent& a = agents_[i];
  const Behaviour& b = a.behaviour;
  if (b.agent != kNoAgent && engaging(b)) {
    const Agent* s = find(b.agent);
    if (!s || s->hp <= 0) return kNoTarget;
    // Of range 0, the body slam: touching it in this tick's collisions, or still in contact.
    const bool hit = (a.def.weapon.range == 0 && contacts_.hit_subject[i] != 0) || in_reach(a, *s);
    return hit ? static_cast<std::size_t>(s - agents_.data()) : kNoTarget;
  }
  if (!standing(a)) return kNoTarget;
  // The grid's positions are a step's movement behind at most: widened by that, and every
  // candidate measured where it is now.
  const double reach = a.def.radius + a.def.weapon.range + neighbours_.max_agent_radius +
                       2 * neighbours_.moved + kContactSlop * a.def.radius;
  std::size_t best = kNoTarget;
  double best_gap = HUGE_VAL;
  neighbours_.grid.query_points(a.position, reach, [&](std::uint32_t j, Vec2, std::uint32_t) {
    const Agent& o = agents_[j];
    if (j == i || o.hp <= 0 || !hostile(a, o) || !in_reach(a, o)) return;
    // A team's agent returns fire only at what its team sees.
    if (a.team != 0 && !runner_.team_sight.empty() && (runner_.team_sight[j] >> a.team & 1) == 0)
      return;
    const double gap = length(o.position - a.position) - o.def.radius;
    if (gap < best_gap || (gap == best_gap && o.id < agents_[best].id)) {
      best_gap = gap;
      best = j;
    }
  });
  return best;
}

void WorldImpl::stage_combat() {
  if (!any_armed_) return;
  const std::size_t before = events_.size();
  std::vector<std::size_t> dead;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    if (!a.def.weapon.armed() || a.hp <= 0) continue;
    if (a.reload > 0 && --a.reload > 0) continue;
    const std::size_t t = combat_target(i);
    if (t == kNoTarget) continue;
    Agent& target = agents_[t];
    target.hp -= a.def.weapon.damage;
    a.reload = cooldown_ticks(a.def.weapon.cooldown, def_.dt);
    const bool killed = target.hp <= 0;
    if (killed) {
      target.hp = 0;
      dead.push_back(t);
    }
    GameEvent e;
    e.kind = EventKind::hit;
    e.agent = target.id;
    e.team = target.team;
    e.by = a.id;
    e.by_team = a.team;
    e.damage = a.def.weapon.damage;
    e.hp = target.hp;
    e.at = target.position;
    e.tick = tick_ + 1;
    events_.push_back(e);
    if (killed) {
      e.kind = EventKind::death;
      events_.push_back(e);
    }
  }
  const auto hits = std::span(events_).subspan(before);
  if (hits.empty()) return;
  // Who may be told: the teams that see each agent hit (its own and its hitter's among them).
  const bool teams = std::any_of(hits.begin(), hits.end(),
                                 [](const GameEvent& e) { return e.team != 0 || e.by_team != 0; });
  std::vector<std::uint64_t> seen;
  if (teams) seen_by(seen);
  for (GameEvent& e : hits) {
    const Agent* a = find(e.agent);
    const std::uint64_t sight = a && teams ? seen[static_cast<std::size_t>(a - agents_.data())] : 0;
    e.seen = sight | (std::uint64_t{1} << e.team) | (std::uint64_t{1} << e.by_team);
    e.seen &= ~std::uint64_t{1};  // bit 0: nobody's team, which sees nothing
  }
  std::sort(dead.begin(), dead.end());
  dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
  if (!dead.empty()) remove_agents(dead);
}

}  // namespace herd::sim
