// herd::publish — the world written as the protocol's messages: the one layer that reads both the
// sim's state (sim/world.hpp) and the wire's types, so that protocol/ needs only the sim's
// public headers and the sim nothing of the wire. The server publishes through it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "herd/sim/agent.hpp"
#include "herd/sim/world.hpp"
#include "protocol/messages.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::publish {

// The whole world as a JSON snapshot, written straight from the agent array (no intermediate
// copy): the server does this once per snapshot and shares the text between sessions.
// `collisions` are those since the previous snapshot (at most kMaxCollisionsPerSnapshot are
// written); the traces of the world's inspected agents are included. `serial`: the server's count
// of snapshots made, this one included (0 leaves it out). The same text as
// protocol::encode(Snapshot) of the same state.
std::string encode_snapshot(const sim::World& world,
                            std::span<const sim::CollisionEvent> collisions = {},
                            bool include_map = false, std::uint64_t serial = 0);

// The side section the server attaches to every binary frame of a snapshot: a JSON snapshot
// message whose agents are the inspected ones; nullopt when it would say nothing (no inspected
// agents, obstacles, collisions, formations or map change).
std::optional<std::string> encode_side(const sim::World& world,
                                       std::span<const sim::CollisionEvent> collisions,
                                       bool include_map);

// The world's map as the wire carries it (welcome, snapshots), if it has one.
std::optional<protocol::MapState> map_state(const sim::World& world);

// The world now, quantised for binary snapshots. `previous` (the last state quantised, if any)
// gives hysteresis to heading and speed: a value within one step of the previous one keeps it, so
// jitter of the last bit costs nothing (heading error at most 1.5 steps, speed error at most
// 1.5/16 unit/s).
protocol::QuantState quantise(const sim::World& world,
                              const protocol::QuantState* previous = nullptr);

}  // namespace herd::publish
