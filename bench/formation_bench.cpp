// herd-bench formations — the formation lab: every shape and demo move, at every size, from an
// ordered and from a symmetric start (and on request a dense random one), with default settings
// unless asked otherwise; how long each takes against the ideal, who is left out, and the worst
// overlap.
//
// Ideal time: the farthest agent's straight-line distance to its final slot at max speed. A run
// ends when the formation is complete (every member arrived at once) or at its cap, max(60 s,
// 10 x ideal) of world time. Starts:
//   ordered    a square grid 6 radii apart (as a block with today's default spacing), ids row
//              by row, beside the formation
//   symmetric  a ring around the formation's centre, agents evenly spaced on it
//   random     the world's own random spawn (spawn with a count: uniform over the world from its
//              seeded generator, overlaps and all) in a world of a given size, 800 x 600 unless
//              --world says otherwise, the shapes placed at its centre
// For the first two the world is sized to hold both, so the ratio does not depend on the world's
// size; the random start is dense on purpose (its world's size is the point).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "formation.hpp"
#include "geometry.hpp"
#include "herd/sim/metrics.hpp"
#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::bench {
namespace {

constexpr double kSpeed = sim::AgentDef{}.max_speed;

// What every run of one invocation shares besides its shape, start and size.
struct Setup {
  double radius = sim::AgentDef{}.radius;
  double spacing_radii = 0;      // the formation's spacing in radii; 0: the world's default
  std::uint32_t columns = 0;     // block: columns; 0: as square as possible
  double width = 0, height = 0;  // the random start's world; 0: 800 x 600
  bool trace = false;
};

struct Case {
  std::string shape;
  std::string start;
  long agents = 0;
  Setup setup;
};

struct Result {
  double seconds = -1;  // -1: not complete by the cap
  double ideal = 0;
  std::size_t left_out = 0;
  double max_overlap = 0;
  std::uint64_t collisions = 0;
};

// The shapes as the viewer's keys and herd-ctl send them (default spacing and assignment).
sim::FormationDef shape_of(const std::string& s) {
  sim::FormationDef d;
  if (s == "block") {
    d.shape = sim::Shape::block;
    d.count = 1;
  } else if (s == "line")
    d.shape = sim::Shape::line;
  else if (s == "circle" || s == "R")
    d.shape = sim::Shape::circle;
  else if (s == "wedge")
    d.shape = sim::Shape::wedge;
  else if (s == "lines") {
    d.shape = sim::Shape::lines;
    d.count = 3;
  } else if (s == "G") {
    d.shape = sim::Shape::block;
    d.count = 2;
    d.regroup = true;
  } else if (s == "P") {
    d.shape = sim::Shape::lines;
    d.count = 2;
    d.vertical = true;
    d.regroup = true;
  }
  return d;
}

// To stderr: the members arrived so far and the three farthest from their places (id, distance,
// speed), for seeing where a formation's time goes.
void trace_stragglers(const sim::World& w, const sim::FormationRecord& f, double t) {
  struct Far {
    double d;
    sim::AgentId id;
    double speed;
  };
  std::vector<Far> far;
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    const sim::Agent* a = w.find(f.agents[k]);
    if (!a || a->state == sim::MoveState::arrived) continue;
    far.push_back({sim::length(f.slots[k] - a->position), a->id, sim::length(a->velocity)});
  }
  std::sort(far.begin(), far.end(), [](const Far& x, const Far& y) { return x.d > y.d; });
  std::fprintf(stderr, "t=%6.2f arrived %u/%u", t, f.arrived, f.members);
  for (std::size_t k = 0; k < std::min<std::size_t>(3, far.size()); ++k)
    std::fprintf(stderr, "  #%u d=%.2f v=%.2f", far[k].id, far[k].d, far[k].speed);
  std::fprintf(stderr, "\n");
}

