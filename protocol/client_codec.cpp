// Client-to-server messages: strict decoding (the server's side) and encoding (clients' side).
// The commands' own fields are read and written in commands.cpp.
#include <cmath>
#include <limits>

#include "protocol/codec.hpp"
#include "protocol/commands.hpp"
#include "protocol/fields.hpp"

namespace herd::protocol {
namespace {

using namespace detail;

// A position quantum: a power of two from 1 unit down to 1/64, as its scale (1 / 2^scale unit).
std::uint8_t read_quantum(const json& v) {
  if (const auto s = scale_of_quantum(as_number(v, "quantum", 0, 1))) return *s;
  bad("quantum", "must be 1, 0.5, 0.25, 0.125, 0.0625, 0.03125 or 0.015625 (world units)");
}

Hello read_hello(Fields& f) {
  Hello h;
  const json& p = f.need("protocol");
  if (!p.is_number_integer()) bad("protocol", "must be an integer");
  const auto version = p.get<std::int64_t>();
  const std::string_view role = as_string(f.need("role"), "role");
  const std::optional<Role> r = role_from_string(role);
  if (!r)
    bad("role", "must be \"operator\" (or \"commander\"), \"player\", \"spectator\" or \"viewer\"");
  h.role = *r;
  h.says_operator = role == "operator";
  if (const json* c = f.find("client")) {
    h.client = std::string(as_string(*c, "client"));
    if (h.client.size() > kMaxClientNameBytes) bad("client", "must be at most 64 bytes");
    // The name is shown to the operator (herd-ctl sessions, the monitor, logs): a control
    // character in it (ESC, BEL, a newline; C1's CSI, U+0080 to U+009F, in UTF-8 C2 80 to C2 9F)
    // could drive the operator's terminal, so none is taken.
    for (std::size_t i = 0; i < h.client.size(); ++i) {
      const auto c = static_cast<unsigned char>(h.client[i]);
      const bool c1 = c == 0xC2 && i + 1 < h.client.size() &&
                      static_cast<unsigned char>(h.client[i + 1]) >= 0x80 &&
                      static_cast<unsigned char>(h.client[i + 1]) <= 0x9F;
      if (c < 0x20 || c == 0x7F || c1) bad("client", "must hold no control characters");
    }
  }
  if (const json* t = f.find("token")) {
    h.token = std::string(as_string(*t, "token"));
    if (h.token.size() > kMaxTokenBytes) bad("token", "must be at most 256 bytes");
  }
  if (const json* fmt = f.find("format")) {
    const auto format = snapshot_format_from_string(as_string(*fmt, "format"));
    if (!format) bad("format", "must be \"json\", \"binary\" or \"auto\"");
    h.format = *format;
  }
  if (const json* q = f.find("quantum")) h.scale = read_quantum(*q);
  f.no_others();
  if (version != kProtocolVersion)
    fail(ErrorCode::protocol_mismatch, "this server speaks protocol " +
                                           std::to_string(kProtocolVersion) +
                                           ", the client asked for " + std::to_string(version));
  h.protocol = static_cast<int>(version);
  return h;
}

// A command message: a control (pause, step, ...) or a command for the world, by its `cmd`
// (commands.cpp holds one definition of each).
ClientMessage read_command(Fields& f, std::optional<std::uint32_t>& seq_out) {
  const std::uint32_t seq = as_u32(f.need("seq"), "seq");
  seq_out = seq;  // from here on, errors can name the command
  const std::string_view cmd = as_string(f.need("cmd"), "cmd");
  ClientMessage out;
  if (auto control = read_control(f, cmd))
    out = ControlMsg{seq, std::move(*control)};
  else if (auto command = read_world_command(f, cmd))
    out = CommandMsg{seq, std::move(*command)};
  else
    fail(ErrorCode::unknown_command, "unknown command '" + std::string(cmd) + "'");
  f.no_others();
  return out;
}

ViewportMsg read_viewport(Fields& f) {
  const json* x0 = f.find("x0");
  const json* y0 = f.find("y0");
  const json* x1 = f.find("x1");
  const json* y1 = f.find("y1");
  const json* quantum = f.find("quantum");
  f.no_others();
  ViewportMsg m;
  if (quantum) m.scale = read_quantum(*quantum);
  if (!x0 && !y0 && !x1 && !y1) return m;  // the whole world
  Viewport v;
  v.x0 = as_number(f.need("x0"), "x0", -kMaxViewportCoordinate, kMaxViewportCoordinate);
  v.y0 = as_number(f.need("y0"), "y0", -kMaxViewportCoordinate, kMaxViewportCoordinate);
  v.x1 = as_number(f.need("x1"), "x1", -kMaxViewportCoordinate, kMaxViewportCoordinate);
  v.y1 = as_number(f.need("y1"), "y1", -kMaxViewportCoordinate, kMaxViewportCoordinate);
  if (!(v.x1 > v.x0)) bad("x1", "must be greater than x0");
  if (!(v.y1 > v.y0)) bad("y1", "must be greater than y0");
  m.view = v;
  return m;
}

}  // namespace

namespace {

// A snapshot ack in either compact form herd's clients write ({"type":"ack","tick":T} from the
// browser, {"tick":T,"type":"ack"} from the C++ clients), read without a JSON document: every
// binary viewer sends one per frame. Anything else, or a tick the general path would refuse or
// read otherwise (leading zeros, over 2^53), takes the general path.
std::optional<SnapshotAck> compact_ack(std::string_view text) {
  constexpr std::string_view kTypeFirst = R"({"type":"ack","tick":)", kTickFirst = R"({"tick":)",
                             kTypeLast = R"(,"type":"ack"})";
  std::string_view digits;
  if (text.starts_with(kTypeFirst) && text.ends_with('}'))
    digits = text.substr(kTypeFirst.size(), text.size() - kTypeFirst.size() - 1);
  else if (text.starts_with(kTickFirst) && text.ends_with(kTypeLast) &&
           text.size() > kTickFirst.size() + kTypeLast.size())
    digits = text.substr(kTickFirst.size(), text.size() - kTickFirst.size() - kTypeLast.size());
  else
    return std::nullopt;
  if (digits.empty() || digits.size() > 16 || (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  std::uint64_t tick = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    tick = tick * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (tick > (std::uint64_t{1} << 53)) return std::nullopt;
  return SnapshotAck{tick};
}

}  // namespace

Decoded<ClientMessage> decode_client(std::string_view text, int max_depth) {
  if (const auto ack = compact_ack(text)) return ClientMessage{*ack};
  return decode_with<ClientMessage>(
      text, max_depth,
      [](Fields& f, std::string_view type, std::optional<std::uint32_t>& seq) -> ClientMessage {
        if (type == "hello") return read_hello(f);
        if (type == "command") return read_command(f, seq);
        if (type == "ping") return Ping{as_u32(f.need("id"), "id")};
        if (type == "inspect")
          return Inspect{as_ids(f.need("agents"), "agents", kMaxInspectPerSession)};
        if (type == "ack") {
          SnapshotAck a{as_uint(f.need("tick"), "tick", std::uint64_t{1} << 53)};
          f.no_others();
          return a;
        }
        if (type == "keyframe") {
          f.no_others();
          return KeyframeRequest{};
        }
        if (type == "viewport") return read_viewport(f);
        if (type == "density") {
          DensityRequest d{as_bool(f.need("on"), "on")};
          f.no_others();
          return d;
        }
        if (type == "sessions") {
          seq = as_u32(f.need("seq"), "seq");
          f.no_others();
          return SessionsRequest{*seq};
        }
        fail(ErrorCode::bad_type, "unknown message type '" + std::string(type) + "'");
      });
}

std::string encode(const Hello& m) {
  json j{{"type", "hello"},
         {"protocol", m.protocol},
         {"role", m.says_operator ? "operator" : to_string(m.role)}};
  if (!m.client.empty()) j["client"] = m.client;
  if (!m.token.empty()) j["token"] = m.token;
  if (m.format != SnapshotFormat::json) j["format"] = to_string(m.format);
  if (m.scale != kFinestScale) j["quantum"] = std::ldexp(1.0, -m.scale);
  return j.dump();
}

std::string_view to_string(SnapshotFormat format) {
  switch (format) {
    case SnapshotFormat::json:
      return "json";
    case SnapshotFormat::binary:
      return "binary";
    case SnapshotFormat::automatic:
      return "auto";
  }
  return "json";
}

std::optional<SnapshotFormat> snapshot_format_from_string(std::string_view s) {
  if (s == "json") return SnapshotFormat::json;
  if (s == "binary") return SnapshotFormat::binary;
  if (s == "auto") return SnapshotFormat::automatic;
  return std::nullopt;
}

std::string encode(const SessionsRequest& m) {
  return json{{"type", "sessions"}, {"seq", m.seq}}.dump();
}

std::string encode(const DensityRequest& m) {
  return json{{"type", "density"}, {"on", m.on}}.dump();
}

// Written by hand, one per binary frame: the bytes nlohmann's dump would give ({"tick":T,"type":
// "ack"}, keys in order), without a JSON document.
std::string encode(const SnapshotAck& m) {
  std::string out = R"({"tick":)";
  out += std::to_string(m.tick);
  out += R"(,"type":"ack"})";
  return out;
}
std::string encode(const KeyframeRequest&) { return json{{"type", "keyframe"}}.dump(); }
std::string encode(const ViewportMsg& m) {
  json j{{"type", "viewport"}};
  if (m.view) {
    j["x0"] = m.view->x0;
    j["y0"] = m.view->y0;
    j["x1"] = m.view->x1;
    j["y1"] = m.view->y1;
  }
  if (m.scale) j["quantum"] = std::ldexp(1.0, -*m.scale);
  return j.dump();
}

std::string encode(const CommandMsg& m) {
  json j{{"type", "command"}, {"seq", m.seq}};
  write_command(j, m.command);
  return j.dump();
}

std::string encode(const Ping& m) { return json{{"type", "ping"}, {"id", m.id}}.dump(); }
std::string encode(const Inspect& m) {
  return json{{"type", "inspect"}, {"agents", m.agents}}.dump();
}

std::string encode(const ControlMsg& m) {
  json j{{"type", "command"}, {"seq", m.seq}};
  write_control(j, m.control);
  return j.dump();
}

}  // namespace herd::protocol
