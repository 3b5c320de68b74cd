// herd on Agones: the real herd-server process against a local endpoint that follows the Agones
// SDK's documented REST API (POST /ready, /health, /shutdown; PUT /metadata/label), recording
// every call: labels and Ready once the world is up, Health while ticks are on time, Shutdown
// after a graceful stop, in that order; and a sidecar that starts late is waited for.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include <fstream>

#include "app/agones.hpp"
#include "app/http_client.hpp"
#include "common/process.hpp"
#include "common/ws_client.hpp"

namespace herd {
namespace {

using namespace herd::testing;

// The SDK sidecar's REST gateway, as far as herd uses it: answers 200 "{}" to everything and
// records "METHOD PATH BODY" for each request.
class FakeSidecar {
 public:
  explicit FakeSidecar(int port = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeSidecar() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::vector<std::string> calls() {
    const std::lock_guard lock(mutex_);
    return calls_;
  }
  std::size_t count(const std::string& prefix) {
    const auto c = calls();
    return static_cast<std::size_t>(std::count_if(
        c.begin(), c.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; }));
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string in;
      char buf[2048];
      // Headers, then Content-Length bytes of body (bounded: a test peer sends little).
      for (int rounds = 0; rounds < 100; ++rounds) {
        const auto end = in.find("\r\n\r\n");
        if (end != std::string::npos) {
          const auto cl = in.find("Content-Length: ");
          const std::size_t body = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16));
          if (in.size() >= end + 4 + body) break;
        }
        pollfd q{c, POLLIN, 0};
        if (::poll(&q, 1, 1000) <= 0) break;
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      const auto line_end = in.find("\r\n");
      const std::string line = in.substr(0, line_end);
      const std::string method = line.substr(0, line.find(' '));
      const std::string path =
          line.substr(method.size() + 1, line.find(' ', method.size() + 1) - method.size() - 1);
      const auto end = in.find("\r\n\r\n");
      const std::string body = end == std::string::npos ? "" : in.substr(end + 4);
      {
        const std::lock_guard lock(mutex_);
        calls_.push_back(method + " " + path + " " + body);
      }
      const std::string answer =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: "
          "close\r\n\r\n{}";
      ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  }

  int fd_ = -1, port_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::string> calls_;
  std::thread thread_;
};

class AgonesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_agones_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("AGONES_SDK_HTTP_PORT");
    fs::remove_all(dir_);
  }
  // The real server with --agones, told the sidecar's port the way Agones tells it.
  std::unique_ptr<Process> start(int sidecar_port, const fs::path& log,
                                 const std::vector<std::string>& more = {}) {
    ::setenv("AGONES_SDK_HTTP_PORT", std::to_string(sidecar_port).c_str(), 1);
    std::vector<std::string> args{"--address",
                                  "127.0.0.1",
                                  "--port",
                                  "0",
                                  "--scenario",
                                  "demo32",
                                  "--agones",
                                  "--agones-health-interval",
                                  "0.2",
                                  "--checkpoint",
                                  (dir_ / "world.ckpt").string()};
    args.insert(args.end(), more.begin(), more.end());
    return std::make_unique<Process>(args, log);
  }
  fs::path dir_;
};

TEST_F(AgonesTest, LabelsReadyHealthThenShutdownAfterAGracefulStop) {
  FakeSidecar sidecar;
  ASSERT_GT(sidecar.port(), 0);
  const fs::path log = dir_ / "server.log";
  auto server = start(sidecar.port(), log);
  ASSERT_GT(listening_port(log), 0) << slurp(log);
  ASSERT_TRUE(wait_until([&] { return sidecar.count("POST /health") >= 3; },
                         std::chrono::milliseconds(15000)))
      << slurp(log);
  server->signal(SIGTERM);
  ASSERT_EQ(server->wait_exit(std::chrono::milliseconds(10000)), 0) << slurp(log);

  const auto calls = sidecar.calls();
  auto at = [&](const std::string& call) {
    return std::find(calls.begin(), calls.end(), call) - calls.begin();
  };
  const auto ready = at("POST /ready {}");
  ASSERT_LT(ready, static_cast<long>(calls.size())) << "Ready was called";
  EXPECT_LT(at(R"(PUT /metadata/label {"key":"scenario","value":"demo32"})"), ready)
      << "labels before Ready";
  EXPECT_LT(at(R"(PUT /metadata/label {"key":"agents","value":"32"})"), ready);
  EXPECT_EQ(calls.back(), "POST /shutdown {}") << "Shutdown last";
  EXPECT_EQ(sidecar.count("POST /shutdown"), 1u);
  EXPECT_EQ(sidecar.count("POST /ready"), 1u);
  for (long i = 0; i < ready; ++i)
    EXPECT_NE(calls[static_cast<std::size_t>(i)].rfind("POST /health", 0), 0u)
        << "no Health before Ready";
  // Shutdown only once the last checkpoint is on disk: Agones may remove the pod when it hears it.
  const std::string out = slurp(log);
  const auto written = out.rfind("checkpoint_written"), told = out.find("Agones: Shutdown");
  ASSERT_NE(written, std::string::npos) << out;
  ASSERT_NE(told, std::string::npos) << out;
  EXPECT_LT(written, told) << out;
}

