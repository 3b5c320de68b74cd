#include "publish/snapshot_plan.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "protocol/density.hpp"
#include "publish/snapshot_tail.hpp"

namespace herd::publish {

const std::array<SnapshotPlan::Row, SnapshotPlan::kParts>& SnapshotPlan::rows() {
  using W = const sim::World&;
  using S = const protocol::Snapshot&;
  using Welcome = protocol::Welcome&;
  static const std::array<Row, kParts> kRows = {{
      // The agents: every snapshot; a team's, those it sees.
      {.part = &SnapshotParts::agents,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::sight}},
      // Obstacles: in every welcome, after a change, and every refresh period.
      {.part = &SnapshotParts::obstacles,
       .version = [](W w) { return w.obstacles_version(); },
       .refresh = Refresh::always,
       .welcome =
           [](S s, Welcome w) {
             if (s.obstacles) w.obstacles = *s.obstacles;
           },
       .to = {},
       .tail = tail_obstacles},
      // Walls: in every welcome and in a new world's first snapshot (PROTOCOL.md), after a
      // change, and every refresh period while there are any.
      {.part = &SnapshotParts::walls,
       .version = [](W w) { return w.walls_version(); },
       .refresh = Refresh::while_any,
       .any = [](W w) { return !w.walls().empty(); },
       .welcome =
           [](S s, Welcome w) {
             if (s.walls) w.walls = *s.walls;
           },
       .first_snapshot = true,
       .to = {},
       .tail = tail_walls},
      // The map: in every welcome, and in the first snapshot after it changes (or is removed).
      {.part = &SnapshotParts::map,
       .version = [](W w) { return w.map_version(); },
       .welcome =
           [](S s, Welcome w) {
             if (s.map) w.map = s.map;
             if (s.map_cleared) w.map.reset();
           },
       .to = {},
       .tail = tail_map},
      // Measurements: after a change or a report (once a second while there are any); to the
      // whole world's views only (their counts count agents a team may not see).
      {.part = &SnapshotParts::measurements,
       .version = [](W w) { return w.measurements_version(); },
       .to = {.teams = Fog::left_out},
       .tail = tail_measurements},
      // Sources and exits: after a change (each tick a source spawns or an exit removes), and
      // every refresh period while there are any; to the whole world's views only, as
      // measurements.
      {.part = &SnapshotParts::sources,
       .version = [](W w) { return w.sources_version(); },
       .refresh = Refresh::while_any,
       .any = [](W w) { return !(w.sources().empty() && w.exits().empty()); },
       .to = {.teams = Fog::left_out},
       .tail = tail_sources},
      // The density layer: made from the agents every kDensitySeconds of snapshots (and at once
      // in a new world) while some whole-world session asks for it, for those only; of the
      // world now, so no delayed spectator's, and no team's (it counts agents a team may not see).
      {.part = &SnapshotParts::density,
       .refresh = Refresh::always,
       .period = protocol::kDensitySeconds,
       .to = {.teams = Fog::left_out, .delayed = false, .among = Among::asking}},
      // Formations: every snapshot; a team's, those it owns.
      {.part = &SnapshotParts::formations,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::ownership},
       .tail = tail_formations},
      // Collisions since the last snapshot: every snapshot; a team's, those of agents it sees.
      {.part = &SnapshotParts::collisions,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::sight},
       .tail = tail_collisions},
      // Hits and deaths since the last snapshot: every snapshot that has any; a team's, those its
      // team saw happen (sim::GameEvent::seen: its own agents' and the ones it saw).
      {.part = &SnapshotParts::events,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::sight},
       .tail = tail_events},
      // A team's memory under the fog: its ghosts every snapshot, its explored ground when it grew
      // and every refresh period (LocalWorld decides: TailSource::explored); written for its own
      // players only (the whole world's views, delayed ones too, see everything: theirs is empty).
      {.part = &SnapshotParts::memory,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::ownership},
       .tail = tail_memory},
      // Inspect traces: every snapshot while some agent is inspected, each to the sessions
      // inspecting it (a player's: its own agents', as its team sees them); of the world now, so
      // no delayed spectator's.
      {.part = &SnapshotParts::traces,
       .refresh = Refresh::always,
       .period = kEverySnapshot,
       .to = {.teams = Fog::sight, .delayed = false, .among = Among::inspecting}},
  }};
  return kRows;
}

const SnapshotPlan::Row& SnapshotPlan::row(bool SnapshotParts::*part) {
  for (const Row& r : rows())
    if (r.part == part) return r;
  assert(false && "every part has its row");
  return rows().front();
}

bool SnapshotPlan::reaches(bool SnapshotParts::*part, Audience audience) {
  const Audiences& to = row(part).to;
  switch (audience) {
    case Audience::viewers:
      return true;
    case Audience::team:
      return to.teams != Fog::left_out;
    case Audience::delayed:
      return to.delayed;
  }
  return false;
}

void SnapshotPlan::keep_for_welcome(const protocol::Snapshot& snapshot,
                                    protocol::Welcome& welcome) {
  for (const Row& r : rows())
    if (r.welcome) r.welcome(snapshot, welcome);
}

SnapshotPlan::SnapshotPlan(const sim::World& world) { reset(&world, 0); }

void SnapshotPlan::new_world(const sim::World& world) { reset(&world, ~std::uint64_t{0}); }

void SnapshotPlan::new_world() { reset(nullptr, ~std::uint64_t{0}); }

// The parts without a version due at once. With a world, the parts the welcome carries as sent
// at the world's versions, the others at `others` (0 for a version the world has not reached, ~0
// for none it can have: either way, sent in the next snapshot).
void SnapshotPlan::reset(const sim::World* world, std::uint64_t others) {
  for (std::size_t i = 0; i < kParts; ++i) {
    const Row& r = rows()[i];
    if (!r.version)
      sent_[i].due = 0;
    else if (world)
      sent_[i].version = r.welcome && !r.first_snapshot ? r.version(*world) : others;
  }
}

bool SnapshotPlan::send(std::size_t i, const sim::World* world, std::uint64_t serial,
                        double snapshot_rate, const Takers& takers) {
  const Row& row = rows()[i];
  if (!takers.take(row.to.among)) return false;  // not made, not counted sent
  Sent& sent = sent_[i];
  bool changed = false;
  if (row.version) {
    const std::uint64_t version = row.version(*world);
    changed = version != sent.version;
    sent.version = version;
  }
  const bool due = serial >= sent.due && (row.refresh == Refresh::always ||
                                          (row.refresh == Refresh::while_any && row.any(*world)));
  if (!changed && !due) return false;
  sent.due =
      serial + static_cast<std::uint64_t>(std::max(1.0, std::round(row.period * snapshot_rate)));
  return true;
}

SnapshotParts SnapshotPlan::next(const sim::World& world, std::uint64_t serial,
                                 double snapshot_rate, const Takers& takers) {
  SnapshotParts parts;
  for (std::size_t i = 0; i < kParts; ++i)
    parts.*rows()[i].part = send(i, &world, serial, snapshot_rate, takers);
  return parts;
}

SnapshotParts SnapshotPlan::relayed(std::uint64_t serial, double snapshot_rate,
                                    const Takers& takers) {
  SnapshotParts parts;
  for (std::size_t i = 0; i < kParts; ++i) {
    const Row& row = rows()[i];
    parts.*row.part =
        row.to.among == Among::asking && send(i, nullptr, serial, snapshot_rate, takers);
  }
  return parts;
}

}  // namespace herd::publish
