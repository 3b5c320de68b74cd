// A player's authority over the world (World::authorize): which commands are a player's, and the
// command made its team's. Applied by apply() like any other, so a recording that keeps the
// authorized command replays exactly what the player did.
#include <string>
#include <type_traits>

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

}  // namespace

CommandOutcome WorldImpl::authorize(Command& command, std::uint8_t team) const {
  if (team == 0 || team > AgentDefLimits::kMaxTeam)
    return failure(CommandError::forbidden, "a player's team must be in [1, 63]");
  // An agent named by id: the team's own, another team's it sees (not_yours), or, unseen, as if
  // it did not exist. Seeing is computed once per command, for all its ids, and for an id that
  // names no agent as for one that names an unseen agent: the answer and its time are the same.
  std::vector<std::uint64_t> seen;
  const auto look = [&] {
    if (seen.empty()) compute_seen_by(agents_, seen);
  };
  const auto visible = [&](const Agent* a) {
    if (a && a->team == team) return true;
    look();
    return a && (seen[static_cast<std::size_t>(a - agents_.data())] >> team & 1) != 0;
  };
  if (auto* spawn = std::get_if<Spawn>(&command)) {
    if (spawn->team && *spawn->team != team)
      return failure(CommandError::not_yours,
                     "a player spawns agents of its own team (" + std::to_string(team) + ") only");
    spawn->team = team;
    for (SpawnAgent& a : spawn->agents) a.team = team;
    return {};
  }
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

}  // namespace herd::sim
