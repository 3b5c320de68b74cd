#include "app/config.hpp"
#include "app/players.hpp"

#include <gtest/gtest.h>

#include <map>

namespace herd::app {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(Players, TheFileNamesPlayersTeamsAndTokensOrTheVariablesThatHoldThem) {
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "BLUE") return "blue-token-0123456789";
    return std::nullopt;
  };
  PlayersFile file;
  std::string why;
  ASSERT_TRUE(parse_players(
      R"({"players":[{"name":"red","team":1,"token":"red-token-0123456789"},
                     {"name":"blue","team":2,"token_env":"BLUE"}],
          "teams":[{"team":1,"max_agents":500,"spawn":{"x":0,"y":10,"width":200,"height":600},
                    "colour":"#d04040"},{"team":2,"color":"#4060E0"}]})",
      env, file, why))
      << why;
  const std::vector<net::PlayerAccount>& players = file.players;
  ASSERT_EQ(file.teams.size(), 2u);
  EXPECT_EQ(file.teams.at(1).max_agents, 500u);
  const std::map<std::uint8_t, std::string> colours{{1, "#d04040"}, {2, "#4060E0"}};
  EXPECT_EQ(file.colours, colours) << "colour or color";
  EXPECT_EQ(file.teams.at(1).spawn_area, (sim::Rect{{0, 10}, {200, 610}}));
  ASSERT_EQ(players.size(), 2u);
  EXPECT_EQ(players[1].name, "blue");
  EXPECT_EQ(players[1].team, 2);
  EXPECT_EQ(players[1].token, "blue-token-0123456789");
  // Each mistake refused with what is wrong, never the token; nothing kept.
  const std::map<std::string, std::string> bad{
      {R"({"players":[]})", "1 to 1000 players"},
      {R"({"players":[{"name":"red","team":0,"token":"red-token-0123456789"}]})", "[1, 63]"},
      {R"({"players":[{"name":"red","team":64,"token":"red-token-0123456789"}]})", "[1, 63]"},
      {R"({"players":[{"name":"red","team":1,"token":"short"}]})", "16 to 256 bytes"},
      {R"({"players":[{"name":"red","team":1,"token_env":"UNSET"}]})", "unset"},
      {R"({"players":[{"name":"red","team":1}]})", "exactly one of"},
      {R"({"players":[{"name":"a","team":1,"token":"same-token-0123456789"},
                      {"name":"b","team":2,"token":"same-token-0123456789"}]})",
       "a token another player has"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"},
                      {"name":"a","team":2,"token":"b-token-0123456789"}]})",
       "twice"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789","x":1}]})", "unknown"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"}],"teams":[{"team":64}]})",
       "[1, 63]"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"}],
          "teams":[{"team":1,"colour":"red"}]})",
       "#rrggbb"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"}],
          "teams":[{"team":1,"colour":"#d04040","color":"#d04040"}]})",
       "one is enough"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"}],
          "teams":[{"team":1,"spawn":{"x":0,"y":0,"width":0,"height":5}}]})",
       "the size > 0"},
      {R"({"players":[{"name":"a","team":1,"token":"a-token-0123456789"}],
          "teams":[{"team":1},{"team":1}]})",
       "twice"},
      {"not json", "not JSON"}};
  for (const auto& [text, says] : bad) {
    PlayersFile out;
    std::string error;
    EXPECT_FALSE(parse_players(text, env, out, error)) << text;
    EXPECT_NE(error.find(says), std::string::npos) << text << ": " << error;
    EXPECT_EQ(error.find("token-0123456789"), std::string::npos) << error;
    EXPECT_TRUE(out.players.empty());
  }
}

TEST(Config, DefaultsWithNothingSet) {
  const auto r = parse_config({}, env_of({}));
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->server.port, 8080);
  EXPECT_EQ(r.config->server.address, "0.0.0.0");
  EXPECT_EQ(r.config->server.snapshot_rate, 20);
  EXPECT_EQ(r.config->scenario, "default");
  EXPECT_FALSE(r.config->seed);
  EXPECT_FALSE(r.config->tick_rate_given);
}

TEST(Config, SimThreadsIsASettingWithARange) {
  EXPECT_EQ(parse_config({}, env_of({})).config->server.sim_threads, 1u);
  const auto r = parse_config({"--sim-threads", "2"}, env_of({}));
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->server.sim_threads, 2u);
  EXPECT_EQ(parse_config({}, env_of({{"HERD_SIM_THREADS", "4"}})).config->server.sim_threads, 4u);
  for (const char* bad : {"0", "65", "two", "-1"})
    EXPECT_FALSE(parse_config({"--sim-threads", bad}, env_of({})).config) << bad;
}

