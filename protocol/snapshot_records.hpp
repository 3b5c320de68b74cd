// The binary snapshot's records, each described once as a serialize function over a stream
// (bit_stream.hpp: WriteStream writes it, ReadStream reads it), in PROTOCOL.md's order: a whole
// agent, an agent's change since its baseline, and the frame's header. Private to the codec
// (snapshot_binary.cpp); quantise.cpp shares the small arithmetic at the top.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>

#include "protocol/bit_stream.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::protocol::records {

inline constexpr std::uint8_t kFlagDelta = 1, kFlagSide = 2, kFlagFiltered = 4, kFlagSerial = 8;
inline constexpr std::uint64_t kMaxAgentsPerFrame = std::uint64_t{1}
                                                    << 24;  // far above any world's limit
inline constexpr unsigned kMaxSmallBits = 16;  // the small position change's width k, in [1, 16]

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t z) {
  return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
}

inline std::uint32_t max_q(std::uint8_t bits) {
  return static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 1);
}

inline std::uint32_t quantise_position(double v, std::uint8_t bits) {
  if (!std::isfinite(v) || v <= 0) return 0;
  const double q = std::round(v * kPositionScale);
  return q >= static_cast<double>(max_q(bits)) ? max_q(bits) : static_cast<std::uint32_t>(q);
}

// Signed difference of two headings in steps, in [-128, 127].
inline int heading_step(std::uint8_t from, std::uint8_t to) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(to - from));
}

// ---- dead reckoning ---------------------------------------------------------------------------
// A delta's positions are coded against where each agent of the baseline would be had it kept its
// quantised heading and speed for the frame's lead (PROTOCOL.md "Prediction"): all in integers,
// so that every decoder predicts the same quanta.

inline constexpr std::uint64_t kMaxLead = 65535;  // the lead, in 1/1024 s, at most 64 s

// round(16384 cos(2 pi h / 256)) for each heading step h: no entry is within 0.005 of a tie, so
// every language's cos gives the same table.
inline const std::array<std::int32_t, 256>& cos_table() {
  static const std::array<std::int32_t, 256> table = [] {
    std::array<std::int32_t, 256> t{};
    for (int h = 0; h < 256; ++h)
      t[static_cast<std::size_t>(h)] =
          static_cast<std::int32_t>(std::lround(16384 * std::cos(2 * std::numbers::pi * h / 256)));
    return t;
  }();
  return table;
}

// The lead of a delta from its baseline's time to its own, in 1/1024 s, within [0, kMaxLead].
inline std::uint32_t lead_between(double baseline_time, double time) {
  const double lead = std::round((time - baseline_time) * 1024);
  return !(lead > 0)                             ? 0
         : lead >= static_cast<double>(kMaxLead) ? kMaxLead
                                                 : static_cast<std::uint32_t>(lead);
}

struct Predicted {
  std::uint32_t x, y;
};

// Where baseline agent b is predicted after `lead`: its position plus speed x lead x (cos, sin) of
// its heading, in quanta (speed / 16 unit/s x lead / 1024 s x 2^scale quanta a unit = speed x
// lead x 2^scale / 2^14), rounded half up, clamped to the world's quanta. The cosines are in
// 1/16384, so the shift is 28 - scale.
inline Predicted predict(const QuantAgent& b, std::uint32_t lead, std::uint8_t xb, std::uint8_t yb,
                         std::uint8_t scale) {
  if (b.speed == 0 || lead == 0) return {b.x, b.y};
  const auto& c = cos_table();
  const unsigned shift = 28u - std::min<unsigned>(scale, kFinestScale);
  const std::int64_t m = static_cast<std::int64_t>(b.speed) * lead;
  const std::int64_t half = std::int64_t{1} << (shift - 1);
  const std::int64_t dx = (m * c[b.heading] + half) >> shift;
  const std::int64_t dy = (m * c[static_cast<std::uint8_t>(b.heading + 192)] + half) >> shift;
  auto fit = [](std::int64_t v, std::uint8_t bits) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, max_q(bits)));
  };
  return {fit(static_cast<std::int64_t>(b.x) + dx, xb),
          fit(static_cast<std::int64_t>(b.y) + dy, yb)};
}

// ---- records ----------------------------------------------------------------------------------

