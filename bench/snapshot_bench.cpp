// herd-bench snapshot — what snapshots cost on the wire and to encode, on the sim benchmark's
// random crowd (see sim_bench.cpp: N agents placed uniformly without overlap, A square units
// each, radius 1.5, each arriving at a random point and given a new one within 1 unit of it),
// stepped at --tick-rate with snapshots at --rate. The crowd's preferred speed is 1 unit/s as in
// the sim benchmark; --speed changes it (max force scales with it: full speed in 0.25 s).
//
// Per snapshot: the JSON text (the server's encoder), a binary keyframe, binary deltas against
// the snapshot before (what a client on loopback has acknowledged) and the one before that, and
// 50 viewports of about --view-agents agents each, drifting with the crowd's speed.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "fixtures.hpp"
#include "herd/sim/world.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"
#include "publish/world_messages.hpp"
#include "rng.hpp"

namespace herd::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  long agents = 10000;
  double density = 100;
  double rate = 20;
  double tick_rate = 60;
  double speed = 1;
  long ticks = 300;
  long view_agents = 1000;
  double quantum = 1.0 / 64;        // the frames' position quantum (protocol::coarsen)
  std::string scenario = "random";  // the one crowd there is
};

sim::World make_crowd(const Options& o, sim::Rng& rng, double& side) {
  side = std::sqrt(o.density * static_cast<double>(o.agents));
  const sim::WorldDef def =
      crowd_def(static_cast<std::size_t>(o.agents), side, 1.0 / o.tick_rate, o.speed);
  sim::World world(def);
  spawn_random_crowd(world, side, static_cast<std::size_t>(o.agents), rng, [](sim::SpawnAgent&) {});
  return world;
}

double ns_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

int run(const Options& o) {
  sim::Rng rng(7);
  double side = 0;
  sim::World world = make_crowd(o, rng, side);
  const long every = std::max(1L, std::lround(o.tick_rate / o.rate));
  // kViewers square viewports holding about view_agents agents each (with their margin), at
  // random places, drifting with the crowd's speed: each snapshot encodes a frame for every one,
  // back to back as the server does, on a baseline of its previous frame.
  constexpr int kViewers = 50;
  const double view_side =
      std::min(side, std::sqrt(o.density * static_cast<double>(o.view_agents)) / 1.25);
  std::vector<protocol::Viewport> views;
  for (int v = 0; v < kViewers; ++v) {
    const double x = rng.uniform(0, side - view_side), y = rng.uniform(0, side - view_side);
    views.push_back({x, y, x + view_side, y + view_side});
  }
  std::vector<std::vector<std::uint32_t>> view_prev(kViewers);
  std::vector<protocol::QuantState> fine;    // the last three, at 1/64 unit
  std::vector<protocol::QuantState> states;  // the same at the frames' quantum
  const std::uint8_t scale = protocol::scale_of_quantum(o.quantum).value_or(protocol::kFinestScale);
  std::vector<std::uint32_t> view_sel;
  protocol::ViewGrid grid;
  double n_snap = 0, key_bytes = 0, delta_bytes = 0, delta2_bytes = 0, json_bytes = 0,
         view_bytes = 0, view_count = 0;
  double quantise_ns = 0, key_ns = 0, delta_ns = 0, json_ns = 0, grid_ns = 0, view_ns = 0,
         agent_count = 0;
  for (long t = 1; t <= o.ticks; ++t) {
    for (const sim::Agent& a : world.agents())
      if (sim::length(a.behaviour.point - a.position) < 1.0)
        world.apply(sim::SetTarget{{false, {a.id}},
                                   {rng.uniform(0, side), rng.uniform(0, side)},
                                   sim::BehaviourKind::arrive,
                                   {}});
    world.step();
    if (t % every != 0) continue;
    auto t0 = Clock::now();
    protocol::QuantState q = publish::quantise(world, fine.empty() ? nullptr : &fine.back());
    if (scale != protocol::kFinestScale) states.push_back(protocol::coarsen(q, scale));
    const double qn = ns_since(t0);
    t0 = Clock::now();
    grid.rebuild(q);
    const double gn = ns_since(t0);
    fine.push_back(std::move(q));
    if (scale == protocol::kFinestScale) states.push_back(fine.back());
    if (fine.size() > 3) fine.erase(fine.begin());
    if (states.size() > 3) states.erase(states.begin());
    const protocol::QuantState& cur = states.back();
    const protocol::QuantState& cur_fine = fine.back();  // viewports select by 1/64-unit places
    const double drift = o.speed / o.rate;
    for (protocol::Viewport& v : views) v.x0 += drift, v.x1 += drift;
    if (states.size() < 3) {  // warm-up: two snapshots before any delta on an age-2 baseline
      for (int v = 0; v < kViewers; ++v)
        grid.select(cur_fine, views[static_cast<std::size_t>(v)],
                    view_prev[static_cast<std::size_t>(v)]);
      continue;
    }
    const double n = static_cast<double>(cur.agents.size());
    t0 = Clock::now();
    const std::string key = protocol::encode_binary({&cur, nullptr}, std::nullopt, false);
    key_ns += ns_since(t0) / n;
    t0 = Clock::now();
    const std::string delta =
        protocol::encode_binary({&cur, nullptr}, protocol::AgentSet{&states[1], nullptr}, false);
    delta_ns += ns_since(t0) / n;
    const std::string delta2 =
        protocol::encode_binary({&cur, nullptr}, protocol::AgentSet{&states[0], nullptr}, false);
    t0 = Clock::now();
    const std::string json = publish::encode_snapshot(world);
    json_ns += ns_since(t0) / n;
    // Each viewer's frame: select its agents now (its baseline's are remembered), then encode,
    // copying the change records written once for every viewer on this baseline (as the server).
    t0 = Clock::now();
    protocol::DeltaCache cache;
    cache.build(states[1], cur);
    const double cn = ns_since(t0);
    double vn = 0, vbytes = 0, vagents = 0;
    for (std::size_t v = 0; v < views.size(); ++v) {
      t0 = Clock::now();
      grid.select(cur_fine, views[v], view_sel);
      const std::string vf = protocol::encode_binary(
          {&cur, &view_sel}, protocol::AgentSet{&states[1], &view_prev[v]}, true, {}, &cache);
      vn += ns_since(t0);
      vbytes += static_cast<double>(vf.size());
      vagents += static_cast<double>(view_sel.size());
      view_prev[v].swap(view_sel);
    }
    quantise_ns += qn / n;
    grid_ns += (gn + cn) / n;
    view_ns += vn / std::max(1.0, vagents);
    key_bytes += static_cast<double>(key.size()) / n;
    delta_bytes += static_cast<double>(delta.size()) / n;
    delta2_bytes += static_cast<double>(delta2.size()) / n;
    json_bytes += static_cast<double>(json.size()) / n;
    view_bytes += vbytes / std::max(1.0, vagents);
    view_count += vagents / kViewers;
    agent_count += n;
    ++n_snap;
  }
  if (n_snap == 0) {
    std::fprintf(stderr, "herd-bench snapshot: too few ticks for three snapshots\n");
    return 2;
  }
  // 1,000 viewers with viewports: per snapshot, one quantisation, grid and change cache for all,
  // then each viewer's selection and encoding; as a fraction of one core at the snapshot rate.
  const double avg_view = view_count / n_snap, avg_n = agent_count / n_snap;
  const double per_snapshot_ns =
      (quantise_ns + grid_ns) / n_snap * avg_n + 1000 * view_ns / n_snap * avg_view;
  std::printf(
      "scenario,agents,rate,tick_rate,speed,ticks,snapshots,keyframe_bytes_per_agent,delta_bytes_"
      "per_agent,"
      "delta_age2_bytes_per_agent,json_bytes_per_agent,quantise_ns_per_agent,keyframe_encode_ns_"
      "per_agent,"
      "encode_ns_per_agent,json_encode_ns_per_agent,view_agents,view_delta_bytes_per_agent,"
      "view_encode_ns_per_agent,cores_for_1000_viewers,quantum\n");
  std::printf(
      "random,%ld,%.0f,%.0f,%.2f,%ld,%.0f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.0f,%.3f,%.1f,%."
      "3f,%g\n",
      o.agents, o.rate, o.tick_rate, o.speed, o.ticks, n_snap, key_bytes / n_snap,
      delta_bytes / n_snap, delta2_bytes / n_snap, json_bytes / n_snap, quantise_ns / n_snap,
      key_ns / n_snap, delta_ns / n_snap, json_ns / n_snap, avg_view, view_bytes / n_snap,
      view_ns / n_snap, per_snapshot_ns * o.rate / 1e9, o.quantum);
  return 0;
}

}  // namespace

