// herd::protocol's JSON snapshot writer, in parts: what encode(Snapshot) writes, offered to a
// writer that reads its agents from elsewhere (the server writes them straight from the world's
// arrays, publish/world_messages.cpp) so that both give the same text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/json_writer.hpp"
#include "protocol/messages.hpp"

namespace herd::protocol {

// One JSON object, `body(w)` writing its members; `reserve`: the text's expected size.
template <class Body>
std::string write_object(Body&& body, std::size_t reserve = 128) {
  std::string out;
  out.reserve(reserve);
  JsonWriter w(out);
  w.begin_object();
  body(w);
  w.end_object();
  return out;
}

// A snapshot's members before "agents": type, tick, serial (0: not told, as in a binary frame's
// side section, whose header carries it), time and avoidance.
void write_snapshot_head(JsonWriter& w, std::uint64_t tick, double time, sim::AvoidanceMode mode,
                         std::uint64_t serial = 0);

// One element of "agents".
void write_agent(JsonWriter& w, const AgentState& a);

// The members after "agents": obstacles, collisions, formations, inspect (when any), and the map
// (or "map": null when map_cleared).
void write_snapshot_tail(JsonWriter& w, const std::vector<ObstacleState>& obstacles,
                         const std::vector<CollisionState>& collisions,
                         const std::vector<FormationState>& formations,
                         const std::vector<InspectState>& inspect,
                         const std::optional<MapState>& map, bool map_cleared);

}  // namespace herd::protocol
