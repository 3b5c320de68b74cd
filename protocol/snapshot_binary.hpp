// herd::protocol binary snapshots (PROTOCOL.md "Binary snapshots", the contract byte for byte).
//
// The server quantises the world once per snapshot (QuantState), keeps the last few in a ring,
// and encodes each frame as a delta against a state the client acknowledged (or as a keyframe,
// a delta against nothing). A viewport limits a frame to the agents inside it plus a margin,
// found through a ViewGrid. Clients decode a frame against the state it names as its baseline.
//
// Plain C++ on purpose (no Boost, no JSON): the server, herd-view, herd-ctl and the benchmark
// all use it, and it is fast to compile.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/messages.hpp"

namespace herd::protocol {

inline constexpr std::uint8_t kBinaryMagic = 0x48;  // 'H'
inline constexpr std::uint8_t kBinaryVersion = 4;
// Positions are quantised to 1/64 unit (error <= 1/128), and coarsened for a frame of another
// scale (coarsen).
inline constexpr double kPositionScale = 64;
inline constexpr double kSpeedScale = 16;   // speed in 1/16 unit/s, at most 65535/16
inline constexpr double kRadiusScale = 64;  // radius in 1/64 unit
inline constexpr int kHeadingSteps = 256;   // heading in 1/256 turn

// One agent as the binary format carries it. Flags: bits 0-1 the MoveState, bit 2 collided,
// bit 3 kinematic.
struct QuantAgent {
  std::uint32_t id = 0;
  std::uint32_t x = 0, y = 0;  // position * 2^scale, rounded, clamped to the state's bit widths
  std::uint16_t speed = 0;     // |velocity| * 16, rounded, clamped to 65535
  std::uint16_t radius = 0;    // radius * 64, rounded
  std::uint8_t heading = 0;    // atan2(vy, vx) in 1/256 turn: 0 is +x, 64 is +y (down)
  std::uint8_t group = 0;
  std::uint8_t flags = 0;
  std::uint8_t team = 0;  // 0 nobody's, at most 63 (6 bits)
  friend bool operator==(const QuantAgent&, const QuantAgent&) = default;
};

// The world at one snapshot, quantised; agents ordered by id.
struct QuantState {
  std::uint64_t tick = 0;
  std::uint64_t serial =
      0;  // the server's count of snapshots made (0: not told); see Snapshot::serial
  double time = 0;
  sim::AvoidanceMode avoidance = sim::AvoidanceMode::cardioid;
  std::uint8_t x_bits = 1,
               y_bits = 1;  // bits of a quantised coordinate: bit_width(round(size * 2^scale))
  std::uint8_t scale = kFinestScale;  // positions in quanta of 1 / 2^scale unit
  std::vector<QuantAgent> agents;
};

// The state at a coarser scale (PROTOCOL.md "Quantisation"): each position
// floor((q + 2^(5-s)) / 2^(6-s)) of its 1/64-unit q, clamped to the narrower widths; the rest as
// it is (headings and speeds keep their hysteresis). `fine` must be at kFinestScale.
QuantState coarsen(const QuantState& fine, std::uint8_t scale);

// Bits needed for a quantised coordinate of a world `size` units wide, in [1, 32].
std::uint8_t position_bits(double size);

// One agent's fields as quantise_agent() takes them, from wherever they are held (the world's
// arrays, a decoded snapshot).
struct RawAgent {
  std::uint32_t id;
  double x, y, vx, vy, r;
  std::uint8_t group, state;
  bool collided, kinematic;
  std::uint8_t team = 0;
};

// The agent quantised with the state's position widths; `prev`, its previous quantised self if
// any, gives hysteresis (a heading or speed one step off is not news; a still agent keeps its
// heading).
QuantAgent quantise_agent(const RawAgent& a, std::uint8_t x_bits, std::uint8_t y_bits,
                          const QuantAgent* prev);

// A state of n agents, raw(i) giving agent i (ordered by id), quantised against `previous` (the
// last state quantised, if any).
template <class Raw>
QuantState quantise_agents(std::uint64_t tick, double time, sim::AvoidanceMode mode, double width,
                           double height, std::size_t n, Raw&& raw, const QuantState* previous) {
  QuantState s;
  s.tick = tick;
  s.time = time;
  s.avoidance = mode;
  s.x_bits = position_bits(width);
  s.y_bits = position_bits(height);
  s.agents.resize(n);
  std::size_t p = 0;
  const std::size_t pn = previous ? previous->agents.size() : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const RawAgent a = raw(i);
    while (p < pn && previous->agents[p].id < a.id) ++p;
    const QuantAgent* prev =
        p < pn && previous->agents[p].id == a.id ? &previous->agents[p] : nullptr;
    s.agents[i] = quantise_agent(a, s.x_bits, s.y_bits, prev);
  }
  return s;
}

