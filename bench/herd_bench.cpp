// herd-bench — benchmarks that print figures as CSV: a header line, then one row per run.
// Figures only: nothing here asserts on time (timed assertions do not belong in tests).
//
//   herd-bench <subcommand> [options]      e.g.  herd-bench pathing --size 256 --queries 1000
#include <cstdio>
#include <map>

#include "bench.hpp"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  herd::bench::Runner (*add)(CLI::App& sub);
};

// One row per subcommand; `herd-bench <name> --help` prints that subcommand's options.
constexpr Subcommand kSubcommands[] = {
    {"pathing", "A* (8- and 4-neighbour) and flow fields on a random tile map",
     herd::bench::add_pathing},
    {"assign", "optimal formation slot assignment (Hungarian method)", herd::bench::add_assignment},
    {"sim", "one world step on the random and circle crowds", herd::bench::add_sim},
    {"budget",
     "the worst tick while set_tiles, a 2,000-agent formation or step 1000 runs (the tick budget)",
     herd::bench::add_tick_budget},
    {"formations",
     "every formation shape and demo move, 32 to 5,000 agents: completion time over the ideal",
     herd::bench::add_formations},
    {"snapshot", "snapshot bytes and encoding cost, JSON and binary, on the random crowd",
     herd::bench::add_snapshot},
    {"fd", "the fundamental diagram: speed against density in a pedestrian corridor, by Weidmann's",
     herd::bench::add_fd},
    {"players",
     "fog of war's cost: which teams see each agent and each team's snapshot, against the step",
     herd::bench::add_players},
    {"trajectories",
     "--trajectories' cost: tick time with and without recording, bytes per agent-frame",
     herd::bench::add_trajectories},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"herd-bench: benchmarks that print figures as CSV (a header, then one row per run).",
               "herd-bench"};
  app.require_subcommand(1);
  std::map<const CLI::App*, herd::bench::Runner> runners;
  for (const Subcommand& s : kSubcommands) {
    CLI::App* sub = app.add_subcommand(s.name, s.summary);
    runners[sub] = s.add(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the subcommand's help, when it was asked of one
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // says why on stderr
    return 2;
  }
  return runners.at(app.get_subcommands().front())();
}
