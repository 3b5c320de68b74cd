// herd::publish::SnapshotPlan — which of the world's parts a snapshot carries besides its agents,
// one row a part (plan_rows() in snapshot_plan.cpp): the part's version in the world, and whether
// and when it is sent again unchanged. A part goes in the next snapshot when its version changed
// since it was last sent; a part that refreshes goes again at least every kObstacleRefreshSeconds
// (always, or while the world has any of it), so that a client that skipped the snapshot that told
// a change, or came after it, has it again soon. A new world sends every part that its welcome
// does not carry. Each row also says who is sent the part: every view, or the whole world's only
// (a team's fogged view leaves it out); the JSON writer and the binary side section read that
// (world_messages.cpp). Adding a part is one row (and its flag in SnapshotParts).
#pragma once

#include <array>
#include <cstdint>

#include "herd/sim/world.hpp"
#include "publish/world_messages.hpp"

namespace herd::publish {

class SnapshotPlan {
 public:
  // When a part is sent unchanged.
  enum class Refresh { never, always, while_any };
  struct Row {
    bool SnapshotParts::*part;
    std::uint64_t (*version)(const sim::World& world);
    Refresh refresh = Refresh::never;
    bool (*any)(const sim::World& world) = nullptr;  // while_any: whether the world has any
    bool in_welcome = false;  // the welcome carries it: a new world's first snapshot need not
    bool to_teams = true;     // a team's fogged view carries it too
  };
  static constexpr std::size_t kParts = 5;
  static const std::array<Row, kParts>& rows();
  // The row of `part`.
  static const Row& row(bool SnapshotParts::*part);
  // Whether a snapshot with `parts` carries `part` to a view, fogged (a team's) or not.
  static bool carries(const SnapshotParts& parts, bool SnapshotParts::*part, bool fogged) {
    return parts.*part && (!fogged || row(part).to_teams);
  }

  // A world whose welcome-carried parts every client has; the others go in the first snapshot.
  explicit SnapshotPlan(const sim::World& world);
  // Another world in place: as the constructor, every part not in the welcome sent again.
  void new_world(const sim::World& world);
  // The parts of snapshot `serial` (snapshots counted from 0; `snapshot_rate` a second), marked
  // sent.
  SnapshotParts next(const sim::World& world, std::uint64_t serial, double snapshot_rate);

 private:
  struct Sent {
    std::uint64_t version = 0;
    std::uint64_t due = 0;  // the serial from which it is sent again unchanged
  };
  void reset(const sim::World& world, std::uint64_t others);
  std::array<Sent, kParts> sent_{};
};

}  // namespace herd::publish
