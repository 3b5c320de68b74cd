// herd-bench subcommands. Each takes the arguments after its name and returns the process's exit
// status (0, or 2 for bad arguments after printing why). Add one by declaring it here and adding
// a row to kSubcommands in herd_bench.cpp.
#pragma once

#include <span>
#include <string_view>

namespace herd::bench {

using Args = std::span<const std::string_view>;

// A* (8- and 4-neighbour) and flow fields on a seeded random tile map (pathing_bench.cpp).
int run_pathing(Args args);

// Optimal slot assignment (Hungarian method) for formations (assignment_bench.cpp).
int run_assignment(Args args);

// One world step on the random and circle crowds of issue 10 (sim_bench.cpp).
int run_sim(Args args);

// Snapshot sizes and encoding costs, JSON and binary, on the random crowd (snapshot_bench.cpp).
int run_snapshot(Args args);

}  // namespace herd::bench
