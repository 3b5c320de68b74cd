// Server-to-client messages, written without a DOM (the snapshot above all, once per snapshot for
// every session). Their strict decoding, for clients and tests, is in server_decode.cpp.
#include <algorithm>

#include "protocol/codec.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/snapshot_json.hpp"

namespace herd::protocol {
namespace {

void write_point(JsonWriter& w, std::string_view key, sim::Vec2 p) {
  w.key(key);
  w.begin_object();
  w.field("x", p.x);
  w.field("y", p.y);
  w.end_object();
}

}  // namespace

std::string base64_encode(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t n = std::uint32_t{bytes[i]} << 16 |
                            (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                            (i + 2 < bytes.size() ? std::uint32_t{bytes[i + 2]} : 0);
    out += kDigits[n >> 18 & 63];
    out += kDigits[n >> 12 & 63];
    out += i + 1 < bytes.size() ? kDigits[n >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;
    std::uint32_t n = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int v = k >= 4 - static_cast<std::size_t>(pad) ? 0 : value(text[i + k]);
      if (v < 0) return std::nullopt;
      n = n << 6 | static_cast<std::uint32_t>(v);
    }
    out.push_back(static_cast<std::uint8_t>(n >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(n >> 8 & 0xFF));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(n & 0xFF));
  }
  return out;
}

// A stall's members, when stalled (AgentState::stall, InspectState::stall).
static void write_stall(JsonWriter& w, sim::StallReason reason, double seconds,
                        const std::vector<std::uint32_t>& by) {
  if (reason == sim::StallReason::none) return;
  w.field("stall", sim::stall_name(reason));
  w.field("stall_for", seconds);
  if (by.empty()) return;
  w.key("stall_by");
  w.begin_array();
  for (std::uint32_t id : by) w.integer(std::uint64_t{id});
  w.end_array();
}

void write_agent(JsonWriter& w, const AgentState& a) {
  w.begin_object();
  w.field("id", a.id);
  w.field("x", a.x);
  w.field("y", a.y);
  w.field("vx", a.vx);
  w.field("vy", a.vy);
  w.field("r", a.r);
  w.field("group", std::uint32_t{a.group});
  w.field("state", to_string(a.state));
  if (!a.orders_hidden) {
    w.field("behaviour", to_string(a.behaviour));
    if (a.phase != sim::Phase::none) w.field("phase", to_string(a.phase));
  }
  if (a.target) {
    w.field("tx", a.target->x);
    w.field("ty", a.target->y);
  }
  if (a.collided) w.boolean_field("collided", true);
  if (a.kinematic) w.field("movement", "kinematic");
  if (a.pathing != sim::Pathing::direct) w.field("pathing", to_string(a.pathing));
  if (a.path_pending) w.field("path", "pending");
  if (a.subject) w.field("subject", *a.subject);
  if (a.priority != sim::AgentDefLimits::kDefaultPriority)
    w.field("priority", std::uint32_t{a.priority});
  if (a.layer != 1) w.field("layer", a.layer);
  if (a.mask != 0xFFFFFFFF) w.field("mask", a.mask);
  if (a.team) w.field("team", std::uint32_t{*a.team});
  if (a.sight) w.field("sight", *a.sight);
  if (a.hp && a.max_hp) {
    w.field("hp", *a.hp);
    w.field("max_hp", *a.max_hp);
  }
  if (!a.history.empty()) {
    w.key("history");  // flat [x0, y0, x1, y1, ...] tiles, oldest first
    w.begin_array();
    for (const sim::TileCoord& t : a.history) {
      w.integer(static_cast<std::uint64_t>(t.x));
      w.integer(static_cast<std::uint64_t>(t.y));
    }
    w.end_array();
  }
  if (!a.waypoints.empty()) {
    w.key("waypoints");  // flat [x0, y0, x1, y1, ...], in the order it will go
    w.begin_array();
    for (sim::Vec2 p : a.waypoints) {
      w.number(p.x);
      w.number(p.y);
    }
    w.end_array();
  }
  write_stall(w, a.stall, a.stall_for, a.stall_by);
  w.end_object();
}

namespace {

void write_point(JsonWriter& w, sim::Vec2 p) {
  w.begin_object();
  w.field("x", p.x);
  w.field("y", p.y);
  w.end_object();
}

void write_events(JsonWriter& w, const std::vector<EventState>& events) {
  w.key("events");
  w.begin_array();
  for (const EventState& e : events) {
    w.begin_object();
    w.field("type", sim::event_name(e.kind));
    w.field("tick", e.tick);
    w.field("agent", e.agent);
    if (e.by) w.field("by", *e.by);
    w.field("x", e.x);
    w.field("y", e.y);
    if (e.kind == sim::EventKind::hit) {
      w.field("damage", e.damage);
      w.field("hp", e.hp);
    }
    w.end_object();
  }
  w.end_array();
}

void write_ghosts(JsonWriter& w, const std::vector<GhostState>& ghosts) {
  w.key("ghosts");
  w.begin_array();
  for (const GhostState& g : ghosts) {
    w.begin_object();
    w.field("id", g.id);
    w.field("x", g.x);
    w.field("y", g.y);
    w.field("r", g.r);
    w.field("group", std::uint32_t{g.group});
    w.field("team", std::uint32_t{g.team});
    w.field("time", g.time);
    w.end_object();
  }
  w.end_array();
}

void write_explored(JsonWriter& w, const ExploredState& e) {
  w.key("explored");
  w.begin_object();
  w.field("cell", e.cell);
  w.field("cols", e.cols);
  w.field("rows", e.rows);
  w.field("bits", base64_encode(e.bits));
  w.end_object();
}

// Flat [id, hp, max_hp, ...], by id.
void write_health(JsonWriter& w, const std::vector<HealthState>& health) {
  w.key("health");
  w.begin_array();
  for (const HealthState& h : health) {
    w.integer(std::uint64_t{h.id});
    w.number(h.hp);
    w.number(h.max_hp);
  }
  w.end_array();
}

void write_measurements(JsonWriter& w, const std::vector<MeasurementState>& measurements) {
  w.key("measurements");
  w.begin_array();
  for (const MeasurementState& m : measurements) {
    w.begin_object();
    w.field("id", m.id);
    if (m.line) {
      w.key("line");
      w.begin_array();
      write_point(w, m.a);
      write_point(w, m.b);
      w.end_array();
      w.field("forward", m.forward);
      w.field("backward", m.backward);
    } else {
      w.key("area");
      w.begin_object();
      w.field("x", m.a.x);
      w.field("y", m.a.y);
      w.field("width", m.b.x - m.a.x);
      w.field("height", m.b.y - m.a.y);
      w.end_object();
    }
    if (m.tick != 0) {
      w.field("tick", m.tick);
      w.field("seconds", m.seconds);
      if (m.line) {
        w.field("flow_forward", m.flow_forward);
        w.field("flow_backward", m.flow_backward);
        if (m.mean_gap) w.field("mean_gap", *m.mean_gap);
      } else {
        w.field("count", m.count);
        w.field("density", m.density);
        if (m.mean_speed) w.field("mean_speed", *m.mean_speed);
      }
    }
    w.end_object();
  }
  w.end_array();
}

void write_area(JsonWriter& w, sim::Vec2 min, sim::Vec2 max) {
  w.key("area");
  w.begin_object();
  w.field("x", min.x);
  w.field("y", min.y);
  w.field("width", max.x - min.x);
  w.field("height", max.y - min.y);
  w.end_object();
}

void write_sources(JsonWriter& w, const std::vector<SourceState>& sources,
                   const std::vector<ExitState>& exits) {
  w.key("sources");
  w.begin_array();
  for (const SourceState& s : sources) {
    w.begin_object();
    w.field("id", s.id);
    write_area(w, s.min, s.max);
    w.field("rate", s.rate);
    w.field("total", s.total);
    w.field("spawned", s.spawned);
    w.field("remaining", s.remaining);
    w.end_object();
  }
  w.end_array();
  w.key("exits");
  w.begin_array();
  for (const ExitState& e : exits) {
    w.begin_object();
    w.field("id", e.id);
    write_area(w, e.min, e.max);
    w.field("removed", e.removed);
    w.end_object();
  }
  w.end_array();
}

void write_walls(JsonWriter& w, const std::vector<WallState>& walls) {
  w.key("walls");
  w.begin_array();
  for (const WallState& wall : walls) {
    w.begin_object();
    w.field("id", wall.id);
    w.key("points");
    w.begin_array();
    for (sim::Vec2 p : wall.points) write_point(w, p);
    w.end_array();
    w.boolean_field("closed", wall.closed);
    w.end_object();
  }
  w.end_array();
}

void write_obstacles(JsonWriter& w, const std::vector<ObstacleState>& obstacles) {
  w.key("obstacles");
  w.begin_array();
  for (const ObstacleState& o : obstacles) {
    w.begin_object();
    w.field("id", o.id);
    w.field("x", o.x);
    w.field("y", o.y);
    w.field("r", o.r);
    w.end_object();
  }
  w.end_array();
}

void write_map(JsonWriter& w, const MapState& m) {
  w.key("map");
  w.begin_object();
  w.field("width", static_cast<std::uint64_t>(m.width));
  w.field("height", static_cast<std::uint64_t>(m.height));
  w.field("tile_size", m.tile_size);
  w.key("rows");
  w.begin_array();
  for (const std::string& row : m.rows) w.string(row);
  w.end_array();
  w.end_object();
}

void write_push(JsonWriter& w, const PushState& p) {
  w.begin_object();
  w.field("id", p.id);
  if (p.obstacle) w.boolean_field("obstacle", true);
  write_point(w, "raw", p.raw);
  write_point(w, "adjusted", p.adjusted);
  w.field("weight", p.weight);
  if (p.ignored) w.boolean_field("ignored", true);
  if (p.crossing) {
    w.key("crossing");
    w.begin_object();
    w.boolean_field("yielded", p.yielded);
    if (p.point) write_point(w, "point", *p.point);
    w.field("t_self", p.t_self);
    w.field("t_other", p.t_other);
    w.field("scale", p.scale);
    write_point(w, "path_to", p.path_to);
    w.end_object();
  }
  w.end_object();
}

}  // namespace

void write_inspect(JsonWriter& w, const InspectState& s) {
  w.begin_object();
  w.field("id", s.id);
  write_point(w, "desired", s.desired);
  w.key("pushes");
  w.begin_array();
  for (const PushState& p : s.pushes) write_push(w, p);
  w.end_array();
  write_point(w, "sum_raw", s.sum_raw);
  write_point(w, "sum_adjusted", s.sum_adjusted);
  write_point(w, "split_fix", s.split_fix);
  w.field("ig_factor", s.ig_factor);
  write_point(w, "final", s.final_dir);
  write_point(w, "velocity", s.velocity);
  write_point(w, "desired_path_to", s.desired_path_to);
  write_point(w, "current_path_to", s.current_path_to);
  write_stall(w, s.stall, s.stall_for, s.stall_by);
  w.end_object();
}

void write_snapshot_head(JsonWriter& w, std::uint64_t tick, double time, sim::AvoidanceMode mode,
                         std::uint64_t serial) {
  w.field("type", "snapshot");
  w.field("tick", tick);
  if (serial != 0) w.field("serial", serial);
  w.field("time", time);
  w.field("avoidance", sim::to_string(mode));
}

std::string encode_welcome_head(const Welcome& m) {
  std::string out;
  out.reserve(96);
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "welcome");
  w.field("protocol", m.protocol);
  w.field("server", m.server);
  w.field("session", m.session);
  w.field("role", m.says_operator ? "operator" : to_string(m.role));
  if (!m.player.empty()) w.field("player", m.player);
  if (m.team) w.field("team", std::uint32_t{*m.team});
  return out;
}