// Collects up to 64 bits of one agent's record, in BitWriter's order: a change record for the
// DeltaCache, or a whole one before it is written as one field.
struct CodeWriter {
  std::uint64_t code = 0;
  unsigned len = 0;
  bool overflow = false;
  void bits(std::uint64_t value, unsigned count) {
    if (len + count > 64) {
      overflow = true;
      return;
    }
    code |= (value & ((std::uint64_t{1} << count) - 1)) << len;
    len += count;
  }
  void bit(bool b) { bits(b ? 1 : 0, 1); }
  void varint(std::uint64_t v) { write_varint(*this, v); }
};

// Writes a record CodeWriter collected: one field when it fits the writer's widest.
[[gnu::always_inline]] inline void put_code(BitWriter& w, std::uint64_t code, unsigned len) {
  if (len <= 56) [[likely]] {
    w.bits(code, len);
  } else {
    w.bits(code & 0xffffffffu, 32);
    w.bits(code >> 32, len - 32);
  }
}

// Writes one record that `fill(writer)` writes: gathered into one field first (one write instead of
// one per field), or field by field when it is longer than 64 bits.
template <class Fill>
void write_gathered(BitWriter& w, Fill&& fill) {
  CodeWriter cw;
  fill(cw);
  if (!cw.overflow) [[likely]]
    put_code(w, cw.code, cw.len);
  else
    fill(w);
}

// ---- records: one serialize function each, for writing and reading ----------------------------

