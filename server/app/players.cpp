#include "app/players.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "herd/sim/world_def.hpp"
#include "protocol/messages.hpp"

namespace herd::app {
namespace {

constexpr std::size_t kMinTokenBytes = 16;
constexpr std::size_t kMaxPlayers = 1000;
constexpr std::size_t kMaxFileBytes = 1 << 20;

bool player(const nlohmann::json& p, std::size_t i, const EnvLookup& env, net::PlayerAccount& out,
            std::string& why) {
  const std::string where = "players[" + std::to_string(i) + "]";
  if (!p.is_object()) return why = where + " must be an object", false;
  for (const auto& [key, value] : p.items())
    if (key != "name" && key != "team" && key != "token" && key != "token_env")
      return why = where + " has an unknown field '" + key + "'", false;
  const auto name = p.find("name");
  if (name == p.end() || !name->is_string() || name->get_ref<const std::string&>().empty() ||
      name->get_ref<const std::string&>().size() > protocol::kMaxClientNameBytes)
    return why = where + ".name must be a string of 1 to 64 bytes", false;
  out.name = name->get<std::string>();
  const auto team = p.find("team");
  if (team == p.end() || !team->is_number_integer() || team->get<std::int64_t>() < 1 ||
      team->get<std::int64_t>() > sim::AgentDefLimits::kMaxTeam)
    return why = where + ".team must be an integer in [1, 63]", false;
  out.team = static_cast<std::uint8_t>(team->get<std::int64_t>());
  const auto token = p.find("token");
  const auto token_env = p.find("token_env");
  if ((token == p.end()) == (token_env == p.end()))
    return why = where + " must have exactly one of 'token' and 'token_env'", false;
  if (token != p.end()) {
    if (!token->is_string()) return why = where + ".token must be a string", false;
    out.token = token->get<std::string>();
  } else {
    if (!token_env->is_string() || token_env->get_ref<const std::string&>().empty())
      return why = where + ".token_env must name an environment variable", false;
    const std::optional<std::string> value = env(token_env->get<std::string>());
    if (!value)
      return why = where + ".token_env names " + token_env->get<std::string>() + ", which is unset",
             false;
    out.token = *value;
  }
  if (out.token.size() < kMinTokenBytes || out.token.size() > protocol::kMaxTokenBytes)
    return why = where + "'s token must be 16 to 256 bytes (a short token is guessed)", false;
  return true;
}

// A number of `o`'s field `key`, finite, within [lo, hi].
bool number_in(const nlohmann::json& o, const char* key, double lo, double hi, double& out) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return false;
  out = it->get<double>();
  return std::isfinite(out) && out >= lo && out <= hi;
}

// "#rrggbb".
bool is_colour(const std::string& s) {
  return s.size() == 7 && s[0] == '#' && std::all_of(s.begin() + 1, s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

bool team_rules(const nlohmann::json& t, std::size_t i, std::uint8_t& team, sim::TeamRules& out,
                std::string& colour, std::string& why) {
  const std::string where = "teams[" + std::to_string(i) + "]";
  if (!t.is_object()) return why = where + " must be an object", false;
  for (const auto& [key, value] : t.items())
    if (key != "team" && key != "max_agents" && key != "spawn" && key != "colour" && key != "color")
      return why = where + " has an unknown field '" + key + "'", false;
  if (t.contains("colour") && t.contains("color"))
    return why = where + " gives 'colour' and 'color': one is enough", false;
  for (const char* key : {"colour", "color"})
    if (const auto c = t.find(key); c != t.end()) {
      if (!c->is_string() || !is_colour(c->get<std::string>()))
        return why = where + "." + key + " must be a colour \"#rrggbb\"", false;
      colour = c->get<std::string>();
    }
  double n = 0;
  if (!number_in(t, "team", 1, sim::AgentDefLimits::kMaxTeam, n) || n != std::floor(n))
    return why = where + ".team must be an integer in [1, 63]", false;
  team = static_cast<std::uint8_t>(n);
  if (t.contains("max_agents")) {
    if (!number_in(t, "max_agents", 1, sim::WorldDefLimits::kMaxAgents, n) || n != std::floor(n))
      return why = where + ".max_agents must be an integer in [1, 1000000]", false;
    out.max_agents = static_cast<std::uint32_t>(n);
  }
  if (const auto spawn = t.find("spawn"); spawn != t.end()) {
    double x = 0, y = 0, w = 0, h = 0;
    if (!spawn->is_object() || spawn->size() != 4 || !number_in(*spawn, "x", -1e9, 1e9, x) ||
        !number_in(*spawn, "y", -1e9, 1e9, y) || !number_in(*spawn, "width", 1e-9, 1e9, w) ||
        !number_in(*spawn, "height", 1e-9, 1e9, h))
      return why = where +
                   ".spawn must be {\"x\", \"y\", \"width\", \"height\"}, finite, the size > 0",
             false;
    out.spawn_area = sim::Rect{{x, y}, {x + w, y + h}};
  }
  return true;
}

}  // namespace

bool parse_players(const std::string& text, const EnvLookup& env, PlayersFile& out,
                   std::string& why) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return why = "is not JSON", false;
  if (!doc.is_object() || !doc.contains("players") || !doc["players"].is_array() ||
      doc["players"].empty() || doc["players"].size() > kMaxPlayers)
    return why = "must be {\"players\": [...]} with 1 to 1000 players", false;
  for (const auto& [key, value] : doc.items())
    if (key != "players" && key != "teams")
      return why = "has an unknown field '" + key + "'", false;
  std::vector<net::PlayerAccount> players;
  std::set<std::string> names, tokens;
  for (std::size_t i = 0; i < doc["players"].size(); ++i) {
    net::PlayerAccount p;
    if (!player(doc["players"][i], i, env, p, why)) return false;
    if (!names.insert(p.name).second) return why = "names player '" + p.name + "' twice", false;
    // Never the token itself in a message: say whose.
    if (!tokens.insert(p.token).second)
      return why = "gives player '" + p.name + "' a token another player has", false;
    players.push_back(std::move(p));
  }
  std::map<std::uint8_t, sim::TeamRules> teams;
  std::map<std::uint8_t, std::string> colours;
  if (const auto t = doc.find("teams"); t != doc.end()) {
    if (!t->is_array() || t->size() > sim::AgentDefLimits::kMaxTeam)
      return why = "'teams' must be an array of at most 63 teams", false;
    for (std::size_t i = 0; i < t->size(); ++i) {
      std::uint8_t team = 0;
      sim::TeamRules rules;
      std::string colour;
      if (!team_rules((*t)[i], i, team, rules, colour, why)) return false;
      if (!teams.emplace(team, rules).second)
        return why = "gives team " + std::to_string(team) + "'s rules twice", false;
      if (!colour.empty()) colours[team] = colour;
    }
  }
  out = {std::move(players), std::move(teams), std::move(colours)};
  return true;
}

bool load_players(const std::string& path, const EnvLookup& env, PlayersFile& out,
                  std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return why = "cannot read " + path, false;
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxFileBytes) return why = path + " is larger than 1 MiB", false;
  if (!parse_players(text.str(), env, out, why)) return why = path + " " + why, false;
  return true;
}

}  // namespace herd::app
