// A player's authority over the world (World::authorize): which commands are a player's, and the
// command made its team's. Applied by apply() like any other, so a recording that keeps the
// authorized command replays exactly what the player did.
#include <algorithm>
#include <string>
#include <string_view>
#include <type_traits>

#include "rng.hpp"
#include "visibility.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// The agents a command acts on, when it is one a player may give; nullptr for the world's
// commands, which are the operator's only.
Selection* selection_of(Command& command) {
  return std::visit(
      [](auto& c) -> Selection* {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, SetTarget> || std::is_same_v<T, Stop> ||
                      std::is_same_v<T, SetBehaviour> || std::is_same_v<T, SetMovement> ||
                      std::is_same_v<T, SetPathing> || std::is_same_v<T, SetGroup> ||
                      std::is_same_v<T, Form> || std::is_same_v<T, Demo> ||
                      std::is_same_v<T, Remove>)
          return &c.agents;
        else
          return nullptr;
      },
      command);
}

std::string does_not_exist(AgentId id) { return "agent " + std::to_string(id) + " does not exist"; }

// The first health or weapon setting given, by its wire name; empty when none.
std::string_view combat_chosen(const CombatSettings& c) {
  if (c.max_hp) return "max_hp";
  if (c.hp) return "hp";
  if (c.damage) return "damage";
  if (c.range) return "range";
  if (c.cooldown) return "cooldown";
  return {};
}

// The first of a spawn's unit stats that a player set, by its wire name; empty when none.
std::string_view stat_chosen(const Spawn& spawn) {
  if (spawn.sight) return "sight";
  if (std::string_view c = combat_chosen(spawn.combat); !c.empty()) return c;
  if (spawn.priority) return "priority";
  if (spawn.layer) return "layer";
  if (spawn.mask) return "mask";
  for (const SpawnAgent& a : spawn.agents) {
    if (a.sight) return "sight";
    if (a.max_speed) return "max_speed";
    if (a.max_force) return "max_force";
    if (a.radius) return "radius";
    if (a.mass) return "mass";
    if (a.priority) return "priority";
    if (a.layer) return "layer";
    if (a.mask) return "mask";
    if (a.movement != Movement::inertial) return "movement";
    if (std::string_view c = combat_chosen(a.combat); !c.empty()) return c;
  }
  return {};
}

bool in_area(const Rect& r, Vec2 p) {
  return p.x >= r.min.x && p.x <= r.max.x && p.y >= r.min.y && p.y <= r.max.y;
}

}  // namespace

CommandOutcome WorldImpl::authorize(Command& command, std::uint8_t team,
                                    const TeamRules& rules) const {
  if (team == 0 || team > AgentDefLimits::kMaxTeam)
    return failure(CommandError::forbidden, "a player's team must be in [1, 63]");
  // An agent named by id: the team's own, another team's it sees (not_yours), or, unseen, as if
  // it did not exist. Seeing is computed once per command, for all its ids, and for an id that
  // names no agent as for one that names an unseen agent: the answer and its time are the same.
  std::vector<std::uint64_t> seen;
  const auto look = [&] {
    if (seen.empty()) seen_by(seen);
  };
  const auto visible = [&](const Agent* a) {
    if (a && a->team == team) return true;
    look();
    return a && (seen[static_cast<std::size_t>(a - agents_.data())] >> team & 1) != 0;
  };
  if (auto* spawn = std::get_if<Spawn>(&command)) return authorize_spawn(*spawn, team, rules);
  Selection* sel = selection_of(command);
  if (!sel)
    return failure(CommandError::forbidden,
                   "only the operator may change the world itself; a player commands its agents");
  if (sel->team && *sel->team != team)
    return failure(CommandError::not_yours,
                   "team " + std::to_string(*sel->team) + "'s agents are not yours");
  if (sel->all || sel->group || sel->rect || sel->team) {
    sel->all = false;
    sel->team = team;
  } else {
    for (AgentId id : sel->ids) {
      const Agent* a = find(id);
      if (!visible(a)) return failure(CommandError::unknown_agent, does_not_exist(id));
      if (a->team != team)
        return failure(CommandError::not_yours, "agent " + std::to_string(id) + " is team " +
                                                    std::to_string(a->team) + "'s, not yours");
    }
  }
  // The agent a behaviour acts on (pursued, fled, attacked, followed...): one the team sees.
  if (const auto* b = std::get_if<SetBehaviour>(&command); b && b->behaviour.agent != kNoAgent) {
    const Agent* a = find(b->behaviour.agent);
    if (!visible(a))
      return failure(CommandError::unknown_agent, does_not_exist(b->behaviour.agent));
  }
  return {};
}

// A player's spawn: its team's, within the team's rules (World::authorize). The answers name the
// team's own figures only, never the world's count of agents.
CommandOutcome WorldImpl::authorize_spawn(Spawn& spawn, std::uint8_t team,
                                          const TeamRules& rules) const {
  if (spawn.team && *spawn.team != team)
    return failure(CommandError::not_yours,
                   "a player spawns agents of its own team (" + std::to_string(team) + ") only");
  if (const std::string_view stat = stat_chosen(spawn); !stat.empty())
    return failure(CommandError::forbidden, "a player's units take the world's unit rules: " +
                                                std::string(stat) + " is not a player's to choose");
  const std::size_t n = spawn.agents.empty() ? spawn.count : spawn.agents.size();
  const auto own = static_cast<std::size_t>(std::count_if(
      agents_.begin(), agents_.end(), [team](const Agent& a) { return a.team == team; }));
  if (rules.max_agents != 0 && own + n > rules.max_agents)
    return failure(
        CommandError::limit_exceeded,
        "your team may hold " + std::to_string(rules.max_agents) + " agents; it holds " +
            std::to_string(own) + ", room for " +
            std::to_string(rules.max_agents - std::min<std::size_t>(own, rules.max_agents)) +
            " more");
  if (agents_.size() + n > def_.max_agents)
    return failure(CommandError::limit_exceeded,
                   "the world has no room for " + std::to_string(n) + " more agents");
  if (spawn.agents.empty()) {
    // A count spawn lands in the team's spawn area, at places drawn from the world's state (its
    // seed, tick and next id): the same world places them alike, and the command made names them.
    if (!rules.spawn_area)
      return failure(CommandError::forbidden,
                     "your team has no spawn area: name each agent's place, within your agents' "
                     "sight");
    Rng rng(def_.seed ^ (tick_ * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{next_id_} << 32));
    const Rect& area = *rules.spawn_area;
    for (std::uint32_t k = 0; k < spawn.count; ++k) {
      SpawnAgent a;
      a.position = {rng.uniform(area.min.x, area.max.x), rng.uniform(area.min.y, area.max.y)};
      a.group = spawn.group;
      spawn.agents.push_back(a);
    }
    spawn.count = 0;
  } else {
    for (const SpawnAgent& a : spawn.agents) {
      const bool allowed =
          rules.spawn_area
              ? in_area(*rules.spawn_area, a.position)
              : std::any_of(agents_.begin(), agents_.end(), [&](const Agent& own_agent) {
                  return own_agent.team == team &&
                         length_squared(own_agent.position - a.position) <=
                             double{own_agent.def.sight} * own_agent.def.sight;
                });
      if (!allowed)
        return failure(CommandError::forbidden,
                       rules.spawn_area ? "a player spawns inside its team's spawn area only"
                                        : "a player spawns within its agents' sight only");
    }
  }
  spawn.team = team;
  for (SpawnAgent& a : spawn.agents) a.team = team;
  return {};
}

}  // namespace herd::sim
