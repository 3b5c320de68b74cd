// herd::publish — a snapshot's tail: its members after "agents" but for the inspect traces, as the
// JSON writer and the binary side section both write them (protocol::write_snapshot_tail,
// open_side_section), and the writer of each, which the snapshot plan's rows name
// (SnapshotPlan::Row::tail). Internal to publish: world_messages.cpp defines the writers.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "herd/sim/world.hpp"
#include "protocol/messages.hpp"
#include "publish/snapshot_plan.hpp"
#include "publish/world_messages.hpp"

namespace herd::publish {

struct SnapshotTail {
  std::optional<protocol::MapState> map;
  bool map_cleared = false;  // the map is carried, and the world has none
  std::optional<std::vector<protocol::ObstacleState>> obstacles;
  std::vector<protocol::CollisionState> hits;
  std::vector<protocol::FormationState> formations;
  std::optional<std::vector<protocol::MeasurementState>> measurements;
  std::optional<std::vector<protocol::SourceState>> sources;
  std::optional<std::vector<protocol::ExitState>> exits;
  std::optional<std::vector<protocol::WallState>> walls;
  std::vector<protocol::EventState> events;
  std::optional<std::vector<protocol::GhostState>> ghosts;
  std::optional<protocol::ExploredState> explored;
};

// What a tail writer reads: the world, the collisions and the hits and deaths since the last
// snapshot, the view.
struct TailSource {
  const sim::World& world;
  std::span<const sim::CollisionEvent> collisions;
  const View& view;
  std::span<const sim::GameEvent> events = {};
  const TeamMemory* memory = nullptr;  // the teams' memories (a team's view: its own)
  bool explored = false;               // a team's view is sent its explored ground
};

// The writers of the rows' tail members (SnapshotPlan::TailWriter).
void tail_map(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_obstacles(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_walls(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_measurements(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_sources(const TailSource& source, Fog fog, SnapshotTail& tail);  // and exits
void tail_collisions(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_formations(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_events(const TailSource& source, Fog fog, SnapshotTail& tail);
void tail_memory(const TailSource& source, Fog fog, SnapshotTail& tail);

}  // namespace herd::publish
