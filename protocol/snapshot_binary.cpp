// Binary snapshots: quantisation, the viewport grid, and the frame codec (PROTOCOL.md "Binary
// snapshots" describes every bit written here, in the same order).
#include "protocol/snapshot_binary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

#include "protocol/bit_stream.hpp"
#include "protocol/codec.hpp"

namespace herd::protocol {
namespace {

constexpr std::uint8_t kFlagDelta = 1, kFlagSide = 2, kFlagFiltered = 4, kFlagSerial = 8;
constexpr std::uint64_t kMaxAgentsPerFrame = std::uint64_t{1} << 24;  // far above any world's limit
constexpr unsigned kMaxSmallBits = 16;  // the small position change's width k, in [1, 16]

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t z) { return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1); }

std::uint32_t max_q(std::uint8_t bits) { return static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 1); }

std::uint32_t quantise_position(double v, std::uint8_t bits) {
  if (!std::isfinite(v) || v <= 0) return 0;
  const double q = std::round(v * kPositionScale);
  return q >= static_cast<double>(max_q(bits)) ? max_q(bits) : static_cast<std::uint32_t>(q);
}

// Signed difference of two headings in steps, in [-128, 127].
int heading_step(std::uint8_t from, std::uint8_t to) { return static_cast<std::int8_t>(static_cast<std::uint8_t>(to - from)); }

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
  if (!cw.overflow) [[likely]] put_code(w, cw.code, cw.len);
  else fill(w);
}

// ---- records: one serialize function each, for writing and reading ----------------------------