Runner add_snapshot(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--scenario", o->scenario, "the crowd")
      ->check(CLI::IsMember({"random"}))
      ->capture_default_str();
  sub.add_option("--agents", o->agents, "agents")
      ->check(CLI::Range(10, 1'000'000))
      ->capture_default_str();
  sub.add_option("--rate", o->rate, "snapshots per second, (0, tick rate]")
      ->check(CLI::Range(1e-9, 1000.0))
      ->capture_default_str();
  sub.add_option("--tick-rate", o->tick_rate, "ticks per second")
      ->check(CLI::Range(1e-9, 1000.0))
      ->capture_default_str();
  sub.add_option("--speed", o->speed, "the agents' speed, as a multiple of the default")
      ->check(CLI::Range(1e-9, 1000.0))
      ->capture_default_str();
  sub.add_option("--density", o->density, "square units per agent")
      ->check(CLI::Range(10, 100000))
      ->capture_default_str();
  sub.add_option("--ticks", o->ticks, "ticks run")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.add_option("--view-agents", o->view_agents, "agents in a viewport, about")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub.add_option("--quantum", o->quantum,
                 "the frames' position quantum, world units: 1, 0.5, ... 0.015625")
      ->check([](const std::string& v) {
        try {
          return protocol::scale_of_quantum(std::stod(v)) ? std::string() : "not a power of two";
        } catch (const std::exception&) {
          return std::string("not a number");
        }
      })
      ->capture_default_str();
  sub.footer(
      "Prints a CSV header and one row; bytes are before any transport compression, times are per\n"
      "agent on one core.");
  return [o]() -> int {
    if (o->rate > o->tick_rate) {
      std::fprintf(stderr, "herd-bench snapshot: --rate must not exceed --tick-rate\n");
      return 2;
    }
    return run(*o);
  };
}

}  // namespace herd::bench
