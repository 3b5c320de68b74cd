// herd::sim formations' geometry: where the slots of a shape are (the formation demo: R circle, G
// blocks, P lines; and a wedge), before any agent is assigned to them, and the ways a crossing
// move's members take round its centre.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "herd/sim/types.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// The spacing a formation gets when none is given, for agents of at most `radius`: 3 radii for
// rows (circle, line: a radius's gap, so the last agent steps in between two standing ones; with
// half a radius, measured, 32 agents from a grid into a circle took 1.6 times the ideal, the last
// ones pushed back out by the ring), 4 for lines and wedge (a diameter's gap to cross through), 6
// for blocks. In a block an agent bound for an inner place passes between agents already standing:
// the gap there is two diameters, so it passes with a radius to spare on each side while avoidance
// turns it (with one diameter, measured, agents circled outside blocks of 100 or more for ever).
double default_spacing(Shape shape, double radius);

// Which part (block of `block`, line of `lines`; 0 otherwise) each slot of formation_slots(def, n)
// belongs to.
std::vector<std::uint32_t> formation_parts(const FormationDef& def, std::size_t n);

// The n slot positions (n >= 1), ordered as the shape reads (around the circle from `facing`,
// left to right, row by row...). `spacing` must be > 0 here (the world fills in the default).
std::vector<Vec2> formation_slots(const FormationDef& def, std::size_t n);

// The centre of the points (the origin when there are none).
Vec2 centroid(const std::vector<Vec2>& points);

// Crossing moves send every agent through the selection's centre: walked straight, all paths
// meet there at once (the antipodal circle's deadlock, whatever the avoidance). Instead each member
// keeps outside a disc around the centre, its radius a fixed fraction of the member's own distance
// from it, and passes it on the preferred side. Every member's way is then the same curve scaled
// and turned, and walked in proportion (pace) the crowd stays one shape that turns and
// shrinks: no two ways meet. At a fraction of one half the way is 1.13 times the straight line
// (1.57 at one: the crowd turns without shrinking).
struct Round {
  Vec2 centre;
  double radius;  // the disc kept out of
  double sense;   // +1: pass it on the right (the disc on the walker's left), -1 on the left
};

// The unit direction of the shortest way from p to t round the disc on its side: straight when
// that clears it, else along the tangent to it, or along it from on (or in) it.
Vec2 way_round(Round r, Vec2 p, Vec2 t);
// The length of that way: two tangents and the arc between them.
double way_round_length(Round r, Vec2 p, Vec2 t);
// How much a crossing crowd may shrink on its way round: to a third of a radius's gap between
// neighbours that stood at the median nearest-neighbour distance, and never below one half.
double orbit_scale_for(const std::vector<Vec2>& points, double radius, double width, double height);

}  // namespace herd::sim
