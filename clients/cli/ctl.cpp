#include "cli/ctl.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace herd::cli {
namespace {

using nlohmann::json;

struct Subcommand {
  std::string_view name, args, summary;
};

constexpr Subcommand kSubcommands[] = {
    {"target", "SELECTION X Y [--seek]", "send agents to a point (arrive, or seek)"},
    {"spawn", "COUNT [--group G] | --at X,Y[;X,Y...] [--group G]", "add agents"},
    {"remove", "SELECTION", "remove agents"},
    {"formation", "SHAPE SELECTION --centre X,Y [--spacing S] [--count K] [--columns C] [--facing DEG] [--vertical] "
                  "[--regroup] [--assignment optimal|keep_order|shuffle]",
     "form circle, line, lines, block or wedge"},
    {"behaviour", "SELECTION KIND [--agent ID] [--target X,Y] [--radius R] [--response pursue|evade]",
     "idle, hold, seek, arrive, flee, pursue, evade, attack or react"},
    {"scenario", "NAME [--seed S]", "load a scenario (replaces the world)"},
    {"reset", "[--seed S]", "rebuild the running scenario"},
    {"pause", "", "stop stepping the world"},
    {"resume", "", "step again"},
    {"step", "[TICKS]", "while paused, run ticks by hand (default 1)"},
    {"watch", "[--count N] [--role viewer|commander]", "print snapshots as JSON lines"},
    {"stats", "", "print the server's /metrics"},
    {"load", "--viewers N --duration SECONDS [--format json|binary] [--decode full|header] [--viewport W,H] [--commands RATE] [--threads T]",
     "open N viewer connections and report what they receive; --commands: command latency too"},
};

// SELECTION: all | group:G | 1,2,3
std::optional<json> selection(const std::string& s) {
  if (s == "all") return json("all");
  if (s.rfind("group:", 0) == 0) {
    unsigned g = 0;
    const auto [p, ec] = std::from_chars(s.data() + 6, s.data() + s.size(), g);
    if (ec != std::errc{} || p != s.data() + s.size() || g > 255) return std::nullopt;
    return json{{"group", g}};
  }
  json ids = json::array();
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(',', start), s.size());
    std::uint64_t id = 0;
    const auto [p, ec] = std::from_chars(s.data() + start, s.data() + end, id);
    if (ec != std::errc{} || p != s.data() + end || id > 0xffffffffu) return std::nullopt;
    ids.push_back(id);
    start = end + 1;
  }
  return ids;
}

std::optional<double> number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<json> point(const std::string& s) {
  const auto comma = s.find(',');
  if (comma == std::string::npos) return std::nullopt;
  const auto x = number(s.substr(0, comma)), y = number(s.substr(comma + 1));
  if (!x || !y) return std::nullopt;
  return json{{"x", *x}, {"y", *y}};
}

// Reads "--name value" options into `out` (strings), positionals into `pos`. Flags without a
// value are listed in `switches`.
std::string split(const std::vector<std::string>& args, std::vector<std::string>& pos, json& opts,
                  std::initializer_list<std::string_view> switches) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      pos.push_back(a);
      continue;
    }
    const std::string name = a.substr(2);
    bool is_switch = false;
    for (auto s : switches) is_switch = is_switch || name == s;
    if (is_switch) {
      opts[name] = true;
      continue;
    }
    if (i + 1 >= args.size()) return "--" + name + " needs a value";
    opts[name] = args[++i];
  }
  return {};
}

Built fail(std::string why) { return {{}, std::move(why)}; }

}  // namespace

std::optional<Url> parse_url(std::string_view text) {
  if (text.rfind("ws://", 0) != 0) return std::nullopt;
  text.remove_prefix(5);
  Url u;
  const auto slash = text.find('/');
  const std::string_view authority = text.substr(0, slash);
  u.path = slash == std::string_view::npos ? "/ws" : std::string(text.substr(slash));
  const auto colon = authority.rfind(':');
  u.host = std::string(authority.substr(0, colon));
  if (colon != std::string_view::npos) {
    unsigned port = 0;
    const auto digits = authority.substr(colon + 1);
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc{} || p != digits.data() + digits.size() || port == 0 || port > 65535) return std::nullopt;
    u.port = static_cast<std::uint16_t>(port);
  } else {
    u.port = 80;
  }
  if (u.host.empty()) return std::nullopt;
  return u;
}

