// The real herd-server process: killed with SIGKILL between checkpoints, a restart resumes from
// the last checkpoint with a valid world; SIGTERM shuts down cleanly and writes one; a corrupt
// checkpoint is refused. Every wait is for an event (a line, a file, a message) with a timeout.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "common/process.hpp"

#include "app/checkpoint_file.hpp"
#include "common/ws_client.hpp"
#include "net/raw_socket.hpp"
#include "protocol/codec.hpp"

#include <nlohmann/json.hpp>

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_process_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ckpt_ = (dir_ / "world.ckpt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> args() const {
    return {"--address",
            "127.0.0.1",
            "--port",
            "0",
            "--web-root",
            dir_.string(),
            "--checkpoint",
            ckpt_,
            "--checkpoint-interval",
            "0.5"};
  }
  // The port from "listening on http://127.0.0.1:PORT/", once it is printed.
  static int port_of(const fs::path& out) {
    int port = -1;
    wait_until([&] {
      std::smatch m;
      const std::string text = slurp(out);
      if (std::regex_search(text, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+)/)")))
        port = std::stoi(m[1]);
      return port > 0;
    });
    return port;
  }
  static std::uint64_t checkpoint_tick(const std::string& path) {
    auto w = app::read_checkpoint(path);
    return std::holds_alternative<sim::World>(w) ? std::get<sim::World>(w).tick() : 0;
  }

  fs::path dir_;
  std::string ckpt_;
};

TEST_F(ProcessTest, SigkillBetweenCheckpointsThenRestartResumesFromTheLastOne) {
  const fs::path out1 = dir_ / "first.log";
  Process first(args(), out1);
  const int port = port_of(out1);
  ASSERT_GT(port, 0) << slurp(out1);
  {
    client::WsClient c;
    c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "process-test", {}}));
    c.send(R"({"type":"command","seq":1,"cmd":"spawn","count":12,"group":7})");
    bool acked = false;
    for (int i = 0; i < 200 && !acked; ++i)
      if (auto m = c.receive(Millis(50))) acked = m->find("\"ack\"") != std::string::npos;
    ASSERT_TRUE(acked);
  }
  // Wait for a checkpoint taken after the spawn (60 agents), then kill without warning.
  ASSERT_TRUE(wait_until([&] {
    auto w = app::read_checkpoint(ckpt_);
    return std::holds_alternative<sim::World>(w) && std::get<sim::World>(w).agents().size() == 60;
  })) << slurp(out1);
  first.signal(SIGKILL);
  EXPECT_EQ(first.wait_exit(), 128 + SIGKILL);
  const std::uint64_t saved = checkpoint_tick(ckpt_);
  ASSERT_GT(saved, 0u);

  const fs::path out2 = dir_ / "second.log";
  Process second(args(), out2);
  const int port2 = port_of(out2);
  ASSERT_GT(port2, 0) << slurp(out2);
  EXPECT_NE(
      slurp(out2).find("restored from checkpoint " + ckpt_ + " at tick " + std::to_string(saved)),
      std::string::npos)
      << slurp(out2);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port2));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "", {}}));
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    auto m = c.receive(Millis(50));
    if (!m) continue;
    auto d = protocol::decode_server(*m);
    if (auto* msg = std::get_if<protocol::ServerMessage>(&d))
      if (auto* snap = std::get_if<protocol::Snapshot>(msg)) {
        EXPECT_GE(snap->tick, saved);
        EXPECT_EQ(snap->agents.size(), 60u) << "the spawned agents came back";
        EXPECT_EQ(std::count_if(snap->agents.begin(), snap->agents.end(),
                                [](const auto& a) { return a.group == 7; }),
                  12);
        seen = true;
      }
  }
  EXPECT_TRUE(seen);
  c.close();
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait_exit(), 0) << slurp(out2);
  EXPECT_NE(slurp(out2).find("checkpoint_written"), std::string::npos);
  EXPECT_GE(checkpoint_tick(ckpt_), saved);
}

