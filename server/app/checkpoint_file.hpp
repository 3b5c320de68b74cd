// Checkpoint files: written atomically (a temporary file in the same directory, flushed to disk,
// then renamed over the old one), so a crash at any moment leaves the last complete checkpoint.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "herd/sim/world.hpp"

namespace herd::app {

// Writes `world` to `path` and, beside it (`path`.scenario), the scenario it is a world of (as
// --scenario names it), each atomically. Empty on success, else what went wrong.
std::string write_checkpoint(const std::string& path, const sim::World& world,
                             const std::string& scenario);

// The scenario the checkpoint at `path` is a world of; none for a checkpoint written before
// servers said it.
std::optional<std::string> read_checkpoint_scenario(const std::string& path);

// The world in `path`, or a sentence naming the file and what is wrong with it.
std::variant<sim::World, std::string> read_checkpoint(const std::string& path);

}  // namespace herd::app
