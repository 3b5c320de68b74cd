// Checkpoint files: written atomically (a temporary file in the same directory, flushed to disk,
// then renamed over the old one), so a crash at any moment leaves the last complete checkpoint.
#pragma once

#include <string>
#include <variant>

#include "herd/sim/world.hpp"

namespace herd::app {

// Empty on success, else what went wrong.
std::string write_checkpoint(const std::string& path, const sim::World& world);

// The world in `path`, or a sentence naming the file and what is wrong with it.
std::variant<sim::World, std::string> read_checkpoint(const std::string& path);

}  // namespace herd::app