std::string encode_welcome_tail(const Welcome& m) {
  std::string out = ",";  // after the head's last field
  out.reserve(320);
  JsonWriter w(out);
  w.field("tick_rate", m.tick_rate);
  w.field("snapshot_rate", m.snapshot_rate);
  w.field("dt", m.dt);
  w.field("tick", m.tick);
  w.key("world");
  w.begin_object();
  w.field("width", m.world.width);
  w.field("height", m.world.height);
  w.end_object();
  w.key("limits");
  w.begin_object();
  w.field("max_message_bytes", m.max_message_bytes);
  w.field("max_agents", m.max_agents);
  w.end_object();
  if (m.map) write_map(w, *m.map);
  write_obstacles(w, m.obstacles);
  if (!m.walls.empty()) write_walls(w, m.walls);
  if (!m.scenario.empty()) w.field("scenario", m.scenario);
  if (!m.description.empty()) w.field("description", m.description);
  w.key("scenarios");
  w.begin_array();
  for (const std::string& name : m.scenarios) w.string(name);
  w.end_array();
  if (!m.descriptions.empty()) {
    w.key("descriptions");
    w.begin_object();
    for (const auto& [name, text] : m.descriptions) w.field(name, text);
    w.end_object();
  }
  w.boolean_field("paused", m.paused);
  if (!m.upstream.empty()) w.field("upstream", m.upstream);
  if (m.delay > 0) w.field("delay", m.delay);
  if (!m.teams.empty()) {
    w.key("teams");
    w.begin_array();
    for (const Welcome::TeamColour& t : m.teams) {
      w.begin_object();
      w.field("team", std::uint32_t{t.team});
      w.field("colour", t.colour);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  return out;
}

std::string encode(const Welcome& m) { return encode_welcome_head(m) + encode_welcome_tail(m); }

void write_snapshot_tail(JsonWriter& w, const std::vector<ObstacleState>* obstacles,
                         const std::vector<CollisionState>& collisions,
                         const std::vector<FormationState>& formations,
                         const std::optional<MapState>& map, bool map_cleared,
                         const std::vector<MeasurementState>* measurements,
                         const std::vector<SourceState>* sources,
                         const std::vector<ExitState>* exits, const std::vector<WallState>* walls,
                         const std::vector<EventState>* events,
                         const std::vector<HealthState>* health, const TeamMemoryState* memory) {
  if (obstacles) write_obstacles(w, *obstacles);
  if (walls) write_walls(w, *walls);
  w.key("collisions");
  w.begin_array();
  for (const CollisionState& c : collisions) {
    w.begin_object();
    w.field("a", c.a);
    w.field("b", c.b);
    if (c.obstacle) w.boolean_field("obstacle", true);
    w.field("x", c.x);
    w.field("y", c.y);
    w.field("impulse", c.impulse);
    w.end_object();
  }
  w.end_array();
  w.key("formations");
  w.begin_array();
  for (const FormationState& f : formations) {
    w.begin_object();
    w.field("id", f.id);
    w.field("agents", f.agents);
    w.field("arrived", f.arrived);
    w.boolean_field("complete", f.complete);
    if (!f.unreachable.empty()) {
      w.key("unreachable");
      w.begin_array();
      for (const UnreachableState& u : f.unreachable) {
        w.begin_object();
        w.field("agent", u.agent);
        w.field("x", u.x);
        w.field("y", u.y);
        w.field("reason", std::string_view(u.no_path ? "no_path" : "obstacle"));
        if (u.to_x && u.to_y) {
          w.key("to");
          w.begin_object();
          w.field("x", *u.to_x);
          w.field("y", *u.to_y);
          w.end_object();
        }
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  if (events && !events->empty()) write_events(w, *events);
  if (health) write_health(w, *health);
  if (memory && memory->ghosts) write_ghosts(w, *memory->ghosts);
  if (memory && memory->explored) write_explored(w, *memory->explored);
  if (measurements) write_measurements(w, *measurements);
  if (sources && exits) write_sources(w, *sources, *exits);
  if (map) {
    write_map(w, *map);
  } else if (map_cleared) {
    w.key("map");
    w.null();
  }
}

void write_snapshot_inspect(JsonWriter& w, const std::vector<InspectState>& inspect) {
  if (inspect.empty()) return;
  w.key("inspect");
  w.begin_array();
  for (const InspectState& s : inspect) write_inspect(w, s);
  w.end_array();
}

const InspectTexts::Entry* InspectTexts::find(std::uint32_t id) const {
  const auto it = std::lower_bound(entries.begin(), entries.end(), id,
                                   [](const Entry& e, std::uint32_t v) { return e.id < v; });
  return it != entries.end() && it->id == id ? &*it : nullptr;
}

void InspectTexts::add(const AgentState& agent, const InspectState& trace) {
  Entry e;
  e.id = agent.id;
  e.team = agent.team.value_or(0);
  JsonWriter a(e.agent);
  write_agent(a, agent);
  JsonWriter t(e.trace);
  write_inspect(t, trace);
  entries.push_back(std::move(e));
}

void InspectTexts::finish() {
  const auto by_id = [](const Entry& a, const Entry& b) { return a.id < b.id; };
  const auto same_id = [](const Entry& a, const Entry& b) { return a.id == b.id; };
  std::sort(entries.begin(), entries.end(), by_id);
  entries.erase(std::unique(entries.begin(), entries.end(), same_id), entries.end());
}

InspectTexts InspectTexts::of(const Snapshot& s) {
  InspectTexts out;
  for (const InspectState& trace : s.inspect) {
    const auto it =
        std::lower_bound(s.agents.begin(), s.agents.end(), trace.id,
                         [](const AgentState& a, std::uint32_t id) { return a.id < id; });
    if (it == s.agents.end() || it->id != trace.id) continue;  // a trace of no agent: not told
    out.add(*it, trace);
  }
  out.finish();
  return out;
}

SideOpen open_side_section(std::uint64_t tick, double time, sim::AvoidanceMode mode,
                           std::uint64_t serial, const std::vector<ObstacleState>* obstacles,
                           const std::vector<CollisionState>& collisions,
                           const std::vector<FormationState>& formations,
                           const std::optional<MapState>& map, bool map_cleared,
                           const std::vector<MeasurementState>* measurements,
                           const std::vector<SourceState>* sources,
                           const std::vector<ExitState>* exits, const std::vector<WallState>* walls,
                           const std::vector<EventState>* events,
                           const std::vector<HealthState>* health, const TeamMemoryState* memory) {
  SideOpen out;
  out.informative = obstacles || !collisions.empty() || !formations.empty() || map || map_cleared ||
                    measurements || (sources && exits) || walls || (events && !events->empty()) ||
                    (health && !health->empty()) ||
                    (memory && ((memory->ghosts && !memory->ghosts->empty()) || memory->explored));
  out.open = write_object([&](JsonWriter& w) {
    write_snapshot_head(w, tick, time, mode, serial);
    write_snapshot_tail(w, obstacles, collisions, formations, map, map_cleared, measurements,
                        sources, exits, walls, events, health, memory);
  });
  out.open.pop_back();  // the closing brace: side_section writes the rest
  return out;
}

std::string SideOpen::shared() const { return informative ? side_section(open, {}, {}) : ""; }

namespace {

// The entries of `texts` that `ids` names, each once, in the order of their ids.
std::vector<const InspectTexts::Entry*> asked(const InspectTexts& texts,
                                              std::span<const std::uint32_t> ids) {
  std::vector<const InspectTexts::Entry*> out;
  if (texts.empty()) return out;
  std::vector<std::uint32_t> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (const std::uint32_t id : sorted)
    if (const InspectTexts::Entry* e = texts.find(id)) out.push_back(e);
  return out;
}

void append_list(std::string& out, const std::vector<const InspectTexts::Entry*>& entries,
                 std::string InspectTexts::Entry::*part) {
  out += '[';
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ',';
    out += entries[i]->*part;
  }
  out += ']';
}

}  // namespace

std::string inspect_suffix(const InspectTexts& texts, std::span<const std::uint32_t> ids) {
  const auto entries = asked(texts, ids);
  if (entries.empty()) return {};
  std::string out = ",\"inspect\":";
  append_list(out, entries, &InspectTexts::Entry::trace);
  out += '}';
  return out;
}

std::string side_section(std::string_view open, const InspectTexts& texts,
                         std::span<const std::uint32_t> ids) {
  const auto entries = asked(texts, ids);
  std::string out(open);
  out += ",\"agents\":";
  append_list(out, entries, &InspectTexts::Entry::agent);
  if (!entries.empty()) {
    out += ",\"inspect\":";
    append_list(out, entries, &InspectTexts::Entry::trace);
  }
  out += '}';
  return out;
}

std::string encode(const Snapshot& m) {
  const TeamMemoryState memory{m.ghosts ? &*m.ghosts : nullptr,
                               m.explored ? &*m.explored : nullptr};
  return write_object(
      [&](JsonWriter& w) {
        write_snapshot_head(w, m.tick, m.time, m.avoidance, m.serial);
        w.key("agents");
        w.begin_array();
        for (const AgentState& a : m.agents) write_agent(w, a);
        w.end_array();
        write_snapshot_tail(w, m.obstacles ? &*m.obstacles : nullptr, m.collisions, m.formations,
                            m.map, m.map_cleared, m.measurements ? &*m.measurements : nullptr,
                            m.sources ? &*m.sources : nullptr, m.exits ? &*m.exits : nullptr,
                            m.walls ? &*m.walls : nullptr, &m.events,
                            m.health ? &*m.health : nullptr, &memory);
        if (m.density) write_density(w, *m.density);
        write_snapshot_inspect(w, m.inspect);
      },
      64 + m.agents.size() * 140);
}

std::string encode(const Ack& m) {
  return write_object([&](JsonWriter& w) {
    w.field("type", "ack");
    w.field("seq", m.seq);
    w.field("tick", m.tick);
    if (m.count) w.field("count", *m.count);
    if (m.agents) {
      w.key("agents");
      w.begin_array();
      for (std::uint32_t id : *m.agents) w.integer(id);
      w.end_array();
    }
    if (m.obstacle) w.field("obstacle", *m.obstacle);
    if (m.formation) w.field("formation", *m.formation);
    if (m.measurement) w.field("measurement", *m.measurement);
    if (m.source) w.field("source", *m.source);
    if (m.exit) w.field("exit", *m.exit);
    if (m.wall) w.field("wall", *m.wall);
  });
}

std::string encode(const Error& m) {
  return write_object([&](JsonWriter& w) {
    w.field("type", "error");
    if (m.seq) w.field("seq", *m.seq);
    w.field("code", to_string(m.code));
    w.field("message", m.message);
  });
}

std::string encode(const Pong& m) {
  return write_object([&](JsonWriter& w) {
    w.field("type", "pong");
    w.field("id", m.id);
    w.field("tick", m.tick);
  });
}

std::string encode(const SessionList& m) {
  return write_object(
      [&](JsonWriter& w) {
        w.field("type", "sessions");
        w.field("seq", m.seq);
        w.key("sessions");
        w.begin_array();
        for (const SessionInfo& s : m.sessions) {
          w.begin_object();
          w.field("id", s.id);
          if (s.role) w.field("role", to_string(*s.role));
          if (s.format) w.field("format", to_string(*s.format));
          if (!s.client.empty()) w.field("client", s.client);
          if (!s.player.empty()) w.field("player", s.player);
          if (s.team) w.field("team", std::uint32_t{*s.team});
          w.field("address", s.address);
          w.field("connected_s", s.connected_s);
          w.field("bytes_sent", s.bytes_sent);
          w.field("snapshots_sent", s.snapshots_sent);
          w.field("dropped", s.dropped);
          if (s.rtt_ms) w.field("rtt_ms", *s.rtt_ms);
          if (s.you) w.boolean_field("you", true);
          w.end_object();
        }
        w.end_array();
        w.field("omitted", m.omitted);
      },
      64 + m.sessions.size() * 200);
}

std::string encode_outcome(const sim::CommandOutcome& o) {
  if (!o.ok()) return encode(Error{o.origin.seq, to_error_code(o.error), o.message});
  Ack ack{o.origin.seq, o.tick, {}, {}, {}, {}, {}, {}};
  if (!o.spawned.empty())
    ack.agents = o.spawned;
  else if (o.obstacle)
    ack.obstacle = o.obstacle;
  else if (o.measurement)
    ack.measurement = o.measurement;
  else if (o.source)
    ack.source = o.source;
  else if (o.exit)
    ack.exit = o.exit;
  else if (o.wall)
    ack.wall = o.wall;
  else
    ack.count = o.affected;
  ack.formation = o.formation;
  return encode(ack);
}

}  // namespace herd::protocol