Result run(const Case& c) {
  const long n = c.agents;
  const double radius = c.setup.radius;
  const double gap = 6 * radius;
  const double start_side = gap * std::ceil(std::sqrt(static_cast<double>(n)));
  sim::FormationDef shape = shape_of(c.shape);
  shape.spacing = c.setup.spacing_radii * radius;  // 0: the world's default
  if (shape.shape == sim::Shape::block && c.setup.columns > 0) shape.columns = c.setup.columns;
  // The formation's size: its slots at the spacing asked for, else the world's default (the demo
  // moves stay within the start's own extent).
  double form = start_side;
  if (!c.shape.empty() && c.shape != "B" && c.shape != "T") {
    sim::FormationDef d = shape;
    if (d.spacing <= 0) d.spacing = sim::default_spacing(d.shape, radius);
    double half = 0;
    for (const sim::Vec2& p : sim::formation_slots(d, static_cast<std::size_t>(n)))
      half = std::max({half, std::abs(p.x), std::abs(p.y)});
    form = 2 * half + 2 * radius;
  }
  const double ring = std::max(gap * static_cast<double>(n) / (2 * sim::kPi), form * 0.75);
  const double margin = 8 * radius;
  sim::WorldDef def;
  sim::Vec2 centre;
  def.agent_defaults.radius = radius;
  if (c.start == "ordered") {
    def.width = start_side + form + 3 * margin;
    def.height = std::max(start_side, form) + 2 * margin;
    centre = {margin + start_side + margin + form / 2, def.height / 2};
  } else if (c.start == "random") {
    def.width = c.setup.width > 0 ? c.setup.width : 800;
    def.height = c.setup.height > 0 ? c.setup.height : 600;
    centre = {def.width / 2, def.height / 2};
  } else {
    def.width = def.height = std::max(2 * ring, form) + 2 * margin;
    centre = {def.width / 2, def.height / 2};
  }
  def.max_agents = static_cast<std::uint32_t>(std::max<long>(n, 1));
  sim::World w(def);
  if (c.start == "random") {
    const sim::CommandOutcome spawned = w.apply(sim::Spawn{static_cast<std::uint32_t>(n), 0, {}});
    if (!spawned.ok()) {
      std::fprintf(stderr, "%s %s %ld: spawn refused: %s\n", c.shape.c_str(), c.start.c_str(), n,
                   spawned.message.c_str());
      return {};
    }
  }
  std::vector<sim::SpawnAgent> spawns;
  const long cols = static_cast<long>(std::ceil(std::sqrt(static_cast<double>(n))));
  for (long k = 0; k < n && c.start != "random"; ++k) {
    sim::SpawnAgent s;
    if (c.start == "ordered") {
      s.position = {margin + gap * (0.5 + static_cast<double>(k % cols)),
                    def.height / 2 - start_side / 2 + gap * (0.5 + static_cast<double>(k / cols))};
    } else {
      const double a = 2 * sim::kPi * static_cast<double>(k) / static_cast<double>(n);
      s.position = centre + sim::from_angle(a, ring);
    }
    spawns.push_back(s);
  }
  if (!spawns.empty()) w.apply(sim::Spawn{0, 0, spawns});
  w.step();

  // The demo moves act around the crowd's own centre; the shapes are placed at `centre`.
  sim::Selection all;
  all.all = true;
  const auto form_cmd = [&] {
    sim::Form f;
    f.agents = all;
    f.def = shape;
    f.def.centre = centre;
    return sim::Command{f};
  };
  const auto demo = [&](sim::DemoMove move, std::uint32_t groups) {
    sim::Demo d;
    d.agents = all;
    d.move = move;
    d.groups = groups;
    return sim::Command{d};
  };
  sim::Command cmd;
  const std::string& s = c.shape;
  if (s == "B")
    cmd = demo(sim::DemoMove::swap_places, 0);
  else if (s == "T")
    cmd = demo(sim::DemoMove::opposite, 3);
  else
    cmd = form_cmd();
  const sim::CommandOutcome applied = w.apply(cmd);
  if (!applied.ok()) {
    std::fprintf(stderr, "%s %s %ld: refused: %s\n", c.shape.c_str(), c.start.c_str(), n,
                 applied.message.c_str());
    return {};
  }

  sim::ScenarioMetrics metrics(w);
  Result r;
  const std::vector<sim::Vec2> from = [&] {
    std::vector<sim::Vec2> p;
    for (const sim::Agent& a : w.agents()) p.push_back(a.position);
    return p;
  }();
  const auto ideal_now = [&] {
    double far = 0;
    const auto& f = formation_records(w);
    if (f.empty()) return 0.0;
    for (std::size_t k = 0; k < f.back().agents.size(); ++k) {
      const std::size_t i = f.back().agents[k] - 1;  // ids from 1, spawned in order
      far = std::max(far, sim::length(f.back().slots[k] - from[i]));
    }
    return far / kSpeed;
  };
  const double dt = def.dt;
  const long trace_every = std::max(1L, std::lround(0.5 / dt));  // ticks in half a second
  long ticks = 0;
  for (;; ++ticks) {
    w.step();
    metrics.observe(w);
    if (r.ideal == 0 && w.assignments_pending() == 0) r.ideal = ideal_now();  // the final places
    const auto& f = formation_records(w);
    const bool done = w.assignments_pending() == 0 && !f.empty() && f.back().complete;
    const double t = static_cast<double>(ticks + 1) * dt;
    if (c.setup.trace && (ticks + 1) % trace_every == 0 && !f.empty())
      trace_stragglers(w, f.back(), t);
    if (done) {
      r.seconds = t;
      break;
    }
    if (t > std::max(60.0, 10 * r.ideal)) {
      r.left_out = f.empty() ? static_cast<std::size_t>(n) : f.back().members - f.back().arrived;
      break;
    }
  }
  const sim::ScenarioReport rep = metrics.report();
  r.max_overlap = rep.max_overlap;
  r.collisions = rep.collisions;
  return r;
}

