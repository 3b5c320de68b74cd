// herd::sim::SourceService — the world's sources and exits (herd/sim/source.hpp): their records,
// ids and counts, and the schedule of a source's due agents. The world makes the agents and
// removes them (world_sources.cpp), through the same machinery as its spawn and remove
// commands; this part keeps what they are and how many they have done.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "herd/sim/source.hpp"
#include "serial.hpp"

namespace herd::sim {

class SourceService {
 public:
  SourceId add_source(const Source& s);  // s's id is given here
  ExitId add_exit(Vec2 min, Vec2 max, std::uint64_t tick);
  bool remove_source(SourceId id);  // false: no such source
  bool remove_exit(ExitId id);      // false: no such exit
  std::size_t source_count() const { return sources_.size(); }
  std::size_t exit_count() const { return exits_.size(); }
  bool empty() const { return sources_.empty() && exits_.empty(); }

  std::span<const Source> sources() const { return sources_; }
  std::span<const Exit> exits() const { return exits_; }
  std::span<Source> sources() { return sources_; }
  std::span<Exit> exits() { return exits_; }
  // Bumped whenever a source or exit is added or removed, a source spawns or an exit removes.
  std::uint64_t version() const { return version_; }
  void changed() { ++version_; }

  // How many of source s's agents are due by the end of tick `tick` (of `dt` seconds): all of
  // floor((tick - created_tick) * rate * dt), at most its total. Computed afresh each tick from
  // the tick count, so a fractional rate keeps its exact average; the product is raised by a
  // relative 1e-12 first, so that a rate whose per-tick share is a round number in decimal (3 a
  // second at 60 ticks a second: 3 every 60 ticks) is not a tick late by a rounding of dt.
  static std::uint32_t due(const Source& s, std::uint64_t tick, double dt);

  // Their part of the world's state hash: only once a source or exit was ever made, so worlds
  // without keep their hashes.
  template <class Mix, class MixD>
  void hash(Mix&& mix, MixD&& mixd) const {
    if (next_source_id_ == 1 && next_exit_id_ == 1) return;
    mix((std::uint64_t{next_source_id_} << 32) | next_exit_id_);
    for (const Source& s : sources_) {
      mix((std::uint64_t{s.id} << 32) | s.spawned);
      mix(s.created_tick);
      mix(s.total);
      mixd(s.rate);
      for (double v : {s.min.x, s.min.y, s.max.x, s.max.y}) mixd(v);
      const AgentTemplate& t = s.agent;
      mix((std::uint64_t{t.group} << 40) | (std::uint64_t(t.movement) << 32) |
          (std::uint64_t(t.behaviour) << 24) | (std::uint64_t(t.pathing) << 16) | t.neighbours);
      for (const auto& o : {t.radius, t.max_speed, t.max_force, t.mass}) mixd(o.value_or(-1));
      mixd(t.target.x);
      mixd(t.target.y);
      // Hashed only when set, so that worlds without them keep their hashes.
      if (t.priority || t.layer || t.mask)
        mix((std::uint64_t{t.priority.value_or(0xFF)} << 32) ^
            (std::uint64_t{t.layer.value_or(0)} << 8) ^ t.mask.value_or(0) ^
            (std::uint64_t{t.mask.has_value()} << 63) ^ (std::uint64_t{t.layer.has_value()} << 62));
      if (t.combat.any())
        for (const auto& o : {t.combat.max_hp, t.combat.damage, t.combat.range, t.combat.cooldown})
          mixd(o.value_or(-1));
    }
    for (const Exit& e : exits_) {
      mix(e.id);
      mix(e.created_tick);
      mix(e.removed);
      mix(e.last_removal_tick);
      for (double v : {e.min.x, e.min.y, e.max.x, e.max.y}) mixd(v);
    }
  }

  // The checkpoint's part (world_checkpoint.cpp, format 12): the sources and exits with their
  // counts, and the next ids. What is wrong, or empty.
  template <CheckpointStream S>
  std::string serialize(S& s, double width, double height);

 private:
  std::vector<Source> sources_;  // by id
  std::vector<Exit> exits_;      // by id
  SourceId next_source_id_ = 1;
  ExitId next_exit_id_ = 1;
  std::uint64_t version_ = 0;
};

}  // namespace herd::sim
