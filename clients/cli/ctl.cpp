#include "cli/ctl.hpp"

#include "herd/sim/tile_map.hpp"
#include "protocol/messages.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <memory>

namespace herd::cli {

using nlohmann::json;

std::optional<double> parse_number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

namespace {

// Numbers separated by `sep`, exactly `n` of them (0: any number, at least one).
std::optional<std::vector<double>> numbers(const std::string& s, char sep, std::size_t n) {
  std::vector<double> out;
  for (std::size_t start = 0; start <= s.size();) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    const auto v = parse_number(s.substr(start, end - start));
    if (!v) return std::nullopt;
    out.push_back(*v);
    start = end + 1;
  }
  if (n != 0 && out.size() != n) return std::nullopt;
  return out;
}

std::optional<json> rect(const std::string& s) {
  const auto v = numbers(s, ',', 4);
  if (!v) return std::nullopt;
  return json{{"x0", (*v)[0]}, {"y0", (*v)[1]}, {"x1", (*v)[2]}, {"y1", (*v)[3]}};
}

// A whole number as a JSON integer.
json whole(double v) { return json(static_cast<std::int64_t>(v)); }
bool is_whole(double v) { return v == std::floor(v) && std::abs(v) < 9e15; }

}  // namespace

std::optional<json> parse_point(const std::string& s) {
  const auto v = numbers(s, ',', 2);
  if (!v) return std::nullopt;
  return json{{"x", (*v)[0]}, {"y", (*v)[1]}};
}

std::optional<json> parse_selection(const std::string& s) {
  if (s == "all") return json("all");
  if (s.rfind("rect:", 0) == 0) {
    const auto r = rect(s.substr(5));
    if (!r) return std::nullopt;
    return json{{"rect", *r}};
  }
  if (s.rfind("team:", 0) == 0) {
    const auto t = parse_number(s.substr(5));
    if (!t || !is_whole(*t) || *t < 0 || *t > 63) return std::nullopt;
    return json{{"team", whole(*t)}};
  }
  if (s.rfind("group:", 0) == 0) {
    const auto at = s.find('@');
    const auto g = parse_number(s.substr(6, at == std::string::npos ? std::string::npos : at - 6));
    if (!g || !is_whole(*g) || *g < 0 || *g > 255) return std::nullopt;
    json sel{{"group", whole(*g)}};
    if (at != std::string::npos) {
      const auto r = rect(s.substr(at + 1));
      if (!r) return std::nullopt;
      sel["rect"] = *r;
    }
    return sel;
  }
  const auto ids = numbers(s, ',', 0);
  if (!ids) return std::nullopt;
  json out = json::array();
  for (double id : *ids) {
    if (!is_whole(id) || id < 0 || id > 4294967295.0) return std::nullopt;
    out.push_back(whole(id));
  }
  return out;
}

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  const auto escaped = [&out](unsigned code, const char* form) {
    char buf[8];
    std::snprintf(buf, sizeof buf, form, code);
    out += buf;
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7F)
        escaped(c, "\\u%04x");
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, each continuation byte 10xxxxxx, and no
    // overlong or surrogate form; anything else is a byte on its own.
    const std::size_t length = c >= 0xC2 && c <= 0xDF   ? 2
                               : c >= 0xE0 && c <= 0xEF ? 3
                               : c >= 0xF0 && c <= 0xF4 ? 4
                                                        : 0;
    bool valid = length > 0 && i + length <= text.size();
    unsigned code = length == 2 ? c & 0x1F : length == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      valid = (b & 0xC0) == 0x80;
      code = (code << 6) | (b & 0x3F);
    }
    valid = valid && !(length == 3 && code < 0x800) && !(length == 4 && code < 0x10000) &&
            !(code >= 0xD800 && code <= 0xDFFF) && code <= 0x10FFFF;
    if (!valid) {
      escaped(c, "\\x%02x");
      ++i;
    } else if (code >= 0x80 && code <= 0x9F) {
      escaped(code, "\\u%04x");  // C1: 0x9B is CSI to some terminals
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string url_hint(const Url& url) {
  if (url.path == "/ws") return {};
  return "\nhint: herd serves WebSocket at /ws: ws" + std::string(url.tls ? "s" : "") + "://" +
         url.host + ":" + std::to_string(url.port) + "/ws";
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string flag_suggestion(const CLI::App& sub, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") continue;
    arg = arg.substr(0, arg.find('='));
    std::string best;
    std::size_t best_distance = 3;  // a typo or two, not another word
    bool known = false;
    for (const CLI::App* app = &sub; app; app = app->get_parent())
      for (const CLI::Option* o : app->get_options()) {
        for (const std::string& name : o->get_lnames()) {
          if ("--" + name == arg) known = true;
          const std::size_t d = edit_distance(arg, "--" + name);
          if (d < best_distance) {
            best_distance = d;
            best = "--" + name;
          }
        }
      }
    if (!known && !best.empty()) return "did you mean " + best + " (not " + arg + ")?";
  }
  return {};
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return v != v ? "nan" : (v > 0 ? "inf" : "-inf");
  if (is_whole(v)) return std::to_string(static_cast<std::int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

namespace {

// A JSON value as people read it: numbers as written, id lists as ranges (1-3,7).
std::string describe_value(const json& v) {
  if (v.is_number()) return format_number(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && !v.empty() &&
      std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number_integer(); })) {
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j + 1 < v.size() && v[j + 1].get<std::int64_t>() == v[j].get<std::int64_t>() + 1) ++j;
      if (!out.empty()) out += ",";
      out += std::to_string(v[i].get<std::int64_t>());
      if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(v[j].get<std::int64_t>());
      i = j + 1;
    }
    return out;
  }
  return v.dump();
}

}  // namespace