struct Options {
  std::vector<long> sizes = {32, 100, 500, 1000, 5000};
  std::vector<std::string> shapes = {"block", "line", "circle", "wedge", "lines",
                                     "R",     "B",    "T",      "G",     "P"};
  std::vector<std::string> starts = {"ordered", "symmetric"};
  Setup setup;
};

int run_formations(const Options& o) {
  const auto& sizes = o.sizes;
  const auto& shapes = o.shapes;
  const auto& starts = o.starts;
  std::printf("shape,start,agents,seconds,ideal_s,ratio,left_out,max_overlap,collisions\n");
  std::fflush(stdout);
  for (const std::string& shape : shapes)
    for (const std::string& start : starts)
      for (long n : sizes) {
        const Result r = run({shape, start, n, o.setup});
        std::printf("%s,%s,%ld,%.2f,%.2f,%.2f,%zu,%.2f,%llu\n", shape.c_str(), start.c_str(), n,
                    r.seconds, r.ideal, r.seconds > 0 && r.ideal > 0 ? r.seconds / r.ideal : -1.0,
                    r.left_out, r.max_overlap, static_cast<unsigned long long>(r.collisions));
        std::fflush(stdout);
      }
  return 0;
}

}  // namespace

Runner add_formations(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option_function<std::vector<long>>(
         "--agents", [o](const std::vector<long>& n) { o->sizes = n; },
         "agents, one size or several (500,1000) (default: 32, 100, 500, 1000 and 5000)")
      ->delimiter(',')
      ->check(CLI::Range(1, 20000));
  sub.add_option_function<std::string>(
         "--shape", [o](const std::string& v) { o->shapes = {v}; },
         "block, line, circle, wedge, lines, or a demo move: R, B, T, G, P (default all)")
      ->check(CLI::IsMember(std::vector<std::string>(o->shapes)));
  sub.add_option_function<std::string>(
         "--start",
         [o](const std::string& v) {
           if (v != "all") o->starts = {v};
         },
         "ordered, symmetric, random, or all: ordered and symmetric (the default)")
      ->check(CLI::IsMember({"ordered", "symmetric", "random", "all"}));
  sub.add_option("--radius", o->setup.radius, "the agents' radius (default 8)")
      ->check(CLI::Range(0.5, 50.0));
  sub.add_option("--spacing", o->setup.spacing_radii,
                 "the formation's spacing, in radii (default: the world's own for the shape)")
      ->check(CLI::Range(2.0, 20.0));
  sub.add_option("--columns", o->setup.columns, "block: columns (default: as square as possible)")
      ->check(CLI::Range(1, 1000));
  sub.add_option_function<std::string>(
      "--world",
      [o](const std::string& v) {
        double w = 0, h = 0;
        char x = 0, rest = 0;
        if (std::sscanf(v.c_str(), "%lf%c%lf%c", &w, &x, &h, &rest) != 3 || x != 'x' || !(w > 0) ||
            !(h > 0))
          throw CLI::ValidationError("--world", "WIDTHxHEIGHT, both positive: " + v);
        o->setup.width = w;
        o->setup.height = h;
      },
      "the random start's world, WIDTHxHEIGHT (default 800x600)");
  sub.add_flag("--trace", o->setup.trace,
               "every half second of world time, print to stderr how many members have arrived and "
               "the farthest three");
  sub.footer(
      "Prints a CSV header and one row per run: world seconds to complete, the ideal, their "
      "ratio,\n"
      "agents not in place at the end, the largest overlap (units), collision events.");
  return [o] { return run_formations(*o); };
}

}  // namespace herd::bench