TEST_F(AgonesTest, ASidecarThatStartsLateIsWaitedForWhileTheServerServes) {
  // A port with nothing on it yet.
  int port = 0;
  {
    FakeSidecar probe;
    port = probe.port();
  }
  ASSERT_GT(port, 0);
  const fs::path log = dir_ / "server.log";
  auto server = start(port, log);
  const int http = listening_port(log);
  ASSERT_GT(http, 0) << slurp(log);
  ASSERT_TRUE(wait_until([&] {
    return slurp(log).find("does not answer yet") != std::string::npos;
  })) << slurp(log);
  EXPECT_EQ(app::http_request("127.0.0.1", static_cast<std::uint16_t>(http), "GET", "/healthz", {},
                              std::chrono::milliseconds(2000))
                .status,
            200)
      << "the world runs meanwhile";
  FakeSidecar sidecar(port);
  ASSERT_EQ(sidecar.port(), port);
  ASSERT_TRUE(wait_until(
      [&] { return sidecar.count("POST /ready") == 1 && sidecar.count("POST /health") >= 1; },
      std::chrono::milliseconds(15000)))
      << slurp(log);
}

// With players, the capacity is their number, and a player is connected from its first session's
// welcome to its last session's end: two sessions of one player are one connect and one
// disconnect.
TEST_F(AgonesTest, PlayersAreTrackedFromTheirFirstSessionToTheirLast) {
  FakeSidecar sidecar;
  ASSERT_GT(sidecar.port(), 0);
  const fs::path players = dir_ / "players.json";
  std::ofstream(players) << R"({"players":[{"name":"red","team":1,"token":"red-token-0123456789"},)"
                         << R"({"name":"blue","team":2,"token":"blue-token-0123456789"}]})";
  const fs::path log = dir_ / "server.log";
  auto server = start(sidecar.port(), log, {"--players", players.string()});
  const int port = listening_port(log);
  ASSERT_GT(port, 0) << slurp(log);
  ASSERT_TRUE(wait_until([&] { return sidecar.count("POST /ready") == 1; },
                         std::chrono::milliseconds(15000)))
      << slurp(log);
  const auto red = [&] {
    auto c = std::make_unique<client::WsClient>();
    c->connect("127.0.0.1", static_cast<std::uint16_t>(port));
    c->send(R"({"type":"hello","protocol":1,"role":"player","token":"red-token-0123456789"})");
    for (int i = 0; i < 50; ++i)
      if (auto m = c->receive(client::Millis(200)); m && m->find("welcome") != std::string::npos)
        break;
    return c;
  };
  {
    auto first = red();
    auto second = red();
    ASSERT_TRUE(wait_until([&] { return sidecar.count("POST /alpha/player/connect") >= 1; },
                           std::chrono::milliseconds(15000)))
        << slurp(log);
  }
  ASSERT_TRUE(wait_until([&] { return sidecar.count("POST /alpha/player/disconnect") >= 1; },
                         std::chrono::milliseconds(15000)))
      << slurp(log);
  server->signal(SIGTERM);
  ASSERT_EQ(server->wait_exit(std::chrono::milliseconds(10000)), 0) << slurp(log);
  EXPECT_EQ(sidecar.count(R"(PUT /alpha/player/capacity {"count":2})"), 1u);
  EXPECT_EQ(sidecar.count(R"(POST /alpha/player/connect {"playerID":"red"})"), 1u);
  EXPECT_EQ(sidecar.count(R"(POST /alpha/player/disconnect {"playerID":"red"})"), 1u);
  EXPECT_EQ(sidecar.count("POST /alpha/player/connect"), 1u) << "two sessions, one player";
  const std::string out = slurp(log);
  EXPECT_EQ(out.find("red-token"), std::string::npos) << "a token in the log";
}

TEST(AgonesLabel, ValuesAreValidKubernetesLabelValues) {
  EXPECT_EQ(app::label_value("demo32"), "demo32");
  EXPECT_EQ(app::label_value("my scenario!"), "my_scenario");
  EXPECT_EQ(app::label_value("-x-"), "x");
  EXPECT_EQ(app::label_value(std::string(100, 'a')).size(), 63u);
  EXPECT_EQ(app::label_value("a\"b\nc"), "a_b_c");
}

}  // namespace
}  // namespace herd