std::string describe_answer(const json& a) {
  const std::string type = a.value("type", "");
  if (type == "error")
    return a.value("code", std::string("error")) + ": " + a.value("message", std::string());
  std::string out = type == "ack" ? "ok" : type;
  if (a.contains("tick")) out += " at tick " + describe_value(a["tick"]);
  std::string fields;
  for (const auto& [key, value] : a.items()) {
    if (key == "type" || key == "seq" || key == "tick") continue;
    fields += (fields.empty() ? ": " : ", ") + key + " " + describe_value(value);
  }
  return out + fields;
}

std::string describe_welcome(const json& w) {
  const auto num = [&](const char* key) {
    return w.contains(key) && w[key].is_number() ? format_number(w[key].get<double>())
                                                 : std::string("?");
  };
  std::string out = "server " + w.value("server", std::string("?")) + ", protocol " +
                    num("protocol") + ", session " + num("session") + ", role " +
                    w.value("role", std::string("?"));
  if (w.contains("player") && w["player"].is_string())
    out += ", player " + w["player"].get<std::string>() + ", team " + num("team");
  out += "\n";
  const json world = w.value("world", json::object());
  out += "world " + (world.contains("width") ? format_number(world["width"].get<double>()) : "?") +
         " x " + (world.contains("height") ? format_number(world["height"].get<double>()) : "?") +
         " units, tick " + num("tick") + (w.value("paused", false) ? ", paused" : ", running") +
         "\n";
  if (w.contains("scenario")) out += "scenario " + w.value("scenario", std::string()) + "\n";
  if (const std::string d = w.value("description", std::string()); !d.empty())
    out += "  " + d + "\n";
  out += "rates " + num("tick_rate") + " ticks/s, " + num("snapshot_rate") + " snapshots/s\n";
  if (const json limits = w.value("limits", json::object()); !limits.empty()) {
    std::string parts;
    for (const auto& [key, value] : limits.items())
      parts += (parts.empty() ? "" : ", ") + key + " " + describe_value(value);
    out += "limits " + parts + "\n";
  }
  if (w.contains("map") && w["map"].is_object()) {
    const json& m = w["map"];
    out += "map " + describe_value(m.value("width", json())) + " x " +
           describe_value(m.value("height", json())) + " tiles of " +
           describe_value(m.value("tile_size", json())) + " units\n";
  }
  if (w.contains("upstream")) out += "relay, upstream " + w.value("upstream", std::string()) + "\n";
  return out;
}

std::string describe_scenarios(const json& w) {
  const std::string running = w.value("scenario", std::string());
  const json descriptions = w.value("descriptions", json::object());
  std::string out;
  for (const json& name : w.value("scenarios", json::array())) {
    if (!name.is_string()) continue;
    const std::string n = name.get<std::string>();
    out += n + (n == running ? " (running)" : "") + "\n";
    if (const auto it = descriptions.find(n); it != descriptions.end() && it->is_string())
      out += "  " + it->get<std::string>() + "\n";
  }
  return out;
}

