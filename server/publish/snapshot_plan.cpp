#include "publish/snapshot_plan.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "protocol/messages.hpp"

namespace herd::publish {

const std::array<SnapshotPlan::Row, SnapshotPlan::kParts>& SnapshotPlan::rows() {
  using W = const sim::World&;
  static const std::array<Row, kParts> kRows = {{
      // The map: in every welcome, and in the first snapshot after it changes.
      {&SnapshotParts::map, [](W w) { return w.map_version(); }, Refresh::never, nullptr, true},
      // Obstacles: in every welcome, after a change, and every refresh period.
      {&SnapshotParts::obstacles, [](W w) { return w.obstacles_version(); }, Refresh::always,
       nullptr, true},
      // Measurements: after a change or a report (once a second while there are any); to the
      // whole world's views only (their counts count agents a team may not see).
      {&SnapshotParts::measurements, [](W w) { return w.measurements_version(); }, Refresh::never,
       nullptr, false, false},
      // Sources and exits: after a change (each tick a source spawns or an exit removes), and
      // every refresh period while there are any; to the whole world's views only, as
      // measurements.
      {&SnapshotParts::sources, [](W w) { return w.sources_version(); }, Refresh::while_any,
       [](W w) { return !(w.sources().empty() && w.exits().empty()); }, false, false},
      // Walls: after a change, and every refresh period while there are any.
      {&SnapshotParts::walls, [](W w) { return w.walls_version(); }, Refresh::while_any,
       [](W w) { return !w.walls().empty(); }},
  }};
  return kRows;
}

const SnapshotPlan::Row& SnapshotPlan::row(bool SnapshotParts::*part) {
  for (const Row& r : rows())
    if (r.part == part) return r;
  assert(false && "every part has its row");
  return rows().front();
}

SnapshotPlan::SnapshotPlan(const sim::World& world) { reset(world, 0); }

void SnapshotPlan::new_world(const sim::World& world) { reset(world, ~std::uint64_t{0}); }

// The welcome's parts as sent at the world's versions; the others at `others` (0 for a version
// the world has not reached, ~0 for none it can have: either way, sent in the next snapshot).
void SnapshotPlan::reset(const sim::World& world, std::uint64_t others) {
  for (std::size_t i = 0; i < kParts; ++i)
    sent_[i].version = rows()[i].in_welcome ? rows()[i].version(world) : others;
}

SnapshotParts SnapshotPlan::next(const sim::World& world, std::uint64_t serial,
                                 double snapshot_rate) {
  const auto period = static_cast<std::uint64_t>(
      std::max(1.0, std::round(protocol::kObstacleRefreshSeconds * snapshot_rate)));
  SnapshotParts parts;
  for (std::size_t i = 0; i < kParts; ++i) {
    const Row& row = rows()[i];
    Sent& sent = sent_[i];
    const std::uint64_t version = row.version(world);
    const bool due = serial >= sent.due && (row.refresh == Refresh::always ||
                                            (row.refresh == Refresh::while_any && row.any(world)));
    const bool send = version != sent.version || due;
    parts.*row.part = send;
    sent.version = version;
    if (send) sent.due = serial + period;
  }
  return parts;
}

}  // namespace herd::publish
