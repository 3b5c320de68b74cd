// A refused command's outcome, for the world and its parts (defined in world_commands.cpp).
#pragma once

#include <string>

#include "herd/sim/commands.hpp"

namespace herd::sim {

// The outcome of a command refused with `error`, and the sentence for people.
CommandOutcome failure(CommandError error, std::string message);

// Numbers and points as people write them, to hundredths and no longer than needed: "(464, -68)",
// "(-1, 0.5)", not "(464.000000, -68.000000)".
std::string number_text(double v);
std::string point_text(Vec2 p);

}  // namespace herd::sim
