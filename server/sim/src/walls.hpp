// herd::sim::WallService — the world's static walls (herd/sim/wall.hpp): made and removed by
// commands, their segments in a uniform grid rebuilt only when a wall is added or removed, and
// the two things the step asks of them:
// - avoidance: the nearest point of each wall segment within reach of an agent, which every
//   avoidance mode heeds as a static obstacle of radius 0 (near_points);
// - the hard boundary after the collision stage (hold): an agent's centre never crosses a
//   segment between where it stood at the start of the tick and where it ends, and its disc is
//   pushed out of every segment it overlaps, on the side it is on, its velocity into the wall
//   taken away.
// A world without walls asks nothing of it: its steps are the same bits as before walls existed.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/wall.hpp"
#include "serial.hpp"

namespace herd::sim {

// True when the centre's move from p0 to p1 crosses the segment a-b: p0 lies strictly on one
// side of its line and p1 on the other side or on the line, at a point of the segment (its ends
// included). A move from a point on the line crosses nothing: it can only leave it.
bool crosses_segment(Vec2 p0, Vec2 p1, Vec2 a, Vec2 b);

// The point of segment a-b nearest p (a when a == b).
Vec2 closest_on_segment(Vec2 p, Vec2 a, Vec2 b);

// Whether segments p-q and a-b share a point (touching counts).
bool segments_meet(Vec2 p, Vec2 q, Vec2 a, Vec2 b);

class WallService {
 public:
  // A segment of a wall; `joined`: its end `b` is the next segment's start (a polyline's inner
  // vertex, or any vertex of a polygon), where the next segment reports the vertex.
  struct Segment {
    Vec2 a, b;
    bool joined = false;
  };

  // A new wall (the caller has checked it: wall_problem) over a world of width x height.
  WallId add(std::vector<Vec2> points, bool closed, double width, double height);
  bool remove(WallId id, double width, double height);  // false: no such wall
  bool empty() const { return walls_.empty(); }
  std::size_t size() const { return walls_.size(); }
  std::size_t total_points() const { return total_points_; }
  std::span<const Wall> items() const { return walls_; }  // ordered by id
  std::span<const Segment> segments() const { return segments_; }
  // Bumped whenever a wall is added or removed.
  std::uint64_t version() const { return version_; }
  WallId next_id() const { return next_id_; }

  // What is wrong with a wall through `points` in a world of width x height, with `walls` walls
  // of `total_points` points already (empty when nothing), and whether that is a limit
  // (limit_exceeded) rather than the geometry (out_of_bounds).
  static std::string problem(std::span<const Vec2> points, bool closed, double width, double height,
                             std::size_t walls, std::size_t total_points, bool& is_limit);

  // Indices of the segments that may come within the box [lo, hi], into `found`, ascending and
  // each once. The caller checks exact distances.
  void query(Vec2 lo, Vec2 hi, std::vector<std::uint32_t>& found) const;

  // Whether the segment a-b meets any wall: the grid's cells along it walked in order (as a
  // line of sight is), each cell's segments tested, stopping at the first that meets it.
  bool blocks(Vec2 a, Vec2 b) const;

  // Calls visit(point) with the nearest point of each segment within `reach` of `centre`, a
  // vertex two segments share once: what avoidance heeds. `found`: scratch.
  template <class Visit>
  void near_points(Vec2 centre, double reach, std::vector<std::uint32_t>& found,
                   Visit&& visit) const {
    query(centre - Vec2{reach, reach}, centre + Vec2{reach, reach}, found);
    for (std::uint32_t k : found) {
      const Segment& s = segments_[k];
      const Vec2 q = closest_on_segment(centre, s.a, s.b);
      if (s.joined && q == s.b) continue;  // the next segment's start: it reports it
      if (length_squared(q - centre) <= reach * reach) visit(q);
    }
  }

  // Where each agent stands at the start of a step, for hold (nothing is kept without walls).
  void note_starts(std::span<const Agent> agents);
  // Where agent `a` stood when note_starts was called (its position now if it was not there).
  Vec2 start_of(const Agent& a, std::size_t index) const;

  // Keeps agent `a` on its side of every wall: from `start`, where it stood at the start of the
  // tick, its centre crosses no segment, and its disc overlaps none where a push out of it
  // crosses nothing either; velocity into a wall it met is taken away. Confined to the world of
  // width x height as integration confines it. `found`: scratch.
  void hold(Agent& a, Vec2 start, double width, double height,
            std::vector<std::uint32_t>& found) const;

  // FNV-1a's mix over the walls (state_hash), for a world that has or had some.
  template <class Mix>
  void hash(Mix&& mix) const {
    mix(next_id_);
    mix(walls_.size());
    for (const Wall& w : walls_) {
      mix((std::uint64_t{w.id} << 8) | std::uint64_t{w.closed});
      mix(w.points.size());
      for (Vec2 p : w.points) {
        mix(std::bit_cast<std::uint64_t>(p.x));
        mix(std::bit_cast<std::uint64_t>(p.y));
      }
    }
  }

  // The checkpoint's part (world_checkpoint.cpp): the walls, the next id and the version. What
  // is wrong, or empty.
  template <CheckpointStream S>
  std::string serialize(S& s, double width, double height);

 private:
  void rebuild(double width, double height);  // segments_ and the grid, from walls_

  std::vector<Wall> walls_;  // by id
  WallId next_id_ = 1;
  std::uint64_t version_ = 0;
  std::size_t total_points_ = 0;
  std::vector<Segment> segments_;  // every wall's, in wall order
  // The grid: cells of cell_ units, cols_ x rows_, each listing the segments that pass through
  // it (start_[c] to start_[c + 1] in cells_).
  double cell_ = 1;
  int cols_ = 0, rows_ = 0;
  std::vector<std::uint32_t> start_, cells_;
  std::vector<std::pair<AgentId, Vec2>> starts_;  // note_starts: by id
};

}  // namespace herd::sim