inline bool apply_offset(std::uint32_t base, std::uint32_t z, std::uint8_t bits,
                         std::uint32_t& out) {
  const std::int64_t v = static_cast<std::int64_t>(base) + unzigzag(z);
  if (v < 0 || v > static_cast<std::int64_t>(max_q(bits))) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

// A whole agent (keyframes, and agents new to a delta), after `prev` (the record before it, or
// all zeros): '1' for the next id, else '0' and the id's gap as a varint; x, y, heading; then '0'
// when the rest is prev's, else '1' and speed, flags, radius with group, and team, each a '0' when
// the same as prev's, else '1' and the value. A crowd of one size, group, team and speed costs one
// bit for all of those.
template <class Stream>
bool serialize_full(Stream& s, QuantAgent& a, const QuantAgent& prev, std::uint8_t xb,
                    std::uint8_t yb) {
  bool next_id = Stream::kWriting && a.id - prev.id == 1;
  std::uint64_t gap = Stream::kWriting ? a.id - prev.id : 1;
  if (!s.bit(next_id) || (!next_id && !s.varint(gap))) return false;
  if constexpr (Stream::kReading) {
    if (gap == 0 || gap > 0xffffffffull - prev.id) return false;  // ids ascend, within uint32
    a.id = static_cast<std::uint32_t>(prev.id + gap);
  }
  if (!s.bits(a.x, xb) || !s.bits(a.y, yb) || !serialize_uint(s, a.heading, 8)) return false;
  bool rest =
      Stream::kWriting && (a.speed != prev.speed || a.flags != prev.flags ||
                           a.radius != prev.radius || a.group != prev.group || a.team != prev.team);
  if (!s.bit(rest)) return false;
  if (!rest) {
    a.speed = prev.speed;
    a.flags = prev.flags;
    a.radius = prev.radius;
    a.group = prev.group;
    a.team = prev.team;
    return true;
  }
  bool differs = Stream::kWriting && a.speed != prev.speed;
  if (!s.bit(differs)) return false;
  if (differs ? !serialize_uint(s, a.speed, 16) : (a.speed = prev.speed, false)) return false;
  differs = Stream::kWriting && a.flags != prev.flags;
  if (!s.bit(differs)) return false;
  if (differs ? !serialize_uint(s, a.flags, 4) : (a.flags = prev.flags, false)) return false;
  differs = Stream::kWriting && (a.radius != prev.radius || a.group != prev.group);
  if (!s.bit(differs)) return false;
  if (!differs) {
    a.radius = prev.radius;
    a.group = prev.group;
  } else if (!serialize_uint(s, a.radius, 16) || !serialize_uint(s, a.group, 8)) {
    return false;
  }
  differs = Stream::kWriting && a.team != prev.team;
  if (!s.bit(differs)) return false;
  if (!differs) {
    a.team = prev.team;
    return true;
  }
  return serialize_uint(s, a.team, 6);
}

// A field that moves by little (heading, speed): '0' unchanged; '1','0' and the step as a 4-bit
// zigzag; '1','1' and the whole value in `width` bits. Writing, `step` and `whole` are given;
// reading, `step` (0 when unchanged) or `whole` (with far set) is what was read.
template <class Stream>
bool serialize_step(Stream& s, int& step, std::uint32_t& whole, unsigned width, bool& far) {
  bool moved = Stream::kWriting && step != 0;
  far = Stream::kWriting && (step < -8 || step > 7);
  if (!s.bit(moved)) return false;
  if (!moved) {
    step = 0;
    return true;
  }
  if (!s.bit(far)) return false;
  if (far) return s.bits(whole, width);
  std::uint32_t z = Stream::kWriting ? static_cast<std::uint32_t>(zigzag(step)) : 0;
  if (!s.bits(z, 4)) return false;
  step = static_cast<int>(unzigzag(z));
  return true;
}

// An agent that changed since its baseline record b otherwise than by moving as predicted (p):
// the position as a small offset from p ('0', k bits of zigzag offset each), a medium one
// ('1','0', k + 4 bits each) or whole ('1','1'); heading and speed as steps; then '0', or '1',
// the flags, and whether radius, group and team follow.
template <class Stream>
bool serialize_change(Stream& s, QuantAgent& a, const QuantAgent& b, Predicted p, std::uint8_t xb,
                      std::uint8_t yb, unsigned k) {
  if constexpr (Stream::kReading) a = b;
  std::uint32_t zx = 0, zy = 0;
  bool outside_small = false, whole = false;
  if constexpr (Stream::kWriting) {
    const std::uint64_t zx64 = zigzag(static_cast<std::int64_t>(a.x) - p.x),
                        zy64 = zigzag(static_cast<std::int64_t>(a.y) - p.y);
    const std::uint64_t small = std::uint64_t{1} << k, medium = std::uint64_t{1} << (k + 4);
    outside_small = zx64 >= small || zy64 >= small;
    whole = zx64 >= medium || zy64 >= medium;
    zx = static_cast<std::uint32_t>(zx64);
    zy = static_cast<std::uint32_t>(zy64);
  }
  if (!s.bit(outside_small) || (outside_small && !s.bit(whole))) return false;
  if (whole) {
    if (!s.bits(a.x, xb) || !s.bits(a.y, yb)) return false;
  } else {
    const unsigned width = outside_small ? k + 4 : k;
    if (!s.bits(zx, width) || !s.bits(zy, width)) return false;
    if constexpr (Stream::kReading)
      if (!apply_offset(p.x, zx, xb, a.x) || !apply_offset(p.y, zy, yb, a.y)) return false;
  }
  bool far = false;
  int step = Stream::kWriting ? heading_step(b.heading, a.heading) : 0;
  std::uint32_t value = a.heading;
  if (!serialize_step(s, step, value, 8, far)) return false;
  if constexpr (Stream::kReading)
    a.heading = static_cast<std::uint8_t>(far ? value : b.heading + step);
  step = Stream::kWriting ? static_cast<int>(a.speed) - static_cast<int>(b.speed) : 0;
  value = a.speed;
  if (!serialize_step(s, step, value, 16, far)) return false;
  if constexpr (Stream::kReading) {
    const std::int64_t speed = far ? value : b.speed + step;
    if (speed < 0 || speed > 65535) return false;
    a.speed = static_cast<std::uint16_t>(speed);
  }
  bool style = Stream::kWriting && (a.radius != b.radius || a.group != b.group || a.team != b.team);
  bool other = Stream::kWriting && (a.flags != b.flags || style);
  if (!s.bit(other)) return false;
  if (!other) return true;
  if (!serialize_uint(s, a.flags, 4) || !s.bit(style)) return false;
  return !style || (serialize_uint(s, a.radius, 16) && serialize_uint(s, a.group, 8) &&
                    serialize_uint(s, a.team, 6));
}

// An f64 as its IEEE bits, low word first.
template <class Stream>
bool serialize_f64(Stream& s, double& d) {
  std::uint64_t u = 0;
  if constexpr (Stream::kWriting) std::memcpy(&u, &d, sizeof u);
  std::uint32_t lo = static_cast<std::uint32_t>(u), hi = static_cast<std::uint32_t>(u >> 32);
  if (!s.bits(lo, 32) || !s.bits(hi, 32)) return false;
  if constexpr (Stream::kReading) {
    u = lo | (static_cast<std::uint64_t>(hi) << 32);
    std::memcpy(&d, &u, sizeof d);
  }
  return true;
}

// A frame's header before its side section (PROTOCOL.md "Binary snapshots"), in two parts: the
// four bytes that say what follows (checked before the rest is read), then the rest.
struct FrameHead {
  std::uint32_t magic = kBinaryMagic, version = kBinaryVersion, flags = 0, mode = 0;
  std::uint64_t tick = 0, back = 0, serial = 0;  // back: ticks from the baseline (deltas)
  std::uint64_t lead = 0;  // deltas: the time from the baseline, in 1/1024 s (lead_between)
  double time = 0;
  std::uint32_t x_bits = 0, y_bits = 0, scale = kFinestScale;
  std::uint64_t baseline_count = 0, agent_count = 0;
};

template <class Stream>
bool serialize_head_start(Stream& s, FrameHead& h) {
  return s.bits(h.magic, 8) && s.bits(h.version, 8) && s.bits(h.flags, 8) && s.bits(h.mode, 8);
}

template <class Stream>
bool serialize_head_rest(Stream& s, FrameHead& h) {
  const bool delta = (h.flags & kFlagDelta) != 0;
  return s.varint(h.tick) && (!delta || (s.varint(h.back) && s.varint(h.lead))) &&
         (!(h.flags & kFlagSerial) || s.varint(h.serial)) && serialize_f64(s, h.time) &&
         s.bits(h.x_bits, 8) && s.bits(h.y_bits, 8) && s.bits(h.scale, 8) &&
         (!delta || s.varint(h.baseline_count)) && s.varint(h.agent_count);
}

// Out of line: encode_binary's loops are compiled without it in their way.
[[gnu::noinline]] inline void write_head(BitWriter& w, FrameHead& head) {
  WriteStream<BitWriter> ws(w);
  serialize_head_start(ws, head);
  serialize_head_rest(ws, head);
}

// The writers the encoder calls, over any bits/bit/varint writer (BitWriter, CodeWriter).
template <class Writer>
void write_full(Writer& w, QuantAgent a, const QuantAgent& prev, std::uint8_t xb, std::uint8_t yb) {
  WriteStream<Writer> s(w);
  serialize_full(s, a, prev, xb, yb);
}

template <class Writer>
void write_change(Writer& w, QuantAgent a, const QuantAgent& b, Predicted p, std::uint8_t xb,
                  std::uint8_t yb, unsigned k) {
  WriteStream<Writer> s(w);
  serialize_change(s, a, b, p, xb, yb, k);
}

// True when a differs from its baseline record b in its position alone.
inline bool only_moved(const QuantAgent& a, const QuantAgent& b) {
  return a.heading == b.heading && a.speed == b.speed && a.flags == b.flags &&
         a.radius == b.radius && a.group == b.group && a.team == b.team;
}

// The record of baseline agent b, now a, predicted at p: '00' as predicted (moved as its heading
// and speed say, nothing else changed); '1','0' and the position's offsets from p in k bits each
// (it only moved, within them); else '1','1' and the change.
template <class Writer>
void write_record(Writer& w, const QuantAgent& a, const QuantAgent& b, Predicted p, std::uint8_t xb,
                  std::uint8_t yb, unsigned k) {
  if (only_moved(a, b)) {
    if (a.x == p.x && a.y == p.y) {
      w.bits(0b00, 2);
      return;
    }
    const std::uint64_t zx = zigzag(static_cast<std::int64_t>(a.x) - p.x),
                        zy = zigzag(static_cast<std::int64_t>(a.y) - p.y);
    if (zx < (std::uint64_t{1} << k) && zy < (std::uint64_t{1} << k)) {
      w.bits(0b01, 2);  // '1' then '0'
      w.bits(zx, k);
      w.bits(zy, k);
      return;
    }
  }
  w.bits(0b11, 2);
  write_change(w, a, b, p, xb, yb, k);
}

// Changed agents of a delta, by the bit width of the larger zigzag offset of their position from
// the prediction: those that only moved, and the others. choose_k reads them.
struct OffsetWidths {
  std::array<std::uint64_t, 34> moved{}, changed{};
  void count(const QuantAgent& a, const QuantAgent& b, Predicted p) {
    const bool moved_only = only_moved(a, b);
    if (moved_only && a.x == p.x && a.y == p.y) return;
    const auto w = static_cast<std::size_t>(
        std::bit_width(std::max(zigzag(static_cast<std::int64_t>(a.x) - p.x),
                                zigzag(static_cast<std::int64_t>(a.y) - p.y))));
    ++(moved_only ? moved : changed)[w];
  }
};

}  // namespace herd::protocol::records