bool is_command(std::string_view s) {
  for (auto n : {"target", "spawn", "remove", "formation", "behaviour", "scenario", "reset", "pause", "resume", "step"})
    if (s == n) return true;
  return false;
}

std::variant<LoadOptions, std::string> parse_load(const std::vector<std::string>& args) {
  LoadOptions o;
  if (args.size() % 2 != 0) return std::string("load takes --flag value pairs");
  for (std::size_t k = 0; k + 1 < args.size(); k += 2) {
    const std::string& flag = args[k];
    const std::string& v = args[k + 1];
    try {
      if (flag == "--viewers") o.viewers = std::stoi(v);
      else if (flag == "--duration") o.seconds = std::stod(v);
      else if (flag == "--format") {
        if (v != "json" && v != "binary") return std::string("--format is json or binary");
        o.binary = v == "binary";
      } else if (flag == "--decode") {
        if (v != "full" && v != "header") return std::string("--decode is full or header");
        o.decode_full = v == "full";
      } else if (flag == "--viewport") {
        const auto comma = v.find(',');
        if (comma == std::string::npos) return std::string("--viewport is W,H");
        o.view_w = std::stod(v.substr(0, comma));
        o.view_h = std::stod(v.substr(comma + 1));
        if (!(o.view_w > 0 && o.view_h > 0 && o.view_w <= 1e7 && o.view_h <= 1e7)) return std::string("--viewport W,H: sizes in (0, 1e7]");
      } else if (flag == "--threads") {
        o.threads = std::stoi(v);
        if (o.threads < 1 || o.threads > 64) return std::string("--threads T: in [1, 64]");
      } else if (flag == "--commands") {
        o.commands = std::stod(v);
        if (!(o.commands > 0 && o.commands <= 30)) return std::string("--commands RATE: per second, in (0, 30]");
      } else {
        return "unknown flag " + flag;
      }
    } catch (...) {
      return "bad value for " + flag;
    }
  }
  if (o.viewers < 1 || o.viewers > 10000 || !(o.seconds > 0 && o.seconds <= 3600))
    return std::string("load needs --viewers N (1..10000) --duration SECONDS (0..3600]");
  if (o.view_w > 0 && !o.binary) return std::string("--viewport needs --format binary");
  return o;
}

std::string usage(std::string_view name) {
  std::string out;
  if (name.empty()) {
    out = "usage: herd-ctl [--url ws://HOST:PORT/ws] [--timeout SECONDS] [--token TOKEN] SUBCOMMAND [ARGS]\n\n"
          "--token (or the variable HERD_COMMAND_TOKEN, which ps does not show): the server's command token.\n"
          "SELECTION is all, group:G or a list of ids like 1,2,3. Exit codes: 0 acknowledged, 1 the server\n"
          "refused (its error on stderr), 2 bad usage, 3 the server cannot be reached.\n\nsubcommands:\n";
    for (const Subcommand& s : kSubcommands)
      out += "  " + std::string(s.name) + std::string(12 - std::min<std::size_t>(11, s.name.size()), ' ') + std::string(s.summary) + "\n";
    out += "\n'herd-ctl SUBCOMMAND --help' shows a subcommand's arguments.\n";
    return out;
  }
  for (const Subcommand& s : kSubcommands)
    if (s.name == name) return "usage: herd-ctl " + std::string(s.name) + " " + std::string(s.args) + "\n  " + std::string(s.summary) + "\n";
  return "herd-ctl: unknown subcommand '" + std::string(name) + "'\n\n" + usage();
}

