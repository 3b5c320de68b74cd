// herd-bench subcommands. Each adds its options to its CLI11 subcommand and returns what runs
// once they are parsed: the process's exit status (0, or 2 for arguments CLI11 could not check
// alone, after printing why). Add one by declaring it here and adding a row to kSubcommands in
// herd_bench.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "herd/sim/types.hpp"

namespace herd::bench {

using Runner = std::function<int()>;

// The avoidance modes by their wire names (set_avoidance's mode), for the subcommands' --mode.
inline const std::vector<std::string> kModeNames = {"none", "circle", "cardioid", "orca", "cfsm"};
inline sim::AvoidanceMode mode_named(std::string_view name) {
  for (auto m : {sim::AvoidanceMode::none, sim::AvoidanceMode::circle, sim::AvoidanceMode::orca,
                 sim::AvoidanceMode::cfsm})
    if (sim::to_string(m) == name) return m;
  return sim::AvoidanceMode::cardioid;
}

// A* (8- and 4-neighbour) and flow fields on a seeded random tile map (pathing_bench.cpp).
Runner add_pathing(CLI::App& sub);

// Optimal slot assignment (Hungarian method) for formations (assignment_bench.cpp).
Runner add_assignment(CLI::App& sub);

// One world step on the random and circle crowds (sim_bench.cpp).
Runner add_sim(CLI::App& sub);

// Snapshot sizes and encoding costs, JSON and binary, on the random crowd (snapshot_bench.cpp).
Runner add_snapshot(CLI::App& sub);

// The worst tick while a heavy command runs: set_tiles, a large formation, step N
// (tick_budget_bench.cpp).
Runner add_tick_budget(CLI::App& sub);

// The formation lab: every shape and demo move, sizes 32 to 5,000, ordered and symmetric starts,
// completion time against the ideal (formation_bench.cpp).
Runner add_formations(CLI::App& sub);

// The fundamental diagram: a pedestrian corridor filled at densities 0.5-5 per m², speed against
// density beside Weidmann's curve, as CSV and SVG (fd_bench.cpp).
Runner add_fd(CLI::App& sub);

// What fog of war costs: the fog and each team's snapshot against the step, bytes per player
// (players_bench.cpp).
Runner add_players(CLI::App& sub);

// What --trajectories costs: tick time with and without the recorder, bytes per agent-frame
// (trajectory_bench.cpp).
Runner add_trajectories(CLI::App& sub);

}  // namespace herd::bench