TEST(Config, IoThreadsIsASettingWithARange) {
  EXPECT_EQ(parse_config({}, env_of({})).config->server.io_threads, 2u);
  const auto r = parse_config({"--io-threads", "3"}, env_of({}));
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->server.io_threads, 3u);
  EXPECT_EQ(parse_config({}, env_of({{"HERD_IO_THREADS", "1"}})).config->server.io_threads, 1u);
  for (const char* bad : {"0", "65", "two", "-1"})
    EXPECT_FALSE(parse_config({"--io-threads", bad}, env_of({})).config) << bad;
}

TEST(Config, TheDefencesAreSettingsWithRanges) {
  const auto r = parse_config(
      {"--rate-limit", "5", "--rate-burst=7", "--max-sessions", "10", "--max-sessions-per-address",
       "3", "--max-agents", "500", "--max-spawn", "20", "--max-message-bytes", "2048",
       "--max-json-depth", "8", "--idle-timeout", "1.5", "--slow-client-timeout", "0.5"},
      env_of({{"HERD_COMMAND_TOKEN", "sixteen-bytes-ok"},
              {"HERD_ALLOWED_ORIGINS", "https://a.example, http://b:8080"},
              {"HERD_ALLOWED_HOSTS", "herd.example"},
              {"HERD_MAX_CONNECTIONS_PER_ADDRESS", "9"}}));
  ASSERT_TRUE(r.config) << r.error;
  const net::ServerConfig& s = r.config->server;
  EXPECT_EQ(s.max_connections_per_address, 9u);
  EXPECT_EQ(s.command_token, "sixteen-bytes-ok");
  EXPECT_EQ(s.allowed_hosts, (std::vector<std::string>{"herd.example"}));
  EXPECT_EQ(s.allowed_origins, (std::vector<std::string>{"https://a.example", "http://b:8080"}));
  EXPECT_EQ(s.rate_limit, 5);
  EXPECT_EQ(s.rate_burst, 7);
  EXPECT_EQ(s.max_sessions, 10u);
  EXPECT_EQ(s.max_sessions_per_address, 3u);
  EXPECT_FALSE(s.reserved_sessions);
  EXPECT_EQ(s.reserved_sessions_count(), 5u);  // 16, at most half of --max-sessions
  EXPECT_EQ(r.config->max_agents, 500u);
  EXPECT_EQ(s.max_spawn, 20u);
  EXPECT_EQ(s.max_message_bytes, 2048u);
  EXPECT_EQ(s.max_json_depth, 8);
  EXPECT_EQ(s.idle_timeout, 1.5);
  EXPECT_EQ(s.slow_client_timeout, 0.5);
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--rate-limit", "0"},
                                              {"--rate-burst", "0"},
                                              {"--max-sessions", "-1"},
                                              {"--max-spawn", "1001"},
                                              {"--max-message-bytes", "100"},
                                              {"--max-json-depth", "65"},
                                              {"--idle-timeout", "nan"},
                                              {"--allowed-origins", "example.com"},
                                              {"--max-agents", "2000000"},
                                              {"--allowed-hosts", "https://herd.example"},
                                              {"--command-token", std::string(257, 'x')},
                                              {"--command-token", std::string(15, 'x')},
                                              {"--command-token", "s3cret"}}) {
    const auto refused = parse_config(bad, env_of({}));
    EXPECT_FALSE(refused.config) << bad[0];
    EXPECT_EQ(refused.error.rfind(bad[0], 0), 0u) << refused.error;
  }
}

TEST(Config, ReservedSessionsAreASettingOfAtMostMaxSessions) {
  EXPECT_EQ(parse_config({}, env_of({})).config->server.reserved_sessions_count(), 16u);
  const auto r = parse_config({"--max-sessions", "8"}, env_of({{"HERD_RESERVED_SESSIONS", "2"}}));
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->server.reserved_sessions_count(), 2u);
  EXPECT_EQ(parse_config({"--max-sessions", "8", "--reserved-sessions", "8"}, env_of({}))
                .config->server.reserved_sessions_count(),
            8u);
  const auto over = parse_config({"--max-sessions", "8", "--reserved-sessions", "9"}, env_of({}));
  EXPECT_FALSE(over.config);
  EXPECT_EQ(over.error, "--reserved-sessions must not exceed --max-sessions (8)");
  const auto negative = parse_config({"--reserved-sessions", "-1"}, env_of({}));
  EXPECT_FALSE(negative.config);
  EXPECT_EQ(negative.error.rfind("--reserved-sessions", 0), 0u) << negative.error;
}