bool apply_offset(std::uint32_t base, std::uint32_t z, std::uint8_t bits, std::uint32_t& out) {
  const std::int64_t v = static_cast<std::int64_t>(base) + unzigzag(z);
  if (v < 0 || v > static_cast<std::int64_t>(max_q(bits))) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

// A whole agent (keyframes, and agents new to a delta), after `prev` (the record before it, or
// all zeros): '1' for the next id, else '0' and the id's gap as a varint; x, y, heading; then
// speed, flags, and radius with group, each a '0' when the same as prev's, else '1' and the value.
// A crowd of one size, group and speed costs one bit each for those.
template <class Stream>
bool serialize_full(Stream& s, QuantAgent& a, const QuantAgent& prev, std::uint8_t xb, std::uint8_t yb) {
  bool next_id = Stream::kWriting && a.id - prev.id == 1;
  std::uint64_t gap = Stream::kWriting ? a.id - prev.id : 1;
  if (!s.bit(next_id) || (!next_id && !s.varint(gap))) return false;
  if constexpr (Stream::kReading) {
    if (gap == 0 || gap > 0xffffffffull - prev.id) return false;  // ids ascend, within uint32
    a.id = static_cast<std::uint32_t>(prev.id + gap);
  }
  if (!s.bits(a.x, xb) || !s.bits(a.y, yb) || !serialize_uint(s, a.heading, 8)) return false;
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
    return true;
  }
  return serialize_uint(s, a.radius, 16) && serialize_uint(s, a.group, 8);
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

// An agent that changed since its baseline record b: the position as a small change ('0', k bits
// of zigzag offset each), a medium one ('1','0', k + 4 bits each) or whole ('1','1'); heading and
// speed as steps; then '0', or '1', the flags, and whether radius and group follow.
template <class Stream>
bool serialize_change(Stream& s, QuantAgent& a, const QuantAgent& b, std::uint8_t xb, std::uint8_t yb, unsigned k) {
  if constexpr (Stream::kReading) a = b;
  std::uint32_t zx = 0, zy = 0;
  bool outside_small = false, whole = false;
  if constexpr (Stream::kWriting) {
    const std::uint64_t zx64 = zigzag(static_cast<std::int64_t>(a.x) - b.x), zy64 = zigzag(static_cast<std::int64_t>(a.y) - b.y);
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
      if (!apply_offset(b.x, zx, xb, a.x) || !apply_offset(b.y, zy, yb, a.y)) return false;
  }
  bool far = false;
  int step = Stream::kWriting ? heading_step(b.heading, a.heading) : 0;
  std::uint32_t value = a.heading;
  if (!serialize_step(s, step, value, 8, far)) return false;
  if constexpr (Stream::kReading) a.heading = static_cast<std::uint8_t>(far ? value : b.heading + step);
  step = Stream::kWriting ? static_cast<int>(a.speed) - static_cast<int>(b.speed) : 0;
  value = a.speed;
  if (!serialize_step(s, step, value, 16, far)) return false;
  if constexpr (Stream::kReading) {
    const std::int64_t speed = far ? value : b.speed + step;
    if (speed < 0 || speed > 65535) return false;
    a.speed = static_cast<std::uint16_t>(speed);
  }
  bool style = Stream::kWriting && (a.radius != b.radius || a.group != b.group);
  bool other = Stream::kWriting && (a.flags != b.flags || style);
  if (!s.bit(other)) return false;
  if (!other) return true;
  if (!serialize_uint(s, a.flags, 4) || !s.bit(style)) return false;
  return !style || (serialize_uint(s, a.radius, 16) && serialize_uint(s, a.group, 8));
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
  double time = 0;
  std::uint32_t x_bits = 0, y_bits = 0;
  std::uint64_t baseline_count = 0, agent_count = 0;
};

template <class Stream>
bool serialize_head_start(Stream& s, FrameHead& h) {
  return s.bits(h.magic, 8) && s.bits(h.version, 8) && s.bits(h.flags, 8) && s.bits(h.mode, 8);
}

template <class Stream>
bool serialize_head_rest(Stream& s, FrameHead& h) {
  const bool delta = (h.flags & kFlagDelta) != 0;
  return s.varint(h.tick) && (!delta || s.varint(h.back)) && (!(h.flags & kFlagSerial) || s.varint(h.serial)) &&
         serialize_f64(s, h.time) && s.bits(h.x_bits, 8) && s.bits(h.y_bits, 8) && (!delta || s.varint(h.baseline_count)) &&
         s.varint(h.agent_count);
}

// Out of line: encode_binary's loops are compiled without it in their way.
[[gnu::noinline]] void write_head(BitWriter& w, FrameHead& head) {
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
void write_change(Writer& w, QuantAgent a, const QuantAgent& b, std::uint8_t xb, std::uint8_t yb, unsigned k) {
  WriteStream<Writer> s(w);
  serialize_change(s, a, b, xb, yb, k);
}

// The width k of the common small position change that makes the records shortest, from the
// changed agents counted by the bit width of their larger zigzag offset.
unsigned choose_k(const std::array<std::uint64_t, 34>& widths, std::uint8_t xb, std::uint8_t yb) {
  unsigned best_k = 4;
  std::uint64_t best_bits = ~std::uint64_t{0};
  for (unsigned k = 1; k <= kMaxSmallBits; ++k) {
    std::uint64_t bits = 0;
    for (unsigned wd = 0; wd < widths.size(); ++wd)
      bits += widths[wd] * (wd <= k ? 1 + 2 * k : wd <= k + 4 ? 2 + 2 * (k + 4) : 2u + xb + yb);
    if (bits < best_bits) best_bits = bits, best_k = k;
  }
  return best_k;
}

// The cached delta's pairing: the baseline's agents (all of them, or the listed indices) against
// the current ones, matched by index through the cache's map (ids ascend in both states, so the
// map ascends too): an agent is gone when it left the world or the current list; agents of the
// current list that no baseline agent matched are new, and collected in `added`.
template <bool kCurSub, bool kBaseSub, bool kMap>
void write_cached(BitWriter& w, const DeltaCache& cache, const QuantState& cur, const QuantState& base,
                  const std::uint32_t* cur_sub, const std::uint32_t* base_sub, const std::uint32_t* map,
                  std::size_t bn, std::size_t cn, std::size_t& c, std::vector<std::uint32_t>& added) {
  auto cur_index = [&](std::size_t k) {
    if constexpr (kCurSub) return cur_sub[k];
    else return static_cast<std::uint32_t>(k);
  };
  for (std::size_t k = 0; k < bn; ++k) {
    std::uint32_t b;
    if constexpr (kBaseSub) b = base_sub[k];
    else b = static_cast<std::uint32_t>(k);
    std::uint32_t i;
    if constexpr (kMap) {
      i = map[b];
      if (i == DeltaCache::kGone) {
        w.bits(0b10, 2);  // gone: '0' then '1'
        continue;
      }
    } else {
      i = b;
    }
    while (c < cn && cur_index(c) < i) added.push_back(static_cast<std::uint32_t>(c++));
    if (c == cn || cur_index(c) != i) {
      w.bits(0b10, 2);
      continue;
    }
    ++c;
    const unsigned len = cache.length(i);
    if (len != DeltaCache::kTooLong) [[likely]] {
      put_code(w, cache.code(i), len);
      continue;
    }
    w.bit(true);
    write_change(w, cur.agents[i], base.agents[b], cur.x_bits, cur.y_bits, cache.k());
  }
}

}  // namespace

std::uint8_t position_bits(double size) {
  const double q = std::isfinite(size) && size > 0 ? std::min(std::round(size * kPositionScale), 4294967295.0) : 1;
  return static_cast<std::uint8_t>(std::clamp<int>(std::bit_width(static_cast<std::uint32_t>(q)), 1, 32));
}

QuantAgent quantise_agent(const RawAgent& a, std::uint8_t xb, std::uint8_t yb, const QuantAgent* prev) {
  QuantAgent q;
  q.id = a.id;
  q.x = quantise_position(a.x, xb);
  q.y = quantise_position(a.y, yb);
  const double speed = std::hypot(a.vx, a.vy);
  const double s = std::isfinite(speed) ? std::min(65535.0, std::round(speed * kSpeedScale)) : 0;
  q.speed = static_cast<std::uint16_t>(s);
  if (speed > 1e-9 && std::isfinite(speed)) {
    const double turns = std::atan2(a.vy, a.vx) / (2 * std::numbers::pi);
    q.heading = static_cast<std::uint8_t>(static_cast<std::int64_t>(std::round(turns * kHeadingSteps)) & 0xff);
  } else if (prev) {
    q.heading = prev->heading;  // standing still: the last heading stays
  }
  if (prev) {  // hysteresis: the last step's jitter is not news
    if (std::abs(heading_step(prev->heading, q.heading)) <= 1) q.heading = prev->heading;
    if (std::abs(static_cast<int>(q.speed) - static_cast<int>(prev->speed)) <= 1) q.speed = prev->speed;
  }
  const double r = std::isfinite(a.r) ? std::clamp(std::round(a.r * kRadiusScale), 0.0, 65535.0) : 0;
  q.radius = static_cast<std::uint16_t>(r);
  q.group = a.group;
  q.flags = static_cast<std::uint8_t>((a.state & 3) | (a.collided ? 4 : 0) | (a.kinematic ? 8 : 0));
  return q;
}

QuantState quantise(std::uint64_t tick, double time, sim::AvoidanceMode mode, double width, double height,
                    std::span<const AgentState> agents, const QuantState* previous) {
  return quantise_agents(tick, time, mode, width, height, agents.size(), [&](std::size_t i) {
    const AgentState& a = agents[i];
    return RawAgent{a.id, a.x, a.y, a.vx, a.vy, a.r, a.group, static_cast<std::uint8_t>(a.state), a.collided, a.kinematic};
  }, previous);
}

AgentState dequantise(const QuantAgent& a) {
  AgentState s;
  s.id = a.id;
  s.x = a.x / kPositionScale;
  s.y = a.y / kPositionScale;
  const double speed = a.speed / kSpeedScale, angle = a.heading * (2 * std::numbers::pi / kHeadingSteps);
  s.vx = speed * std::cos(angle);
  s.vy = speed * std::sin(angle);
  s.r = a.radius / kRadiusScale;
  s.group = a.group;
  s.state = static_cast<sim::MoveState>(a.flags & 3);
  s.collided = (a.flags & 4) != 0;
  s.kinematic = (a.flags & 8) != 0;
  return s;
}

double viewport_margin(const Viewport& v) { return std::max(v.x1 - v.x0, v.y1 - v.y0) / 8 + 4; }

bool in_view(const Viewport& v, std::uint32_t qx, std::uint32_t qy) {
  const double m = viewport_margin(v), x = qx / kPositionScale, y = qy / kPositionScale;
  return x >= v.x0 - m && x <= v.x1 + m && y >= v.y0 - m && y <= v.y1 + m;
}

// ---- the viewport grid ------------------------------------------------------------------------

void ViewGrid::rebuild(const QuantState& state) {
  const double w = (max_q(state.x_bits) + 1.0) / kPositionScale, h = (max_q(state.y_bits) + 1.0) / kPositionScale;
  const double per_cell = 2;  // agents per cell, on average
  const double n = std::max(1.0, static_cast<double>(state.agents.size()) / per_cell);
  const double side = std::max({4.0, std::sqrt(w * h / n), std::sqrt(w * h / 1048576.0)});
  cell_q_ = static_cast<std::uint32_t>(std::min(4294967295.0, std::ceil(side * kPositionScale)));
  cols_ = max_q(state.x_bits) / cell_q_ + 1;
  rows_ = max_q(state.y_bits) / cell_q_ + 1;
  const std::size_t cells = static_cast<std::size_t>(cols_) * rows_;
  start_.assign(cells + 1, 0);
  for (const QuantAgent& a : state.agents) ++start_[(a.y / cell_q_) * cols_ + a.x / cell_q_ + 1];
  for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
  items_.resize(state.agents.size());
  xs_.resize(state.agents.size());
  ys_.resize(state.agents.size());
  std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
  for (std::uint32_t i = 0; i < state.agents.size(); ++i) {
    const QuantAgent& a = state.agents[i];
    const std::uint32_t k = fill[(a.y / cell_q_) * cols_ + a.x / cell_q_]++;
    items_[k] = i;
    xs_[k] = a.x;
    ys_[k] = a.y;
  }
}

void ViewGrid::select(const QuantState& state, const Viewport& view, std::vector<std::uint32_t>& out) const {
  out.clear();
  if (state.agents.empty()) return;
  // The rectangle in quantised units: q / 64 >= x0 - m exactly when q >= ceil((x0 - m) * 64),
  // since q is an integer and * 64 is exact; the same bounds as in_view(), compared as integers.
  const double m = viewport_margin(view);
  auto lower = [](double v) { return std::clamp(std::ceil(v * kPositionScale), -1.0, 4294967296.0); };
  auto upper = [](double v) { return std::clamp(std::floor(v * kPositionScale), -1.0, 4294967296.0); };
  const double lx = lower(view.x0 - m), hx = upper(view.x1 + m), ly = lower(view.y0 - m), hy = upper(view.y1 + m);
  if (hx < 0 || hy < 0 || lx > hx || ly > hy) return;
  const auto qlx = static_cast<std::int64_t>(lx), qhx = static_cast<std::int64_t>(hx);
  const auto qly = static_cast<std::int64_t>(ly), qhy = static_cast<std::int64_t>(hy);
  auto cell = [&](std::int64_t q, std::uint32_t count) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(q / cell_q_, 0, count - 1));
  };
  const std::uint32_t cx0 = cell(std::max<std::int64_t>(qlx, 0), cols_), cx1 = cell(qhx, cols_);
  const std::uint32_t cy0 = cell(std::max<std::int64_t>(qly, 0), rows_), cy1 = cell(qhy, rows_);
  thread_local std::vector<std::uint64_t> marks_buffer;  // one bit per agent (select may run on several threads)
  marks_buffer.assign(state.agents.size() / 64 + 1, 0);
  std::uint64_t* const marks = marks_buffer.data();  // a local pointer: the loops below keep it in a register
  const std::uint32_t* const items = items_.data();
  const std::uint32_t* const xs = xs_.data();
  const std::uint32_t* const ys = ys_.data();
  std::size_t count = 0;  // every agent is in one cell: a bit is set at most once
  auto mark = [&](std::uint32_t i, bool inside) {
    marks[i / 64] |= static_cast<std::uint64_t>(inside) << (i % 64);
    count += inside;
  };
  // Cells wholly inside the rectangle need no test; the others are tested through the grid's own
  // copy of the positions, in cell order.
  auto inside_span = [&](std::uint32_t cell, std::int64_t lo, std::int64_t hi) {
    const std::int64_t first = static_cast<std::int64_t>(cell) * cell_q_;
    return first >= lo && first + cell_q_ - 1 <= hi;
  };
  std::uint32_t ix0 = cx0;  // the cells of a row wholly inside in x: [ix0, ix1)
  while (ix0 <= cx1 && !inside_span(ix0, qlx, qhx)) ++ix0;
  std::uint32_t ix1 = ix0;
  while (ix1 <= cx1 && inside_span(ix1, qlx, qhx)) ++ix1;
  for (std::uint32_t cy = cy0; cy <= cy1; ++cy) {
    const std::size_t row = static_cast<std::size_t>(cy) * cols_;
    auto test = [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t k = begin; k < end; ++k) mark(items[k], xs[k] >= qlx && xs[k] <= qhx && ys[k] >= qly && ys[k] <= qhy);
    };
    if (ix0 == ix1 || !inside_span(cy, qly, qhy)) {
      test(start_[row + cx0], start_[row + cx1 + 1]);  // one run per row
      continue;
    }
    test(start_[row + cx0], start_[row + ix0]);
    for (std::uint32_t k = start_[row + ix0]; k < start_[row + ix1]; ++k) mark(items[k], true);
    test(start_[row + ix1], start_[row + cx1 + 1]);
  }
  // The bits in order give the indices in id order, with no sort; sized once and written through
  // a pointer (push_back would store the list's end at every agent).
  out.resize(count);
  std::uint32_t* o = out.data();
  const std::size_t words = marks_buffer.size();
  for (std::size_t word = 0; word < words; ++word)
    for (std::uint64_t bits = marks[word]; bits != 0; bits &= bits - 1)
      *o++ = static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
}

