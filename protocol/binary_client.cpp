// Binary snapshots on the client's side: the baselines a client holds to decode deltas, its
// acks, and a decoded frame as the protocol's Snapshot.
#include <algorithm>

#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::protocol {

std::variant<Snapshot, std::string> to_snapshot(const BinaryFrame& frame) {
  Snapshot s;
  s.tick = frame.header.tick;
  s.serial = frame.header.serial;
  s.time = frame.header.time;
  s.avoidance = frame.header.avoidance;
  s.agents.reserve(frame.agents.size());
  for (const QuantAgent& a : frame.agents) s.agents.push_back(dequantise(a, frame.header.scale));
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
  s.measurements = std::move(extra->measurements);
  s.sources = std::move(extra->sources);
  s.exits = std::move(extra->exits);
  s.walls = std::move(extra->walls);
  s.map = std::move(extra->map);
  s.map_cleared = extra->map_cleared;
  s.density = std::move(extra->density);
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
    auto it = std::find_if(held_.begin(), held_.end(),
                           [&](const auto& e) { return e.first == h.baseline_tick; });
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