// A checkpoint restored under another --scenario is the world of the scenario it was taken from,
// and says so: the welcome names that scenario and the operator is told --scenario was not used.
// Before, the old world was named after the new --scenario (compose checkpoints always, so a
// changed HERD_SCENARIO was silently ignored after the first run).
TEST_F(ProcessTest, ACheckpointRestoredUnderAnotherScenarioKeepsItsOwnName) {
  std::vector<std::string> first_args = args();
  for (const char* a : {"--scenario-dir", HERD_SCENARIO_DIR, "--scenario", "empty"})
    first_args.push_back(a);
  const fs::path out1 = dir_ / "first.log";
  {
    Process first(first_args, out1);
    ASSERT_GT(port_of(out1), 0) << slurp(out1);
    first.signal(SIGTERM);
    ASSERT_EQ(first.wait_exit(), 0) << slurp(out1);
  }
  std::vector<std::string> second_args = args();
  for (const char* a : {"--scenario-dir", HERD_SCENARIO_DIR, "--scenario", "maze"})
    second_args.push_back(a);
  const fs::path out2 = dir_ / "second.log";
  Process second(second_args, out2);
  const int port = port_of(out2);
  ASSERT_GT(port, 0) << slurp(out2);
  EXPECT_NE(slurp(out2).find("holds a world of scenario 'empty': --scenario 'maze' is not used"),
            std::string::npos)
      << slurp(out2);
  EXPECT_NE(slurp(out2).find("scenario 'empty'"), std::string::npos) << slurp(out2);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "", {}}));
  std::string scenario;
  for (int i = 0; i < 200 && scenario.empty(); ++i)
    if (auto m = c.receive(Millis(50))) {
      auto d = protocol::decode_server(*m);
      if (auto* msg = std::get_if<protocol::ServerMessage>(&d))
        if (auto* w = std::get_if<protocol::Welcome>(msg)) scenario = w->scenario;
    }
  EXPECT_EQ(scenario, "empty");
  c.close();
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait_exit(), 0) << slurp(out2);
}

TEST_F(ProcessTest, ACorruptCheckpointIsRefusedUnlessToldToStartFresh) {
  std::ofstream(ckpt_) << "HERDCKPT but then nonsense";
  const fs::path out = dir_ / "refused.log";
  Process refused(args(), out);
  EXPECT_EQ(refused.wait_exit(), 2);
  EXPECT_NE(slurp(out).find("refused"), std::string::npos) << slurp(out);
  EXPECT_NE(slurp(out).find("--restore=0"), std::string::npos);

  auto fresh_args = args();
  fresh_args.push_back("--restore=0");
  const fs::path out2 = dir_ / "fresh.log";
  Process fresh(fresh_args, out2);
  ASSERT_GT(port_of(out2), 0) << slurp(out2);
  EXPECT_TRUE(wait_until([&] { return checkpoint_tick(ckpt_) > 0; }))
      << "a good checkpoint replaces the corrupt one";
  fresh.signal(SIGINT);
  EXPECT_EQ(fresh.wait_exit(), 0);
}

}  // namespace
}  // namespace herd

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

// The answer (an error's code and message, or "ack") to one load_scenario over the real server.
std::pair<std::string, std::string> load_scenario_answer(client::WsClient& c, std::uint32_t seq,
                                                         const std::string& name) {
  c.send(nlohmann::json{{"type", "command"}, {"seq", seq}, {"cmd", "load_scenario"}, {"name", name}}
             .dump());
  for (int i = 0; i < 200; ++i) {
    auto m = c.receive(Millis(50));
    if (!m) continue;
    const auto j = nlohmann::json::parse(*m, nullptr, false);
    if (!j.is_object() || j.value("seq", 0u) != seq) continue;
    if (j.value("type", "") == "ack") return {"ack", ""};
    return {j.value("code", std::string()), j.value("message", std::string())};
  }
  return {"timeout", ""};
}

TEST(ScenarioByName, NoClientOpensAFileOnTheHost) {
  const fs::path dir = fs::temp_directory_path() / ("herd_names_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / "server.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir.string()}, out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "names", {}}));
  // A readable file, a protected one, a missing one, a scenario file by path, a traversal and a
  // plain unknown name: one code and one message for all of them.
  const std::string scenario_file = std::string(HERD_SCENARIO_DIR) + "/default.json";
  const auto first = load_scenario_answer(c, 1, "/etc/passwd");
  EXPECT_EQ(first.first, "unknown_scenario");
  EXPECT_EQ(first.second.find('/'), std::string::npos) << first.second;
  std::uint32_t seq = 2;
  for (const std::string name :
       {"/etc/shadow", "/no/such/file", scenario_file.c_str(), "../../../etc/passwd", "nowhere"})
    EXPECT_EQ(load_scenario_answer(c, seq++, name), first) << name;
  EXPECT_EQ(load_scenario_answer(c, seq++, "empty").first, "ack")
      << "a scenario's name still loads it";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace herd

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;

class ExposureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_exposure_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The role a commander's hello with `token` is welcomed in, and whether unauthorized came first.
  static std::pair<std::string, bool> welcomed_as(int port, const std::string& token) {
    client::WsClient c;
    c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "exposure", token}));
    bool unauthorized = false;
    for (int i = 0; i < 200; ++i) {
      auto m = c.receive(Millis(50));
      if (!m) continue;
      const auto j = nlohmann::json::parse(*m, nullptr, false);
      if (j.value("code", "") == "unauthorized") unauthorized = true;
      if (j.value("type", "") == "welcome") return {j.value("role", ""), unauthorized};
    }
    return {"none", unauthorized};
  }
  fs::path dir_;
};

