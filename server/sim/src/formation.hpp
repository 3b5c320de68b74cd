// herd::sim formations: where the slots of a shape are (seed 003's demo: R circle, G blocks,
// P lines; and a wedge), before any agent is assigned to them.
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

}  // namespace herd::sim
