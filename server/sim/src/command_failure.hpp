// A refused command's outcome, for the world and its parts (defined in world_commands.cpp).
#pragma once

#include <string>

#include "herd/sim/commands.hpp"

namespace herd::sim {

// The outcome of a command refused with `error`, and the sentence for people.
CommandOutcome failure(CommandError error, std::string message);

}  // namespace herd::sim
