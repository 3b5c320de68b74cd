// Binary snapshots: the frame codec (PROTOCOL.md "Binary snapshots" describes every bit written
// here, in the same order). The records are in snapshot_records.hpp; quantisation and the
// viewport grid in quantise.cpp; the client's side (baselines held, to_snapshot) in
// binary_client.cpp.
#include "protocol/snapshot_binary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

#include "protocol/bit_stream.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_records.hpp"

namespace herd::protocol {
namespace {

using namespace records;

// The width k of the small position offset that makes the records shortest, from the changed
// agents counted by the bit width of their larger zigzag offset from the prediction.
unsigned choose_k(const OffsetWidths& widths, std::uint8_t xb, std::uint8_t yb) {
  unsigned best_k = 4;
  std::uint64_t best_bits = ~std::uint64_t{0};
  for (unsigned k = 1; k <= kMaxSmallBits; ++k) {
    auto position = [&](unsigned wd) {
      return wd <= k ? 1 + 2 * k : wd <= k + 4 ? 2 + 2 * (k + 4) : 2u + xb + yb;
    };
    std::uint64_t bits = 0;
    for (unsigned wd = 0; wd < widths.moved.size(); ++wd) {
      // One that only moved: '10' and the offsets, or a change whose other parts are '0's.
      bits += widths.moved[wd] * (wd <= k ? 2 + 2 * k : 2 + position(wd) + 3);
      bits += widths.changed[wd] * (2 + position(wd));
    }
    if (bits < best_bits) best_bits = bits, best_k = k;
  }
  return best_k;
}

// The cached delta's pairing: the baseline's agents (all of them, or the listed indices) against
// the current ones, matched by index through the cache's map (ids ascend in both states, so the
// map ascends too): an agent is gone when it left the world or the current list; agents of the
// current list that no baseline agent matched are new, and collected in `added`.
// Every copy a viewer's frame costs is here, so the loop's state is all in locals (the writer's
// in a Run, the added list through a pointer).
template <bool kCurSub, bool kBaseSub, bool kMap>
void write_cached(BitWriter& w, const DeltaCache& cache, const QuantState& cur,
                  const QuantState& base, const std::uint32_t* cur_sub,
                  const std::uint32_t* base_sub, const std::uint32_t* map, std::size_t bn,
                  std::size_t cn, std::size_t& c_io, std::vector<std::uint32_t>& added) {
  auto cur_index = [&](std::size_t k) {
    if constexpr (kCurSub)
      return cur_sub[k];
    else
      return static_cast<std::uint32_t>(k);
  };
  const std::uint64_t* const records = cache.records();
  std::size_t c = c_io;
  const std::size_t added_before = added.size();
  added.resize(added_before + (cn - c));  // at most every current agent left
  std::uint32_t* add = added.data() + added_before;
  constexpr std::size_t kRecordBytes = 7;  // a cached record is at most 56 bits
  BitWriter::Run r = w.run(kRecordBytes);
  for (std::size_t k = 0; k < bn; ++k) {
    if (!r.room(kRecordBytes)) [[unlikely]] {
      w.end(r);
      r = w.run(kRecordBytes);
    }
    std::uint32_t b;
    if constexpr (kBaseSub)
      b = base_sub[k];
    else
      b = static_cast<std::uint32_t>(k);
    std::uint32_t i;
    if constexpr (kMap) {
      i = map[b];
      if (i == DeltaCache::kGone) {
        r.bits(0b10, 2);  // gone: '0' then '1'
        continue;
      }
    } else {
      i = b;
    }
    while (c < cn && cur_index(c) < i) *add++ = static_cast<std::uint32_t>(c++);
    if (c == cn || cur_index(c) != i) {
      r.bits(0b10, 2);
      continue;
    }
    ++c;
    const std::uint64_t record = records[i];
    const auto len = static_cast<unsigned>(record >> DeltaCache::kLengthShift);
    if (len != DeltaCache::kTooLong) [[likely]] {
      r.bits(record & DeltaCache::kCodeMask, len);
      continue;
    }
    // Over 56 bits: written field by field through the writer itself.
    w.end(r);
    const QuantAgent& o = base.agents[b];
    write_record(w, cur.agents[i], o, predict(o, cache.lead(), cur.x_bits, cur.y_bits, cur.scale),
                 cur.x_bits, cur.y_bits, cache.k());
    r = w.run(kRecordBytes);
  }
  w.end(r);
  added.resize(static_cast<std::size_t>(add - added.data()));
  c_io = c;
}

}  // namespace

// ---- frames -----------------------------------------------------------------------------------

std::string encode_binary(AgentSet current, std::optional<AgentSet> baseline, bool filtered,
                          std::string_view side, const DeltaCache* cache) {
  const QuantState& cur = *current.state;
  std::string out;
  // Sized for the whole frame (the writer grows it by doubling, a copy each time): records of the
  // cache's mean length, with room for a viewport's longer ones and some new agents, or whole
  // records.
  const bool cached = cache && baseline && cache->fits(current, *baseline);
  const std::size_t record_bits = cached ? cache->mean_bits() + 1 : 16u + cur.x_bits + cur.y_bits;
  out.reserve(256 + side.size() + current.size() * (record_bits + 2) / 8);
  BitWriter w(out);
  const std::uint8_t flags =
      static_cast<std::uint8_t>((baseline ? kFlagDelta : 0) | (side.empty() ? 0 : kFlagSide) |
                                (filtered ? kFlagFiltered : 0) | (cur.serial ? kFlagSerial : 0));
  FrameHead head;
  head.flags = flags;
  head.mode = static_cast<std::uint8_t>(cur.avoidance);
  head.tick = cur.tick;
  head.back = baseline ? cur.tick - baseline->state->tick : 0;
  const std::uint32_t lead = baseline ? lead_between(baseline->state->time, cur.time) : 0;
  head.lead = lead;
  head.serial = cur.serial;
  head.time = cur.time;
  head.x_bits = cur.x_bits;
  head.y_bits = cur.y_bits;
  head.scale = cur.scale;
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
  OffsetWidths widths;
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
      write_cached<kCurSub, kBaseSub, kMap>(w, *cache, cur, *baseline->state, cur_sub, base_sub,
                                            map, baseline->size(), cn, c, added);
    };
    // The loop specialised for the lists it walks: whole states or viewport selections, and the
    // same agents in both states or not.
    if (cur_sub && base_sub)
      map ? pair_up.operator()<true, true, true>() : pair_up.operator()<true, true, false>();
    else if (cur_sub)
      map ? pair_up.operator()<true, false, true>() : pair_up.operator()<true, false, false>();
    else if (base_sub)
      map ? pair_up.operator()<false, true, true>() : pair_up.operator()<false, true, false>();
    else
      map ? pair_up.operator()<false, false, true>() : pair_up.operator()<false, false, false>();
  } else if (baseline) {
    for (std::size_t k = 0; k < baseline->size(); ++k) {
      const QuantAgent& b = (*baseline)[k];
      while (c < cn && current[c].id < b.id) added.push_back(static_cast<std::uint32_t>(c++));
      if (c < cn && current[c].id == b.id) {
        widths.count(current[c], b, predict(b, lead, xb, yb, cur.scale));
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
      const Predicted p = predict(b, lead, xb, yb, cur.scale);
      write_gathered(w, [&](auto& out) { write_record(out, a, b, p, xb, yb, best_k); });
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
  records_.assign(n, 0);
  cur_of_base_.assign(baseline.agents.size(), kGone);
  same_ids_ = baseline.agents.size() == n;
  lead_ = lead_between(baseline.time, current.time);
  const std::uint8_t xb = current.x_bits, yb = current.y_bits;
  OffsetWidths widths;
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
    widths.count(a, o, predict(o, lead_, xb, yb, current.scale));
  }
  k_ = choose_k(widths, xb, yb);
  for (std::size_t b = 0; b < baseline.agents.size(); ++b) {
    const std::uint32_t c = cur_of_base_[b];
    if (c == kGone) continue;
    CodeWriter cw;
    const QuantAgent& o = baseline.agents[b];
    write_record(cw, current.agents[c], o, predict(o, lead_, xb, yb, current.scale), xb, yb, k_);
    const unsigned len = cw.overflow || cw.len > kLengthShift ? kTooLong : cw.len;
    const std::uint64_t code = len == kTooLong ? 0 : cw.code;  // a long one is written on the spot
    records_[c] = code | std::uint64_t{len} << kLengthShift;
  }
  std::uint64_t total = 0;
  for (const std::uint64_t record : records_) total += record >> kLengthShift;
  mean_bits_ =
      static_cast<unsigned>(std::max<std::uint64_t>(2, total / std::max<std::size_t>(1, n) + 1));
}

std::variant<BinaryHeader, std::string> read_binary_header(std::string_view frame) {
  BitReader r(frame);
  ReadStream rs(r);
  FrameHead head;
  if (!serialize_head_start(rs, head)) return std::string("binary snapshot: truncated header");
  if (head.magic != kBinaryMagic) return std::string("binary snapshot: bad magic byte");
  if (head.version != kBinaryVersion) return std::string("binary snapshot: unknown format version");
  if ((head.flags & ~15u) != 0) return std::string("binary snapshot: unknown flags");
  if (head.mode > static_cast<std::uint8_t>(sim::AvoidanceMode::cfsm))
    return std::string("binary snapshot: bad avoidance mode");
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
  if (head.lead > kMaxLead) return std::string("binary snapshot: lead over 64 s");
  h.lead = static_cast<std::uint32_t>(head.lead);
  h.agent_count = head.agent_count;
  std::uint64_t side_bytes = 0;
  if (back > h.tick) return std::string("binary snapshot: baseline before tick 0");
  if (numbered && h.serial == 0) return std::string("binary snapshot: serial 0");
  h.baseline_tick = h.tick - back;
  if (xb < 1 || xb > 32 || yb < 1 || yb > 32)
    return std::string("binary snapshot: bad position widths");
  if (head.scale > kFinestScale) return std::string("binary snapshot: bad position scale");
  h.scale = static_cast<std::uint8_t>(head.scale);
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

std::variant<BinaryFrame, std::string> decode_binary(std::string_view frame,
                                                     std::span<const QuantAgent> baseline) {
  auto head = read_binary_header(frame);
  if (auto* err = std::get_if<std::string>(&head)) return std::move(*err);
  BinaryFrame f;
  f.header = std::get<BinaryHeader>(head);
  const BinaryHeader& h = f.header;
  if (!h.delta)
    baseline = {};
  else if (baseline.size() != h.baseline_count)
    return std::string("binary snapshot: the baseline does not match the frame");
  BitReader r(frame);
  ReadStream rs(r);
  if (!r.skip_bytes(h.body_at)) return std::string("binary snapshot: truncated");
  std::uint32_t k = 0;
  if (!r.bits(8, k) || k < 1 || k > kMaxSmallBits)
    return std::string("binary snapshot: bad position change width");
  const std::size_t bits_left = r.rest().size() * 8;
  f.agents.reserve(static_cast<std::size_t>(
      std::min<std::uint64_t>(h.agent_count, baseline.size() + bits_left)));
  for (const QuantAgent& b : baseline) {
    bool changed = false, second = false;
    if (!r.bit(changed) || !r.bit(second)) return std::string("binary snapshot: truncated agents");
    if (!changed && second) continue;  // '01': gone
    const Predicted p = predict(b, h.lead, h.x_bits, h.y_bits, h.scale);
    QuantAgent a = b;
    if (!changed) {  // '00': as predicted
      a.x = p.x;
      a.y = p.y;
    } else if (!second) {  // '10': moved only, by offsets of k bits from the prediction
      std::uint32_t zx = 0, zy = 0;
      if (!r.bits(k, zx) || !r.bits(k, zy) || !apply_offset(p.x, zx, h.x_bits, a.x) ||
          !apply_offset(p.y, zy, h.y_bits, a.y))
        return std::string("binary snapshot: bad or truncated change");
    } else if (!serialize_change(rs, a, b, p, h.x_bits, h.y_bits, k)) {
      return std::string("binary snapshot: bad or truncated change");
    }
    f.agents.push_back(a);
  }
  std::uint64_t added = 0;
  if (!r.varint(added) || added > h.agent_count)
    return std::string("binary snapshot: bad count of new agents");
  const std::size_t kept = f.agents.size();
  QuantAgent prev;
  for (std::uint64_t k = 0; k < added; ++k) {
    QuantAgent a;
    if (!serialize_full(rs, a, prev, h.x_bits, h.y_bits))
      return std::string("binary snapshot: bad or truncated agent");
    f.agents.push_back(a);
    prev = a;
  }
  if (f.agents.size() != h.agent_count)
    return std::string("binary snapshot: agent count does not match");
  std::inplace_merge(f.agents.begin(), f.agents.begin() + static_cast<std::ptrdiff_t>(kept),
                     f.agents.end(),
                     [](const QuantAgent& a, const QuantAgent& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < f.agents.size(); ++i)
    if (f.agents[i - 1].id >= f.agents[i].id)
      return std::string("binary snapshot: an agent id twice");
  return f;
}

}  // namespace herd::protocol
