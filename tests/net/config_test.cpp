#include "app/config.hpp"

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

TEST(Config, EnvironmentThenFlagsWin) {
  const auto r = parse_config({"--port", "9000", "--seed=5"},
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
  EXPECT_NE(err({"--seed", "-1"}).find("--seed"), std::string::npos);
  EXPECT_NE(err({"--bogus", "1"}).find("unknown flag"), std::string::npos);
  EXPECT_NE(err({"--port"}).find("needs a value"), std::string::npos);
  EXPECT_NE(err({"stray"}).find("unexpected argument"), std::string::npos);
  EXPECT_NE(err({}, {{"HERD_SNAPSHOT_RATE", "fast"}}).find("HERD_SNAPSHOT_RATE"), std::string::npos);
  EXPECT_NE(err({"--tick-rate", "10", "--snapshot-rate", "20"}).find("snapshot-rate"), std::string::npos);
}

TEST(Config, HelpListsEverySettingAndVariable) {
  const auto r = parse_config({"--help"}, env_of({}));
  ASSERT_TRUE(r.config);
  EXPECT_TRUE(r.config->help);
  const std::string h = help_text();
  for (const char* s : {"--port", "HERD_PORT", "--tick-rate", "HERD_TICK_RATE", "--snapshot-rate", "--scenario",
                        "--seed", "--web-root", "--address", "HERD_WEB_ROOT"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace herd::app
