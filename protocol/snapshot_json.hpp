// herd::protocol's JSON snapshot writer, in parts: what encode(Snapshot) writes, offered to a
// writer that reads its agents from elsewhere (the server writes them straight from the world's
// arrays, publish/world_messages.cpp) so that both give the same text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

// One element of "inspect": an agent's avoidance trace.
void write_inspect(JsonWriter& w, const InspectState& s);

// A team's memory as a snapshot's tail carries it (a player's): its ghosts and explored ground,
// each when given.
struct TeamMemoryState {
  const std::vector<GhostState>* ghosts = nullptr;
  const ExploredState* explored = nullptr;
};

// Base64 (RFC 4648, with padding) of `bytes`, and back (nullopt: not base64).
std::string base64_encode(std::span<const std::uint8_t> bytes);
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text);

// The members after "agents", but for inspect: obstacles and walls (when given), collisions,
// formations, events (when there are any), health (when given: binary side sections), a team's
// ghosts and explored ground (when given),
// measurements (when given), sources and exits (when both are given), and the map (or "map": null
// when map_cleared).
void write_snapshot_tail(JsonWriter& w, const std::vector<ObstacleState>* obstacles,
                         const std::vector<CollisionState>& collisions,
                         const std::vector<FormationState>& formations,
                         const std::optional<MapState>& map, bool map_cleared,
                         const std::vector<MeasurementState>* measurements = nullptr,
                         const std::vector<SourceState>* sources = nullptr,
                         const std::vector<ExitState>* exits = nullptr,
                         const std::vector<WallState>* walls = nullptr,
                         const std::vector<EventState>* events = nullptr,
                         const std::vector<HealthState>* health = nullptr,
                         const TeamMemoryState* memory = nullptr);

// "inspect", a snapshot's last member, when there are traces.
void write_snapshot_inspect(JsonWriter& w, const std::vector<InspectState>& inspect);

// A snapshot's inspect traces as text, one entry per traced agent (ordered by id): the agent's
// whole JSON object and its trace. Each session is sent the traces of the agents it inspects,
// and no other's: the snapshot shared by every session has none, and an asker's is that
// snapshot followed by its own part (inspect_suffix, side_section).
struct InspectTexts {
  struct Entry {
    std::uint32_t id = 0;
    std::uint8_t team = 0;  // the agent's
    std::string agent, trace;
  };
  std::vector<Entry> entries;
  bool empty() const { return entries.empty(); }
  const Entry* find(std::uint32_t id) const;
  // One agent's entry, written; finish() orders them (and keeps one per id) before find().
  void add(const AgentState& agent, const InspectState& trace);
  void finish();
  // From a decoded snapshot: its traces, with their agents' objects.
  static InspectTexts of(const Snapshot& s);
};

// What follows a JSON snapshot's text, in place of its closing brace, for a session inspecting
// `ids`: `,"inspect":[...]}`. Empty when none of them is traced.
std::string inspect_suffix(const InspectTexts& texts, std::span<const std::uint32_t> ids);

// A side section's shared part: a snapshot object's members but "agents" and "inspect", with no
// closing brace (side_section adds each session's); `informative` when it says something without
// any inspected agent (obstacles, walls, collisions, formations, events, health, measurements,
// sources and exits, a map change).
struct SideOpen {
  std::string open;
  bool informative = false;
  // The side section of a session that inspects nothing (empty: no side section at all).
  std::string shared() const;
};
SideOpen open_side_section(
    std::uint64_t tick, double time, sim::AvoidanceMode mode, std::uint64_t serial,
    const std::vector<ObstacleState>* obstacles, const std::vector<CollisionState>& collisions,
    const std::vector<FormationState>& formations, const std::optional<MapState>& map,
    bool map_cleared, const std::vector<MeasurementState>* measurements = nullptr,
    const std::vector<SourceState>* sources = nullptr,
    const std::vector<ExitState>* exits = nullptr, const std::vector<WallState>* walls = nullptr,
    const std::vector<EventState>* events = nullptr,
    const std::vector<HealthState>* health = nullptr, const TeamMemoryState* memory = nullptr);

// A binary frame's side section (PROTOCOL.md "Side section") from `open`, a snapshot object's
// members but "agents" and "inspect" with no closing brace: for a session inspecting `ids`, its
// inspected agents' objects and their traces; for none (or `ids` not traced), `"agents":[]`.
std::string side_section(std::string_view open, const InspectTexts& texts,
                         std::span<const std::uint32_t> ids);

}  // namespace herd::protocol