// Without a token the server makes one for the run on every address, loopback included (any web
// page the user opens reaches a loopback port), prints it only inside the viewer's URL that
// commands and the operator's monitor's, and leaves it in a runtime file only its user can read;
// only a hello with it commands. The file goes when the server stops.
TEST_F(ExposureTest, WithoutATokenOneIsMadeOnEveryAddressAndOnlyItCommands) {
  for (const char* address : {"127.0.0.1", "0.0.0.0"}) {
    const fs::path out = dir_ / (std::string("exposed_") + address + ".log");
    Process server(
        {"--address", address, "--port", "0", "--web-root", dir_.string(), "--scenario", "empty"},
        out, HERD_SERVER_BIN, Commands::as_user);
    const int port = listening_port(out);
    ASSERT_GT(port, 0) << slurp(out);
    std::smatch m;
    const std::string text = slurp(out);
    ASSERT_TRUE(std::regex_search(
        text, m,
        std::regex("http://127.0.0.1:" + std::to_string(port) + "/#token=([0-9a-f]{64})\n")))
        << text;
    const std::string token = m[1];
    EXPECT_NE(text.find("HERD_COMMAND_TOKEN"), std::string::npos) << "says how to set one";
    EXPECT_EQ(welcomed_as(port, ""), std::make_pair(std::string("viewer"), true)) << address;
    EXPECT_EQ(welcomed_as(port, "not-" + token), std::make_pair(std::string("viewer"), true));
    EXPECT_EQ(welcomed_as(port, token), std::make_pair(std::string("commander"), false));

    // The runtime file: in the directory the test gave (HERD_RUNTIME_DIR), 0600 in a 0700
    // directory, with the token and the URL.
    const fs::path file = dir_ / ("server-" + std::to_string(port) + ".json");
    ASSERT_TRUE(fs::is_regular_file(file)) << text;
    EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(fs::status(dir_).permissions() & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none);
    const auto j = nlohmann::json::parse(slurp(file), nullptr, false);
    EXPECT_EQ(j.value("token", ""), token);
    EXPECT_EQ(j.value("port", 0), port);
    EXPECT_EQ(j.value("url", ""), "http://127.0.0.1:" + std::to_string(port) + "/#token=" + token);
    // The address it holds, literally (127.0.0.1 for 0.0.0.0), and its pid: clients send the token
    // there only, and only while it runs.
    EXPECT_EQ(j.value("addresses", nlohmann::json()), nlohmann::json::array({"127.0.0.1"}));
    EXPECT_EQ(j.value("pid", 0L), static_cast<long>(server.pid()));

    server.signal(SIGTERM);
    EXPECT_EQ(server.wait_exit(), 0);
    const std::string all = slurp(out);
    // Twice, each time in a URL's fragment: the viewer's and the operator's monitor's.
    // The literal address, never localhost: it may resolve to ::1, where another user may listen.
    const std::string base = "http://127.0.0.1:" + std::to_string(port) + "/";
    EXPECT_EQ(all.find("localhost"), std::string::npos) << all;
    std::size_t printed = 0;
    for (std::size_t at = all.find(token); at != std::string::npos;
         at = all.find(token, at + token.size()))
      ++printed;
    EXPECT_EQ(printed, 2u) << all;
    EXPECT_NE(all.find(base + "#token=" + token + "\n"), std::string::npos) << all;
    EXPECT_NE(all.find(base + "monitor#token=" + token + "\n"), std::string::npos) << all;
    EXPECT_FALSE(fs::exists(file)) << "removed when the server stops";
  }
}

// A client name is shown to the operator (herd-ctl sessions, the monitor): one with a control
// character (ESC, BEL, a newline, C1's CSI) is refused with bad_field naming the field, and the
// session is as it was, not greeted: a hello with a plain name is welcomed after it.
TEST_F(ExposureTest, AClientNameWithControlCharactersIsRefused) {
  const fs::path out = dir_ / "client_name.log";
  Process server(
      {"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(), "--scenario", "empty"},
      out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
  // The next message that is no snapshot, within 5 s.
  const auto next = [&c] {
    for (int i = 0; i < 100; ++i) {
      auto m = c.receive(Millis(50));
      if (!m) continue;
      const auto j = nlohmann::json::parse(*m, nullptr, false);
      if (j.value("type", "") != "snapshot") return j;
    }
    return nlohmann::json();
  };
  for (const std::string& name : {std::string("x\x1b]0;owned\x07\x1b[2J"), std::string("a\nb"),
                                  std::string("x\xc2\x9b"
                                              "2J")}) {
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, name, {}}));
    const auto answer = next();
    EXPECT_EQ(answer.value("type", ""), "error") << answer;
    EXPECT_EQ(answer.value("code", ""), "bad_field") << answer;
    EXPECT_NE(answer.value("message", "").find("client"), std::string::npos) << answer;
  }
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "plain/1", {}}));
  const auto welcome = next();
  EXPECT_EQ(welcome.value("type", ""), "welcome") << welcome;
  c.send(R"({"type":"sessions","seq":1})");
  const auto sessions = next();
  ASSERT_EQ(sessions.value("type", ""), "sessions") << sessions;
  ASSERT_EQ(sessions["sessions"].size(), 1u) << sessions;
  EXPECT_EQ(sessions["sessions"][0].value("client", ""), "plain/1") << sessions;
}

