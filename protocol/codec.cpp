#include "protocol/codec.hpp"

#include <cmath>
#include <sstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "protocol/json_writer.hpp"
#include "sim/world.hpp"

namespace herd::protocol {
namespace {

using nlohmann::json;

constexpr std::string_view kErrorNames[] = {
    "bad_json",     "bad_type",      "bad_field",      "unknown_command",
    "hello_required", "already_greeted", "protocol_mismatch", "forbidden",
    "unknown_agent", "out_of_bounds", "limit_exceeded", "binary_not_supported",
};

// Thrown only inside this file, by the field readers below, and always caught by decode_*: the
// readers stay short and every failure carries the field's name.
struct FieldError {
  ErrorCode code;
  std::string message;
};

[[noreturn]] void fail(ErrorCode code, std::string message) { throw FieldError{code, std::move(message)}; }
[[noreturn]] void bad(const std::string& where, const std::string& what) {
  fail(ErrorCode::bad_field, "'" + where + "' " + what);
}

// Reads the fields of one JSON object, remembering which it read, so that any other field can be
// refused (PROTOCOL.md: unknown fields get bad_field).
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) bad(path_.empty() ? "message" : path_, "must be an object");
  }

  const json* find(const char* key) {
    read_.push_back(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& need(const char* key) {
    const json* v = find(key);
    if (!v) bad(name(key), "is required");
    return *v;
  }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  // Everything not read so far is unknown. Call after reading every known field.
  void no_others() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      bool known = false;
      for (const char* k : read_) known = known || it.key() == k;
      if (!known) bad(name(it.key().c_str()), "is not a known field");
    }
  }

 private:
  const json& j_;
  std::string path_;
  std::vector<const char*> read_;
};

std::uint64_t as_uint(const json& v, const std::string& where, std::uint64_t max) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= max) return u;
  } else if (!v.is_number_integer()) {
    bad(where, "must be an integer");
  }
  bad(where, "must be in [0, " + std::to_string(max) + "]");
}

double as_number(const json& v, const std::string& where, double lo, double hi) {
  if (!v.is_number()) bad(where, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) bad(where, "must be finite");
  if (d < lo || d > hi) {
    std::ostringstream os;
    os << "must be in [" << lo << ", " << hi << "]";
    bad(where, os.str());
  }
  return d;
}

std::string_view as_string(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "must be a string");
  return v.get_ref<const std::string&>();
}

constexpr double kHuge = 1e9;  // coordinates: finite and sane here; the world checks its bounds

sim::Vec2 as_point(const json& v, const std::string& where) {
  Fields f(v, where);
  sim::Vec2 p{as_number(f.need("x"), f.name("x"), -kHuge, kHuge),
              as_number(f.need("y"), f.name("y"), -kHuge, kHuge)};
  f.no_others();
  return p;
}

std::uint32_t as_u32(const json& v, const std::string& where) {
  return static_cast<std::uint32_t>(as_uint(v, where, std::numeric_limits<std::uint32_t>::max()));
}

std::uint8_t as_group(const json& v, const std::string& where) {
  return static_cast<std::uint8_t>(as_uint(v, where, 255));
}

Hello read_hello(Fields& f) {
  Hello h;
  const json& p = f.need("protocol");
  if (!p.is_number_integer()) bad("protocol", "must be an integer");
  const auto version = p.get<std::int64_t>();
  const std::string_view role = as_string(f.need("role"), "role");
  if (role == "viewer") h.role = Role::viewer;
  else if (role == "commander") h.role = Role::commander;
  else bad("role", "must be \"viewer\" or \"commander\"");
  if (const json* c = f.find("client")) {
    h.client = std::string(as_string(*c, "client"));
    if (h.client.size() > kMaxClientNameBytes) bad("client", "must be at most 64 bytes");
  }
  f.no_others();
  if (version != kProtocolVersion) {
    fail(ErrorCode::protocol_mismatch, "this server speaks protocol " + std::to_string(kProtocolVersion) +
                                           ", the client asked for " + std::to_string(version));
  }
  h.protocol = static_cast<int>(version);
  return h;
}