// The same from agent states (tests, the benchmark); agents must be ordered by id.
QuantState quantise(std::uint64_t tick, double time, sim::AvoidanceMode mode, double width,
                    double height, std::span<const AgentState> agents,
                    const QuantState* previous = nullptr);

// A decoded agent as the JSON format carries it (behaviour, target and the other details are
// not in the binary format: they stay at their defaults).
AgentState dequantise(const QuantAgent& a, std::uint8_t scale = kFinestScale);

// The margin added on every side: an eighth of the viewport's larger side plus 4 units.
double viewport_margin(const Viewport& v);
// True when a quantised position is in the viewport plus its margin (closed rectangle).
bool in_view(const Viewport& v, std::uint32_t qx, std::uint32_t qy);

// A uniform grid over a QuantState's positions: cells of about eight agents (few enough cells that
// walking them costs less than testing the border cells' agents), so a viewport of k agents is
// found in O(k) plus its border cells.
class ViewGrid {
 public:
  void rebuild(const QuantState& state);
  // Indices into state.agents of the agents in the viewport plus margin, ascending (id order).
  // Safe to call from several threads at once.
  void select(const QuantState& state, const Viewport& view, std::vector<std::uint32_t>& out) const;

 private:
  std::uint32_t cell_q_ = 1;  // cell side in quantised units
  std::uint32_t cols_ = 1, rows_ = 1;
  std::vector<std::uint32_t> start_, items_;
  std::vector<std::uint32_t> xs_, ys_;  // the agents' quantised positions, parallel to items_
};

// Which agents of a state a frame covers: every one, or the listed indices (ascending).
struct AgentSet {
  const QuantState* state = nullptr;
  const std::vector<std::uint32_t>* subset = nullptr;  // null: every agent
  std::size_t size() const { return subset ? subset->size() : state->agents.size(); }
  const QuantAgent& operator[](std::size_t k) const { return state->agents[index(k)]; }
  std::uint32_t index(std::size_t k) const {
    return subset ? (*subset)[k] : static_cast<std::uint32_t>(k);
  }
};

// The change records of every agent of one state against another (both whole), written once and
// copied into the frame of every viewer on that baseline: a viewer's frame is then a merge and a
// copy. The width k is chosen over the whole pair rather than per frame.
class DeltaCache {
 public:
  static constexpr unsigned kTooLong = 255;  // a record over 56 bits: written on the spot
  void build(const QuantState& baseline, const QuantState& current);
  bool fits(const AgentSet& current, const AgentSet& baseline) const {
    return current.state == current_ && baseline.state == baseline_;
  }
  unsigned k() const { return k_; }
  // The time from the baseline to the current state, in 1/1024 s (the frames' `lead`).
  std::uint32_t lead() const { return lead_; }
  // Agent i of the current state: its record ('1' and the change, or '00') in the low 56 bits and
  // its length in bits in the top 8 (kTooLong: longer than 56), one load for a frame's copy.
  static constexpr unsigned kLengthShift = 56;
  static constexpr std::uint64_t kCodeMask = (std::uint64_t{1} << kLengthShift) - 1;
  const std::uint64_t* records() const { return records_.data(); }
  // The mean length of the records in bits (a frame's size estimate), at least 2.
  unsigned mean_bits() const { return mean_bits_; }
  // The index in the current state of the baseline's agent b, or kGone when it left the world;
  // nullptr when both states hold the same agents (the index is then b itself).
  static constexpr std::uint32_t kGone = 0xffffffffu;
  const std::uint32_t* current_of_baseline() const {
    return same_ids_ ? nullptr : cur_of_base_.data();
  }