// DNS rebinding through a search domain: `evil` is looked up as evil.corp.example, whose owner
// points it at this server; a browser then sends Host: evil:PORT and Origin: http://evil:PORT. So
// only localhost, canonical addresses and the names configured are answered, over HTTP and for
// the /ws upgrade; 2130706433 and 0x7f000001 (127.0.0.1 to a resolver) are names, refused too.
// The status line the server at `port` answers `request` with.
std::string status_line(int port, const std::string& request) {
  net::testing::RawSocket s(static_cast<std::uint16_t>(port));
  s.write_all(request);
  const std::string reply = s.read_until("\r\n", std::chrono::milliseconds(5000));
  return reply.substr(0, reply.find("\r\n"));
}

TEST_F(ExposureTest, OnlyLocalhostAddressesAndConfiguredNamesAreAnswered) {
  const fs::path out = dir_ / "hosts.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(),
                  "--scenario", "empty", "--allowed-hosts", "game.example,herd"},
                 out);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  const std::string p = ":" + std::to_string(port);
  std::ofstream(dir_ / "index.html") << "<p>herd</p>";
  const auto status = [&](const std::string& request) { return status_line(port, request); };
  const auto get = [&](const std::string& host) {
    return status("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  };
  // An upgrade as the browser sends it: Origin is the page's, whose host is the Host.
  const auto upgrade = [&](const std::string& host) {
    return status(
        "GET /ws HTTP/1.1\r\nHost: " + host + "\r\nOrigin: http://" + host +
        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  };
  for (const std::string& host : {"evil" + p, std::string("EVIL"), "2130706433" + p,
                                  "0x7f000001" + p, "127.1" + p, "evil.example" + p}) {
    EXPECT_EQ(get(host), "HTTP/1.1 403 Forbidden") << host;
    EXPECT_EQ(upgrade(host), "HTTP/1.1 403 Forbidden") << host;
  }
  for (const std::string& host :
       {"localhost" + p, "127.0.0.1" + p, "[::1]" + p, "game.example" + p, "herd" + p}) {
    EXPECT_EQ(get(host), "HTTP/1.1 200 OK") << host;
    EXPECT_EQ(upgrade(host), "HTTP/1.1 101 Switching Protocols") << host;
  }
}

// The HTTP request rate counts a refused WebSocket upgrade (a bad Origin, Host or key) as the
// request it is: a flood of them runs out the address's budget like any other (429), while
// upgrades that open a session are not counted (sessions have caps of their own).
TEST_F(ExposureTest, RefusedUpgradesCountAgainstTheHttpRequestRate) {
  const fs::path out = dir_ / "upgrade_rate.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(),
                  "--scenario", "empty", "--http-requests-per-second", "5"},
                 out);  // in bursts of 10
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  std::ofstream(dir_ / "index.html") << "<p>herd</p>";
  const auto status = [&](const std::string& request) { return status_line(port, request); };
  for (int i = 0; i < 15; ++i)
    ASSERT_EQ(status(net::testing::RawSocket::upgrade_request()),
              "HTTP/1.1 101 Switching Protocols")
        << i;
  int refused = 0, limited = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string s = status(net::testing::RawSocket::upgrade_request("http://evil.example"));
    refused += s == "HTTP/1.1 403 Forbidden";
    limited += s == "HTTP/1.1 429 Too Many Requests";
  }
  EXPECT_EQ(refused + limited, 30);
  EXPECT_LE(refused, 12) << "a burst of 10, and what refills meanwhile";
  EXPECT_GE(limited, 18);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            "HTTP/1.1 429 Too Many Requests");
}

// --open-commands is the one way to let anyone command: no token is made, none is printed.
TEST_F(ExposureTest, OpenCommandsLetsAnyoneCommand) {
  for (const char* address : {"127.0.0.1", "0.0.0.0"}) {
    const fs::path out = dir_ / "open.log";
    Process server({"--address", address, "--port", "0", "--scenario", "empty", "--web-root",
                    dir_.string(), "--open-commands"},
                   out, HERD_SERVER_BIN, Commands::as_user);
    const int port = listening_port(out);
    ASSERT_GT(port, 0) << slurp(out);
    EXPECT_EQ(slurp(out).find("#token="), std::string::npos) << slurp(out);
    EXPECT_EQ(welcomed_as(port, ""), std::make_pair(std::string("commander"), false)) << address;
    EXPECT_FALSE(fs::exists(dir_ / ("server-" + std::to_string(port) + ".json")));
    server.signal(SIGTERM);
    EXPECT_EQ(server.wait_exit(), 0);
  }
}