// ---- frames -----------------------------------------------------------------------------------

std::string encode_binary(AgentSet current, std::optional<AgentSet> baseline, bool filtered, std::string_view side,
                          const DeltaCache* cache) {
  const QuantState& cur = *current.state;
  std::string out;
  // Sized for the whole frame (the writer grows it by doubling, a copy each time): records of the
  // cache's mean length and some new agents, or whole records.
  const bool cached = cache && baseline && cache->fits(current, *baseline);
  const std::size_t record_bits = cached ? cache->mean_bits() + 1 : 16u + cur.x_bits + cur.y_bits;
  out.reserve(64 + side.size() + current.size() * record_bits / 8);
  BitWriter w(out);
  const std::uint8_t flags = static_cast<std::uint8_t>((baseline ? kFlagDelta : 0) | (side.empty() ? 0 : kFlagSide) |
                                                       (filtered ? kFlagFiltered : 0) | (cur.serial ? kFlagSerial : 0));
  FrameHead head;
  head.flags = flags;
  head.mode = static_cast<std::uint8_t>(cur.avoidance);
  head.tick = cur.tick;
  head.back = baseline ? cur.tick - baseline->state->tick : 0;
  head.serial = cur.serial;
  head.time = cur.time;
  head.x_bits = cur.x_bits;
  head.y_bits = cur.y_bits;
  head.baseline_count = baseline ? baseline->size() : 0;
  head.agent_count = current.size();
  write_head(w, head);
  if (!side.empty()) {
    w.varint(side.size());
    w.append(side);  // byte aligned here (every field before is whole bytes): nothing is padded
  }
  // The baseline's agents in id order: '1' changed (then what changed), '00' unchanged, '01' gone.
  // The current agents not in the baseline are written whole after them. A first pass pairs them
  // up and picks the width k of the common small position change (the smallest frame).
  const std::uint8_t xb = cur.x_bits, yb = cur.y_bits;
  struct Op {
    std::uint32_t base, cur;  // cur == kGone: the agent left
  };
  constexpr std::uint32_t kGone = 0xffffffffu;
  thread_local std::vector<Op> ops;
  thread_local std::vector<std::uint32_t> added;
  ops.clear();
  added.clear();
  std::array<std::uint64_t, 34> widths{};  // changed agents by bit width of their larger zigzag offset
  std::size_t c = 0;
  const std::size_t cn = current.size();
  if (cached) {
    // The common frame (a viewer on a recent baseline): one pass pairs the baseline's agents with
    // the current ones and copies each record the cache wrote once for every viewer.
    w.bits(cache->k(), 8);
    const std::uint32_t* cur_sub = current.subset ? current.subset->data() : nullptr;
    const std::uint32_t* base_sub = baseline->subset ? baseline->subset->data() : nullptr;
    const std::uint32_t* map = cache->current_of_baseline();
    auto pair_up = [&]<bool kCurSub, bool kBaseSub, bool kMap>() {
      write_cached<kCurSub, kBaseSub, kMap>(w, *cache, cur, *baseline->state, cur_sub, base_sub, map, baseline->size(),
                                            cn, c, added);
    };
    // The loop specialised for the lists it walks: whole states or viewport selections, and the
    // same agents in both states or not.
    if (cur_sub && base_sub) map ? pair_up.operator()<true, true, true>() : pair_up.operator()<true, true, false>();
    else if (cur_sub) map ? pair_up.operator()<true, false, true>() : pair_up.operator()<true, false, false>();
    else if (base_sub) map ? pair_up.operator()<false, true, true>() : pair_up.operator()<false, true, false>();
    else map ? pair_up.operator()<false, false, true>() : pair_up.operator()<false, false, false>();
  } else if (baseline) {
    for (std::size_t k = 0; k < baseline->size(); ++k) {
      const QuantAgent& b = (*baseline)[k];
      while (c < cn && current[c].id < b.id) added.push_back(static_cast<std::uint32_t>(c++));
      if (c < cn && current[c].id == b.id) {
        const QuantAgent& a = current[c];
        if (!(a == b)) {
          const std::uint64_t z = std::max(zigzag(static_cast<std::int64_t>(a.x) - b.x), zigzag(static_cast<std::int64_t>(a.y) - b.y));
          ++widths[static_cast<std::size_t>(std::bit_width(z))];
        }
        ops.push_back({static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(c++)});
      } else {
        ops.push_back({static_cast<std::uint32_t>(k), kGone});
      }
    }
  }
  while (c < cn) added.push_back(static_cast<std::uint32_t>(c++));
  if (!cached) {  // a keyframe, or a baseline without a cache: k, then the pairs found above
    const unsigned best_k = choose_k(widths, xb, yb);
    w.bits(best_k, 8);
    for (const Op& op : ops) {
      const QuantAgent& b = (*baseline)[op.base];
      if (op.cur == kGone) {
        w.bits(0b10, 2);  // '0' then '1'
        continue;
      }
      const QuantAgent& a = current[op.cur];
      if (a == b) w.bits(0b00, 2);
      else write_gathered(w, [&](auto& out) {
        out.bit(true);
        write_change(out, a, b, xb, yb, best_k);
      });
    }
  }
  w.varint(added.size());
  QuantAgent prev;  // id 0, every field 0: the first record's "same as before" is against this
  for (std::uint32_t k : added) {
    write_gathered(w, [&](auto& out) { write_full(out, current[k], prev, xb, yb); });
    prev = current[k];
  }
  w.flush();
  return out;
}