TEST(Config, HttpRequestsPerSecondIsASettingWithARangeAndZeroForNoLimit) {
  EXPECT_EQ(parse_config({}, env_of({})).config->server.http_requests_per_second, 100);
  EXPECT_EQ(parse_config({"--http-requests-per-second", "2.5"}, env_of({}))
                .config->server.http_requests_per_second,
            2.5);
  EXPECT_EQ(parse_config({}, env_of({{"HERD_HTTP_REQUESTS_PER_SECOND", "0"}}))
                .config->server.http_requests_per_second,
            0);
  for (const char* bad : {"-1", "0.5", "100001", "nan", "inf", "many"}) {
    const auto r = parse_config({"--http-requests-per-second", bad}, env_of({}));
    EXPECT_FALSE(r.config) << bad;
    EXPECT_EQ(r.error.rfind("--http-requests-per-second", 0), 0u) << r.error;
  }
}

TEST(Config, RelayTakesAWebSocketUrlOfItsUpstream) {
  EXPECT_EQ(parse_config({}, env_of({})).config->upstream_url, "");
  EXPECT_EQ(parse_config({"--relay", "ws://herd:8080/ws"}, env_of({})).config->upstream_url,
            "ws://herd:8080/ws");
  EXPECT_EQ(parse_config({}, env_of({{"HERD_RELAY", "ws://[::1]:9000/ws"}})).config->upstream_url,
            "ws://[::1]:9000/ws");
  for (const char* bad :
       {"herd:8080", "http://herd:8080/ws", "wss://herd/ws", "ws://", "ws://herd:0/ws"}) {
    const auto r = parse_config({"--relay", bad}, env_of({}));
    EXPECT_FALSE(r.config) << bad;
    EXPECT_NE(r.error.find("--relay"), std::string::npos) << r.error;
  }
}

TEST(Config, EnvironmentThenFlagsWin) {
  const auto r = parse_config(
      {"--port", "9000", "--seed=5"},
      env_of({{"HERD_PORT", "7000"}, {"HERD_SCENARIO", "empty"}, {"HERD_TICK_RATE", "30"}}));
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->server.port, 9000);
  EXPECT_EQ(r.config->scenario, "empty");
  EXPECT_EQ(r.config->server.tick_rate, 30);
  EXPECT_TRUE(r.config->tick_rate_given);
  EXPECT_EQ(r.config->seed, 5u);
}

TEST(Config, BadValuesNameTheirFlagOrVariable) {
  auto err = [](std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    const auto r = parse_config(args, env_of(env));
    EXPECT_FALSE(r.config);
    return r.error;
  };
  EXPECT_NE(err({"--port", "70000"}).find("--port"), std::string::npos);
  EXPECT_NE(err({"--port", "80x"}).find("--port"), std::string::npos);
  EXPECT_NE(err({"--tick-rate", "0"}).find("--tick-rate"), std::string::npos);
  EXPECT_NE(err({"--tick-rate", "nan"}).find("--tick-rate"), std::string::npos);
  // dt = 1 / rate must be a world's (at most 1 s): 1e-300 would make it 1e300 s.
  EXPECT_NE(err({"--tick-rate", "1e-300"}).find("--tick-rate"), std::string::npos);
  EXPECT_NE(err({"--tick-rate", "0.5"}).find("[1, 1000]"), std::string::npos);
  EXPECT_NE(err({"--tick-rate", "1001"}).find("--tick-rate"), std::string::npos);
  EXPECT_NE(err({"--seed", "-1"}).find("--seed"), std::string::npos);
  EXPECT_NE(err({"--bogus", "1"}).find("unknown flag"), std::string::npos);
  EXPECT_NE(err({"--port"}).find("needs a value"), std::string::npos);
  EXPECT_NE(err({"stray"}).find("unexpected argument"), std::string::npos);
  EXPECT_NE(err({}, {{"HERD_SNAPSHOT_RATE", "fast"}}).find("HERD_SNAPSHOT_RATE"),
            std::string::npos);
  EXPECT_NE(err({"--tick-rate", "10", "--snapshot-rate", "20"}).find("snapshot-rate"),
            std::string::npos);
}

TEST(Config, HelpListsEverySettingAndVariable) {
  const auto r = parse_config({"--help"}, env_of({}));
  ASSERT_TRUE(r.config);
  EXPECT_TRUE(r.config->help);
  const std::string h = help_text();
  for (const char* s : {"--port", "HERD_PORT", "--tick-rate", "HERD_TICK_RATE", "--snapshot-rate",
                        "--scenario", "--seed", "--web-root", "--address", "HERD_WEB_ROOT"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace herd::app