// A token the operator chose is never printed (logs are shipped elsewhere); local clients still
// find it in the runtime file.
TEST_F(ExposureTest, AChosenTokenIsNotPrintedButLocalClientsFindIt) {
  const std::string token = "chosen-by-the-operator-42";
  const fs::path out = dir_ / "chosen.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--scenario", "empty", "--web-root",
                  dir_.string(), "--command-token", token},
                 out, HERD_SERVER_BIN, Commands::as_user);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  EXPECT_NE(slurp(out).find("/#token=<HERD_COMMAND_TOKEN>"), std::string::npos) << slurp(out);
  EXPECT_NE(slurp(out).find("/monitor#token=<HERD_COMMAND_TOKEN>"), std::string::npos)
      << slurp(out);
  const fs::path file = dir_ / ("server-" + std::to_string(port) + ".json");
  EXPECT_EQ(nlohmann::json::parse(slurp(file), nullptr, false).value("token", ""), token);
  EXPECT_EQ(welcomed_as(port, token), std::make_pair(std::string("commander"), false));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(), 0);
  EXPECT_EQ(slurp(out).find(token), std::string::npos) << slurp(out);
}

// Behind a mapped port (compose maps the host's HERD_PORT to the container's 8080) the URLs
// printed are the public URL's, and the token's runtime file is named as being where the server
// runs, with how to read it from the host.
TEST_F(ExposureTest, APublicUrlIsWhatThePrintedUrlsSay) {
  const fs::path out = dir_ / "public.log";
  Process server({"--address", "0.0.0.0", "--port", "0", "--scenario", "empty", "--web-root",
                  dir_.string(), "--public-url", "http://127.0.0.1:18081"},
                 out, HERD_SERVER_BIN, Commands::as_user);
  const int port = listening_port(out);
  ASSERT_GT(port, 0) << slurp(out);
  const std::string text = slurp(out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      text, m, std::regex("herd:     http://127.0.0.1:18081/#token=([0-9a-f]{64})\n")))
      << text;
  const std::string token = m[1];
  EXPECT_NE(text.find("herd:     http://127.0.0.1:18081/monitor#token=" + token + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WebSocket at ws://127.0.0.1:18081/ws\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--url ws://127.0.0.1:18081/ws and --token"), std::string::npos) << text;
  const fs::path file = dir_ / ("server-" + std::to_string(port) + ".json");
  EXPECT_NE(text.find("docker compose exec herd cat " + file.string()), std::string::npos) << text;
  EXPECT_EQ(text.find(":" + std::to_string(port) + "/#token"), std::string::npos)
      << "no URL of the port inside is printed for users: " << text;
  EXPECT_EQ(welcomed_as(port, token), std::make_pair(std::string("commander"), false));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(), 0);
  for (const char* bad : {"ftp://x/", "http://", "127.0.0.1:8080", "http://a b/"}) {
    const fs::path refused = dir_ / "refused.log";
    Process p({"--port", "0", "--scenario", "empty", "--public-url", bad}, refused, HERD_SERVER_BIN,
              Commands::as_user);
    EXPECT_NE(p.wait_exit(), 0) << bad;
    EXPECT_NE(slurp(refused).find("--public-url"), std::string::npos) << slurp(refused);
  }
}

// A token shorter than 16 bytes is refused at start: at about a thousand guesses a second, a
// short one falls in minutes.
TEST_F(ExposureTest, AShortTokenIsRefusedAtStart) {
  const fs::path out = dir_ / "short.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--scenario", "empty", "--web-root",
                  dir_.string(), "--command-token", "s3cret"},
                 out, HERD_SERVER_BIN, Commands::as_user);
  EXPECT_EQ(server.wait_exit(), 2) << slurp(out);
  EXPECT_NE(slurp(out).find("at least 16 bytes"), std::string::npos) << slurp(out);
  EXPECT_EQ(slurp(out).find("listening on"), std::string::npos);
}

