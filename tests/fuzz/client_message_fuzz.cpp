// libFuzzer target (hostile input): client messages, as WebSocket text frames would
// carry them, through the decoder and, when they are world commands, through the world's
// validation. An input is one message, or up to kMaxMessages separated by newlines (JSON lines),
// so that commands can prepare the ground for one another within a tick.
//
// For each message:
//   1. decode_client() must not crash. An error must have a message and a code that names itself
//      on the wire, and encode as an `error` that decodes back to the same error.
//   2. A decoded message must re-encode to text that decodes to the same message and encodes to
//      the same text again (the codec loses nothing a client said).
// Then, if any message was a command or an inspect list:
//   3. The commands are applied, in order, into a small world (8 agents with several behaviours
//      and pathings, an obstacle, a 20 x 15 tile map) built afresh for every input, so runs are
//      deterministic, and the world is stepped once; an inspect list is handed to the world as the
//      server does. Then: one outcome per command, each ack or error decoding; every agent finite;
//      the snapshot (with the map) decodes; a checkpoint loads back to the same state hash.
// Any broken property aborts, which libFuzzer reports as a crash with the input saved.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "herd/sim/world.hpp"
#include "protocol/codec.hpp"
#include "publish/world_messages.hpp"

namespace {

using namespace herd;

constexpr int kMaxMessages = 8;  // per input: enough to build a situation, few enough to stay fast

[[noreturn]] void fail(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "client_message_fuzz: %s\n", what);
  if (!detail.empty())
    std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void expect_ok(const sim::CommandOutcome& out, const char* what) {
  if (!out.ok()) fail(what, out.message);
}

sim::Selection ids(std::vector<sim::AgentId> list) {
  return sim::Selection(false, std::move(list));
}

// 800 x 600 units under a 20 x 15 map of 40-unit tiles: two walls, open borders. Every tile the
// fixtures name (up to (18, 13)) is on the map.
sim::TileMapDef map_def() {
  sim::TileMapDef def{20, 15, 40.0, std::vector<std::uint8_t>(20 * 15, sim::kWalkable)};
  for (int y = 3; y <= 10; ++y) def.cells[static_cast<std::size_t>(y * 20 + 6)] = sim::kBlocked;
  for (int x = 12; x <= 17; ++x) def.cells[static_cast<std::size_t>(11 * 20 + x)] = sim::kBlocked;
  return def;
}

// The world every input starts from. Agents 1..8 (the ids the fixtures use), obstacle 1.
sim::World make_world() {
  sim::World w{sim::WorldDef{}};
  expect_ok(w.apply(sim::LoadMap{map_def()}), "set-up: load_map");
  sim::Spawn spawn;
  const double xy[8][2] = {{100, 100}, {140, 100}, {300, 200}, {500, 200},
                           {200, 450}, {600, 400}, {700, 100}, {420, 520}};
  for (int i = 0; i < 8; ++i) {
    sim::SpawnAgent a;
    a.position = {xy[i][0], xy[i][1]};
    a.group = static_cast<std::uint8_t>(i % 3);
    if (i == 7) a.movement = sim::Movement::kinematic;
    spawn.agents.push_back(a);
  }
  expect_ok(w.apply(spawn), "set-up: spawn");
  expect_ok(w.apply(sim::AddObstacle{{520, 330}, 25}), "set-up: add_obstacle");
  expect_ok(w.apply(sim::SetPathing{ids({1}), sim::Pathing::astar, 8}), "set-up: astar");
  expect_ok(w.apply(sim::SetPathing{ids({2}), sim::Pathing::flow, 4}), "set-up: flow");
  expect_ok(w.apply(sim::SetPathing{ids({3}), sim::Pathing::no_backtrack, 4}), "set-up: walker");
  expect_ok(
      w.apply(sim::SetTarget{ids({1, 2, 3}), {700, 540}, sim::BehaviourKind::arrive, std::nullopt}),
      "set-up: set_target");
  sim::Behaviour pursue{.kind = sim::BehaviourKind::pursue, .agent = 5};
  expect_ok(w.apply(sim::SetBehaviour{ids({4}), pursue, false, std::nullopt, {}}),
            "set-up: pursue");
  sim::Behaviour attack{.kind = sim::BehaviourKind::attack, .agent = 7};
  expect_ok(w.apply(sim::SetBehaviour{ids({6}), attack, false, std::nullopt, {}}),
            "set-up: attack");
  sim::Behaviour react{.kind = sim::BehaviourKind::react, .agent = 1, .radius = 150};
  expect_ok(w.apply(sim::SetBehaviour{ids({8}), react, false, std::nullopt, {}}), "set-up: react");
  w.set_inspected({1, 4});
  return w;
}

std::string encode_any(const protocol::ClientMessage& m) {
  return std::visit([](const auto& v) { return protocol::encode(v); }, m);
}

void check_error(const protocol::Error& e) {
  if (e.message.empty()) fail("an error without a message");
  if (protocol::error_code_from_string(protocol::to_string(e.code)) != e.code)
    fail("an error code without a name");
  const std::string text = protocol::encode(e);
  const auto back = protocol::decode_server(text);
  if (!std::holds_alternative<protocol::ServerMessage>(back))
    fail("an encoded error does not decode", text);
  const auto* same = std::get_if<protocol::Error>(&std::get<protocol::ServerMessage>(back));
  if (!same || !(*same == e)) fail("an encoded error decodes to something else", text);
}

void check_round_trip(const protocol::ClientMessage& m) {
  const std::string once = encode_any(m);
  const auto again = protocol::decode_client(once);
  if (const auto* e = std::get_if<protocol::Error>(&again))
    fail("a decoded message re-encodes to text that does not decode", once + "  -> " + e->message);
  const auto& m2 = std::get<protocol::ClientMessage>(again);
  const std::string twice = encode_any(m2);
  if (twice != once) fail("re-encoding is not stable", once + "  then  " + twice);
  if (!(m2 == m)) fail("a message does not survive encode and decode", once);
}

void check_world(const sim::World& w) {
  for (const sim::Agent& a : w.agents()) {
    if (!std::isfinite(a.position.x) || !std::isfinite(a.position.y) ||
        !std::isfinite(a.velocity.x) || !std::isfinite(a.velocity.y))
      fail("an agent is not finite", std::to_string(a.id));
  }
  std::string snapshot = publish::encode_snapshot(w, w.collisions(), {.map = true});
  // With the traces of every inspected agent, as a session inspecting them all is sent it.
  if (const auto traces = publish::inspect_texts(w); !traces.empty()) {
    std::vector<std::uint32_t> ids;
    for (const auto& e : traces.entries) ids.push_back(e.id);
    snapshot.pop_back();
    snapshot += protocol::inspect_suffix(traces, ids);
  }
  const auto decoded = protocol::decode_server(snapshot);
  if (const auto* e = std::get_if<protocol::Error>(&decoded))
    fail("the snapshot does not decode", e->message);
  const std::string checkpoint = w.save_checkpoint();
  auto loaded = sim::World::load_checkpoint(checkpoint);
  if (const auto* why = std::get_if<std::string>(&loaded))
    fail("the checkpoint does not load", *why);
  if (std::get<sim::World>(loaded).state_hash() != w.state_hash())
    fail("the checkpoint loads to another state");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The server closes larger frames (1009) before decoding anything.
  if (size > protocol::kMaxMessageBytes) return -1;
  std::string_view rest(reinterpret_cast<const char*>(data), size);

  std::optional<sim::World> world;
  std::vector<sim::CommandOutcome> outcomes;
  for (int n = 0; n < kMaxMessages && (n == 0 || !rest.empty()); ++n) {
    const std::size_t end = rest.find('\n');
    const std::string_view text = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);

    const auto decoded = protocol::decode_client(text);
    if (const auto* e = std::get_if<protocol::Error>(&decoded)) {
      check_error(*e);
      continue;
    }
    const auto& message = std::get<protocol::ClientMessage>(decoded);
    check_round_trip(message);
    const auto* command = std::get_if<protocol::CommandMsg>(&message);
    const auto* inspect = std::get_if<protocol::Inspect>(&message);
    if (!command && !inspect) continue;  // hello, ping and server controls never reach the world
    if (!world) world.emplace(make_world());
    if (command) {
      outcomes.push_back(world->apply(command->command, sim::CommandOrigin{1, command->seq}));
    }
    if (inspect) world->set_inspected(inspect->agents);
  }
  if (!world) return 0;

  world->step();
  for (const sim::CommandOutcome& outcome : outcomes) {
    const std::string answer = protocol::encode_outcome(outcome);
    if (std::holds_alternative<protocol::Error>(protocol::decode_server(answer)))
      fail("an outcome does not decode", answer);
  }
  check_world(*world);
  return 0;
}