sim::Selection read_selection(const json& v, const std::string& where) {
  sim::Selection s;
  if (v.is_string() && v.get_ref<const std::string&>() == "all") {
    s.all = true;
    return s;
  }
  if (!v.is_array()) bad(where, "must be \"all\" or an array of agent ids");
  if (v.empty() || v.size() > kMaxIdsPerCommand) bad(where, "must hold 1 to 10000 ids");
  s.ids.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) s.ids.push_back(as_u32(v[i], where + "[" + std::to_string(i) + "]"));
  return s;
}

sim::SetTarget read_set_target(Fields& f) {
  sim::SetTarget c;
  c.agents = read_selection(f.need("agents"), "agents");
  c.target = as_point(f.need("target"), "target");
  if (const json* b = f.find("behaviour")) {
    const std::string_view name = as_string(*b, "behaviour");
    if (name == "arrive") c.behaviour = sim::Behaviour::arrive;
    else if (name == "seek") c.behaviour = sim::Behaviour::seek;
    else bad("behaviour", "must be \"arrive\" or \"seek\"");
  }
  return c;
}

sim::SpawnAgent read_spawn_agent(const json& v, const std::string& where) {
  Fields f(v, where);
  sim::SpawnAgent a;
  a.position = {as_number(f.need("x"), f.name("x"), -kHuge, kHuge),
                as_number(f.need("y"), f.name("y"), -kHuge, kHuge)};
  if (const json* g = f.find("group")) a.group = as_group(*g, f.name("group"));
  if (const json* r = f.find("radius")) a.radius = as_number(*r, f.name("radius"), 0.1, 100.0);
  if (const json* s = f.find("max_speed")) a.max_speed = as_number(*s, f.name("max_speed"), 0.0, 1e4);
  if (const json* m = f.find("max_force")) a.max_force = as_number(*m, f.name("max_force"), 0.0, 1e5);
  if (const json* t = f.find("target")) a.target = as_point(*t, f.name("target"));
  f.no_others();
  return a;
}

sim::Spawn read_spawn(Fields& f) {
  sim::Spawn c;
  const json* count = f.find("count");
  const json* agents = f.find("agents");
  if ((count == nullptr) == (agents == nullptr)) bad("count", "or 'agents': exactly one must be given");
  if (count) {
    c.count = static_cast<std::uint32_t>(as_uint(*count, "count", kMaxSpawnPerCommand));
    if (c.count == 0) bad("count", "must be in [1, 1000]");
    if (const json* g = f.find("group")) c.group = as_group(*g, "group");
  } else {
    if (!agents->is_array() || agents->empty() || agents->size() > kMaxSpawnPerCommand)
      bad("agents", "must be an array of 1 to 1000 agents");
    for (std::size_t i = 0; i < agents->size(); ++i)
      c.agents.push_back(read_spawn_agent((*agents)[i], "agents[" + std::to_string(i) + "]"));
  }
  return c;
}

CommandMsg read_command(Fields& f, std::optional<std::uint32_t>& seq_out) {
  CommandMsg m;
  m.seq = as_u32(f.need("seq"), "seq");
  seq_out = m.seq;  // from here on, errors can name the command
  const std::string_view cmd = as_string(f.need("cmd"), "cmd");
  if (cmd == "set_target") m.command = read_set_target(f);
  else if (cmd == "spawn") m.command = read_spawn(f);
  else fail(ErrorCode::unknown_command, "unknown command '" + std::string(cmd) + "'");
  f.no_others();
  return m;
}

