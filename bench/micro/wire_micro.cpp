// herd-microbench, the wire's encoders: what a snapshot costs to write, before any socket.
//   BitWriter_Varint, BitWriter_Bits: protocol::BitWriter writing 1,024 varints (values of 1 to
//     40 significant bits) or 1,024 bit fields (1 to 24 bits wide) into a reused string, then
//     flush(). Items: fields written; bytes: bytes written.
//   Quantise/<n>: publish::quantise of the moving random crowd (crowd.hpp), against the state
//     quantised 3 ticks (at 60 per second) before: the hysteresis of a server's snapshots at 20 Hz.
//     Items: agents.
//   EncodeBinary/Keyframe/<n>, EncodeBinary/Delta/<n>: protocol::encode_binary of every agent,
//     against nothing or against that earlier state (what a client on loopback acknowledged).
//     Items: agents; bytes: the frame's bytes.
//   ViewportSelect/<n>: protocol::ViewGrid::select of 256 viewports of about 1,350 agents each
//     (with their margins, 13.5% of the world: a 250 x 250 view of the 10,000 crowd scenario).
//     Items: agents selected.
//   ViewportFrame/<n>: each of those viewers' frames as the relay and the server make them: the
//     selection, then encode_binary against the view's agents in the earlier state through the
//     DeltaCache built once for the pair. Items: agents; bytes: the frames' bytes.
//   EncodeJson/<n>: publish::encode_snapshot of the same world, the text the server shares between
//     JSON sessions. Items: agents; bytes: the text's bytes.
//   DensityLayer/<n>: publish::density_layer of the same world: one pass over the agents into the
//     grid of at most 64 x 64 cells (here 64 x 64). Items: agents.
//   DensityJson/<n>: that layer written as the snapshot's member (protocol::density_member).
//     Together, what the server does once per layer, twice a second, for every session that
//     asked. Items: agents; bytes: the member's bytes.
// Results go to docs/performance.md ("Microbenchmarks").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crowd.hpp"
#include "protocol/bit_stream.hpp"
#include "protocol/density.hpp"
#include "protocol/snapshot_binary.hpp"
#include "publish/density.hpp"
#include "publish/world_messages.hpp"
#include "rng.hpp"

