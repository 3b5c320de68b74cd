// The players file (--players, HERD_PLAYERS): who may play, on which team, with which token.
//
//   {"players": [{"name": "red", "team": 1, "token": "..."},
//                {"name": "blue", "team": 2, "token_env": "HERD_BLUE_TOKEN"}]}
//
// A token is given in the file (`token`) or named by the environment variable that holds it
// (`token_env`), so a secret need not sit in a file. Names are 1 to 64 bytes and distinct; teams
// are 1 to 63 (several players may share one); tokens are 16 to 256 bytes and distinct.
//
// A team's rules, optionally (sim::TeamRules): how many agents it may hold, and where its spawns
// land (a rectangle inside the world); and its colour ("colour" or "color", "#rrggbb"), which every
// welcome tells the viewers.
//
//   "teams": [{"team": 1, "max_agents": 500, "spawn": {"x": 0, "y": 0, "width": 200, "height":
//   600}}]
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "net/server.hpp"

namespace herd::app {

// What the file says: the players, and the rules of the teams it names (net::ServerConfig's).
struct PlayersFile {
  std::vector<net::PlayerAccount> players;
  std::map<std::uint8_t, sim::TeamRules> teams;
  std::map<std::uint8_t, std::string> colours;  // "#rrggbb", of the teams that give one
};

// Reads the file at `path` into `out`; false with `why` (never a token) when it cannot.
bool load_players(const std::string& path, const EnvLookup& env, PlayersFile& out,
                  std::string& why);

// The same from the file's text (tests).
bool parse_players(const std::string& text, const EnvLookup& env, PlayersFile& out,
                   std::string& why);

}  // namespace herd::app