// Parses text into a JSON object, refusing what is not one and anything nested deeper than
// kMaxJsonDepth (the parser is iterative, but a bound keeps every message's cost small).
json parse_object(std::string_view text) {
  bool too_deep = false;
  json::parser_callback_t depth_guard = [&too_deep](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  json j = json::parse(text.begin(), text.end(), depth_guard, /*allow_exceptions=*/false);
  if (too_deep) fail(ErrorCode::bad_json, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  if (j.is_discarded()) fail(ErrorCode::bad_json, "not valid JSON (or not valid UTF-8)");
  if (!j.is_object()) fail(ErrorCode::bad_json, "a message must be a JSON object");
  return j;
}

std::string_view read_type(Fields& f) {
  const json* t = f.find("type");
  if (!t || !t->is_string()) fail(ErrorCode::bad_type, "'type' is required and must be a string");
  return t->get_ref<const std::string&>();
}

sim::MoveState move_state_from(std::string_view s) {
  if (s == "idle") return sim::MoveState::idle;
  if (s == "moving") return sim::MoveState::moving;
  if (s == "arrived") return sim::MoveState::arrived;
  bad("state", "is not a known agent state");
}

Role role_from(std::string_view s) {
  if (s == "viewer") return Role::viewer;
  if (s == "commander") return Role::commander;
  bad("role", "must be \"viewer\" or \"commander\"");
}

Snapshot read_snapshot(Fields& f) {
  Snapshot s;
  s.tick = as_uint(f.need("tick"), "tick", std::numeric_limits<std::uint64_t>::max());
  s.time = as_number(f.need("time"), "time", 0, std::numeric_limits<double>::max());
  const json& agents = f.need("agents");
  if (!agents.is_array()) bad("agents", "must be an array");
  s.agents.reserve(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i) {
    Fields a(agents[i], "agents[" + std::to_string(i) + "]");
    AgentState st;
    st.id = as_u32(a.need("id"), a.name("id"));
    st.x = as_number(a.need("x"), a.name("x"), -kHuge, kHuge);
    st.y = as_number(a.need("y"), a.name("y"), -kHuge, kHuge);
    st.vx = as_number(a.need("vx"), a.name("vx"), -kHuge, kHuge);
    st.vy = as_number(a.need("vy"), a.name("vy"), -kHuge, kHuge);
    st.r = as_number(a.need("r"), a.name("r"), 0, kHuge);
    st.group = as_group(a.need("group"), a.name("group"));
    st.state = move_state_from(as_string(a.need("state"), a.name("state")));
    const json* tx = a.find("tx");
    const json* ty = a.find("ty");
    if ((tx == nullptr) != (ty == nullptr)) bad(a.name("tx"), "and 'ty' come together");
    if (tx) st.target = sim::Vec2{as_number(*tx, a.name("tx"), -kHuge, kHuge), as_number(*ty, a.name("ty"), -kHuge, kHuge)};
    a.no_others();
    s.agents.push_back(st);
  }
  return s;
}

Welcome read_welcome(Fields& f) {
  Welcome w;
  w.protocol = static_cast<int>(as_uint(f.need("protocol"), "protocol", 1u << 30));
  w.server = std::string(as_string(f.need("server"), "server"));
  w.session = as_uint(f.need("session"), "session", std::numeric_limits<std::uint64_t>::max());
  w.role = role_from(as_string(f.need("role"), "role"));
  w.tick_rate = as_number(f.need("tick_rate"), "tick_rate", 0, kHuge);
  w.snapshot_rate = as_number(f.need("snapshot_rate"), "snapshot_rate", 0, kHuge);
  w.dt = as_number(f.need("dt"), "dt", 0, kHuge);
  w.tick = as_uint(f.need("tick"), "tick", std::numeric_limits<std::uint64_t>::max());
  Fields world(f.need("world"), "world");
  w.world.width = as_number(world.need("width"), "world.width", 0, kHuge);
  w.world.height = as_number(world.need("height"), "world.height", 0, kHuge);
  world.no_others();
  Fields limits(f.need("limits"), "limits");
  w.max_message_bytes = as_u32(limits.need("max_message_bytes"), "limits.max_message_bytes");
  w.max_agents = as_u32(limits.need("max_agents"), "limits.max_agents");
  limits.no_others();
  return w;
}

Ack read_ack(Fields& f) {
  Ack a;
  a.seq = as_u32(f.need("seq"), "seq");
  a.tick = as_uint(f.need("tick"), "tick", std::numeric_limits<std::uint64_t>::max());
  if (const json* c = f.find("count")) a.count = as_u32(*c, "count");
  if (const json* ids = f.find("agents")) {
    if (!ids->is_array()) bad("agents", "must be an array");
    a.agents.emplace();
    for (std::size_t i = 0; i < ids->size(); ++i) a.agents->push_back(as_u32((*ids)[i], "agents[]"));
  }
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

template <class Result, class ReadBody>
Decoded<Result> decode_with(std::string_view text, ReadBody&& read_body) {
  std::optional<std::uint32_t> seq;
  try {
    const json j = parse_object(text);
    Fields f(j, "");
    const std::string_view type = read_type(f);
    Result m = read_body(f, type, seq);
    f.no_others();
    return m;
  } catch (const FieldError& e) {
    return Error{seq, e.code, e.message};
  } catch (const std::exception& e) {
    // A reader bug must not take the server down: report it as the client's bad message.
    return Error{seq, ErrorCode::bad_json, std::string("could not decode: ") + e.what()};
  }
}

void write_welcome_body(JsonWriter& w, const Welcome& m) {
  w.field("type", "welcome");
  w.field("protocol", m.protocol);
  w.field("server", m.server);
  w.field("session", m.session);
  w.field("role", to_string(m.role));
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
  if (a.target) {
    w.field("tx", a.target->x);
    w.field("ty", a.target->y);
  }
  w.end_object();
}

template <class Body>
std::string write_object(Body&& body, std::size_t reserve = 128) {
  std::string out;
  out.reserve(reserve);
  JsonWriter w(out);
  w.begin_object();
  body(w);
  w.end_object();
  return out;
}

}  // namespace

std::string_view to_string(ErrorCode code) { return kErrorNames[static_cast<std::size_t>(code)]; }

std::optional<ErrorCode> error_code_from_string(std::string_view s) {
  for (std::size_t i = 0; i < std::size(kErrorNames); ++i)
    if (kErrorNames[i] == s) return static_cast<ErrorCode>(i);
  return std::nullopt;
}

std::string_view to_string(Role role) { return role == Role::viewer ? "viewer" : "commander"; }

std::string_view to_string(sim::MoveState state) {
  switch (state) {
    case sim::MoveState::idle: return "idle";
    case sim::MoveState::moving: return "moving";
    case sim::MoveState::arrived: return "arrived";
  }
  return "idle";
}

ErrorCode to_error_code(sim::CommandError error) {
  switch (error) {
    case sim::CommandError::unknown_agent: return ErrorCode::unknown_agent;
    case sim::CommandError::out_of_bounds: return ErrorCode::out_of_bounds;
    case sim::CommandError::limit_exceeded: return ErrorCode::limit_exceeded;
    case sim::CommandError::none: break;
  }
  return ErrorCode::bad_field;
}

Decoded<ClientMessage> decode_client(std::string_view text) {
  return decode_with<ClientMessage>(text, [](Fields& f, std::string_view type, std::optional<std::uint32_t>& seq) -> ClientMessage {
    if (type == "hello") return read_hello(f);
    if (type == "command") return read_command(f, seq);
    if (type == "ping") {
      Ping p{as_u32(f.need("id"), "id")};
      return p;
    }
    fail(ErrorCode::bad_type, "unknown message type '" + std::string(type) + "'");
  });
}

Decoded<ServerMessage> decode_server(std::string_view text) {
  return decode_with<ServerMessage>(text, [](Fields& f, std::string_view type, std::optional<std::uint32_t>&) -> ServerMessage {
    if (type == "snapshot") return read_snapshot(f);
    if (type == "welcome") return read_welcome(f);
    if (type == "ack") return read_ack(f);
    if (type == "error") return read_error(f);
    if (type == "pong") {
      Pong p{as_u32(f.need("id"), "id"), as_uint(f.need("tick"), "tick", std::numeric_limits<std::uint64_t>::max())};
      return p;
    }
    fail(ErrorCode::bad_type, "unknown message type '" + std::string(type) + "'");
  });
}

// ---- client to server: rare, so nlohmann's DOM is fine here --------------------------------

namespace {
json point_json(sim::Vec2 p) { return json{{"x", p.x}, {"y", p.y}}; }
}  // namespace

std::string encode(const Hello& m) {
  json j{{"type", "hello"}, {"protocol", m.protocol}, {"role", to_string(m.role)}};
  if (!m.client.empty()) j["client"] = m.client;
  return j.dump();
}

std::string encode(const CommandMsg& m) {
  json j{{"type", "command"}, {"seq", m.seq}};
  if (const auto* st = std::get_if<sim::SetTarget>(&m.command)) {
    j["cmd"] = "set_target";
    j["agents"] = st->agents.all ? json("all") : json(st->agents.ids);
    j["target"] = point_json(st->target);
    j["behaviour"] = st->behaviour == sim::Behaviour::seek ? "seek" : "arrive";
  } else {
    const auto& sp = std::get<sim::Spawn>(m.command);
    j["cmd"] = "spawn";
    if (sp.count > 0) {
      j["count"] = sp.count;
      j["group"] = sp.group;
    } else {
      json agents = json::array();
      for (const sim::SpawnAgent& a : sp.agents) {
        json o{{"x", a.position.x}, {"y", a.position.y}, {"group", a.group}};
        if (a.radius) o["radius"] = *a.radius;
        if (a.max_speed) o["max_speed"] = *a.max_speed;
        if (a.max_force) o["max_force"] = *a.max_force;
        if (a.target) o["target"] = point_json(*a.target);
        agents.push_back(std::move(o));
      }
      j["agents"] = std::move(agents);
    }
  }
  return j.dump();
}

std::string encode(const Ping& m) { return json{{"type", "ping"}, {"id", m.id}}.dump(); }

// ---- server to client ---------------------------------------------------------------------

std::string encode(const Welcome& m) {
  return write_object([&](JsonWriter& w) { write_welcome_body(w, m); }, 320);
}

std::string encode(const Snapshot& m) {
  return write_object([&](JsonWriter& w) {
    w.field("type", "snapshot");
    w.field("tick", m.tick);
    w.field("time", m.time);
    w.key("agents");
    w.begin_array();
    for (const AgentState& a : m.agents) write_agent(w, a);
    w.end_array();
  }, 64 + m.agents.size() * 110);
}

std::string encode_snapshot(const sim::World& world) {
  const auto agents = world.agents();
  return write_object([&](JsonWriter& w) {
    w.field("type", "snapshot");
    w.field("tick", world.tick());
    w.field("time", world.time());
    w.key("agents");
    w.begin_array();
    for (const sim::Agent& a : agents) {
      AgentState s{a.id, a.position.x, a.position.y, a.velocity.x, a.velocity.y, a.def.radius, a.group, a.state, {}};
      if (a.behaviour != sim::Behaviour::none) s.target = a.target;
      write_agent(w, s);
    }
    w.end_array();
  }, 64 + agents.size() * 110);
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

std::string encode_outcome(const sim::CommandOutcome& o) {
  if (!o.ok()) return encode(Error{o.origin.seq, to_error_code(o.error), o.message});
  Ack ack{o.origin.seq, o.tick, {}, {}};
  if (o.spawned.empty()) ack.count = o.affected;
  else ack.agents = o.spawned;
  return encode(ack);
}

}  // namespace herd::protocol