void DeltaCache::build(const QuantState& baseline, const QuantState& current) {
  baseline_ = &baseline;
  current_ = &current;
  const std::size_t n = current.agents.size();
  code_.assign(n, 0);
  len_.assign(n, 0);
  cur_of_base_.assign(baseline.agents.size(), kGone);
  same_ids_ = baseline.agents.size() == n;
  std::array<std::uint64_t, 34> widths{};
  std::size_t b = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const QuantAgent& a = current.agents[c];
    while (b < baseline.agents.size() && baseline.agents[b].id < a.id) ++b;
    if (b == baseline.agents.size() || baseline.agents[b].id != a.id) {
      same_ids_ = false;
      continue;
    }
    cur_of_base_[b] = static_cast<std::uint32_t>(c);
    const QuantAgent& o = baseline.agents[b];
    if (!(a == o))
      ++widths[static_cast<std::size_t>(std::bit_width(std::max(zigzag(static_cast<std::int64_t>(a.x) - o.x),
                                                                zigzag(static_cast<std::int64_t>(a.y) - o.y))))];
  }
  k_ = choose_k(widths, current.x_bits, current.y_bits);
  for (std::size_t b = 0; b < baseline.agents.size(); ++b) {
    const std::uint32_t c = cur_of_base_[b];
    if (c == kGone) continue;
    const QuantAgent& a = current.agents[c];
    const QuantAgent& o = baseline.agents[b];
    if (a == o) {
      len_[c] = 2;  // '00'
      continue;
    }
    CodeWriter cw;
    cw.bit(true);
    write_change(cw, a, o, current.x_bits, current.y_bits, k_);
    code_[c] = cw.code;
    len_[c] = static_cast<std::uint8_t>(cw.overflow ? kTooLong : cw.len);
  }
  std::uint64_t total = 0;
  for (const std::uint8_t len : len_) total += len;
  mean_bits_ = static_cast<unsigned>(std::max<std::uint64_t>(2, total / std::max<std::size_t>(1, n) + 1));
}