// --record opens its file once and writes through that descriptor. Here the path is a second
// name of a FIFO, so the server's open waits for a reader with the path already resolved; a link
// to another file is planted at the path meanwhile. The file the link names keeps its bytes, and
// the recording goes where the server opened it.
TEST_F(ProcessTest, ARecordingIsWrittenThroughTheFileItOpenedNotALinkPlantedAfter) {
  const fs::path fifo = dir_ / "record.fifo";
  const fs::path path = dir_ / "record.jsonl";
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "keep me";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::link(fifo.c_str(), path.c_str()), 0);
  auto with_record = args();
  with_record.insert(with_record.end(), {"--record", path.string(), "--scenario", "empty"});
  const fs::path out = dir_ / "record_fifo.log";
  Process server(with_record, out);
  const fs::path wchan = "/proc/" + std::to_string(server.pid()) + "/wchan";
  ASSERT_TRUE(wait_until([&] { return slurp(wchan).rfind("wait_for_partner", 0) == 0; }))
      << "the server never waited in its open of the FIFO: " << slurp(wchan) << "\n"
      << slurp(out);
  fs::create_symlink(victim, dir_ / "planted");
  fs::rename(dir_ / "planted", path);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);  // the server's open returns
  ASSERT_GE(reader, 0);
  ASSERT_GT(port_of(out), 0) << slurp(out);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(), 0) << slurp(out);
  EXPECT_EQ(slurp(victim), "keep me");
  std::string recorded;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) recorded.append(buf, n);
  ::close(reader);
  EXPECT_NE(recorded.find(R"("herd_record":1)"), std::string::npos) << recorded;
  EXPECT_NE(recorded.find(R"("end_tick":)"), std::string::npos) << recorded;
}

TEST_F(ProcessTest, ACheckpointThatCannotBeWrittenStopsTheServerAtStart) {
  auto bad = args();
  const auto at = std::find(bad.begin(), bad.end(), "--checkpoint") + 1;
  *at = (dir_ / "no" / "such" / "directory" / "world.ckpt").string();
  const fs::path out = dir_ / "no_dir.log";
  Process server(bad, out);
  EXPECT_EQ(server.wait_exit(), 2) << slurp(out);
  EXPECT_NE(slurp(out).find("cannot checkpoint to " + *at), std::string::npos) << slurp(out);
  EXPECT_EQ(slurp(out).find("listening on"), std::string::npos) << "refused before serving";
}

// A run that resumed from a checkpoint and was recorded replays to its final hash: the recording
// carries the world it started from.
TEST_F(ProcessTest, ARecordingMadeAfterARestoreReplaysToItsStateHash) {
  auto command = [](int port, const std::vector<std::string>& commands) {
    client::WsClient c;
    c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "record", {}}));
    std::uint32_t seq = 0;
    for (const auto& cmd : commands) {
      c.send(cmd);
      ++seq;
      bool acked = false;
      for (int i = 0; i < 200 && !acked; ++i)
        if (auto m = c.receive(Millis(50)))
          acked = m->find("\"ack\"") != std::string::npos &&
                  m->find("\"seq\":" + std::to_string(seq)) != std::string::npos;
      ASSERT_TRUE(acked) << cmd;
    }
  };
  const fs::path out1 = dir_ / "before.log";
  {
    Process first(args(), out1);
    const int port = port_of(out1);
    ASSERT_GT(port, 0) << slurp(out1);
    command(
        port,
        {R"({"type":"command","seq":1,"cmd":"spawn","count":20,"group":3})",
         R"({"type":"command","seq":2,"cmd":"set_target","agents":"all","target":{"x":600,"y":200}})"});
    first.signal(SIGTERM);
    ASSERT_EQ(first.wait_exit(), 0) << slurp(out1);
  }
  const std::string recording = (dir_ / "after.jsonl").string();
  auto with_record = args();
  with_record.insert(with_record.end(), {"--record", recording});
  const fs::path out2 = dir_ / "after.log";
  Process second(with_record, out2);
  const int port = port_of(out2);
  ASSERT_GT(port, 0) << slurp(out2);
  ASSERT_NE(slurp(out2).find("restored from checkpoint"), std::string::npos);
  command(
      port,
      {R"({"type":"command","seq":1,"cmd":"spawn","count":5,"group":4})",
       R"({"type":"command","seq":2,"cmd":"set_target","agents":"all","target":{"x":100,"y":500}})"});
  second.signal(SIGTERM);
  ASSERT_EQ(second.wait_exit(), 0) << slurp(out2);
  std::smatch m;
  const std::string said = slurp(out2);
  ASSERT_TRUE(std::regex_search(said, m, std::regex("state hash (0x[0-9a-f]+)")));
  const fs::path replay_out = dir_ / "replay.log";
  Process replay({"--replay", recording, "--scenario-dir", HERD_SCENARIO_DIR}, replay_out);
  EXPECT_EQ(replay.wait_exit(), 0) << slurp(replay_out);
  EXPECT_NE(slurp(replay_out).find("state hash " + m[1].str() + " (matches the recording)"),
            std::string::npos)
      << slurp(replay_out) << "\nlive: " << m[1];
}

