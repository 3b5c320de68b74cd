// Logs are data: whatever a client sends, one event is one line (text) or one JSON object (json),
// and what one client can make the server write is limited, with a count of what was left out.
#include <nlohmann/json.hpp>

#include "net/observability_text.hpp"
#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

TEST(LogText, ControlCharactersQuotesAndBackslashesAreEscapedOnOneLine) {
  const std::string forged =
      "x\n2026-01-01T00:00:00.000Z error forged by=client\r\t\x01\x7f \"q\" back\\slash";
  const std::string line =
      format_log(LogLevel::info, "hello", {{"client", forged}, {"plain", "ok"}});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  EXPECT_EQ(line.find('\x01'), std::string::npos);
  EXPECT_EQ(line.find('\x7f'), std::string::npos);
  EXPECT_NE(
      line.find(
          R"(client="x\n2026-01-01T00:00:00.000Z error forged by=client\r\t\x01\x7f \"q\" back\\slash" plain=ok)"),
      std::string::npos)
      << line;
  // A value with a backslash alone is quoted too, so that a reader can always unescape.
  EXPECT_NE(format_log(LogLevel::info, "e", {{"v", "a\\b"}}).find(R"(v="a\\b")"),
            std::string::npos);
}

TEST(LogJson, EachLineIsAnObjectWithTheFieldsAsSent) {
  const std::string forged = "x\n{\"level\":\"error\"}\x01";
  const std::string line = format_log(
      LogLevel::warn, "refused", {{"reason", "rate_limited"}, {"client", forged}}, LogFormat::json);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "warn");
  EXPECT_EQ(j["event"], "refused");
  EXPECT_EQ(j["reason"], "rate_limited");
  EXPECT_EQ(j["client"], forged);
  EXPECT_EQ(j["time"].get<std::string>().size(), 24u);
  // Bytes that are not UTF-8 do not break the line.
  EXPECT_NO_THROW(
      nlohmann::json::parse(format_log(LogLevel::info, "e", {{"v", "\xff\xfe"}}, LogFormat::json)));
}

TEST(LogLimiter, ABurstThenTheRateAndTheNextLineWrittenCountsWhatWasLeftOut) {
  LogLimiter limiter(1, 3, 1000, 1000);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.admit("10.0.0.1", 100.0).write);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(limiter.admit("10.0.0.1", 100.0).write);
  EXPECT_TRUE(limiter.admit("10.0.0.2", 100.0).write) << "another client has its own budget";
  const auto next = limiter.admit("10.0.0.1", 101.0);  // a second later: one token back
  EXPECT_TRUE(next.write);
  EXPECT_EQ(next.suppressed, 5u);
  EXPECT_EQ(limiter.admit("10.0.0.1", 102.0).suppressed, 0u) << "counted once";
  EXPECT_EQ(limiter.suppressed_total(), 5u);
}

TEST(LogLimiter, ManyClientsTogetherStayWithinTheGlobalBudget) {
  LogLimiter limiter(1, 10, 5, 20);
  int written = 0;
  for (int client = 0; client < 100; ++client)
    written += limiter.admit("10.0." + std::to_string(client) + ".1", 50.0).write;
  EXPECT_EQ(written, 20);
}

class JsonLogTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.log_format = LogFormat::json; }
};

// A client name cannot forge a log line: one with a newline (a control character) is refused
// before anything is logged of it (bad_field), and quotes, spaces and `=` are quoted and escaped.
// The hello line is written as the hello is read, before the hub is asked for the welcome: once
// the welcome is here, so is the line.
TEST_F(ServerTest, AClientNameCannotForgeALogLine) {
  auto c = connect();
  c->send(protocol::encode(
      protocol::Hello{1, protocol::Role::viewer, "v\n2026-01-01T00:00:00.000Z error forged", {}}));
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
  c->send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "v\" error=forged", {}}));
  wait_for<protocol::Welcome>(*c);
  const auto lines = log_lines();
  for (const auto& l : lines) {
    EXPECT_EQ(l.find('\n'), std::string::npos) << "one event, two lines: " << l;
    EXPECT_EQ(l.find("error forged"), std::string::npos) << "the refused name was logged: " << l;
  }
  const auto hello = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(" info hello ") != std::string::npos;
  });
  ASSERT_NE(hello, lines.end());
  EXPECT_NE(hello->find(R"(client="v\" error=forged")"), std::string::npos) << *hello;
}

TEST_F(JsonLogTest, LinesAreJsonObjects) {
  auto c = connect();
  c->send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "name \"with\" quotes", {}}));
  wait_for<protocol::Welcome>(*c);
  int hellos = 0;
  for (const auto& l : log_lines()) {
    const auto j = nlohmann::json::parse(l, nullptr, false);
    ASSERT_TRUE(j.is_object()) << l;
    if (j.value("event", "") != "hello") continue;
    ++hellos;
    EXPECT_EQ(j["client"], "name \"with\" quotes");
  }
  EXPECT_EQ(hellos, 1);
}

TEST_F(ServerTest, OneClientsFloodOfSessionsWritesABoundedLogAndCountsTheRest) {
  // 60 sessions opened, greeted and closed from one address: about 180 lines asked for.
  for (int i = 0; i < 60; ++i) {
    auto c = greeted(protocol::Role::viewer);
    c->close();
  }
  double suppressed = 0;
  const auto end = std::chrono::steady_clock::now() + kWait;
  while ((suppressed = metric("herd_log_lines_suppressed_total")) < 100 &&
         std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GE(suppressed, 100);
  const auto lines = log_lines();
  const auto from_clients = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(" session_opened ") != std::string::npos ||
           l.find(" hello ") != std::string::npos ||
           l.find(" session_closed ") != std::string::npos;
  });
  EXPECT_LE(from_clients, 40) << "the per-address budget is 10 lines, then 1 a second";
}

}  // namespace
}  // namespace herd::net