std::variant<BinaryHeader, std::string> read_binary_header(std::string_view frame) {
  BitReader r(frame);
  ReadStream rs(r);
  FrameHead head;
  if (!serialize_head_start(rs, head)) return std::string("binary snapshot: truncated header");
  if (head.magic != kBinaryMagic) return std::string("binary snapshot: bad magic byte");
  if (head.version != kBinaryVersion) return std::string("binary snapshot: unknown format version");
  if ((head.flags & ~15u) != 0) return std::string("binary snapshot: unknown flags");
  if (head.mode > 2) return std::string("binary snapshot: bad avoidance mode");
  if (!serialize_head_rest(rs, head)) return std::string("binary snapshot: truncated header");
  const std::uint32_t flags = head.flags, xb = head.x_bits, yb = head.y_bits;
  const std::uint64_t back = head.back;
  const bool numbered = (flags & kFlagSerial) != 0;
  BinaryHeader h;
  h.delta = (flags & kFlagDelta) != 0;
  h.filtered = (flags & kFlagFiltered) != 0;
  h.avoidance = static_cast<sim::AvoidanceMode>(head.mode);
  h.tick = head.tick;
  h.serial = head.serial;
  h.time = head.time;
  h.baseline_count = head.baseline_count;
  h.agent_count = head.agent_count;
  std::uint64_t side_bytes = 0;
  if (back > h.tick) return std::string("binary snapshot: baseline before tick 0");
  if (numbered && h.serial == 0) return std::string("binary snapshot: serial 0");
  h.baseline_tick = h.tick - back;
  if (xb < 1 || xb > 32 || yb < 1 || yb > 32) return std::string("binary snapshot: bad position widths");
  h.x_bits = static_cast<std::uint8_t>(xb);
  h.y_bits = static_cast<std::uint8_t>(yb);
  if (h.agent_count > kMaxAgentsPerFrame || h.baseline_count > kMaxAgentsPerFrame)
    return std::string("binary snapshot: too many agents");
  if (flags & kFlagSide) {
    if (!r.varint(side_bytes) || side_bytes == 0 || side_bytes > r.rest().size())
      return std::string("binary snapshot: truncated side section");
    h.side = r.rest().substr(0, side_bytes);
    r.skip_bytes(side_bytes);
  }
  h.body_at = frame.size() - r.rest().size();
  return h;
}

