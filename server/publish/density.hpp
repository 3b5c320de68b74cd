// herd::publish — the world's density layer (protocol/density.hpp): one pass over the agent array,
// made once per layer for every session that asked for it.
#pragma once

#include "herd/sim/world.hpp"
#include "protocol/density.hpp"

namespace herd::publish {

// Agents per cell of the world's grid and their mean speed, from the world's arrays as they are.
protocol::DensityLayer density_layer(const sim::World& world);

}  // namespace herd::publish
