// herd::publish::SnapshotPlan — a snapshot's parts as one table, a row a part (rows() in
// snapshot_plan.cpp): the agents, obstacles, walls, map, measurements, sources and exits, the
// density layer, formations, collisions and inspect traces. Each row says:
//  - when the part goes. With a version in the world, in the next snapshot after it changed; and
//    unchanged again (Refresh) never, every `period` seconds of snapshots, or so while the world
//    has any, so that a client that skipped the snapshot that told a change, or came after it,
//    has it again soon. Without a version, whenever it is due: every snapshot (a period of
//    kEverySnapshot: the agents, collisions, formations, traces) or every period (the density
//    layer), and at once in a new world.
//  - whether the welcome carries it (Row::welcome: how a relay keeps the newest it was sent for
//    its own welcomes); a part the welcome does not carry goes in a new world's first snapshot,
//    and one it carries too when Row::first_snapshot says so (the walls).
//  - who takes it (Audiences): the whole world's views (viewers, commanders, undelayed
//    spectators); a team's fogged view, whole, filtered (by the team's sight, by what it owns) or
//    not at all (Fog); delayed spectators, or not; and within each, every session, only those
//    that asked for it (the density layer) or only those inspecting its agents (traces) (Among).
//    A part no session takes is not made, and not counted sent (Takers).
//
// Who reads it: LocalWorld (next: this snapshot's parts), the JSON writer and the binary side
// section (world_messages.cpp: each row's TailWriter with its fog, the agents' and traces' fog),
// the hub (the parts it attaches per session: reaches, by audience), and RelayWorld (relayed:
// the parts a relay makes itself, those that reach only the sessions that ask, which its link
// never asks for; keep_for_welcome: what it holds for its welcomes).
//
// A new part is one row, with:
//  - its flag in SnapshotParts (world_messages.hpp);
//  - its version (a World::*_version(), or none) and refresh, its audiences, and its welcome
//    keeper if the welcome carries it;
//  - its writer: for a member of the snapshot's tail (what protocol::write_snapshot_tail and
//    open_side_section write, after "agents"), a TailWriter in world_messages.cpp that fills its
//    member of SnapshotTail (snapshot_tail.hpp) with the row's fog, and that member passed to the
//    protocol's writers; for a part attached per session (as the density layer), the source's
//    code that makes it when SnapshotParts says so, and the hub's that attaches it (session_tail).
//  - tests/net/snapshot_plan_test.cpp checks every row: give the new one its expectations there.
#pragma once

#include <array>
#include <cstdint>

#include "herd/sim/world.hpp"
#include "protocol/messages.hpp"
#include "publish/world_messages.hpp"

namespace herd::publish {

struct SnapshotTail;  // snapshot_tail.hpp
struct TailSource;

// What a team's fogged view is sent of a part: nothing, the whole world's, what the team sees
// (World::seen_by: an agent, or a collision of agents it sees), or what it owns (a formation all
// of whose members still in the world are its own).
enum class Fog { left_out, whole, sight, ownership };
// Which sessions of an audience take a part: every one, those that asked for it (a density
// request), those inspecting its agents (an inspect list).
enum class Among { every, asking, inspecting };
// Who a snapshot is written for: the whole world's views, a team's, the delayed spectators.
enum class Audience { viewers, team, delayed };

// Whether some session takes the parts that go only to those that ask or inspect (Among): a part
// none takes is not made.
struct Takers {
  bool asking = false;
  bool inspecting = false;
  bool take(Among among) const {
    return among == Among::every || (among == Among::asking ? asking : inspecting);
  }
};

class SnapshotPlan {
 public:
  // When a part is sent unchanged (or, without a version, at all).
  enum class Refresh { never, always, while_any };
  static constexpr double kEverySnapshot = 0;  // a period: one snapshot
  struct Audiences {
    Fog teams = Fog::whole;
    bool delayed = true;
    Among among = Among::every;
  };
  // Fills its part of a snapshot's tail for a view, with the row's fog.
  using TailWriter = void (*)(const TailSource& source, Fog fog, SnapshotTail& tail);
  struct Row {
    bool SnapshotParts::*part;
    std::uint64_t (*version)(const sim::World& world) = nullptr;  // null: none (when due)
    Refresh refresh = Refresh::never;
    double period = protocol::kObstacleRefreshSeconds;  // seconds of snapshots between refreshes
    bool (*any)(const sim::World& world) = nullptr;     // while_any: whether the world has any
    // The welcome carries it: a relay keeps the newest it was sent (null: the welcome does not).
    void (*welcome)(const protocol::Snapshot& snapshot, protocol::Welcome& welcome) = nullptr;
    bool first_snapshot = false;  // a new world's first snapshot carries it, as its welcome does
    Audiences to;
    TailWriter tail = nullptr;  // a member of the snapshot's tail: its writer
  };
  static constexpr std::size_t kParts = 12;
  static const std::array<Row, kParts>& rows();
  // The row of `part`.
  static const Row& row(bool SnapshotParts::*part);
  // Whether `part` reaches `audience` (the whole world's views take every part).
  static bool reaches(bool SnapshotParts::*part, Audience audience);
  // Whether a snapshot with `parts` carries `part` to `audience`.
  static bool carries(const SnapshotParts& parts, bool SnapshotParts::*part, Audience audience) {
    return parts.*part && reaches(part, audience);
  }
  // What a relay keeps of a snapshot it relays for its own welcomes: every part the welcome
  // carries, as the snapshot tells it (a part it does not carry stays as it was).
  static void keep_for_welcome(const protocol::Snapshot& snapshot, protocol::Welcome& welcome);

  // A relay's: it holds no world; the parts it makes itself are due at once.
  SnapshotPlan() = default;
  // A world whose welcome-carried parts every client has; the others go in the first snapshot.
  explicit SnapshotPlan(const sim::World& world);
  // Another world in place: as the constructor, every part the welcome does not carry (or that
  // goes in the first snapshot as well) sent again, and the parts without a version due at once.
  void new_world(const sim::World& world);
  // A relay's new world: the parts it makes itself due at once.
  void new_world();
  // The parts of snapshot `serial` (snapshots counted from 0; `snapshot_rate` a second) that
  // `takers` take, marked sent.
  SnapshotParts next(const sim::World& world, std::uint64_t serial, double snapshot_rate,
                     const Takers& takers);
  // A relay's: of the parts it makes itself (those that reach only the sessions that ask: its
  // link asks its upstream for none), those due in its snapshot `serial`, marked sent. The others
  // are the upstream's, relayed as they come.
  SnapshotParts relayed(std::uint64_t serial, double snapshot_rate, const Takers& takers);

 private:
  struct Sent {
    std::uint64_t version = 0;
    std::uint64_t due = 0;  // the serial from which it is sent again unchanged
  };
  void reset(const sim::World* world, std::uint64_t others);
  // Whether row `i` goes in snapshot `serial` (`world`: for its version; only rows without one
  // are asked without a world); marks it sent.
  bool send(std::size_t i, const sim::World* world, std::uint64_t serial, double snapshot_rate,
            const Takers& takers);
  std::array<Sent, kParts> sent_{};
};

}  // namespace herd::publish