std::variant<BinaryFrame, std::string> decode_binary(std::string_view frame, std::span<const QuantAgent> baseline) {
  auto head = read_binary_header(frame);
  if (auto* err = std::get_if<std::string>(&head)) return std::move(*err);
  BinaryFrame f;
  f.header = std::get<BinaryHeader>(head);
  const BinaryHeader& h = f.header;
  if (!h.delta) baseline = {};
  else if (baseline.size() != h.baseline_count) return std::string("binary snapshot: the baseline does not match the frame");
  BitReader r(frame);
  ReadStream rs(r);
  if (!r.skip_bytes(h.body_at)) return std::string("binary snapshot: truncated");
  std::uint32_t k = 0;
  if (!r.bits(8, k) || k < 1 || k > kMaxSmallBits) return std::string("binary snapshot: bad position change width");
  const std::size_t bits_left = r.rest().size() * 8;
  f.agents.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(h.agent_count, baseline.size() + bits_left)));
  for (const QuantAgent& b : baseline) {
    bool changed = false, gone = false;
    if (!r.bit(changed)) return std::string("binary snapshot: truncated agents");
    if (changed) {
      QuantAgent a;
      if (!serialize_change(rs, a, b, h.x_bits, h.y_bits, k)) return std::string("binary snapshot: bad or truncated change");
      f.agents.push_back(a);
    } else {
      if (!r.bit(gone)) return std::string("binary snapshot: truncated agents");
      if (!gone) f.agents.push_back(b);
    }
  }
  std::uint64_t added = 0;
  if (!r.varint(added) || added > h.agent_count) return std::string("binary snapshot: bad count of new agents");
  const std::size_t kept = f.agents.size();
  QuantAgent prev;
  for (std::uint64_t k = 0; k < added; ++k) {
    QuantAgent a;
    if (!serialize_full(rs, a, prev, h.x_bits, h.y_bits)) return std::string("binary snapshot: bad or truncated agent");
    f.agents.push_back(a);
    prev = a;
  }
  if (f.agents.size() != h.agent_count) return std::string("binary snapshot: agent count does not match");
  std::inplace_merge(f.agents.begin(), f.agents.begin() + static_cast<std::ptrdiff_t>(kept), f.agents.end(),
                     [](const QuantAgent& a, const QuantAgent& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < f.agents.size(); ++i)
    if (f.agents[i - 1].id >= f.agents[i].id) return std::string("binary snapshot: an agent id twice");
  return f;
}