namespace herd::micro {
namespace {

// ---- Bit writer --------------------------------------------------------------------------------

constexpr int kFields = 1024;

// Values whose width in bits is uniform in [lo, hi]: varints of every length up to 6 bytes.
std::vector<std::uint64_t> values_of_width(unsigned lo, unsigned hi) {
  sim::Rng rng(3);
  std::vector<std::uint64_t> v(kFields);
  for (std::uint64_t& x : v) {
    const unsigned width = lo + static_cast<unsigned>(rng.next_u64() % (hi - lo + 1));
    x = (rng.next_u64() >> (64 - width)) | (std::uint64_t{1} << (width - 1));
  }
  return v;
}

void BitWriter_Varint(benchmark::State& state) {
  const std::vector<std::uint64_t> values = values_of_width(1, 40);
  std::string out;
  for (auto _ : state) {
    out.clear();  // keeps its capacity, as a server's reused frame buffer
    protocol::BitWriter w(out);
    for (const std::uint64_t v : values) w.varint(v);
    w.flush();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFields);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BitWriter_Varint);

void BitWriter_Bits(benchmark::State& state) {
  const std::vector<std::uint64_t> values = values_of_width(1, 24);
  std::vector<unsigned> widths;
  for (const std::uint64_t v : values)
    widths.push_back(static_cast<unsigned>(64 - __builtin_clzll(v)));
  std::string out;
  for (auto _ : state) {
    out.clear();
    protocol::BitWriter w(out);
    for (int i = 0; i < kFields; ++i)
      w.bits(values[static_cast<std::size_t>(i)], widths[static_cast<std::size_t>(i)]);
    w.flush();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFields);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BitWriter_Bits);

// ---- Snapshots ---------------------------------------------------------------------------------

// The crowd of n agents stepped at 60 ticks per second until all move at full speed (0.5 s), and
// two quantised states of it 3 ticks apart (snapshots at 20 Hz, as herd-bench snapshot). Built
// once per size: benchmark calls each function several times while it settles the iteration
// count.
struct Snapshots {
  sim::World world;
  protocol::QuantState previous, current;
  explicit Snapshots(std::size_t n) : world(moving_crowd(n, 30, 1.0 / 60)) {
    sim::Rng rng(9);
    previous = publish::quantise(world);
    for (int t = 0; t < 3; ++t) {
      retarget(world, rng);
      world.step();
    }
    current = publish::quantise(world, &previous);
  }
};

const Snapshots& snapshots(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<Snapshots>> built;
  std::unique_ptr<Snapshots>& s = built[n];
  if (!s) s = std::make_unique<Snapshots>(n);
  return *s;
}

void Quantise(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    protocol::QuantState q = publish::quantise(s.world, &s.previous);
    benchmark::DoNotOptimize(q.agents.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(Quantise)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void EncodeBinary(benchmark::State& state, bool delta) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  const std::optional<protocol::AgentSet> baseline =
      delta ? std::optional(protocol::AgentSet{&s.previous, nullptr}) : std::nullopt;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string frame = protocol::encode_binary({&s.current, nullptr}, baseline, false);
    bytes = frame.size();
    benchmark::DoNotOptimize(frame.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}
BENCHMARK_CAPTURE(EncodeBinary, Keyframe, false)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(EncodeBinary, Delta, true)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// 256 viewports at random places, each holding about 1,350 agents with its margin (a 250 x 250 view
// of bench/scenarios/crowd_10k.json's crowd): a viewer's frame as a relay or the server makes it
// each snapshot, once the change records of the snapshot pair are cached for every viewer.
struct Views {
  protocol::ViewGrid grid;  // of the current state
  protocol::DeltaCache cache;
  std::vector<protocol::Viewport> rects;
  std::vector<std::vector<std::uint32_t>> before;  // each view's agents in the previous state
};

// 256 viewers: their agent lists of the earlier snapshot (5 KB each) do not all fit a core's cache,
// as on a relay with a thousand viewers.
constexpr int kViews = 256;

const Views& views(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<Views>> built;
  std::unique_ptr<Views>& v = built[n];
  if (v) return *v;
  const Snapshots& s = snapshots(n);
  v = std::make_unique<Views>();
  v->grid.rebuild(s.current);
  v->cache.build(s.previous, s.current);
  protocol::ViewGrid before;
  before.rebuild(s.previous);
  // With the margin (an eighth of the side and 4 units each way) the view covers 13.5% of the
  // world.
  const double world = crowd_side(n), side = (std::sqrt(0.135) * world - 8) / 1.25;
  sim::Rng rng(5);
  for (int k = 0; k < kViews; ++k) {
    const double x = rng.uniform(0, world - side), y = rng.uniform(0, world - side);
    v->rects.push_back({x, y, x + side, y + side});
    before.select(s.previous, v->rects.back(), v->before.emplace_back());
  }
  return *v;
}

void ViewportSelect(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  const Views& v = views(static_cast<std::size_t>(state.range(0)));
  std::vector<std::uint32_t> sel;
  std::int64_t agents = 0;
  for (auto _ : state) {
    for (const protocol::Viewport& r : v.rects) {
      v.grid.select(s.current, r, sel);
      agents += static_cast<std::int64_t>(sel.size());
      benchmark::DoNotOptimize(sel.data());
    }
  }
  state.SetItemsProcessed(agents);
}
BENCHMARK(ViewportSelect)->Arg(10000)->Unit(benchmark::kMicrosecond);

void ViewportFrame(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  const Views& v = views(static_cast<std::size_t>(state.range(0)));
  std::vector<std::uint32_t> sel;
  std::int64_t agents = 0, bytes = 0;
  for (auto _ : state) {
    for (std::size_t k = 0; k < v.rects.size(); ++k) {
      v.grid.select(s.current, v.rects[k], sel);
      const std::string frame = protocol::encode_binary(
          {&s.current, &sel}, protocol::AgentSet{&s.previous, &v.before[k]}, true, {}, &v.cache);
      agents += static_cast<std::int64_t>(sel.size());
      bytes += static_cast<std::int64_t>(frame.size());
      benchmark::DoNotOptimize(frame.data());
    }
  }
  state.SetItemsProcessed(agents);
  state.SetBytesProcessed(bytes);
}
BENCHMARK(ViewportFrame)->Arg(10000)->Unit(benchmark::kMicrosecond);

void EncodeJson(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = publish::encode_snapshot(s.world);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}
BENCHMARK(EncodeJson)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void DensityLayer(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const protocol::DensityLayer layer = publish::density_layer(s.world);
    benchmark::DoNotOptimize(layer.count.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(DensityLayer)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void DensityJson(benchmark::State& state) {
  const Snapshots& s = snapshots(static_cast<std::size_t>(state.range(0)));
  const protocol::DensityLayer layer = publish::density_layer(s.world);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string member = protocol::density_member(layer);
    bytes = member.size();
    benchmark::DoNotOptimize(member.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(DensityJson)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace herd::micro
