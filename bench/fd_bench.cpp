// herd-bench fd — the fundamental diagram (speed against density) of herd's crowd at pedestrian
// scale, beside Weidmann's curve for people walking one way:
//   v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4)))   m/s, rho in people per square metre.
// The corridor: 100 m long and 4 m wide (the world's top and bottom edges are its walls), filled
// over its first 60 m at the density asked (a square lattice of spacing 1/sqrt(rho), each agent
// shifted by up to a tenth of it from the world's generator), everyone walking to the far end at
// its own height. Agents: radius 0.2 m, preferred speed 1.34 m/s, reaching it in half a second.
// Measured as PedPy's classic method does, in a 4 m x 4 m area across the corridor 28-32 m from its
// start, every tenth of a second from 5 s to 15 s: density = agents inside / 16 m², speed = their
// mean speed. Before 5 s the crowd is setting off; after 15 s the front's thinning (it walks into
// empty corridor) or the back's end could reach the area. One row per density and avoidance mode:
// the mean density and speed measured, and Weidmann's speed at that density. `--svg FILE` draws
// the points over the curve.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "fd_corridor.hpp"

namespace herd::bench {
namespace {

using fd::Point;
using fd::weidmann;

// The diagram as SVG: axes (density 0-6 per m², speed 0-1.6 m/s), Weidmann's curve, each mode's
// points with a bar of one standard deviation of the speed samples.
std::string svg(const std::vector<Point>& points) {
  const double w = 640, h = 420, left = 60, right = 20, top = 30, bottom = 50;
  const double pw = w - left - right, ph = h - top - bottom;
  auto X = [&](double rho) { return left + rho / 6.0 * pw; };
  auto Y = [&](double v) { return top + ph - v / 1.6 * ph; };
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << ' ' << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << left << "\" y=\"18\" font-size=\"14\">herd's crowd in a 4 m corridor "
    << "against Weidmann's fundamental diagram</text>\n";
  for (int i = 0; i <= 6; ++i)
    s << "<line x1=\"" << X(i) << "\" y1=\"" << top << "\" x2=\"" << X(i) << "\" y2=\"" << top + ph
      << "\" stroke=\"#ddd\"/><text x=\"" << X(i) << "\" y=\"" << top + ph + 16
      << "\" text-anchor=\"middle\">" << i << "</text>\n";
  for (int i = 0; i <= 8; ++i) {
    const double v = 0.2 * i;
    s << "<line x1=\"" << left << "\" y1=\"" << Y(v) << "\" x2=\"" << left + pw << "\" y2=\""
      << Y(v) << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << Y(v) + 4
      << "\" text-anchor=\"end\">" << v << "</text>\n";
  }
  s << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 12
    << "\" text-anchor=\"middle\">density (agents per m²)</text>\n"
    << "<text transform=\"translate(16 " << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">speed (m/s)</text>\n";
  s << "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" points=\"";
  for (double rho = 0.25; rho <= 5.4; rho += 0.05) s << X(rho) << ',' << Y(weidmann(rho)) << ' ';
  s << "\"/>\n";
  const std::map<std::string, std::string> colours{{"cardioid", "#d62728"},
                                                   {"circle", "#1f77b4"},
                                                   {"orca", "#2ca02c"},
                                                   {"cfsm", "#ff7f0e"},
                                                   {"none", "#9467bd"}};
  for (const Point& p : points) {
    const std::string colour = colours.count(p.mode) ? colours.at(p.mode) : "#000";
    s << "<line x1=\"" << X(p.density) << "\" y1=\"" << Y(p.speed - p.speed_sd) << "\" x2=\""
      << X(p.density) << "\" y2=\"" << Y(p.speed + p.speed_sd) << "\" stroke=\"" << colour
      << "\"/><circle cx=\"" << X(p.density) << "\" cy=\"" << Y(p.speed) << "\" r=\"4\" fill=\""
      << colour << "\"/>\n";
  }
  double ly = top + 12;
  s << "<line x1=\"" << left + pw - 170 << "\" y1=\"" << ly << "\" x2=\"" << left + pw - 150
    << "\" y2=\"" << ly << "\" stroke=\"#333\" stroke-width=\"2\"/><text x=\"" << left + pw - 144
    << "\" y=\"" << ly + 4 << "\">Weidmann (1993)</text>\n";
  std::vector<std::string> modes;
  for (const Point& p : points)
    if (std::find(modes.begin(), modes.end(), p.mode) == modes.end()) modes.push_back(p.mode);
  for (const std::string& m : modes) {
    ly += 18;
    s << "<circle cx=\"" << left + pw - 160 << "\" cy=\"" << ly << "\" r=\"4\" fill=\""
      << (colours.count(m) ? colours.at(m) : "#000") << "\"/><text x=\"" << left + pw - 144
      << "\" y=\"" << ly + 4 << "\">herd, avoidance " << m << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

Runner add_fd(CLI::App& sub) {
  struct Options {
    std::vector<double> densities{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5};
    std::vector<std::string> modes{"cardioid", "circle", "orca", "cfsm"};
    std::string svg_path;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("--densities", o->densities, "agents per m² to fill the corridor at")
      ->check(CLI::Range(0.05, 6.0));
  sub.add_option("--modes", o->modes, "avoidance modes, as set_avoidance's mode")
      ->check(CLI::IsMember(kModeNames));
  sub.add_option("--svg", o->svg_path, "write the diagram here as SVG");
  return [o] {
    std::printf("mode,asked_density,agents,density,speed,speed_sd,weidmann_speed\n");
    std::vector<Point> points;
    for (const std::string& m : o->modes) {
      const sim::AvoidanceMode mode = mode_named(m);
      for (double rho : o->densities) {
        const Point p = fd::run(rho, mode, m);
        std::printf("%s,%.2f,%zu,%.3f,%.3f,%.3f,%.3f\n", m.c_str(), p.asked, p.agents, p.density,
                    p.speed, p.speed_sd, weidmann(p.density));
        std::fflush(stdout);
        points.push_back(p);
      }
    }
    if (!o->svg_path.empty()) {
      std::ofstream out(o->svg_path);
      out << svg(points);
      if (!out) {
        std::fprintf(stderr, "herd-bench fd: cannot write %s\n", o->svg_path.c_str());
        return 1;
      }
    }
    return 0;
  };
}

}  // namespace herd::bench