std::variant<Snapshot, std::string> to_snapshot(const BinaryFrame& frame) {
  Snapshot s;
  s.tick = frame.header.tick;
  s.serial = frame.header.serial;
  s.time = frame.header.time;
  s.avoidance = frame.header.avoidance;
  s.agents.reserve(frame.agents.size());
  for (const QuantAgent& a : frame.agents) s.agents.push_back(dequantise(a));
  if (frame.header.side.empty()) return s;
  auto side = decode_server(frame.header.side);
  auto* msg = std::get_if<ServerMessage>(&side);
  auto* extra = msg ? std::get_if<Snapshot>(msg) : nullptr;
  if (!extra) return std::string("binary snapshot: the side section is not a snapshot");
  // Details: the inspected agents' whole objects replace their binary ones (when in view).
  std::size_t k = 0;
  for (AgentState& detail : extra->agents) {
    while (k < s.agents.size() && s.agents[k].id < detail.id) ++k;
    if (k < s.agents.size() && s.agents[k].id == detail.id) s.agents[k] = std::move(detail);
  }
  s.obstacles = std::move(extra->obstacles);
  s.collisions = std::move(extra->collisions);
  s.inspect = std::move(extra->inspect);
  s.formations = std::move(extra->formations);
  s.map = std::move(extra->map);
  s.map_cleared = extra->map_cleared;
  return s;
}

