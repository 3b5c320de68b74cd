#include "scenarios/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/codec.hpp"

namespace herd::scenario {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxScenarioBytes = 16u << 20;

// Reads an optional number field into `out`; false with `why` set when present but unusable.
bool read_number(const json& obj, const char* key, double& out, std::string& why) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    why = std::string("'") + key + "' must be a finite number";
    return false;
  }
  out = it->get<double>();
  return true;
}

// Reads an optional integer field in [0, max] into `out`; false with `why` set when present but
// not one.
template <class T>
bool read_uint(const json& obj, const char* key, std::uint64_t max, T& out, std::string& why) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max) {
    why = std::string("'") + key + "' must be an integer in [0, " + std::to_string(max) + "]";
    return false;
  }
  out = static_cast<T>(it->get<std::uint64_t>());
  return true;
}

std::string read_world(const json& w, sim::WorldDef& def) {
  if (!w.is_object()) return "'world' must be an object";
  std::string why;
  double tick_rate = 1.0 / def.dt;
  double seed = static_cast<double>(def.seed);
  double max_agents = def.max_agents;
  if (!read_number(w, "width", def.width, why) || !read_number(w, "height", def.height, why) ||
      !read_number(w, "tick_rate", tick_rate, why) || !read_number(w, "seed", seed, why) ||
      !read_number(w, "max_agents", max_agents, why))
    return "world: " + why;
  if (!(tick_rate >= 1 && tick_rate <= 1000)) return "world: 'tick_rate' must be in [1, 1000]";
  if (!(seed >= 0 && seed <= 9007199254740992.0) || seed != std::floor(seed))
    return "world: 'seed' must be an integer in [0, 2^53]";
  if (!(max_agents >= 1 && max_agents <= sim::WorldDefLimits::kMaxAgents) ||
      max_agents != std::floor(max_agents))
    return "world: 'max_agents' must be an integer in [1, 1000000]";
  def.dt = 1.0 / tick_rate;
  def.seed = static_cast<std::uint64_t>(seed);
  def.max_agents = static_cast<std::uint32_t>(max_agents);
  if (auto it = w.find("agent"); it != w.end()) {
    if (!it->is_object()) return "world: 'agent' must be an object";
    sim::AgentDef& a = def.agent_defaults;
    if (!read_number(*it, "radius", a.radius, why) || !read_number(*it, "mass", a.mass, why) ||
        !read_number(*it, "max_speed", a.max_speed, why) ||
        !read_number(*it, "max_force", a.max_force, why) ||
        !read_number(*it, "slow_radius", a.slow_radius, why) ||
        !read_number(*it, "arrive_tolerance", a.arrive_tolerance, why) ||
        !read_uint(*it, "priority", sim::AgentDefLimits::kMaxPriority, a.priority, why) ||
        !read_uint(*it, "layer", 0xFFFFFFFF, a.layer, why) ||
        !read_uint(*it, "mask", 0xFFFFFFFF, a.mask, why))
      return "world.agent: " + why;
    // Health and weapon: a game's units, as its players spawn them (a player sets none).
    sim::CombatSettings combat;
    for (auto [key, field] : {std::pair{"max_hp", &combat.max_hp},
                              {"damage", &combat.damage},
                              {"range", &combat.range},
                              {"cooldown", &combat.cooldown}}) {
      double v = 0;
      bool given = it->contains(key);
      if (!read_number(*it, key, v, why)) return "world.agent: " + why;
      if (given) *field = v;
    }
    if (std::string bad = sim::validate(combat, a); !bad.empty()) return "world.agent: " + bad;
    float hp = 0;
    combat.apply(a, hp);
  }
  return sim::validate(def);
}

}  // namespace

