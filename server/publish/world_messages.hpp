// herd::publish — the world written as the protocol's messages: the one layer that reads both the
// sim's state (sim/world.hpp) and the wire's types, so that protocol/ needs only the sim's
// public headers and the sim nothing of the wire. The server publishes through it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/world.hpp"
#include "protocol/messages.hpp"
#include "protocol/snapshot_binary.hpp"
#include "protocol/snapshot_json.hpp"
#include "publish/team_memory.hpp"

namespace herd::publish {

// Which parts this snapshot carries, a flag a row of the snapshot plan (publish/snapshot_plan.hpp,
// which says when each goes and to whom): the agents, collisions and formations (every snapshot),
// the map (it changed since the last snapshot), the obstacles (they changed, or are due again:
// Snapshot::obstacles), the measurements (added, removed or reported since the last snapshot),
// the sources and exits (added, removed, or a count changed since the last snapshot), the walls
// (they changed, or are due again: Snapshot::walls), the density layer (due, and asked for), the
// inspect traces (some agent is inspected), the hits and deaths (every snapshot, when there are
// any). The defaults: a snapshot of the agents, collisions, events, formations and obstacles.
struct SnapshotParts {
  bool agents = true;
  bool obstacles = true;
  bool walls = false;
  bool map = false;
  bool measurements = false;
  bool sources = false;
  bool density = false;
  bool formations = true;
  bool collisions = true;
  bool events = true;
  bool memory = true;
  bool traces = false;
};

// Whose snapshot it is. The whole world's (team 0), or, with fog of war, a team's: of each part
// what its row's fog leaves it (SnapshotPlan: the agents and collisions it sees, `seen` being
// World::seen_by; its own formations; no measurements, sources or exits), and of other teams'
// agents where they are and how they move, not their orders (no target, waypoints, subject or
// trail).
// `teams`: every agent's team is written, 0 included (a server with players).
struct View {
  std::uint8_t team = 0;
  const std::vector<std::uint64_t>* seen = nullptr;
  bool teams = false;
};

// Every measurement line and area with its last report, as the wire carries them.
std::vector<protocol::MeasurementState> measurement_states(const sim::World& world);
// Every source and exit with its counts, as the wire carries them.
std::vector<protocol::SourceState> source_states(const sim::World& world);
std::vector<protocol::ExitState> exit_states(const sim::World& world);

// The whole world as a JSON snapshot, written straight from the agent array (no intermediate
// copy): the server does this once per snapshot and shares the text between sessions.
// `collisions` are those since the previous snapshot (at most kMaxCollisionsPerSnapshot are
// written). No inspect traces: a session that inspects agents is sent this text followed by its
// own (inspect_texts, protocol::inspect_suffix). `events`: the hits and deaths since the previous
// snapshot (each written to the views whose team saw it); `memory`: the teams' memories, of which a
// team's view is written its ghosts, and its explored ground when `explored`. `serial`: the
// server's count of snapshots made, this one included (0 leaves it out). The same text as
// protocol::encode(Snapshot) of the same state.
std::string encode_snapshot(const sim::World& world,
                            std::span<const sim::CollisionEvent> collisions = {},
                            const SnapshotParts& parts = {}, std::uint64_t serial = 0,
                            const View& view = {}, std::span<const sim::GameEvent> events = {},
                            const TeamMemory* memory = nullptr, bool explored = false);

// The side section the server attaches to binary frames of a snapshot, open for each session's
// inspected agents (protocol::open_side_section); a team's (`view`) as its JSON snapshot's tail.
protocol::SideOpen encode_side_open(const sim::World& world,
                                    std::span<const sim::CollisionEvent> collisions,
                                    const SnapshotParts& parts, const View& view = {},
                                    std::span<const sim::GameEvent> events = {},
                                    const TeamMemory* memory = nullptr, bool explored = false);

// The traces of the world's inspected agents, with their agents' objects, as text. With `fog`
// (World::seen_by), each as its own team's players may have it: its object as its team sees it
// and no push of an agent its team does not see (nobody's agents are left out).
protocol::InspectTexts inspect_texts(const sim::World& world, const View& view = {},
                                     const std::vector<std::uint64_t>* fog = nullptr);

// Every obstacle as the wire carries them (welcome, snapshots).
std::vector<protocol::ObstacleState> obstacle_states(const sim::World& world);

// Every wall as the wire carries them (welcome, snapshots).
std::vector<protocol::WallState> wall_states(const sim::World& world);

// The world's map as the wire carries it (welcome, snapshots), if it has one.
std::optional<protocol::MapState> map_state(const sim::World& world);

// The world now, quantised for binary snapshots. `previous` (the last state quantised, if any)
// gives hysteresis to heading and speed: a value within one step of the previous one keeps it, so
// jitter of the last bit costs nothing (heading error at most 1.5 steps, speed error at most
// 1.5/16 unit/s).
protocol::QuantState quantise(const sim::World& world,
                              const protocol::QuantState* previous = nullptr);

}  // namespace herd::publish