// One address holds every connection the server takes (idle sockets): the container's health
// check, herd-server --probe, is still answered 200 (a refused connection may ask /healthz).
TEST(FullHouse, TheProbeIsAnsweredWhileOneAddressHoldsEveryConnection) {
  const fs::path dir = fs::temp_directory_path() / ("herd_full_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir.string(),
                    "--max-connections", "40", "--max-connections-per-address", "40"},
                   dir / "server.out");
    const int port = listening_port(dir / "server.out");
    ASSERT_GT(port, 0);
    std::vector<std::unique_ptr<net::testing::RawSocket>> idle;
    for (int i = 0; i < 41; ++i)
      idle.push_back(std::make_unique<net::testing::RawSocket>(static_cast<std::uint16_t>(port)));
    // The 41st is over the cap (accepted after the others): answered 503 and closed.
    EXPECT_TRUE(idle.back()->wait_closed(std::chrono::milliseconds(10000)));
    EXPECT_EQ(idle.back()->received().rfind("HTTP/1.1 503", 0), 0u) << idle.back()->received();
    Process probe({"--probe", "--address", "127.0.0.1", "--port", std::to_string(port)},
                  dir / "probe.out");
    EXPECT_EQ(probe.wait_exit(), 0) << slurp(dir / "probe.out");
  }
  fs::remove_all(dir);
}

// One address asks for pages faster than --http-requests-per-second lets it (2 a second, bursts of
// 4): past the burst it is answered 429 with Retry-After and the connection is closed, /metrics
// included; its WebSocket sessions and its health checks are not counted and go on being served;
// another address is served as usual; and the address is served again once its bucket refills.
TEST(HttpRate, PastItsBurstAnAddressGets429ButKeepsItsWebSocketsAndHealth) {
  const fs::path dir = fs::temp_directory_path() / ("herd_http_rate_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "index.html") << "<!doctype html><title>herd</title>";
  {
    Process server({"--address", "127.0.0.1", "--port", "0", "--web-root", dir.string(),
                    "--scenario", "empty", "--http-requests-per-second", "2"},
                   dir / "server.out");
    const int port = listening_port(dir / "server.out");
    ASSERT_GT(port, 0) << slurp(dir / "server.out");
    const auto p = static_cast<std::uint16_t>(port);
    constexpr int kBurst = 4;
    const std::string page = "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    auto count = [](const std::string& text, const std::string& what) {
      std::size_t n = 0;
      for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
      return n;
    };

    // The burst and one more, pipelined down one connection: the last is refused, then closed.
    net::testing::RawSocket pages(p);
    std::string requests;
    for (int i = 0; i <= kBurst; ++i) requests += page;
    pages.write_all(requests);
    ASSERT_TRUE(pages.wait_closed(std::chrono::milliseconds(10000)));
    const std::string& got = pages.received();
    EXPECT_EQ(count(got, "HTTP/1.1 200 OK\r\n"), static_cast<std::size_t>(kBurst)) << got;
    const auto refused = got.find("HTTP/1.1 429 Too Many Requests\r\n");
    ASSERT_NE(refused, std::string::npos) << got;
    const std::string answer = got.substr(refused);
    EXPECT_NE(answer.find("Retry-After: 1\r\n"), std::string::npos) << answer;
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
    EXPECT_NE(answer.find("too many requests from this address (http_rate_limited)"),
              std::string::npos)
        << answer;

    // /metrics counts as any page (its rendering is the dearest answer of all).
    net::testing::RawSocket metrics(p);
    metrics.write_all("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    ASSERT_TRUE(metrics.wait_closed(std::chrono::milliseconds(10000)));
    EXPECT_EQ(metrics.received().rfind("HTTP/1.1 429", 0), 0u) << metrics.received();

    // WebSocket upgrades are not counted: more sessions than the burst open and are welcomed.
    std::vector<std::unique_ptr<client::WsClient>> sessions;
    for (int i = 0; i < 2 * kBurst + 2; ++i) {
      auto c = std::make_unique<client::WsClient>();
      ASSERT_NO_THROW(c->connect("127.0.0.1", p)) << i;
      c->send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "rate", {}}));
      bool welcomed = false;
      for (int tries = 0; tries < 100 && !welcomed; ++tries) {
        const auto m = c->receive(Millis(100));
        welcomed = m && m->find("\"type\":\"welcome\"") != std::string::npos;
      }
      EXPECT_TRUE(welcomed) << i;
      sessions.push_back(std::move(c));
    }
    // Nor are health checks: an orchestrator's probe is answered whatever else the address asks.
    for (int i = 0; i <= 2 * kBurst; ++i)
      for (const char* path : {"/healthz", "/readyz"}) {
        const auto health = client::http_request("127.0.0.1", p, path);
        EXPECT_EQ(health.body.rfind("{\"status\":", 0), 0u) << path << " " << health.status;
      }

    // Another address is served, and its /metrics counts the refusals.
    net::testing::RawSocket other(p, 0, "127.0.0.2");
    other.write_all("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    ASSERT_TRUE(other.wait_closed(std::chrono::milliseconds(10000)));
    EXPECT_EQ(other.received().rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << other.received();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        other.received(), m,
        std::regex("\nherd_refusals_total\\{reason=\"http_rate_limited\"\\} (\\d+)\n")))
        << other.received();
    EXPECT_GE(std::stoi(m[1]), 1);

    // The bucket refills at 2 a second: the first address is served again within a second.
    EXPECT_TRUE(wait_until(
        [&] { return client::http_request("127.0.0.1", p, "/index.html").status == 200; },
        std::chrono::milliseconds(5000)));
    EXPECT_NE(slurp(dir / "server.out").find("reason=http_rate_limited"), std::string::npos)
        << "logged";
  }
  fs::remove_all(dir);
}