BinaryClient::Received BinaryClient::receive(std::string_view bytes) {
  Received out;
  auto head = read_binary_header(bytes);
  if (auto* err = std::get_if<std::string>(&head)) {
    out.error = *err;
    out.keyframe = true;
    return out;
  }
  const BinaryHeader& h = std::get<BinaryHeader>(head);
  std::span<const QuantAgent> base;
  if (h.delta) {
    auto it = std::find_if(held_.begin(), held_.end(), [&](const auto& e) { return e.first == h.baseline_tick; });
    if (it == held_.end()) {
      out.error = "binary snapshot: the baseline is not held";
      out.keyframe = true;
      return out;
    }
    base = it->second;
  }
  auto decoded = decode_binary(bytes, base);
  if (auto* err = std::get_if<std::string>(&decoded)) {
    out.error = *err;
    out.keyframe = true;
    return out;
  }
  BinaryFrame& f = std::get<BinaryFrame>(decoded);
  // A keyframe does not make the states held useless: acks in flight may still make the server
  // build the next delta on one of them. Only a delta's baseline says which are (the older ones),
  // and a tick that went back (the world was replaced) ends them all.
  if (!held_.empty() && held_.back().first >= h.tick) held_.clear();
  if (h.delta) std::erase_if(held_, [&](const auto& e) { return e.first < h.baseline_tick; });
  held_.emplace_back(h.tick, f.agents);
  if (held_.size() > kMaxHeld) held_.erase(held_.begin());
  out.ack = h.tick;
  out.frame = std::move(f);
  return out;
}

}  // namespace herd::protocol