namespace {

// Bytes as people read them: 812 B, 1.2 kB, 2.9 MB (powers of 1,000).
std::string describe_bytes(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  std::size_t u = 0;
  while (b >= 1000 && u + 1 < std::size(units)) {
    b /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

// A number field of `s` through `show`, or "-" when absent.
std::string field_or_dash(const json& s, const char* key,
                          const std::function<std::string(double)>& show) {
  return s.contains(key) && s[key].is_number() ? show(s[key].get<double>()) : "-";
}

}  // namespace

std::string describe_sessions(const json& m) {
  std::vector<std::vector<std::string>> rows{{"id", "role", "client", "address", "format",
                                              "connected", "sent", "snapshots", "dropped", "rtt",
                                              ""}};
  const json sessions = m.value("sessions", json::array());
  for (const json& s : sessions) {
    if (!s.is_object()) continue;
    const auto text = [&](const char* key) {
      const std::string v = s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : "";
      return v.empty() ? std::string("-") : terminal_safe(v);  // escaped before the widths
    };
    const auto whole = [](double v) { return format_number(v); };
    // A player's role names the player and its team.
    std::string role = text("role");
    if (s.contains("player") && s["player"].is_string())
      role += " " + terminal_safe(s["player"].get<std::string>()) +
              (s.contains("team") && s["team"].is_number_integer()
                   ? " (team " + std::to_string(s["team"].get<int>()) + ")"
                   : "");
    rows.push_back({field_or_dash(s, "id", whole), role, text("client"), text("address"),
                    text("format"),
                    field_or_dash(s, "connected_s",
                                  [](double v) { return format_number(std::round(v)) + " s"; }),
                    field_or_dash(s, "bytes_sent", describe_bytes),
                    field_or_dash(s, "snapshots_sent", whole), field_or_dash(s, "dropped", whole),
                    field_or_dash(s, "rtt_ms",
                                  [](double v) {
                                    char buf[32];
                                    std::snprintf(buf, sizeof buf, "%.1f ms", v);
                                    return std::string(buf);
                                  }),
                    s.value("you", false) ? "(you)" : ""});
  }
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  const std::size_t listed = rows.size() - 1;
  out += std::to_string(listed) + (listed == 1 ? " session" : " sessions");
  if (const auto omitted = m.value("omitted", std::uint64_t{0}); omitted > 0)
    out += ", " + std::to_string(omitted) + " more not listed";
  return out + "\n";
}

namespace {

// What a subcommand's callback reports for a bad value: exit 2, with the subcommand's usage.
[[noreturn]] void bad(const std::string& what) { throw CLI::ValidationError(what); }

json selection_or_bad(const std::string& s) {
  auto sel = parse_selection(s);
  if (!sel)
    bad("SELECTION '" + s +
        "' is not all, group:G, team:T, rect:X0,Y0,X1,Y1, group:G@X0,Y0,X1,Y1 or ids like 1,2,3");
  return *sel;
}

json point_or_bad(const std::string& s, const std::string& what) {
  auto p = parse_point(s);
  if (!p) bad(what + " takes X,Y, not '" + s + "'");
  return *p;
}

// A tile X,Y: whole numbers, as the protocol's target_tile and set_tiles want them.
json tile_or_bad(const std::string& s, const std::string& what) {
  const auto v = numbers(s, ',', 2);
  if (!v || !is_whole((*v)[0]) || !is_whole((*v)[1]))
    bad(what + " takes whole numbers X,Y, not '" + s + "'");
  return json{{"x", whole((*v)[0])}, {"y", whole((*v)[1])}};
}

// The arguments every subcommand reads into, kept alive with the app.
struct Args {
  std::string selection, kind, shape, name, file, centre, target, tile, at, response, assignment,
      orientation;
  std::string mode, side, split_fix, crossing;
  std::vector<std::string> tiles;
  double x = 0, y = 0, radius = 0, spacing = 0, facing = 0, personal_space = 0, exponent = 0,
         epsilon = 0, activation = 0, lookahead = 0, tick_rate = 0, snapshot_rate = 0,
         tile_size = 0, x1 = 0, y1 = 0, rate = 0, max_speed = 0, time_gap = 0,
         repulsion_strength = 0, repulsion_range = 0, wall_repulsion_strength = 0,
         wall_repulsion_range = 0;
  std::int64_t count = 0, group = 0, agent = 0, id = 0, columns = 0, neighbours = 0,
               max_neighbours = 0, ticks = 1, groups = 0;
  std::uint64_t seed = 0, session = 0;
  std::uint32_t priority = 50, layer = 1, mask = 0xFFFFFFFF;
  bool seek = false, vertical = false, regroup = false, block = false, open = false, queue = false,
       closed = false;
  std::string spread, order_shape, pathing, movement;
  std::vector<std::string> points;
  double distance = 0, jitter = 0, separation = 0, alignment = 0, cohesion = 0;  // behaviours
  std::string path, offset;
  bool loop = false;
};

// Whether the option was given; false for one the subcommand does not have.
bool given(CLI::App* sub, const std::string& flag) {
  const CLI::Option* o = sub->get_option_no_throw(flag);
  return o != nullptr && o->count() > 0;
}

// --priority, --layer and --mask, into a spawn (count), one of its agents (--at) or a source.
void avoidance_rules(CLI::App* sub, const Args& a, json& into) {
  if (given(sub, "--priority")) into["priority"] = a.priority;
  if (given(sub, "--layer")) into["layer"] = a.layer;
  if (given(sub, "--mask")) into["mask"] = a.mask;
}

// The options avoidance_rules reads, on `sub`.
void add_avoidance_rule_options(CLI::App* sub, Args& a) {
  sub->add_option("--priority", a.priority, "their avoidance priority, 0 (most important) to 99")
      ->check(CLI::Range(0, 99));
  sub->add_option("--layer", a.layer, "their avoidance layers, a bit set (uint32)");
  sub->add_option("--mask", a.mask,
                  "the layers they avoid, a bit set (uint32): those whose layer shares a bit");
}

// How each hand-made subcommand builds its command, for add_declared_fields to add to.
using HandBuilds = std::map<CLI::App*, std::function<json(CLI::App*)>>;

CLI::App* command(HandBuilds& builds, CLI::App& app, json& out, const std::string& name,
                  const std::string& help, std::function<json(CLI::App*)> build) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->callback([sub, &out, build] { out = build(sub); });
  builds[sub] = std::move(build);
  return sub;
}

// Reads a tile map's text as the server's scenarios are read (sim::parse_tile_map: '#' blocked,
// '.' walkable, ';' comments), so a file that loads as a scenario's map loads here too; errors
// name the line and column. The command carries its rows without the comments.
json read_map(const std::string& file, double tile_size) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) bad("cannot read the map file '" + file + "'");
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  auto parsed = sim::parse_tile_map(text, tile_size);
  if (const auto* why = std::get_if<std::string>(&parsed))
    bad("the map file '" + file + "': " + *why);
  const std::string grid = sim::to_text(std::get<sim::TileMap>(parsed));
  json rows = json::array();
  for (std::size_t start = 0; start < grid.size();) {
    const std::size_t end = std::min(grid.find('\n', start), grid.size());
    if (end > start) rows.push_back(grid.substr(start, end - start));
    start = end + 1;
  }
  if (rows.empty()) bad("the map file '" + file + "' has no rows");
  return {{"cmd", "load_map"},
          {"width", rows[0].get<std::string>().size()},
          {"height", rows.size()},
          {"tile_size", tile_size},
          {"rows", rows}};
}

// An order's --spread, --spacing and --queue (target, attack-move, patrol).
void order_options(CLI::App* sub, Args& a, bool formation) {
  std::vector<std::string> spreads = {"keep", "point"};
  if (formation) spreads.emplace_back("formation");
  sub->add_option("--spread", a.spread,
                  "several agents: keep (their places in the group, the default), point (all to "
                  "the point, settling by contact)" +
                      std::string(formation ? ", formation (with --shape)" : ""))
      ->check(CLI::IsMember(spreads));
  sub->add_option("--spacing", a.spacing, "units between neighbours of the clump or formation");
  sub->add_flag("--queue", a.queue, "after their current orders instead of replacing them");
}

void add_order_options(CLI::App* s, const Args& a, json& c) {
  if (given(s, "--spread")) c["spread"] = a.spread;
  if (given(s, "--shape")) c["shape"] = a.order_shape;
  if (given(s, "--spacing")) c["spacing"] = a.spacing;
  if (a.queue) c["queue"] = true;
}

}  // namespace

