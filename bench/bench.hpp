// herd-bench subcommands. Each takes the arguments after its name and returns the process's exit
// status (0, or 2 for bad arguments after printing why). Add one by declaring it here and adding
// a row to kSubcommands in herd_bench.cpp.
#pragma once

#include <charconv>
#include <span>
#include <string_view>
#include <system_error>

namespace herd::bench {

using Args = std::span<const std::string_view>;

// The whole of text as a number of type T (no sign for unsigned types, no trailing characters).
template <class T>
bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

// A* (8- and 4-neighbour) and flow fields on a seeded random tile map (pathing_bench.cpp).
int run_pathing(Args args);

// Optimal slot assignment (Hungarian method) for formations (assignment_bench.cpp).
int run_assignment(Args args);

// One world step on the random and circle crowds (sim_bench.cpp).
int run_sim(Args args);

// Snapshot sizes and encoding costs, JSON and binary, on the random crowd (snapshot_bench.cpp).
int run_snapshot(Args args);

// The worst tick while a heavy command runs: set_tiles, a large formation, step N (tick_budget_bench.cpp).
int run_tick_budget(Args args);

// The formation lab: every shape and demo move, sizes 32 to 5,000, ordered and symmetric starts,
// completion time against the ideal (formation_bench.cpp).
int run_formations(Args args);

}  // namespace herd::bench