Loaded<Scenario> parse(std::string_view json_text, std::string_view name) {
  const json j =
      json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::string("scenario is not a JSON object");
  try {
    Scenario s;
    s.name = j.value("name", std::string(name));
    s.description = j.value("description", std::string());
    if (auto w = j.find("world"); w != j.end()) {
      if (std::string why = read_world(*w, s.def); !why.empty()) return why;
    }
    if (auto cmds = j.find("commands"); cmds != j.end()) {
      if (!cmds->is_array()) return std::string("'commands' must be an array");
      for (std::size_t i = 0; i < cmds->size(); ++i) {
        json wire = (*cmds)[i];
        if (!wire.is_object()) return "commands[" + std::to_string(i) + "] must be an object";
        wire["type"] = "command";
        wire["seq"] = i;
        auto decoded = protocol::decode_client(wire.dump());
        if (const auto* err = std::get_if<protocol::Error>(&decoded))
          return "commands[" + std::to_string(i) + "]: " + err->message;
        const auto* cmd =
            std::get_if<protocol::CommandMsg>(&std::get<protocol::ClientMessage>(decoded));
        if (!cmd)
          return "commands[" + std::to_string(i) +
                 "]: server controls (pause, reset...) do not belong in a scenario";
        s.commands.push_back(cmd->command);
      }
    }
    return s;
  } catch (const std::exception& e) {  // j.value() with a field of the wrong type
    return std::string("scenario: ") + e.what();
  }
}

Loaded<Scenario> load(std::string_view name_or_path, std::string_view dir) {
  fs::path path(name_or_path);
  const bool is_path =
      name_or_path.find('/') != std::string_view::npos || path.extension() == ".json";
  if (!is_path) {
    // A bare name: only letters, digits, '-' and '_' (so a name can never climb out of dir).
    const bool ok =
        !name_or_path.empty() && std::all_of(name_or_path.begin(), name_or_path.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
        });
    if (!ok) return "bad scenario name '" + std::string(name_or_path) + "'";
    path = fs::path(dir) / (std::string(name_or_path) + ".json");
  }
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) {
    std::string known;
    for (const auto& n : list(dir)) known += (known.empty() ? "" : ", ") + n;
    return "no scenario '" + std::string(name_or_path) + "' (" + path.string() + ": " +
           ec.message() + "); known: " + known;
  }
  if (size > kMaxScenarioBytes) return path.string() + " is larger than 16 MiB";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return "cannot read " + path.string();
  auto parsed = parse(text.str(), path.stem().string());
  if (auto* why = std::get_if<std::string>(&parsed)) return path.string() + ": " + *why;
  return parsed;
}

Loaded<Scenario> load_named(std::string_view name, std::string_view dir) {
  const std::vector<std::string> known = list(dir);
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string names;
    for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
    return "not a scenario of this server (known: " + names + ")";
  }
  // A name from the directory's own listing: letters, digits, '-', '_' and '.' at most.
  auto loaded = load(name, dir);
  if (auto* why = std::get_if<std::string>(&loaded)) {
    const std::string prefix = (fs::path(dir) / (std::string(name) + ".json")).string() + ": ";
    if (why->rfind(prefix, 0) == 0)
      return "scenario '" + std::string(name) + "' is damaged: " + why->substr(prefix.size());
    return "scenario '" + std::string(name) + "' cannot be read";
  }
  return loaded;
}

Loaded<sim::World> build_world(const Scenario& scenario, std::optional<std::uint64_t> seed) {
  sim::WorldDef def = scenario.def;
  if (seed) def.seed = *seed;
  sim::World world(def);
  for (std::size_t i = 0; i < scenario.commands.size(); ++i) {
    const sim::CommandOutcome out = world.apply(scenario.commands[i]);
    if (!out.ok())
      return "scenario '" + scenario.name + "' commands[" + std::to_string(i) + "]: " + out.message;
  }
  return world;
}

std::vector<std::string> list(std::string_view dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string cut_utf8(std::string text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  std::size_t n = bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // a continuation
  text.resize(n);
  return text;
}

std::map<std::string, std::string> describe(std::string_view dir) {
  std::map<std::string, std::string> out;
  for (const std::string& name : list(dir)) {
    const fs::path path = fs::path(dir) / (name + ".json");
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size > kMaxDescribedFileBytes) continue;
    std::ifstream in(path, std::ios::binary);
    const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) continue;
    const auto it = doc.find("description");
    if (it == doc.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) continue;
    out[name] = cut_utf8(it->get<std::string>(), kMaxDescriptionBytes);
  }
  return out;
}

}  // namespace herd::scenario
