// herd-bench — benchmarks that print figures as CSV: a header line, then one row per run.
// Figures only: nothing here asserts on time (timed assertions do not belong in tests).
//
//   herd-bench <subcommand> [options]      e.g.  herd-bench pathing --size 256 --queries 1000
#include <cstdio>
#include <string_view>
#include <vector>

#include "bench.hpp"

namespace {

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  int (*run)(herd::bench::Args args);
};

// One row per subcommand; `herd-bench <name> --help` prints that subcommand's options.
constexpr Subcommand kSubcommands[] = {
    {"pathing", "A* (8- and 4-neighbour) and flow fields on a random tile map", herd::bench::run_pathing},
    {"assign", "optimal formation slot assignment (Hungarian method)", herd::bench::run_assignment},
    {"sim", "one world step on the random and circle crowds", herd::bench::run_sim},
    {"budget", "the worst tick while set_tiles, a 2,000-agent formation or step 1000 runs (the tick budget)", herd::bench::run_tick_budget},
    {"formations", "every formation shape and demo move, 32 to 5,000 agents: completion time over the ideal", herd::bench::run_formations},
    {"snapshot", "snapshot bytes and encoding cost, JSON and binary, on the random crowd", herd::bench::run_snapshot},
};

int usage(std::FILE* out) {
  std::fprintf(out, "usage: herd-bench <subcommand> [options]\n\nsubcommands:\n");
  for (const Subcommand& s : kSubcommands)
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(s.name.size()), s.name.data(),
                 static_cast<int>(s.summary.size()), s.summary.data());
  std::fprintf(out, "\n'herd-bench <subcommand> --help' lists a subcommand's options.\n");
  return out == stdout ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(stderr);
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") return usage(stdout);
  const std::vector<std::string_view> args(argv + 2, argv + argc);
  for (const Subcommand& s : kSubcommands) {
    if (s.name == name) return s.run(args);
  }
  std::fprintf(stderr, "herd-bench: unknown subcommand '%s'\n\n", argv[1]);
  return usage(stderr);
}