// --replay reads a file that may come from anyone: a tick or end_tick that would step for ever, a
// header naming a file of the host, or a tick rate no world runs at are refused at once, with an
// error naming the field; a scenario outside the scenarios directory gets the same error whether
// or not the file exists.
TEST_F(ProcessTest, AReplayRefusesEndlessTicksHostPathsAndAbsurdTickRates) {
  const std::string spawn = R"({"type":"command","seq":0,"cmd":"spawn","count":1})";
  auto replay_of = [&](const std::string& name, const std::string& text) {
    const fs::path file = dir_ / (name + ".jsonl");
    std::ofstream(file) << text;
    const fs::path out = dir_ / (name + ".log");
    Process p({"--replay", file.string(), "--scenario-dir", HERD_SCENARIO_DIR}, out);
    const int status = p.wait_exit(std::chrono::milliseconds(20000));
    std::string said = slurp(out);
    const auto at = said.find(file.string());  // the message without the file's own name
    if (at != std::string::npos) said.erase(at, file.string().size());
    return std::make_pair(status, said);
  };
  auto header = [](const std::string& scenario, const std::string& rate = "60") {
    return R"({"herd_record":1,"scenario":")" + scenario + R"(","seed":1,"tick_rate":)" + rate +
           "}\n";
  };
  const std::string huge = "18446744073709551615";  // 2^64 - 1

  auto [status, said] = replay_of(
      "tick", header("default") + R"({"tick":)" + huge + R"(,"command":)" + spawn + "}\n");
  EXPECT_EQ(status, 2) << said;  // exited at once, refused (not killed while stepping)
  EXPECT_NE(said.find(":2: tick " + huge), std::string::npos) << said;
  EXPECT_NE(said.find("100000000 ticks"), std::string::npos) << said;

  std::tie(status, said) = replay_of(
      "end", header("default") + R"({"end_tick":)" + huge + R"(,"state_hash":"0x1"})" + "\n");
  EXPECT_EQ(status, 2) << said;
  EXPECT_NE(said.find(":2: end_tick " + huge), std::string::npos) << said;

  std::tie(status, said) = replay_of("rate", header("default", "1e-300"));
  EXPECT_EQ(status, 2) << said;
  EXPECT_NE(said.find("tick_rate"), std::string::npos) << said;
  EXPECT_NE(said.find("[1, 1000]"), std::string::npos) << said;

  // Host paths: one that exists (a scenario file the test writes outside the scenarios
  // directory), one that does not, and a climb out of the directory: one answer for all three.
  const fs::path outside = dir_ / "mine.json";
  fs::copy_file(fs::path(HERD_SCENARIO_DIR) / "default.json", outside);
  const auto [s1, exists] = replay_of("exists", header(outside.string()));
  const auto [s2, missing] = replay_of("missing", header((dir_ / "none.json").string()));
  const auto [s3, climbs] =
      replay_of("climbs", header(std::string(HERD_SCENARIO_DIR) + "/../default.json"));
  EXPECT_EQ(s1, 2) << exists;
  EXPECT_EQ(s2, 2) << missing;
  EXPECT_EQ(s3, 2) << climbs;
  EXPECT_NE(exists.find("scenario: not a scenario of this server"), std::string::npos) << exists;
  auto tail = [](const std::string& text) { return text.substr(text.find("scenario: ")); };
  EXPECT_EQ(tail(exists), tail(missing));
  EXPECT_EQ(tail(exists), tail(climbs));
  EXPECT_EQ(exists.find(outside.string()), std::string::npos) << "names no file: " << exists;

  // What the server accepts replays: a name, or the path of a file of the scenarios directory
  // (what --scenario wrote into the header when it was given one).
  std::tie(status, said) =
      replay_of("named", header("default") + R"({"end_tick":30,"state_hash":"0x1"})" + "\n");
  EXPECT_NE(said.find("replayed 0 commands to tick 30"), std::string::npos) << said;
  std::tie(status, said) =
      replay_of("path", header(std::string(HERD_SCENARIO_DIR) + "/default.json") +
                            R"({"tick":3,"command":)" + spawn + "}\n");
  EXPECT_EQ(status, 0) << said;
  EXPECT_NE(said.find("replayed 1 commands to tick 3"), std::string::npos) << said;
}

}  // namespace
}  // namespace herd