void add_command_subcommands(CLI::App& app, json& out) {
  // The hand-made subcommands below each register how they build their command here.
  HandBuilds builds;
  const auto command = [&builds](CLI::App& parent, json& o, const std::string& name,
                                 const std::string& help, std::function<json(CLI::App*)> build) {
    return herd::cli::command(builds, parent, o, name, help, std::move(build));
  };
  auto a = std::make_shared<Args>();
  const std::string sel_help =
      "all, group:G, team:T, rect:X0,Y0,X1,Y1, group:G@X0,Y0,X1,Y1, or ids like 1,2,3";

  auto* target =
      command(app, out, "target", "send agents to a point (arrive, or seek)", [a](CLI::App* s) {
        json c{{"cmd", "set_target"}, {"agents", selection_or_bad(a->selection)}};
        if (given(s, "--tile"))
          c["target_tile"] = tile_or_bad(a->tile, "--tile");
        else if (given(s, "X"))
          c["target"] = {{"x", a->x}, {"y", a->y}};
        else
          bad("target needs X Y, or --tile X,Y");
        if (a->seek) c["behaviour"] = "seek";
        add_order_options(s, *a, c);
        return c;
      });
  target->add_option("SELECTION", a->selection, sel_help)->required();
  auto* x = target->add_option("X", a->x, "the point's x");
  auto* y = target->add_option("Y", a->y, "the point's y")->needs(x);
  x->needs(y);  // a forgotten Y is refused, not taken as 0
  target->add_option("--tile", a->tile, "a tile's centre instead of a point (a map's X,Y)");
  target->add_flag("--seek", a->seek, "seek (full speed, circling) instead of arrive");
  order_options(target, *a, true);
  target->add_option("--shape", a->order_shape, "with --spread formation: its shape")
      ->check(CLI::IsMember({"circle", "line", "lines", "block", "wedge"}));

  auto* attack_move = command(
      app, out, "attack-move", "go to a point, engaging enemies met on the way", [a](CLI::App* s) {
        json c{{"cmd", "attack_move"}, {"agents", selection_or_bad(a->selection)}};
        if (given(s, "--tile"))
          c["target_tile"] = tile_or_bad(a->tile, "--tile");
        else if (given(s, "X"))
          c["target"] = {{"x", a->x}, {"y", a->y}};
        else
          bad("attack-move needs X Y, or --tile X,Y");
        if (given(s, "--radius")) c["radius"] = a->radius;
        add_order_options(s, *a, c);
        return c;
      });
  attack_move->add_option("SELECTION", a->selection, sel_help)->required();
  auto* ax = attack_move->add_option("X", a->x, "the point's x");
  attack_move->add_option("Y", a->y, "the point's y")->needs(ax);
  attack_move->add_option("--tile", a->tile, "a tile's centre instead of a point (a map's X,Y)");
  attack_move->add_option("--radius", a->radius, "its sight: enemies this close are engaged");
  order_options(attack_move, *a, false);

  auto* patrol = command(app, out, "patrol", "patrol from where they are through points and back",
                         [a](CLI::App* s) {
                           json c{{"cmd", "patrol"}, {"agents", selection_or_bad(a->selection)}};
                           json points = json::array();
                           for (const std::string& p : a->points)
                             points.push_back(point_or_bad(p, "POINT"));
                           c["points"] = points;
                           add_order_options(s, *a, c);
                           return c;
                         });
  patrol->add_option("SELECTION", a->selection, sel_help)->required();
  patrol->add_option("POINT", a->points, "one or more points X,Y, in order")->required();
  order_options(patrol, *a, false);

  auto* stop =
      command(app, out, "stop", "stop where they are and forget queued orders", [a](CLI::App*) {
        return json{{"cmd", "stop"}, {"agents", selection_or_bad(a->selection)}};
      });
  stop->add_option("SELECTION", a->selection, sel_help)->required();

  auto* spawn = command(app, out, "spawn", "add agents", [a](CLI::App* s) {
    json c{{"cmd", "spawn"}};
    if (given(s, "--at")) {
      json agents = json::array();
      for (std::size_t start = 0; start <= a->at.size();) {
        const std::size_t end = std::min(a->at.find(';', start), a->at.size());
        json p = point_or_bad(a->at.substr(start, end - start), "--at");
        if (given(s, "--group")) p["group"] = a->group;
        if (given(s, "--radius")) p["radius"] = a->radius;
        avoidance_rules(s, *a, p);
        agents.push_back(p);
        start = end + 1;
      }
      c["agents"] = agents;
    } else {
      if (!given(s, "COUNT")) bad("spawn needs COUNT, or --at X,Y[;X,Y...]");
      if (given(s, "--radius")) bad("--radius goes with --at");
      c["count"] = a->count;
      if (given(s, "--group")) c["group"] = a->group;
      avoidance_rules(s, *a, c);
    }
    return c;
  });
  spawn->add_option("COUNT", a->count, "that many agents at seeded random places");
  spawn->add_option("--at", a->at, "agents at these points: X,Y[;X,Y...]")->excludes("COUNT");
  spawn->add_option("--group", a->group, "their group, 0 to 255");
  spawn->add_option("--radius", a->radius, "their radius (with --at)");
  add_avoidance_rule_options(spawn, *a);

  auto* remove = command(app, out, "remove", "remove agents", [a](CLI::App*) {
    return json{{"cmd", "remove"}, {"agents", selection_or_bad(a->selection)}};
  });
  remove->add_option("SELECTION", a->selection, sel_help)->required();

  auto* behaviour =
      command(app, out, "behaviour", protocol::behaviour_names(" or "), [a](CLI::App* s) {
        json c{{"cmd", "set_behaviour"},
               {"agents", selection_or_bad(a->selection)},
               {"behaviour", a->kind}};
        if (given(s, "--agent")) c["agent"] = a->agent;
        if (given(s, "--target")) c["target"] = point_or_bad(a->target, "--target");
        if (given(s, "--tile")) c["target_tile"] = tile_or_bad(a->tile, "--tile");
        if (given(s, "--radius")) c["radius"] = a->radius;
        if (given(s, "--response")) c["response"] = a->response;
        if (given(s, "--distance")) c["distance"] = a->distance;
        if (given(s, "--jitter")) c["jitter"] = a->jitter;
        if (given(s, "--separation")) c["separation"] = a->separation;
        if (given(s, "--alignment")) c["alignment"] = a->alignment;
        if (given(s, "--cohesion")) c["cohesion"] = a->cohesion;
        if (given(s, "--path")) {
          json path = json::array();
          for (std::size_t start = 0; start <= a->path.size();) {
            const std::size_t end = std::min(a->path.find(';', start), a->path.size());
            path.push_back(point_or_bad(a->path.substr(start, end - start), "--path"));
            start = end + 1;
          }
          c["path"] = std::move(path);
        }
        if (given(s, "--loop")) c["loop"] = true;
        if (given(s, "--offset")) c["offset"] = point_or_bad(a->offset, "--offset");
        return c;
      });
  behaviour->add_option("SELECTION", a->selection, sel_help)->required();
  std::vector<std::string> kinds;
  for (const sim::BehaviourTraits& t : sim::kBehaviours) kinds.emplace_back(t.name);
  behaviour->add_option("KIND", a->kind, "the behaviour")->required()->check(CLI::IsMember(kinds));
  behaviour->add_option("--agent", a->agent, "the other agent's id");
  behaviour->add_option("--target", a->target, "a point X,Y");
  behaviour->add_option("--tile", a->tile, "a tile's centre X,Y instead of --target");
  behaviour->add_option("--radius", a->radius,
                        "flee/evade: only this close; react: the trigger distance");
  behaviour->add_option("--response", a->response, "react: pursue or evade")
      ->check(CLI::IsMember({"pursue", "evade"}));
  behaviour->add_option("--distance", a->distance, "wander: the circle's centre ahead");
  behaviour->add_option("--jitter", a->jitter, "wander: how far its point moves in a second");
  behaviour->add_option("--separation", a->separation, "flock: the weight of keeping apart");
  behaviour->add_option("--alignment", a->alignment, "flock: the weight of heading alike");
  behaviour->add_option("--cohesion", a->cohesion, "flock: the weight of keeping together");
  behaviour->add_option("--path", a->path, "follow_path: the points X,Y;X,Y[;X,Y...]");
  behaviour->add_flag("--loop", a->loop, "follow_path: round and round");
  behaviour->add_option("--offset", a->offset, "follow: the place X,Y in the leader's frame");

  auto* movement = command(app, out, "movement",
                           "inertial (a force on momentum) or kinematic movement", [a](CLI::App*) {
                             return json{{"cmd", "set_movement"},
                                         {"agents", selection_or_bad(a->selection)},
                                         {"movement", a->kind}};
                           });
  movement->add_option("SELECTION", a->selection, sel_help)->required();
  movement->add_option("MOVEMENT", a->kind, "inertial or kinematic")
      ->required()
      ->check(CLI::IsMember({"inertial", "kinematic"}));

  auto* obstacle = app.add_subcommand("obstacle", "add or remove a circular obstacle");
  obstacle->require_subcommand(1);
  auto* add = command(*obstacle, out, "add", "a static obstacle at X Y", [a](CLI::App*) {
    return json{{"cmd", "add_obstacle"}, {"x", a->x}, {"y", a->y}, {"radius", a->radius}};
  });
  add->add_option("X", a->x, "centre x")->required();
  add->add_option("Y", a->y, "centre y")->required();
  add->add_option("RADIUS", a->radius, "radius")->required();
  auto* remove_obstacle =
      command(*obstacle, out, "remove", "the obstacle with this id", [a](CLI::App*) {
        return json{{"cmd", "remove_obstacle"}, {"id", a->id}};
      });
  remove_obstacle->add_option("ID", a->id, "the obstacle's id")->required();

  auto* wall =
      app.add_subcommand("wall", "add or remove a wall: a segment, a polyline or a polygon");
  wall->require_subcommand(1);
  auto* add_wall =
      command(*wall, out, "add", "a wall through POINTS in order (--closed: back to the first)",
              [a](CLI::App*) {
                json points = json::array();
                for (const std::string& arg : a->points)
                  for (std::size_t start = 0; start <= arg.size();) {
                    const std::size_t end = std::min(arg.find(';', start), arg.size());
                    points.push_back(point_or_bad(arg.substr(start, end - start), "POINTS"));
                    start = end + 1;
                  }
                json c{{"cmd", "add_wall"}, {"points", points}};
                if (a->closed) c["closed"] = true;
                return c;
              });
  add_wall
      ->add_option("POINTS", a->points,
                   "two points or more, X,Y each: separate arguments or X,Y;X,Y;... in one")
      ->required();
  add_wall->add_flag("--closed", a->closed, "join the last point to the first: a polygon (3+)");
  auto* remove_wall = command(*wall, out, "remove", "the wall with this id", [a](CLI::App*) {
    return json{{"cmd", "remove_wall"}, {"wall", a->id}};
  });
  remove_wall->add_option("ID", a->id, "the wall's id (add's ack gives it)")->required();

  auto* measure = app.add_subcommand(
      "measure", "add or remove a measurement line (flow each way) or area (density, speed)");
  measure->require_subcommand(1);
  auto* measure_line = command(
      *measure, out, "line", "a line from X0 Y0 to X1 Y1: forward is crossing it to its right",
      [a](CLI::App*) {
        return json{
            {"cmd", "add_measurement"},
            {"line", json::array({{{"x", a->x}, {"y", a->y}}, {{"x", a->x1}, {"y", a->y1}}})}};
      });
  measure_line->add_option("X0", a->x, "first point x")->required();
  measure_line->add_option("Y0", a->y, "first point y")->required();
  measure_line->add_option("X1", a->x1, "second point x")->required();
  measure_line->add_option("Y1", a->y1, "second point y")->required();
  auto* measure_area =
      command(*measure, out, "area", "the rectangle at X Y of WIDTH x HEIGHT", [a](CLI::App*) {
        return json{{"cmd", "add_measurement"},
                    {"area", {{"x", a->x}, {"y", a->y}, {"width", a->x1}, {"height", a->y1}}}};
      });
  measure_area->add_option("X", a->x, "corner x (the smaller)")->required();
  measure_area->add_option("Y", a->y, "corner y (the smaller)")->required();
  measure_area->add_option("WIDTH", a->x1, "width")->required();
  measure_area->add_option("HEIGHT", a->y1, "height")->required();
  auto* remove_measurement =
      command(*measure, out, "remove", "the measurement with this id", [a](CLI::App*) {
        return json{{"cmd", "remove_measurement"}, {"id", a->id}};
      });
  remove_measurement->add_option("ID", a->id, "the measurement's id")->required();

  auto* source = app.add_subcommand(
      "source", "add or remove a source: a rectangle that spawns agents at a rate, up to a total");
  source->require_subcommand(1);
  auto* source_add =
      command(*source, out, "add", "at X Y of WIDTH x HEIGHT, RATE agents a second, TOTAL in all",
              [a](CLI::App* s) {
                json c{{"cmd", "add_source"},
                       {"area", {{"x", a->x}, {"y", a->y}, {"width", a->x1}, {"height", a->y1}}},
                       {"rate", a->rate},
                       {"total", a->count}};
                if (given(s, "--target")) c["target"] = point_or_bad(a->target, "--target");
                if (given(s, "--behaviour")) c["behaviour"] = a->kind;
                if (given(s, "--group")) c["group"] = a->group;
                if (given(s, "--radius")) c["radius"] = a->radius;
                if (given(s, "--max-speed")) c["max_speed"] = a->max_speed;
                if (given(s, "--movement")) c["movement"] = a->movement;
                if (given(s, "--pathing")) c["pathing"] = a->pathing;
                if (given(s, "--neighbours")) c["neighbours"] = a->neighbours;
                avoidance_rules(s, *a, c);
                return c;
              });
  source_add->add_option("X", a->x, "corner x (the smaller)")->required();
  source_add->add_option("Y", a->y, "corner y (the smaller)")->required();
  source_add->add_option("WIDTH", a->x1, "width")->required();
  source_add->add_option("HEIGHT", a->y1, "height")->required();
  source_add->add_option("RATE", a->rate, "agents per second of world time")->required();
  source_add->add_option("TOTAL", a->count, "agents in all")->required();
  source_add->add_option("--target", a->target, "X,Y: where they go (arrive, unless --behaviour)");
  source_add->add_option("--behaviour", a->kind,
                         "idle, hold, seek, arrive, flee, patrol or attack_move");
  source_add->add_option("--group", a->group, "their group, 0 to 255");
  source_add->add_option("--radius", a->radius, "their radius");
  source_add->add_option("--max-speed", a->max_speed, "their top speed, units/s");
  source_add->add_option("--movement", a->movement, "inertial or kinematic")
      ->check(CLI::IsMember({"inertial", "kinematic"}));
  source_add->add_option("--pathing", a->pathing, "direct, no_backtrack, astar or flow")
      ->check(CLI::IsMember({"direct", "no_backtrack", "astar", "flow"}));
  source_add->add_option("--neighbours", a->neighbours, "4 or 8")->check(CLI::IsMember({4, 8}));
  add_avoidance_rule_options(source_add, *a);
  auto* source_remove = command(*source, out, "remove", "the source with this id", [a](CLI::App*) {
    return json{{"cmd", "remove_source"}, {"id", a->id}};
  });
  source_remove->add_option("ID", a->id, "the source's id")->required();

  auto* exit = app.add_subcommand(
      "exit", "add or remove an exit: a rectangle that removes the agents reaching it, counted");
  exit->require_subcommand(1);
  auto* exit_add =
      command(*exit, out, "add", "the rectangle at X Y of WIDTH x HEIGHT", [a](CLI::App*) {
        return json{{"cmd", "add_exit"},
                    {"area", {{"x", a->x}, {"y", a->y}, {"width", a->x1}, {"height", a->y1}}}};
      });
  exit_add->add_option("X", a->x, "corner x (the smaller)")->required();
  exit_add->add_option("Y", a->y, "corner y (the smaller)")->required();
  exit_add->add_option("WIDTH", a->x1, "width")->required();
  exit_add->add_option("HEIGHT", a->y1, "height")->required();
  auto* exit_remove = command(*exit, out, "remove", "the exit with this id", [a](CLI::App*) {
    return json{{"cmd", "remove_exit"}, {"id", a->id}};
  });
  exit_remove->add_option("ID", a->id, "the exit's id")->required();

  auto* avoidance =
      command(app, out, "avoidance", "the world's avoidance settings (those given change)",
              [a](CLI::App* s) {
                json c{{"cmd", "set_avoidance"}};
                if (given(s, "--mode")) c["mode"] = a->mode;
                if (given(s, "--personal-space")) c["personal_space"] = a->personal_space;
                if (given(s, "--cardioid-exponent")) c["cardioid_exponent"] = a->exponent;
                if (given(s, "--preferred-side")) c["preferred_side"] = a->side;
                if (given(s, "--split-fix")) c["split_fix"] = a->split_fix;
                if (given(s, "--push-epsilon")) c["push_epsilon"] = a->epsilon;
                if (given(s, "--crossing")) c["crossing"] = a->crossing == "on";
                if (given(s, "--crossing-activation")) c["crossing_activation"] = a->activation;
                if (given(s, "--lookahead")) c["lookahead"] = a->lookahead;
                if (given(s, "--max-neighbours")) c["max_neighbours"] = a->max_neighbours;
                if (given(s, "--time-gap")) c["time_gap"] = a->time_gap;
                if (given(s, "--repulsion-strength"))
                  c["repulsion_strength"] = a->repulsion_strength;
                if (given(s, "--repulsion-range")) c["repulsion_range"] = a->repulsion_range;
                if (given(s, "--wall-repulsion-strength"))
                  c["wall_repulsion_strength"] = a->wall_repulsion_strength;
                if (given(s, "--wall-repulsion-range"))
                  c["wall_repulsion_range"] = a->wall_repulsion_range;
                if (c.size() == 1) bad("avoidance needs at least one setting");
                return c;
              });
  avoidance->add_option("--mode", a->mode, "none, circle, cardioid, orca or cfsm")
      ->check(CLI::IsMember({"none", "circle", "cardioid", "orca", "cfsm"}));
  avoidance->add_option("--personal-space", a->personal_space, "k in k (r1 + r2)^2 / d^2");
  avoidance->add_option("--cardioid-exponent", a->exponent, "e in ((1 + cos delta) / 2)^e");
  avoidance->add_option("--preferred-side", a->side, "left or right")
      ->check(CLI::IsMember({"left", "right"}));
  avoidance->add_option("--split-fix", a->split_fix, "sum_as_obstacle or seed")
      ->check(CLI::IsMember({"sum_as_obstacle", "seed"}));
  avoidance->add_option("--push-epsilon", a->epsilon, "pushes weaker than this are cut off");
  avoidance->add_option("--crossing", a->crossing, "crossing paths on or off")
      ->check(CLI::IsMember({"on", "off"}));
  avoidance->add_option("--crossing-activation", a->activation, "seconds");
  avoidance->add_option("--lookahead", a->lookahead, "seconds");
  avoidance->add_option("--max-neighbours", a->max_neighbours,
                        "agents each avoids at most (0: no cap)");
  avoidance->add_option("--time-gap", a->time_gap,
                        "cfsm: seconds of headway kept to the one ahead");
  avoidance->add_option("--repulsion-strength", a->repulsion_strength,
                        "cfsm: neighbours' repulsion at contact");
  avoidance->add_option("--repulsion-range", a->repulsion_range,
                        "cfsm: how far neighbours' repulsion reaches, in radii");
  avoidance->add_option("--wall-repulsion-strength", a->wall_repulsion_strength,
                        "cfsm: walls' repulsion at contact");
  avoidance->add_option("--wall-repulsion-range", a->wall_repulsion_range,
                        "cfsm: how far walls' repulsion reaches, in radii");

  auto* map = app.add_subcommand("map", "load or clear a tile map, or change tiles");
  map->require_subcommand(1);
  auto* load_map =
      command(*map, out, "load", "a map from a text file: a row a line, '#' blocked, '.' walkable",
              [a](CLI::App*) { return read_map(a->file, a->tile_size); });
  load_map->add_option("FILE", a->file, "the map's text")->required();
  load_map->add_option("--tile-size", a->tile_size, "units per tile side")->required();
  command(*map, out, "clear", "remove the map", [](CLI::App*) {
    return json{{"cmd", "clear_map"}};
  });
  auto* tiles = command(*map, out, "tiles", "block or open tiles", [a](CLI::App*) {
    if (a->block == a->open) bad("map tiles needs --blocked or --open");
    json list = json::array();
    for (const std::string& t : a->tiles) {
      json p = tile_or_bad(t, "a tile");
      p["blocked"] = a->block;
      list.push_back(p);
    }
    return json{{"cmd", "set_tiles"}, {"tiles", list}};
  });
  tiles->add_option("TILES", a->tiles, "tiles X,Y ...")->required();
  tiles->add_flag("--blocked", a->block, "make them walls");
  tiles->add_flag("--open", a->open, "make them walkable");

  auto* pathing =
      command(app, out, "pathing", "how agents find their way on a map", [a](CLI::App* s) {
        json c{{"cmd", "set_pathing"},
               {"agents", selection_or_bad(a->selection)},
               {"pathing", a->kind}};
        if (given(s, "--neighbours")) c["neighbours"] = a->neighbours;
        return c;
      });
  pathing->add_option("SELECTION", a->selection, sel_help)->required();
  pathing->add_option("PATHING", a->kind, "direct, no_backtrack, astar or flow")
      ->required()
      ->check(CLI::IsMember({"direct", "no_backtrack", "astar", "flow"}));
  pathing->add_option("--neighbours", a->neighbours, "4 or 8")->check(CLI::IsMember({4, 8}));

  auto* formation =
      command(app, out, "formation", "form circle, line, lines, block or wedge", [a](CLI::App* s) {
        json c{{"cmd", "formation"},
               {"shape", a->shape},
               {"agents", selection_or_bad(a->selection)},
               {"centre", point_or_bad(a->centre, "--centre")}};
        if (given(s, "--spacing")) c["spacing"] = a->spacing;
        if (given(s, "--radius")) c["radius"] = a->radius;
        if (given(s, "--count")) c["count"] = a->count;
        if (given(s, "--columns")) c["columns"] = a->columns;
        if (given(s, "--facing")) c["facing"] = a->facing;
        if (a->vertical) c["orientation"] = "vertical";
        if (a->regroup) c["regroup"] = true;
        if (given(s, "--assignment")) c["assignment"] = a->assignment;
        return c;
      });
  formation->add_option("SHAPE", a->shape, "circle, line, lines, block or wedge")
      ->required()
      ->check(CLI::IsMember({"circle", "line", "lines", "block", "wedge"}));
  formation->add_option("SELECTION", a->selection, sel_help)->required();
  formation->add_option("--centre", a->centre, "the formation's middle X,Y")->required();
  formation->add_option("--spacing", a->spacing, "units between places");
  formation->add_option("--radius", a->radius, "circle: at least this radius");
  formation->add_option("--count", a->count, "lines: how many lines; block: blocks side by side");
  formation->add_option("--columns", a->columns, "block: columns per block");
  formation->add_option("--facing", a->facing, "degrees, clockwise on screen");
  formation->add_flag("--vertical", a->vertical, "line, lines: vertical");
  formation->add_flag("--regroup", a->regroup, "each agent's group becomes its block's or line's");
  formation
      ->add_option("--assignment", a->assignment,
                   "auto (the default: optimal up to 2,000 agents, bisection beyond), optimal, "
                   "bisection, keep_order or shuffle")
      ->check(CLI::IsMember({"auto", "optimal", "bisection", "keep_order", "shuffle"}));

  // The seed demo's moves.
  for (const auto& [name, cmd, help] :
       {std::tuple{"swap", "swap_places", "B: each agent goes to another's place"},
        std::tuple{"exchange", "exchange", "B after G: two groups trade places"},
        std::tuple{"invert", "invert", "B after P: everyone to the opposite point"}}) {
    auto* move = command(app, out, name, help, [a, cmd = std::string(cmd)](CLI::App*) {
      return json{{"cmd", cmd}, {"agents", selection_or_bad(a->selection)}};
    });
    move->add_option("SELECTION", a->selection, sel_help)->required();
  }
  auto* opposite =
      command(app, out, "opposite", "T: sectors become groups and cross to the opposite side",
              [a](CLI::App* s) {
                json c{{"cmd", "opposite"}, {"agents", selection_or_bad(a->selection)}};
                if (given(s, "--groups")) c["groups"] = a->groups;
                return c;
              });
  opposite->add_option("SELECTION", a->selection, sel_help)->required();
  opposite->add_option("--groups", a->groups, "how many sectors (default 3)");
  auto* group = command(app, out, "group", "set the selection's group", [a](CLI::App*) {
    return json{
        {"cmd", "set_group"}, {"agents", selection_or_bad(a->selection)}, {"group", a->group}};
  });
  group->add_option("SELECTION", a->selection, sel_help)->required();
  group->add_option("GROUP", a->group, "0 to 255")->required();

  command(app, out, "pause", "stop stepping the world", [](CLI::App*) {
    return json{{"cmd", "pause"}};
  });
  command(app, out, "resume", "step again", [](CLI::App*) { return json{{"cmd", "resume"}}; });
  auto* step =
      command(app, out, "step", "while paused, run ticks by hand (default 1)", [a](CLI::App*) {
        return json{{"cmd", "step"}, {"ticks", a->ticks}};
      });
  step->add_option("TICKS", a->ticks, "how many");
  auto* reset = command(app, out, "reset", "rebuild the running scenario", [a](CLI::App* s) {
    json c{{"cmd", "reset"}};
    if (given(s, "--seed")) c["seed"] = a->seed;
    return c;
  });
  reset->add_option("--seed", a->seed, "another seed");
  auto* scenario = command(app, out, "scenario", "load a scenario by name (replaces the world)",
                           [a](CLI::App* s) {
                             json c{{"cmd", "load_scenario"}, {"name", a->name}};
                             if (given(s, "--seed")) c["seed"] = a->seed;
                             return c;
                           });
  scenario->add_option("NAME", a->name, "the scenario's name")->required();
  scenario->add_option("--seed", a->seed, "another seed");
  auto* param =
      command(app, out, "param", "ticks and snapshots per second of wall time", [a](CLI::App* s) {
        json c{{"cmd", "set_param"}};
        if (given(s, "--tick-rate")) c["tick_rate"] = a->tick_rate;
        if (given(s, "--snapshot-rate")) c["snapshot_rate"] = a->snapshot_rate;
        if (c.size() == 1) bad("param needs --tick-rate or --snapshot-rate");
        return c;
      });
  param->add_option("--tick-rate", a->tick_rate, "ticks per second");
  param->add_option("--snapshot-rate", a->snapshot_rate, "snapshots per second");
  auto* kick = command(app, out, "kick", "close another session (its id: herd-ctl sessions)",
                       [a](CLI::App*) {
                         return json{{"cmd", "kick"}, {"session", a->session}};
                       });
  kick->add_option("ID", a->session, "the session's id")
      ->required()
      ->check(CLI::Range(std::uint64_t{0}, protocol::kMaxSessionId));

  add_declared_fields(app, out, builds);
}

