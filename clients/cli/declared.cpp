// herd-ctl's subcommands from the command table (protocol/command_table.hpp): the hand-made
// subcommands (ctl.cpp) spell the common fields their own way (positional X Y, --tile, --seek);
// every other field of every wire command is an option made here from its declaration, so a
// field added to the table is on herd-ctl's --help and sent with no edit to herd-ctl.
#include <CLI/CLI.hpp>
#include <cassert>
#include <cmath>
#include <deque>
#include <memory>

#include "cli/ctl.hpp"

namespace herd::cli {

using nlohmann::json;
using protocol::FieldKind;
using protocol::FieldSpec;

namespace {

// Where herd-ctl already spells a wire command: its subcommand's path from the top, and the
// fields that subcommand reads its own way (positional arguments, options of other names or
// meanings), which get no declared option there.
struct Spelling {
  std::string_view cmd;
  std::vector<std::string_view> path;
  std::vector<std::string_view> own_fields;
};

const std::vector<Spelling>& spellings() {
  static const std::vector<Spelling> s = {
      {"set_target", {"target"}, {"agents", "target", "target_tile", "behaviour"}},
      {"attack_move", {"attack-move"}, {"agents", "target", "target_tile"}},
      {"patrol", {"patrol"}, {"agents", "points"}},
      {"stop", {"stop"}, {"agents"}},
      {"spawn", {"spawn"}, {"count", "agents", "radius"}},
      {"remove", {"remove"}, {"agents"}},
      {"set_behaviour", {"behaviour"}, {"agents", "behaviour", "target_tile", "path", "offset"}},
      {"set_movement", {"movement"}, {"agents", "movement"}},
      {"add_obstacle", {"obstacle", "add"}, {"x", "y", "radius"}},
      {"remove_obstacle", {"obstacle", "remove"}, {"id"}},
      {"add_wall", {"wall", "add"}, {"points"}},
      {"remove_wall", {"wall", "remove"}, {"wall"}},
      {"add_measurement", {"measure", "line"}, {"line", "area"}},
      {"add_measurement", {"measure", "area"}, {"line", "area"}},
      {"remove_measurement", {"measure", "remove"}, {"id"}},
      {"add_source", {"source", "add"}, {"area", "rate", "total", "target", "behaviour"}},
      {"remove_source", {"source", "remove"}, {"id"}},
      {"add_exit", {"exit", "add"}, {"area"}},
      {"remove_exit", {"exit", "remove"}, {"id"}},
      {"set_avoidance", {"avoidance"}, {"crossing"}},
      {"load_map", {"map", "load"}, {"width", "height", "rows"}},
      {"clear_map", {"map", "clear"}, {}},
      {"set_tiles", {"map", "tiles"}, {"tiles"}},
      {"set_pathing", {"pathing"}, {"agents", "pathing"}},
      {"set_group", {"group"}, {"agents", "group"}},
      {"formation", {"formation"}, {"agents", "shape", "orientation"}},
      {"swap_places", {"swap"}, {"agents"}},
      {"opposite", {"opposite"}, {"agents"}},
      {"exchange", {"exchange"}, {"agents"}},
      {"invert", {"invert"}, {"agents"}},
      {"pause", {"pause"}, {}},
      {"resume", {"resume"}, {}},
      {"step", {"step"}, {"ticks"}},
      {"reset", {"reset"}, {}},
      {"load_scenario", {"scenario"}, {"name"}},
      {"set_param", {"param"}, {}},
      {"kick", {"kick"}, {"session"}},
  };
  return s;
}

std::string dashed(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '_') c = '-';
  return out;
}

bool whole(double v) { return v == std::floor(v) && std::abs(v) < 9e15; }

std::string range_text(const FieldSpec& f) {
  if (!f.min && !f.max) return {};
  return " [" + (f.min ? format_number(*f.min) : std::string("..")) + ", " +
         (f.max ? format_number(*f.max) : std::string("..")) + "]";
}

// A field's line of --help: its help, what to write and its range or choices.
std::string option_help(const FieldSpec& f) {
  std::string h(f.help);
  switch (f.kind) {
    case FieldKind::selection:
      h += " (all, group:G, team:T, rect:X0,Y0,X1,Y1 or ids)";
      break;
    case FieldKind::point:
    case FieldKind::tile:
      h += " (X,Y)";
      break;
    case FieldKind::boolean:
      h += " (true or false)";
      break;
    case FieldKind::list:
    case FieldKind::area:
    case FieldKind::rows:
      h += " (JSON)";
      break;
    case FieldKind::enumeration: {
      std::string choices;
      for (std::string_view c : f.choices)
        choices += (choices.empty() ? "" : ", ") + std::string(c);
      h += " (" + choices + ")";
      break;
    }
    default:
      h += range_text(f);
  }
  return h;
}

// The values of the declared options, one string each, kept alive with the app.
struct Declared {
  std::deque<std::string> values;
  // Per subcommand: its declared options and the fields they stand for.
  std::map<CLI::App*, std::vector<std::pair<CLI::Option*, const FieldSpec*>>> options;
};

// The declared fields given on the command line, into `c`; a field the hand-made part already
// wrote is refused as given twice.
void fill(const Declared& d, CLI::App* sub, json& c) {
  const auto it = d.options.find(sub);
  if (it == d.options.end()) return;
  for (const auto& [option, field] : it->second) {
    if (option->count() == 0) continue;
    const std::string name(field->name);
    if (c.contains(name))
      throw CLI::ValidationError(option->get_name() + " gives '" + name + "' a second time");
    auto value = parse_declared_value(*field, option->as<std::string>());
    if (const auto* error = std::get_if<std::string>(&value))
      throw CLI::ValidationError(option->get_name() + ": " + *error);
    c[name] = std::get<json>(std::move(value));
  }
}

// `app`'s subcommand `name` (or one of its aliases); nullptr when it has none.
CLI::App* subcommand(CLI::App& app, std::string_view name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->check_name(std::string(name))) return sub;
  return nullptr;
}