 private:
  const QuantState* baseline_ = nullptr;
  const QuantState* current_ = nullptr;
  unsigned k_ = 4;
  std::uint32_t lead_ = 0;
  std::vector<std::uint64_t> records_;  // 0: not in the baseline
  std::vector<std::uint32_t> cur_of_base_;
  bool same_ids_ = false;
  unsigned mean_bits_ = 2;
};

// Encodes a frame of `current` against `baseline` (a keyframe when there is none). `side` is the
// optional JSON section (a snapshot message with the details), empty for none.
// With a cache built for these two states, changed agents' records are copied from it.
std::string encode_binary(AgentSet current, std::optional<AgentSet> baseline, bool filtered,
                          std::string_view side = {}, const DeltaCache* cache = nullptr);

// The fixed part of a frame, readable before its baseline is known.
struct BinaryHeader {
  bool delta = false;
  bool filtered = false;  // a viewport limited it
  std::uint64_t tick = 0;
  std::uint64_t baseline_tick = 0;  // delta only
  std::uint32_t lead = 0;           // delta only: the time from the baseline, in 1/1024 s
  std::uint64_t serial = 0;         // 0 when the frame has none (flags bit 3 clear)
  double time = 0;
  sim::AvoidanceMode avoidance = sim::AvoidanceMode::cardioid;
  std::uint8_t x_bits = 1, y_bits = 1;
  std::uint8_t scale = kFinestScale;  // positions in quanta of 1 / 2^scale unit
  std::uint64_t baseline_count = 0, agent_count = 0;
  std::string_view side;    // the JSON section (a view into the frame), empty when absent
  std::size_t body_at = 0;  // where the agents' bits start
};

// Reads a frame's header; an error sentence when it is not a well-formed binary snapshot.
std::variant<BinaryHeader, std::string> read_binary_header(std::string_view frame);

// Decodes a whole frame. `baseline` must be the agents the client holds for header.baseline_tick
// (ignored for a keyframe). Never throws and never reads out of bounds: hostile or truncated
// input, or a baseline that does not match the frame, gives an error sentence.
struct BinaryFrame {
  BinaryHeader header;
  std::vector<QuantAgent> agents;  // ordered by id: the client's view after this frame
};
std::variant<BinaryFrame, std::string> decode_binary(std::string_view frame,
                                                     std::span<const QuantAgent> baseline = {});

// The snapshot a decoded frame stands for: agents dequantised, then the side section's details
// (the full JSON objects of inspected agents) replacing theirs, and its obstacles, collisions,
// formations, measurements, inspect traces and map. An error sentence when the side section does
// not decode.
std::variant<Snapshot, std::string> to_snapshot(const BinaryFrame& frame);

// A client's side of binary snapshots: keeps the decoded states a later delta may name as its
// baseline (those at or after the newest delta's baseline: the server's baselines never go back;
// a keyframe keeps them, as acks in flight may still be used),
// and says what to answer: an ack of each frame decoded, or a keyframe request when a frame
// cannot be decoded (its baseline is not held, or it is malformed).
class BinaryClient {
 public:
  static constexpr std::size_t kMaxHeld = 32;
  struct Received {
    std::optional<BinaryFrame> frame;  // decoded, or none
    std::optional<std::uint64_t> ack;  // send SnapshotAck{*ack}
    bool keyframe = false;             // send KeyframeRequest
    std::string error;                 // why the frame was not decoded
  };
  Received receive(std::string_view bytes);
  void reset() { held_.clear(); }

 private:
  std::vector<std::pair<std::uint64_t, std::vector<QuantAgent>>> held_;  // by tick, ascending
};

// True when a frame looks like a binary snapshot (JSON text starts with '{').
inline bool is_binary_snapshot(std::string_view frame) {
  return !frame.empty() && static_cast<std::uint8_t>(frame[0]) == kBinaryMagic;
}

}  // namespace herd::protocol