Built build_command(std::string_view sub, const std::vector<std::string>& args) {
  std::vector<std::string> pos;
  json o = json::object();
  if (std::string why = split(args, pos, o, {"seek", "vertical", "regroup"}); !why.empty()) return fail(why);
  json c;
  auto sel = [&](std::size_t i) -> std::optional<json> { return i < pos.size() ? selection(pos[i]) : std::nullopt; };
  if (sub == "target") {
    const auto s = sel(0);
    const auto x = pos.size() > 1 ? number(pos[1]) : std::nullopt, y = pos.size() > 2 ? number(pos[2]) : std::nullopt;
    if (!s || !x || !y || pos.size() != 3) return fail("target needs SELECTION X Y");
    c = {{"cmd", "set_target"}, {"agents", *s}, {"target", {{"x", *x}, {"y", *y}}}};
    if (o.contains("seek")) c["behaviour"] = "seek";
  } else if (sub == "spawn") {
    c = {{"cmd", "spawn"}};
    if (o.contains("at")) {
      json agents = json::array();
      const std::string list = o["at"];
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t end = std::min(list.find(';', start), list.size());
        auto p = point(list.substr(start, end - start));
        if (!p) return fail("--at takes X,Y[;X,Y...]");
        if (o.contains("group")) (*p)["group"] = number(o["group"]).value_or(-1);
        agents.push_back(*p);
        start = end + 1;
      }
      c["agents"] = agents;
    } else {
      const auto n = pos.size() == 1 ? number(pos[0]) : std::nullopt;
      if (!n || *n != std::floor(*n)) return fail("spawn needs COUNT (or --at X,Y)");
      c["count"] = static_cast<std::int64_t>(*n);
      if (o.contains("group")) {
        const auto g = number(o["group"]);
        if (!g) return fail("--group takes a number");
        c["group"] = static_cast<std::int64_t>(*g);
      }
    }
  } else if (sub == "remove") {
    const auto s = sel(0);
    if (!s || pos.size() != 1) return fail("remove needs SELECTION");
    c = {{"cmd", "remove"}, {"agents", *s}};
  } else if (sub == "formation") {
    const auto s = sel(1);
    if (pos.size() != 2 || !s) return fail("formation needs SHAPE SELECTION --centre X,Y");
    const auto centre = o.contains("centre") ? point(o["centre"]) : std::nullopt;
    if (!centre) return fail("formation needs --centre X,Y");
    c = {{"cmd", "formation"}, {"shape", pos[0]}, {"agents", *s}, {"centre", *centre}};
    for (const char* k : {"spacing", "count", "columns", "facing"})
      if (o.contains(k)) {
        const auto v = number(o[k]);
        if (!v) return fail(std::string("--") + k + " takes a number");
        c[k] = *v;
        if (std::string(k) == "count" || std::string(k) == "columns") c[k] = static_cast<std::int64_t>(*v);
      }
    if (o.contains("vertical")) c["orientation"] = "vertical";
    if (o.contains("regroup")) c["regroup"] = true;
    if (o.contains("assignment")) c["assignment"] = o["assignment"];
  } else if (sub == "behaviour") {
    const auto s = sel(0);
    if (pos.size() != 2 || !s) return fail("behaviour needs SELECTION KIND");
    c = {{"cmd", "set_behaviour"}, {"agents", *s}, {"behaviour", pos[1]}};
    if (o.contains("agent")) {
      const auto a = number(o["agent"]);
      if (!a) return fail("--agent takes an id");
      c["agent"] = static_cast<std::int64_t>(*a);
    }
    if (o.contains("target")) {
      const auto p = point(o["target"]);
      if (!p) return fail("--target takes X,Y");
      c["target"] = *p;
    }
    if (o.contains("radius")) {
      const auto r = number(o["radius"]);
      if (!r) return fail("--radius takes a number");
      c["radius"] = *r;
    }
    if (o.contains("response")) c["response"] = o["response"];
  } else if (sub == "scenario" || sub == "reset") {
    if (sub == "scenario" && pos.size() != 1) return fail("scenario needs NAME");
    if (sub == "reset" && !pos.empty()) return fail("reset takes only --seed");
    c = {{"cmd", sub == "scenario" ? "load_scenario" : "reset"}};
    if (sub == "scenario") c["name"] = pos[0];
    if (o.contains("seed")) {
      const auto s = number(o["seed"]);
      if (!s || *s < 0 || *s != std::floor(*s)) return fail("--seed takes a whole number");
      c["seed"] = static_cast<std::uint64_t>(*s);
    }
  } else if (sub == "pause" || sub == "resume") {
    if (!pos.empty()) return fail(std::string(sub) + " takes no arguments");
    c = {{"cmd", sub}};
  } else if (sub == "step") {
    const auto n = pos.empty() ? std::optional<double>(1) : number(pos[0]);
    if (!n || pos.size() > 1 || *n != std::floor(*n)) return fail("step takes a number of ticks");
    c = {{"cmd", "step"}, {"ticks", static_cast<std::int64_t>(*n)}};
  } else {
    return fail("unknown subcommand '" + std::string(sub) + "'");
  }
  return {c.dump(), {}};
}

}  // namespace herd::cli
