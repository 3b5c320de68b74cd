// herd::sim formations: where the slots of a shape are (seed 003's demo: R circle, G blocks,
// P lines; and a wedge), before any agent is assigned to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vec2.hpp"

namespace herd::sim {

enum class Shape : std::uint8_t { circle, line, lines, block, wedge };
enum class SlotAssignment : std::uint8_t {
  optimal,     // minimum total travel (assignment.hpp), exact: at most World::kMaxOptimalAssignment agents
  keep_order,  // agents by id to slots in order (crossings allowed, as in the demo)
  shuffle,     // a seeded random permutation
  bisection,   // near-minimal travel at any size: recursive bisection (assign_bisection)
  automatic,   // the default: optimal up to World::kMaxOptimalAssignment agents, bisection beyond
};

struct FormationDef {
  Shape shape = Shape::circle;
  Vec2 centre;
  double spacing = 0;      // units between neighbouring slots; 0: default_spacing for the
                           // selection's largest radius
  double facing = 0;       // degrees, clockwise on screen from +x: the whole layout is turned by it
  double radius = 0;       // circle: 0 means just large enough for the spacing
  bool vertical = false;   // line, lines: along y instead of x (before facing)
  std::uint32_t count = 2; // lines: how many parallel lines; block: how many blocks side by side
  std::uint32_t columns = 0;  // block: columns per block; 0 means as square as possible
  SlotAssignment assignment = SlotAssignment::automatic;
  bool regroup = false;    // agents take their part's index as group: block b, line l (the demo's G, P)
  friend bool operator==(const FormationDef&, const FormationDef&) = default;
};

// The spacing a formation gets when none is given, for agents of at most `radius`: 2.5 radii for
// rows (circle, line), 4 for lines and wedge (a diameter's gap to cross through), 6 for blocks. In a block an agent bound for
// an inner place passes between agents already standing: the gap there is two diameters, so it
// passes with a radius to spare on each side while avoidance turns it (with one diameter,
// measured, agents circled outside blocks of 100 or more for ever).
double default_spacing(Shape shape, double radius);

// Which part (block of `block`, line of `lines`; 0 otherwise) each slot of formation_slots(def, n)
// belongs to.
std::vector<std::uint32_t> formation_parts(const FormationDef& def, std::size_t n);

// The n slot positions (n >= 1), ordered as the shape reads (around the circle from `facing`,
// left to right, row by row...). `spacing` must be > 0 here (the world fills in the default).
std::vector<Vec2> formation_slots(const FormationDef& def, std::size_t n);

}  // namespace herd::sim
