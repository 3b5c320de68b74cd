// Server-to-client messages decoded strictly, for clients and tests. They are written in
// server_codec.cpp.
#include <charconv>
#include <limits>

#include "protocol/codec.hpp"
#include "protocol/fields.hpp"
#include "protocol/snapshot_json.hpp"

namespace herd::protocol {
namespace {

using namespace detail;
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

// An agent's (or its trace's) stall: "stall" (a reason other than "none"), "stall_for" (s, with
// it) and "stall_by" (ids, at most StallRule::kMaxBy, only with it).
void read_stall(Fields& f, sim::StallReason& reason, double& seconds,
                std::vector<std::uint32_t>& by) {
  const json* r = f.find("stall");
  if (!r) {
    if (f.find("stall_for") || f.find("stall_by")) bad(f.name("stall_for"), "comes with 'stall'");
    return;
  }
  const auto known = sim::stall_from_name(as_string(*r, f.name("stall")));
  if (!known || *known == sim::StallReason::none) bad(f.name("stall"), "is not a stall reason");
  reason = *known;
  seconds = as_number(f.need("stall_for"), f.name("stall_for"), 0, kHuge);
  if (const json* b = f.find("stall_by"))
    by = as_ids(*b, f.name("stall_by"), sim::StallRule::kMaxBy);
}

AgentState read_agent(const json& v, const std::string& where) {
  Fields a(v, where);
  AgentState st;
  st.id = as_u32(a.need("id"), a.name("id"));
  st.x = as_number(a.need("x"), a.name("x"), -kHuge, kHuge);
  st.y = as_number(a.need("y"), a.name("y"), -kHuge, kHuge);
  st.vx = as_number(a.need("vx"), a.name("vx"), -kHuge, kHuge);
  st.vy = as_number(a.need("vy"), a.name("vy"), -kHuge, kHuge);
  st.r = as_number(a.need("r"), a.name("r"), 0, kHuge);
  st.group = as_group(a.need("group"), a.name("group"));
  const std::string_view state = as_string(a.need("state"), a.name("state"));
  if (state == "idle")
    st.state = sim::MoveState::idle;
  else if (state == "moving")
    st.state = sim::MoveState::moving;
  else if (state == "arrived")
    st.state = sim::MoveState::arrived;
  else if (state == "unreachable")
    st.state = sim::MoveState::unreachable;
  else
    bad(a.name("state"), "is not a known agent state");
  // No behaviour: another team's agent, whose orders its audience is not told.
  if (const json* b = a.find("behaviour")) {
    const auto behaviour = behaviour_from_string(as_string(*b, a.name("behaviour")));
    if (!behaviour) bad(a.name("behaviour"), "is not a known behaviour");
    st.behaviour = *behaviour;
  } else {
    st.orders_hidden = true;
  }
  if (const json* p = a.find("phase")) {
    const auto phase = phase_from_string(as_string(*p, a.name("phase")));
    if (!phase) bad(a.name("phase"), "is not a known phase");
    st.phase = *phase;
  }
  const json* tx = a.find("tx");
  const json* ty = a.find("ty");
  if ((tx == nullptr) != (ty == nullptr)) bad(a.name("tx"), "and 'ty' come together");
  if (tx)
    st.target = sim::Vec2{as_number(*tx, a.name("tx"), -kHuge, kHuge),
                          as_number(*ty, a.name("ty"), -kHuge, kHuge)};
  if (const json* c = a.find("collided")) st.collided = as_bool(*c, a.name("collided"));
  if (const json* m = a.find("movement"))
    st.kinematic = as_string(*m, a.name("movement")) == "kinematic";
  if (const json* p = a.find("pathing")) {
    const auto pathing = pathing_from_string(as_string(*p, a.name("pathing")));
    if (!pathing) bad(a.name("pathing"), "is not a known pathing mode");
    st.pathing = *pathing;
  }
  if (const json* p = a.find("path")) {
    if (as_string(*p, a.name("path")) != "pending")
      bad(a.name("path"), "must be \"pending\" when present");
    st.path_pending = true;
  }
  if (const json* s = a.find("subject")) st.subject = as_u32(*s, a.name("subject"));
  if (const json* p = a.find("priority"))
    st.priority = static_cast<std::uint8_t>(
        as_uint(*p, a.name("priority"), sim::AgentDefLimits::kMaxPriority));
  if (const json* l = a.find("layer")) st.layer = as_u32(*l, a.name("layer"));
  if (const json* m = a.find("mask")) st.mask = as_u32(*m, a.name("mask"));
  if (const json* t = a.find("team"))
    st.team = static_cast<std::uint8_t>(as_uint(*t, a.name("team"), sim::AgentDefLimits::kMaxTeam));
  if (const json* s = a.find("sight"))
    st.sight = as_number(*s, a.name("sight"), 0, sim::AgentDefLimits::kMaxSight);
  const json* hp = a.find("hp");
  const json* max_hp = a.find("max_hp");
  if ((hp == nullptr) != (max_hp == nullptr)) bad(a.name("hp"), "and 'max_hp' come together");
  if (hp) {
    st.hp = as_number(*hp, a.name("hp"), 0, sim::AgentDefLimits::kMaxHp);
    st.max_hp = as_number(*max_hp, a.name("max_hp"), 0, sim::AgentDefLimits::kMaxHp);
  }
  if (const json* h = a.find("history")) {
    const auto flat = as_ids(*h, a.name("history"), 2 * sim::WalkerLimits::kMaxHistory + 2);
    if (flat.size() % 2) bad(a.name("history"), "must hold x, y pairs");
    for (std::size_t k = 0; k < flat.size(); k += 2)
      st.history.push_back(
          {static_cast<std::int32_t>(flat[k]), static_cast<std::int32_t>(flat[k + 1])});
  }
  if (const json* v = a.find("waypoints")) {
    if (!v->is_array() || v->size() % 2 ||
        v->size() > 2 * 64 * 66)  // 64 queued orders of routes of 65
      bad(a.name("waypoints"), "must be a flat array of x, y pairs");
    for (std::size_t k = 0; k < v->size(); k += 2)
      st.waypoints.push_back({as_number((*v)[k], a.name("waypoints"), -kHuge, kHuge),
                              as_number((*v)[k + 1], a.name("waypoints"), -kHuge, kHuge)});
  }
  read_stall(a, st.stall, st.stall_for, st.stall_by);
  a.no_others();
  return st;
}

PushState read_push(const json& v, const std::string& where) {
  Fields f(v, where);
  PushState p;
  p.id = as_u32(f.need("id"), f.name("id"));
  if (const json* o = f.find("obstacle")) p.obstacle = as_bool(*o, f.name("obstacle"));
  p.raw = as_point(f.need("raw"), f.name("raw"));
  p.adjusted = as_point(f.need("adjusted"), f.name("adjusted"));
  p.weight = as_number(f.need("weight"), f.name("weight"), 0, kHuge);
  if (const json* i = f.find("ignored")) p.ignored = as_bool(*i, f.name("ignored"));
  if (const json* c = f.find("crossing")) {
    Fields x(*c, f.name("crossing"));
    p.crossing = true;
    p.yielded = as_bool(x.need("yielded"), x.name("yielded"));
    if (const json* pt = x.find("point")) p.point = as_point(*pt, x.name("point"));
    p.t_self = as_number(x.need("t_self"), x.name("t_self"), 0, kHuge);
    p.t_other = as_number(x.need("t_other"), x.name("t_other"), 0, kHuge);
    p.scale = as_number(x.need("scale"), x.name("scale"), -kHuge, kHuge);
    p.path_to = as_point(x.need("path_to"), x.name("path_to"));
    x.no_others();
  }
  f.no_others();
  return p;
}

InspectState read_inspect(const json& v, const std::string& where) {
  Fields f(v, where);
  InspectState s;
  s.id = as_u32(f.need("id"), f.name("id"));
  s.desired = as_point(f.need("desired"), f.name("desired"));
  const json& pushes = f.need("pushes");
  if (!pushes.is_array()) bad(f.name("pushes"), "must be an array");
  for (std::size_t i = 0; i < pushes.size(); ++i)
    s.pushes.push_back(read_push(pushes[i], f.name("pushes") + "[" + std::to_string(i) + "]"));
  s.sum_raw = as_point(f.need("sum_raw"), f.name("sum_raw"));
  s.sum_adjusted = as_point(f.need("sum_adjusted"), f.name("sum_adjusted"));
  s.split_fix = as_point(f.need("split_fix"), f.name("split_fix"));
  s.ig_factor = as_number(f.need("ig_factor"), f.name("ig_factor"), 0, 1);
  s.final_dir = as_point(f.need("final"), f.name("final"));
  s.velocity = as_point(f.need("velocity"), f.name("velocity"));
  s.desired_path_to = as_point(f.need("desired_path_to"), f.name("desired_path_to"));
  s.current_path_to = as_point(f.need("current_path_to"), f.name("current_path_to"));
  read_stall(f, s.stall, s.stall_for, s.stall_by);
  f.no_others();
  return s;
}

template <class T, class Read>
std::vector<T> read_array(Fields& f, const char* key, Read&& read) {
  std::vector<T> out;
  const json* v = f.find(key);
  if (!v) return out;
  if (!v->is_array()) bad(key, "must be an array");
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i)
    out.push_back(read((*v)[i], std::string(key) + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<ObstacleState> read_obstacles(Fields& f) {
  return read_array<ObstacleState>(f, "obstacles", [](const json& v, const std::string& where) {
    Fields o(v, where);
    ObstacleState st{as_u32(o.need("id"), o.name("id")),
                     as_number(o.need("x"), o.name("x"), -kHuge, kHuge),
                     as_number(o.need("y"), o.name("y"), -kHuge, kHuge),
                     as_number(o.need("r"), o.name("r"), 0, kHuge)};
    o.no_others();
    return st;
  });
}

std::vector<WallState> read_walls(Fields& f) {
  return read_array<WallState>(f, "walls", [](const json& v, const std::string& where) {
    Fields o(v, where);
    WallState st;
    st.id = as_u32(o.need("id"), o.name("id"));
    const json& points = o.need("points");
    if (!points.is_array()) bad(o.name("points"), "must be an array of points");
    for (std::size_t i = 0; i < points.size(); ++i)
      st.points.push_back(as_point(points[i], o.name("points") + "[" + std::to_string(i) + "]"));
    st.closed = as_bool(o.need("closed"), o.name("closed"));
    o.no_others();
    return st;
  });
}

MeasurementState read_measurement(const json& v, const std::string& where) {
  Fields f(v, where);
  MeasurementState m;
  m.id = as_u32(f.need("id"), f.name("id"));
  const json* line = f.find("line");
  const json* area = f.find("area");
  if ((line != nullptr) == (area != nullptr)) bad(where, "must have one of 'line' and 'area'");
  m.line = line != nullptr;
  if (line) {
    if (!line->is_array() || line->size() != 2) bad(f.name("line"), "must be two points");
    m.a = as_point((*line)[0], f.name("line") + "[0]");
    m.b = as_point((*line)[1], f.name("line") + "[1]");
    m.forward = as_uint(f.need("forward"), f.name("forward"), kMaxU64);
    m.backward = as_uint(f.need("backward"), f.name("backward"), kMaxU64);
  } else {
    Fields a(*area, f.name("area"));
    m.a = {as_number(a.need("x"), a.name("x"), -kHuge, kHuge),
           as_number(a.need("y"), a.name("y"), -kHuge, kHuge)};
    m.b = {m.a.x + as_number(a.need("width"), a.name("width"), 0, kHuge),
           m.a.y + as_number(a.need("height"), a.name("height"), 0, kHuge)};
    a.no_others();
  }
  if (const json* t = f.find("tick")) {
    m.tick = as_uint(*t, f.name("tick"), kMaxU64);
    m.seconds = as_number(f.need("seconds"), f.name("seconds"), 0, kHuge);
    if (m.line) {
      m.flow_forward = as_number(f.need("flow_forward"), f.name("flow_forward"), 0, kHuge);
      m.flow_backward = as_number(f.need("flow_backward"), f.name("flow_backward"), 0, kHuge);
      if (const json* g = f.find("mean_gap"))
        m.mean_gap = as_number(*g, f.name("mean_gap"), 0, kHuge);
    } else {
      m.count = as_u32(f.need("count"), f.name("count"));
      m.density = as_number(f.need("density"), f.name("density"), 0, kHuge);
      if (const json* sp = f.find("mean_speed"))
        m.mean_speed = as_number(*sp, f.name("mean_speed"), 0, kHuge);
    }
  }
  f.no_others();
  return m;
}

// A source's or exit's {"x","y","width","height"}: its min and max corners.
void read_area_of(Fields& f, sim::Vec2& min, sim::Vec2& max) {
  Fields a(f.need("area"), f.name("area"));
  min = {as_number(a.need("x"), a.name("x"), -kHuge, kHuge),
         as_number(a.need("y"), a.name("y"), -kHuge, kHuge)};
  max = {min.x + as_number(a.need("width"), a.name("width"), 0, kHuge),
         min.y + as_number(a.need("height"), a.name("height"), 0, kHuge)};
  a.no_others();
}

SourceState read_source(const json& v, const std::string& where) {
  Fields f(v, where);
  SourceState s;
  s.id = as_u32(f.need("id"), f.name("id"));
  read_area_of(f, s.min, s.max);
  s.rate = as_number(f.need("rate"), f.name("rate"), 0, kHuge);
  s.total = as_u32(f.need("total"), f.name("total"));
  s.spawned = as_u32(f.need("spawned"), f.name("spawned"));
  s.remaining = as_u32(f.need("remaining"), f.name("remaining"));
  f.no_others();
  return s;
}

ExitState read_exit(const json& v, const std::string& where) {
  Fields f(v, where);
  ExitState e;
  e.id = as_u32(f.need("id"), f.name("id"));
  read_area_of(f, e.min, e.max);
  e.removed = as_uint(f.need("removed"), f.name("removed"), kMaxU64);
  f.no_others();
  return e;
}

Snapshot read_snapshot(Fields& f) {
  Snapshot s;
  s.tick = as_uint(f.need("tick"), "tick", kMaxU64);
  if (const json* n = f.find("serial")) s.serial = as_uint(*n, "serial", kMaxU64);
  s.time = as_number(f.need("time"), "time", 0, std::numeric_limits<double>::max());
  const auto mode = avoidance_mode_from_string(as_string(f.need("avoidance"), "avoidance"));
  if (!mode) bad("avoidance", "is not a known avoidance mode");
  s.avoidance = *mode;
  if (!f.need("agents").is_array()) bad("agents", "must be an array");
  s.agents = read_array<AgentState>(f, "agents", read_agent);
  if (f.find("obstacles")) s.obstacles = read_obstacles(f);
  if (f.find("walls")) s.walls = read_walls(f);
  s.collisions =
      read_array<CollisionState>(f, "collisions", [](const json& v, const std::string& where) {
        Fields c(v, where);
        CollisionState st;
        st.a = as_u32(c.need("a"), c.name("a"));
        st.b = as_u32(c.need("b"), c.name("b"));
        if (const json* o = c.find("obstacle")) st.obstacle = as_bool(*o, c.name("obstacle"));
        st.x = as_number(c.need("x"), c.name("x"), -kHuge, kHuge);
        st.y = as_number(c.need("y"), c.name("y"), -kHuge, kHuge);
        st.impulse = as_number(c.need("impulse"), c.name("impulse"), 0, kHuge);
        c.no_others();
        return st;
      });
  s.formations =
      read_array<FormationState>(f, "formations", [](const json& v, const std::string& where) {
        Fields fo(v, where);
        FormationState st{as_u32(fo.need("id"), fo.name("id")),
                          as_u32(fo.need("agents"), fo.name("agents")),
                          as_u32(fo.need("arrived"), fo.name("arrived")),
                          as_bool(fo.need("complete"), fo.name("complete")),
                          {}};
        st.unreachable = read_array<UnreachableState>(
            fo, "unreachable", [](const json& u, const std::string& at) {
              Fields fu(u, at);
              UnreachableState us;
              us.agent = as_u32(fu.need("agent"), fu.name("agent"));
              us.x = as_number(fu.need("x"), fu.name("x"), -kHuge, kHuge);
              us.y = as_number(fu.need("y"), fu.name("y"), -kHuge, kHuge);
              const std::string_view reason = as_string(fu.need("reason"), fu.name("reason"));
              if (reason != "obstacle" && reason != "no_path")
                bad(fu.name("reason"), "must be 'obstacle' or 'no_path'");
              us.no_path = reason == "no_path";
              if (const json* to = fu.find("to")) {
                Fields ft(*to, fu.name("to"));
                us.to_x = as_number(ft.need("x"), ft.name("x"), -kHuge, kHuge);
                us.to_y = as_number(ft.need("y"), ft.name("y"), -kHuge, kHuge);
                ft.no_others();
              }
              fu.no_others();
              return us;
            });
        fo.no_others();
        return st;
      });
  s.events = read_array<EventState>(f, "events", [](const json& v, const std::string& where) {
    Fields e(v, where);
    EventState st;
    const std::string_view type = as_string(e.need("type"), e.name("type"));
    bool known = false;
    for (const sim::EventKind k : {sim::EventKind::hit, sim::EventKind::death,
                                   sim::EventKind::order_done, sim::EventKind::seen})
      if (type == sim::event_name(k)) {
        st.kind = k;
        known = true;
      }
    if (!known) bad(e.name("type"), "is not a known event");
    st.tick = as_uint(e.need("tick"), e.name("tick"), kMaxU64);
    st.agent = as_u32(e.need("agent"), e.name("agent"));
    if (const json* b = e.find("by")) st.by = as_u32(*b, e.name("by"));
    st.x = as_number(e.need("x"), e.name("x"), -kHuge, kHuge);
    st.y = as_number(e.need("y"), e.name("y"), -kHuge, kHuge);
    if (st.kind == sim::EventKind::hit) {
      st.damage = as_number(e.need("damage"), e.name("damage"), 0, kHuge);
      st.hp = as_number(e.need("hp"), e.name("hp"), 0, kHuge);
    }
    e.no_others();
    return st;
  });
  if (const json* h = f.find("health")) {
    if (!h->is_array() || h->size() % 3 != 0)
      bad("health", "must be a flat array of id, hp, max_hp");
    std::vector<HealthState> health;
    for (std::size_t k = 0; k < h->size(); k += 3)
      health.push_back({as_u32((*h)[k], "health"), as_number((*h)[k + 1], "health", 0, kHuge),
                        as_number((*h)[k + 2], "health", 0, kHuge)});
    s.health = std::move(health);
  }
  if (f.find("ghosts"))
    s.ghosts = read_array<GhostState>(f, "ghosts", [](const json& v, const std::string& where) {
      Fields g(v, where);
      GhostState st;
      st.id = as_u32(g.need("id"), g.name("id"));
      st.x = as_number(g.need("x"), g.name("x"), -kHuge, kHuge);
      st.y = as_number(g.need("y"), g.name("y"), -kHuge, kHuge);
      st.r = as_number(g.need("r"), g.name("r"), 0, kHuge);
      st.group = as_group(g.need("group"), g.name("group"));
      st.team = static_cast<std::uint8_t>(
          as_uint(g.need("team"), g.name("team"), sim::AgentDefLimits::kMaxTeam));
      st.time = as_number(g.need("time"), g.name("time"), 0, kHuge);
      g.no_others();
      return st;
    });
  if (const json* e = f.find("explored")) {
    Fields x(*e, "explored");
    ExploredState st;
    st.cell = as_number(x.need("cell"), x.name("cell"), 0, kHuge);
    st.cols = as_u32(x.need("cols"), x.name("cols"));
    st.rows = as_u32(x.need("rows"), x.name("rows"));
    auto bits = base64_decode(as_string(x.need("bits"), x.name("bits")));
    if (!bits || bits->size() != (std::uint64_t{st.cols} * st.rows + 7) / 8)
      bad(x.name("bits"), "must be base64 of a bit per cell");
    st.bits = std::move(*bits);
    x.no_others();
    s.explored = std::move(st);
  }
  if (f.find("measurements"))
    s.measurements = read_array<MeasurementState>(f, "measurements", read_measurement);
  if ((f.find("sources") != nullptr) != (f.find("exits") != nullptr))
    bad("sources", "and 'exits' come together");
  if (f.find("sources")) {
    s.sources = read_array<SourceState>(f, "sources", read_source);
    s.exits = read_array<ExitState>(f, "exits", read_exit);
  }
  s.inspect = read_array<InspectState>(f, "inspect", read_inspect);
  if (const json* m = f.find("map")) {
    if (m->is_null()) {
      s.map_cleared = true;
    } else {
      Fields mf(*m, "map");
      s.map = read_map(mf);
      mf.no_others();
    }
  }
  if (const json* d = f.find("density")) s.density = read_density(*d, "density");
  return s;
}

Welcome read_welcome(Fields& f) {
  Welcome w;
  w.protocol = static_cast<int>(as_uint(f.need("protocol"), "protocol", 1u << 30));
  w.server = std::string(as_string(f.need("server"), "server"));
  w.session = as_uint(f.need("session"), "session", kMaxU64);
  const std::string_view role = as_string(f.need("role"), "role");
  const std::optional<Role> r = role_from_string(role);
  if (!r)
    bad("role", "must be \"operator\", \"commander\", \"player\", \"spectator\" or \"viewer\"");
  w.role = *r;
  w.says_operator = role == "operator";
  if (const json* p = f.find("player")) w.player = std::string(as_string(*p, "player"));
  if (const json* t = f.find("team"))
    w.team = static_cast<std::uint8_t>(as_uint(*t, "team", sim::AgentDefLimits::kMaxTeam));
  w.tick_rate = as_number(f.need("tick_rate"), "tick_rate", 0, kHuge);
  w.snapshot_rate = as_number(f.need("snapshot_rate"), "snapshot_rate", 0, kHuge);
  w.dt = as_number(f.need("dt"), "dt", 0, kHuge);
  w.tick = as_uint(f.need("tick"), "tick", kMaxU64);
  Fields world(f.need("world"), "world");
  w.world.width = as_number(world.need("width"), "world.width", 0, kHuge);
  w.world.height = as_number(world.need("height"), "world.height", 0, kHuge);
  world.no_others();
  Fields limits(f.need("limits"), "limits");
  w.max_message_bytes = as_u32(limits.need("max_message_bytes"), "limits.max_message_bytes");
  w.max_agents = as_u32(limits.need("max_agents"), "limits.max_agents");
  limits.no_others();
  if (const json* m = f.find("map")) {
    Fields mf(*m, "map");
    w.map = read_map(mf);
    mf.no_others();
  }
  w.obstacles = read_obstacles(f);
  w.walls = read_walls(f);
  if (const json* s = f.find("scenario")) w.scenario = std::string(as_string(*s, "scenario"));
  if (const json* d = f.find("description"))
    w.description = std::string(as_string(*d, "description"));
  if (const json* list = f.find("scenarios")) {
    if (!list->is_array()) bad("scenarios", "must be an array of names");
    for (std::size_t i = 0; i < list->size(); ++i)
      w.scenarios.emplace_back(as_string((*list)[i], "scenarios[" + std::to_string(i) + "]"));
  }
  if (const json* d = f.find("descriptions")) {
    if (!d->is_object()) bad("descriptions", "must be an object of names to descriptions");
    for (const auto& [name, text] : d->items())
      w.descriptions[name] = std::string(as_string(text, "descriptions." + name));
  }
  if (const json* p = f.find("paused")) w.paused = as_bool(*p, "paused");
  if (const json* u = f.find("upstream")) {
    w.upstream = std::string(as_string(*u, "upstream"));
    if (w.upstream != "connected" && w.upstream != "reconnecting")
      bad("upstream", "must be \"connected\" or \"reconnecting\"");
  }
  if (const json* d = f.find("delay")) w.delay = as_number(*d, "delay", 0, kHuge);
  w.teams = read_array<Welcome::TeamColour>(f, "teams", [](const json& v, const std::string& at) {
    Fields t(v, at);
    Welcome::TeamColour c;
    c.team = static_cast<std::uint8_t>(
        as_uint(t.need("team"), t.name("team"), sim::AgentDefLimits::kMaxTeam));
    c.colour = std::string(as_string(t.need("colour"), t.name("colour")));
    t.no_others();
    return c;
  });
  return w;
}

Ack read_ack(Fields& f) {
  Ack a;
  a.seq = as_u32(f.need("seq"), "seq");
  a.tick = as_uint(f.need("tick"), "tick", kMaxU64);
  if (const json* c = f.find("count")) a.count = as_u32(*c, "count");
  if (const json* ids = f.find("agents"))
    a.agents = as_ids(*ids, "agents", std::numeric_limits<std::size_t>::max());
  if (const json* o = f.find("obstacle")) a.obstacle = as_u32(*o, "obstacle");
  if (const json* o = f.find("formation")) a.formation = as_u32(*o, "formation");
  if (const json* o = f.find("measurement")) a.measurement = as_u32(*o, "measurement");
  if (const json* o = f.find("source")) a.source = as_u32(*o, "source");
  if (const json* o = f.find("exit")) a.exit = as_u32(*o, "exit");
  if (const json* o = f.find("wall")) a.wall = as_u32(*o, "wall");
  return a;
}

Error read_error(Fields& f) {
  Error e;
  if (const json* s = f.find("seq")) e.seq = as_u32(*s, "seq");
  const auto code = error_code_from_string(as_string(f.need("code"), "code"));
  if (!code) bad("code", "is not a known error code");
  e.code = *code;
  e.message = std::string(as_string(f.need("message"), "message"));
  return e;
}

SessionInfo read_session(const json& v, const std::string& where) {
  Fields r(v, where);
  SessionInfo s;
  s.id = as_uint(r.need("id"), r.name("id"), kMaxSessionId);
  if (const json* role = r.find("role")) {
    const std::string_view name = as_string(*role, r.name("role"));
    const std::optional<Role> role_value = role_from_string(name);
    if (!role_value) bad(r.name("role"), "is not a known role");
    s.role = *role_value;
  }
  if (const json* format = r.find("format")) {
    s.format = snapshot_format_from_string(as_string(*format, r.name("format")));
    if (!s.format) bad(r.name("format"), "must be \"json\", \"binary\" or \"auto\"");
  }
  if (const json* c = r.find("client")) s.client = std::string(as_string(*c, r.name("client")));
  if (const json* p = r.find("player")) s.player = std::string(as_string(*p, r.name("player")));
  if (const json* t = r.find("team"))
    s.team = static_cast<std::uint8_t>(as_uint(*t, r.name("team"), sim::AgentDefLimits::kMaxTeam));
  s.address = std::string(as_string(r.need("address"), r.name("address")));
  s.connected_s = as_number(r.need("connected_s"), r.name("connected_s"), 0, kHuge);
  s.bytes_sent = as_uint(r.need("bytes_sent"), r.name("bytes_sent"), kMaxU64);
  s.snapshots_sent = as_uint(r.need("snapshots_sent"), r.name("snapshots_sent"), kMaxU64);
  s.dropped = as_uint(r.need("dropped"), r.name("dropped"), kMaxU64);
  if (const json* rtt = r.find("rtt_ms")) s.rtt_ms = as_number(*rtt, r.name("rtt_ms"), 0, kHuge);
  if (const json* you = r.find("you")) s.you = as_bool(*you, r.name("you"));
  r.no_others();
  return s;
}

SessionList read_sessions(Fields& f) {
  SessionList m;
  m.seq = as_u32(f.need("seq"), "seq");
  const json& list = f.need("sessions");
  if (!list.is_array()) bad("sessions", "must be an array");
  for (std::size_t i = 0; i < list.size(); ++i)
    m.sessions.push_back(read_session(list[i], "sessions[" + std::to_string(i) + "]"));
  m.omitted = as_uint(f.need("omitted"), "omitted", kMaxU64);
  return m;
}

}  // namespace

std::optional<std::uint64_t> snapshot_tick(std::string_view text) {
  static constexpr std::string_view kHead = R"({"type":"snapshot","tick":)";
  if (text.substr(0, kHead.size()) != kHead) return std::nullopt;
  std::uint64_t tick = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data() + kHead.size(), end, tick);
  if (ec != std::errc{} || at == end || *at != ',') return std::nullopt;
  return tick;
}

Decoded<ServerMessage> decode_server(std::string_view text) {
  return decode_with<ServerMessage>(
      text, kMaxJsonDepth,
      [](Fields& f, std::string_view type, std::optional<std::uint32_t>&) -> ServerMessage {
        if (type == "snapshot") return read_snapshot(f);
        if (type == "welcome") return read_welcome(f);
        if (type == "ack") return read_ack(f);
        if (type == "error") return read_error(f);
        if (type == "pong")
          return Pong{as_u32(f.need("id"), "id"), as_uint(f.need("tick"), "tick", kMaxU64)};
        if (type == "sessions") return read_sessions(f);
        fail(ErrorCode::bad_type, "unknown message type '" + std::string(type) + "'");
      });
}

}  // namespace herd::protocol