std::optional<std::string> describe_why(const json& snapshot, std::uint32_t id) {
  const json agents = snapshot.value("agents", json::array());
  if (!agents.is_array()) return std::nullopt;
  for (const json& a : agents) {
    if (!a.is_object() || a.value("id", json()) != id) continue;
    auto num = [&](const char* key) { return a.value(key, 0.0); };
    std::string out = "agent " + std::to_string(id) + ": " + a.value("state", std::string("?"));
    out += " at " + format_number(std::hypot(num("vx"), num("vy"))) + " u/s";
    if (const auto stall = a.find("stall"); stall != a.end() && stall->is_string()) {
      out += ", stalled " + format_number(std::round(num("stall_for") * 10) / 10) +
             " s: " + stall->get<std::string>();
      if (const auto by = a.find("stall_by"); by != a.end() && by->is_array() && !by->empty()) {
        out += " (by";
        for (std::size_t k = 0; k < by->size(); ++k) out += (k ? ", " : " ") + (*by)[k].dump();
        out += ")";
      }
    } else {
      out += ", not stalled";
    }
    out += "; at (" + format_number(std::round(num("x") * 10) / 10) + ", " +
           format_number(std::round(num("y") * 10) / 10) + ")";
    if (a.contains("tx"))
      out += ", going to (" + format_number(std::round(num("tx") * 10) / 10) + ", " +
             format_number(std::round(num("ty") * 10) / 10) + ")";
    return out;
  }
  return std::nullopt;
}

}  // namespace herd::cli
