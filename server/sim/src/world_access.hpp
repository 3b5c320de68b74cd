// herd::sim::WorldAccess — the sim's own records behind a World, for the sim's code, its tests and
// its benchmarks (never installed): the formations' slots and pacing, each agent's whole path
// state. Users of the library read the views World gives (FormationView, PathView).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "formation_service.hpp"
#include "herd/sim/world.hpp"
#include "path_service.hpp"

namespace herd::sim {

class WorldImpl;

struct WorldAccess {
  static const WorldImpl& impl(const World& world) { return *world.impl_; }
};

// The formations still tracked, oldest first (World::formations's records).
std::span<const FormationRecord> formation_records(const World& world);
// Pathing state per agent, parallel to agents() while a tile map is loaded; empty without a map.
std::span<const PathState> path_states(const World& world);
// The world's checkpoint in format `version` (from 2), as a server of that format wrote it.
std::string checkpoint_in_format(const World& world, std::uint32_t version);

}  // namespace herd::sim