CLI::App* find_path(CLI::App& app, const std::vector<std::string_view>& path) {
  CLI::App* at = &app;
  for (std::string_view name : path) {
    at = subcommand(*at, name);
    if (!at) return nullptr;
  }
  return at;
}

void add_options(Declared& d, CLI::App* sub, const protocol::CommandSpec& spec,
                 const std::vector<std::string_view>& own) {
  for (const FieldSpec& f : spec.fields) {
    if (std::find(own.begin(), own.end(), f.name) != own.end()) continue;
    const std::string flag = "--" + dashed(f.name);
    if (sub->get_option_no_throw(flag)) continue;  // the hand-made option of the same name
    std::string& value = d.values.emplace_back();
    CLI::Option* o = sub->add_option(flag, value, option_help(f));
    if (f.kind == FieldKind::enumeration) {
      std::vector<std::string> choices(f.choices.begin(), f.choices.end());
      o->check(CLI::IsMember(choices));
    }
    d.options[sub].emplace_back(o, &f);
  }
}

}  // namespace

std::variant<json, std::string> parse_declared_value(const FieldSpec& f, const std::string& text) {
  const auto in_range = [&](double v) -> std::optional<std::string> {
    const bool low = f.min && (f.min_exclusive ? !(v > *f.min) : v < *f.min);
    if (low || (f.max && v > *f.max)) return "'" + text + "' is not in" + range_text(f);
    return std::nullopt;
  };
  switch (f.kind) {
    case FieldKind::selection:
      if (auto s = parse_selection(text)) return *s;
      return "'" + text + "' is not all, group:G, team:T, rect:X0,Y0,X1,Y1 or ids like 1,2,3";
    case FieldKind::point:
      if (auto p = parse_point(text)) return *p;
      return "takes X,Y, not '" + text + "'";
    case FieldKind::tile:
      if (auto p = parse_point(text); p && whole((*p)["x"]) && whole((*p)["y"]))
        return json{{"x", static_cast<std::int64_t>((*p)["x"].get<double>())},
                    {"y", static_cast<std::int64_t>((*p)["y"].get<double>())}};
      return "takes whole numbers X,Y, not '" + text + "'";
    case FieldKind::agent:
    case FieldKind::obstacle:
    case FieldKind::integer: {
      const auto v = parse_number(text);
      if (!v || !whole(*v)) return "takes a whole number, not '" + text + "'";
      if (auto e = in_range(*v)) return *e;
      return json(static_cast<std::int64_t>(*v));
    }
    case FieldKind::number: {
      const auto v = parse_number(text);
      if (!v) return "takes a number, not '" + text + "'";
      if (auto e = in_range(*v)) return *e;
      return json(*v);
    }
    case FieldKind::boolean:
      if (text == "true" || text == "false") return json(text == "true");
      return "takes true or false, not '" + text + "'";
    case FieldKind::enumeration:
      if (f.numeric_choices) return json(static_cast<std::int64_t>(*parse_number(text)));
      return json(text);
    case FieldKind::string:
      return json(text);
    case FieldKind::rows:
    case FieldKind::area:
    case FieldKind::list: {
      json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (v.is_discarded()) return "takes JSON, not '" + text + "'";
      return v;
    }
  }
  return std::string("has a kind herd-ctl does not know");
}

void add_declared_fields(CLI::App& app, json& out,
                         const std::map<CLI::App*, std::function<json(CLI::App*)>>& builds) {
  auto d = std::make_shared<Declared>();
  std::vector<std::string_view> spelled;
  for (const Spelling& s : spellings()) {
    CLI::App* sub = find_path(app, s.path);
    const auto build = builds.find(sub);
    // A spelling names a hand-made subcommand of ctl.cpp: one renamed there must be renamed here
    // (CtlCommands' tests run with assertions on in the sanitizer tree).
    assert(sub && build != builds.end() && "a spelling names no hand-made subcommand");
    if (!sub || build == builds.end()) continue;
    add_options(*d, sub, *protocol::find_command(s.cmd), s.own_fields);
    sub->callback([sub, &out, d, make = build->second] {
      json c = make(sub);
      fill(*d, sub, c);
      out = std::move(c);
    });
    // Its wire name as well, where herd-ctl says it otherwise at the top level.
    if (s.path.size() == 1 && s.path[0] != s.cmd && !subcommand(app, s.cmd))
      sub->alias(std::string(s.cmd));
    if (s.path.size() == 1) spelled.push_back(s.cmd);
  }
  // Every other command by its wire name, each field an option (required ones required).
  for (const protocol::CommandSpec& spec : protocol::command_table()) {
    if (std::find(spelled.begin(), spelled.end(), spec.cmd) != spelled.end()) continue;
    if (subcommand(app, spec.cmd)) continue;
    CLI::App* sub = app.add_subcommand(std::string(spec.cmd), std::string(spec.help));
    add_options(*d, sub, spec, {});
    for (const auto& [option, field] : d->options[sub])
      if (field->presence == protocol::Presence::required) option->required();
    sub->callback([sub, &out, d, cmd = std::string(spec.cmd)] {
      json c{{"cmd", cmd}};
      fill(*d, sub, c);
      out = std::move(c);
    });
  }
}

}  // namespace herd::cli
