// Relays as the real herd-server process: in front of a real server, many clients of one relay
// cost the server one session, whatever they say in their hellos; in front of a hostile upstream
// (a small WebSocket server in this test), the relay stays alive and small, and its clients get
// only valid snapshots. Every wait is for an event (a line, a message) with a timeout.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdio>
#include <thread>

#include "common/process.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;
using protocol::ServerMessage;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

constexpr Millis kWait{15000};

// The relay's peak memory under a hostile upstream: 64 MiB, and four times that in a build with
// AddressSanitizer, whose shadow memory and quarantine hold freed buffers for a while.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kRelayPeakKb = 4 * 64 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr long kRelayPeakKb = 4 * 64 * 1024;
#else
constexpr long kRelayPeakKb = 64 * 1024;
#endif
#else
constexpr long kRelayPeakKb = 64 * 1024;
#endif

class RelayProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_relay_process_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> serving(std::vector<std::string> more = {}) const {
    std::vector<std::string> a{"--address", "127.0.0.1",  "--port",
                               "0",         "--web-root", dir_.string()};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  std::unique_ptr<Process> relay_to(std::uint16_t upstream, std::vector<std::string> more,
                                    const fs::path& out) {
    auto args = serving({"--relay", "ws://127.0.0.1:" + std::to_string(upstream) + "/ws"});
    args.insert(args.end(), more.begin(), more.end());
    return std::make_unique<Process>(args, out, HERD_SERVER_BIN, Commands::as_user);
  }

  static std::unique_ptr<client::WsClient> hello(std::uint16_t port, protocol::Role role,
                                                 std::string token = {}) {
    auto c = std::make_unique<client::WsClient>();
    c->connect("127.0.0.1", port);
    c->send(protocol::encode(protocol::Hello{1, role, "relay-process-test", std::move(token)}));
    return c;
  }

  // The next message of type T (that `accept` takes) from c; fails the test when none comes.
  template <class T>
  static T next(client::WsClient& c, std::function<bool(const T&)> accept = {}) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto text = c.receive(Millis(200));
      if (!text) continue;
      auto decoded = protocol::decode_server(*text);
      if (!std::holds_alternative<ServerMessage>(decoded)) continue;
      if (auto* m = std::get_if<T>(&std::get<ServerMessage>(decoded)); m && (!accept || accept(*m)))
        return *m;
    }
    ADD_FAILURE() << "timed out";
    return {};
  }

  // /metrics is the operator's: asked with the token when the server has one.
  static double metric(std::uint16_t port, const std::string& series,
                       const std::string& token = {}) {
    const std::string body =
        client::http_request("127.0.0.1", port,
                             token.empty() ? "/metrics" : "/metrics?token=" + token)
            .body;
    const auto at = body.find("\n" + series + " ");
    return at == std::string::npos ? -1 : std::stod(body.substr(at + series.size() + 2));
  }

  // A /proc/PID/status field in kB (VmRSS, VmHWM).
  static long status_kb(pid_t pid, const std::string& field) {
    const std::string text = slurp("/proc/" + std::to_string(pid) + "/status");
    const auto at = text.find(field + ":");
    return at == std::string::npos ? -1 : std::atol(text.c_str() + at + field.size() + 1);
  }
  // CPU seconds the process used (user and system).
  static double cpu_seconds(pid_t pid) {
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream in(stat.substr(stat.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && in >> field; ++i)
      if (i == 14 || i == 15) ticks += std::stod(field);
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

  fs::path dir_;
};

// Seventy clients of one relay were seventy links upstream when each hello said commander; now
// the server sees the relay's one link, the anonymous ones watch, and the relay's commanders'
// commands share that link, each answer back to its own client with its own seq.
TEST_F(RelayProcessTest, ManyClientsOfOneRelayAreOneSessionUpstream) {
  const std::string token = "relay-process-token-0123456789";
  const fs::path server_out = dir_ / "server.log", relay_out = dir_ / "relay.log";
  Process server(serving({"--command-token", token, "--scenario", "empty", "--scenario-dir",
                          HERD_SCENARIO_DIR}),
                 server_out, HERD_SERVER_BIN, Commands::as_user);
  const int server_port = listening_port(server_out);
  ASSERT_GT(server_port, 0) << slurp(server_out);
  auto relay =
      relay_to(static_cast<std::uint16_t>(server_port), {"--command-token", token}, relay_out);
  const int relay_port = listening_port(relay_out);
  ASSERT_GT(relay_port, 0) << slurp(relay_out);
  const auto port = static_cast<std::uint16_t>(relay_port);

  std::vector<std::unique_ptr<client::WsClient>> anonymous;
  for (int i = 0; i < 20; ++i) anonymous.push_back(hello(port, protocol::Role::commander));
  for (auto& c : anonymous) {
    EXPECT_EQ(next<protocol::Error>(*c).code, protocol::ErrorCode::unauthorized);
    EXPECT_EQ(next<protocol::Welcome>(*c).role, protocol::Role::viewer);
  }
  auto a = hello(port, protocol::Role::commander, token);
  auto b = hello(port, protocol::Role::commander, token);
  EXPECT_EQ(next<protocol::Welcome>(*a).role, protocol::Role::commander);
  EXPECT_EQ(next<protocol::Welcome>(*b).role, protocol::Role::commander);

  const auto up = static_cast<std::uint16_t>(server_port);
  EXPECT_EQ(metric(up, "herd_sessions{role=\"commander\"}", token), 1) << "the relay's link alone";
  EXPECT_EQ(metric(up, "herd_sessions{role=\"viewer\"}", token), 0);
  EXPECT_EQ(metric(port, "herd_sessions{role=\"viewer\"}", token), 20);
  EXPECT_EQ(metric(port, "herd_sessions{role=\"commander\"}", token), 2);

  // An anonymous client cannot command through the relay.
  sim::Spawn one;
  one.count = 1;
  anonymous.front()->send(protocol::encode(protocol::CommandMsg{5, one}));
  const auto forbidden = next<protocol::Error>(*anonymous.front());
  EXPECT_EQ(forbidden.seq, 5u);
  EXPECT_EQ(forbidden.code, protocol::ErrorCode::forbidden);

  // The same seq from two commanders: two answers, each to its own client.
  sim::Spawn two, three;
  two.count = 2;
  three.count = 3;
  a->send(protocol::encode(protocol::CommandMsg{7, two}));
  b->send(protocol::encode(protocol::CommandMsg{7, three}));
  const auto ack_a = next<protocol::Ack>(*a);
  const auto ack_b = next<protocol::Ack>(*b);
  EXPECT_EQ(ack_a.seq, 7u);
  EXPECT_EQ(ack_b.seq, 7u);
  EXPECT_EQ(ack_a.agents.value_or(std::vector<std::uint32_t>{}).size(), 2u);
  EXPECT_EQ(ack_b.agents.value_or(std::vector<std::uint32_t>{}).size(), 3u);
  // The viewers see what they did.
  const auto seen = next<protocol::Snapshot>(
      *anonymous.back(), [](const protocol::Snapshot& s) { return s.agents.size() == 5; });
  EXPECT_EQ(seen.agents.size(), 5u);
  EXPECT_EQ(metric(up, "herd_sessions{role=\"commander\"}", token), 1);
  EXPECT_EQ(metric(up, "herd_refusals_total{reason=\"bad_token\"}", token), 0);
  if (HasFailure()) std::fprintf(stderr, "relay:\n%s\n", slurp(relay_out).c_str());
}

// A hostile upstream: a WebSocket server of this test's, on one thread, that a real relay
// connects to. It sends the relay a welcome, text that is no snapshot, a flood of small
// snapshots, then a frame that says it is 196 MB.
class HostileUpstream {
 public:
  HostileUpstream() : acceptor_(ioc_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  // Accepts the relay's next connection and reads its hello.
  void accept() {
    ws_.emplace(ioc_);
    acceptor_.accept(ws_->next_layer());
    ws_->accept();
    beast::flat_buffer hello;
    ws_->read(hello);
  }
  void send(const std::string& text) {
    ws_->text(true);
    ws_->write(asio::buffer(text));
  }
  // A text frame whose header says `bytes`, then as much of its payload as the relay takes; the
  // bytes written.
  std::size_t send_huge(std::uint64_t bytes) {
    std::string header{static_cast<char>(0x81), static_cast<char>(127)};
    for (int shift = 56; shift >= 0; shift -= 8)
      header += static_cast<char>((bytes >> shift) & 0xff);
    beast::error_code ec;
    asio::write(ws_->next_layer(), asio::buffer(header), ec);
    const std::string chunk(1u << 20, ' ');
    std::size_t sent = 0;
    while (!ec && sent < bytes) {
      const std::size_t n = std::min<std::uint64_t>(chunk.size(), bytes - sent);
      sent += asio::write(ws_->next_layer(), asio::buffer(chunk.data(), n), ec);
    }
    return sent;
  }
  // Whether the relay closed this connection (a read ends), within the timeout.
  bool closed_by_relay(Millis timeout) {
    auto& socket = ws_->next_layer();
    socket.non_blocking(true);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      beast::error_code ec;
      socket.read_some(asio::buffer(buf), ec);
      if (ec && ec != asio::error::would_block) return true;
      if (ec) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::optional<websocket::stream<tcp::socket>> ws_;
};

std::string welcome_text(std::uint64_t tick) {
  protocol::Welcome w;
  w.server = "hostile";
  w.tick_rate = 10;
  w.snapshot_rate = 10;
  w.dt = 0.1;
  w.tick = tick;
  w.world = {800, 600};
  w.max_agents = 100;
  return protocol::encode(w);
}

std::string snapshot_text(std::uint64_t tick) {
  protocol::Snapshot s;
  s.tick = tick;
  s.serial = tick;
  s.time = static_cast<double>(tick) / 10;
  protocol::AgentState a;
  a.id = 1;
  a.x = 10;
  a.y = 20;
  a.r = 8;
  s.agents.push_back(a);
  return protocol::encode(s);
}

TEST_F(RelayProcessTest, AHostileUpstreamCannotExhaustARelayNorReachItsClients) {
  HostileUpstream upstream;
  const fs::path relay_out = dir_ / "relay.log";
  auto relay = relay_to(upstream.port(), {"--open-commands"}, relay_out);
  upstream.accept();
  upstream.send(welcome_text(1));
  const int relay_port = listening_port(relay_out);
  ASSERT_GT(relay_port, 0) << slurp(relay_out);
  const auto port = static_cast<std::uint16_t>(relay_port);
  auto viewer = hello(port, protocol::Role::viewer);
  ASSERT_EQ(next<protocol::Welcome>(*viewer).upstream, "connected");

  // Text that is no snapshot (an agent without its fields) reaches no client; the next valid
  // snapshot does.
  upstream.send(R"({"type":"snapshot","tick":2,"serial":2,"agents":[{"id":"x"}],"evil":true})");
  upstream.send(snapshot_text(3));
  std::vector<std::string> texts;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  bool third = false;
  while (!third && std::chrono::steady_clock::now() < deadline) {
    auto text = viewer->receive(Millis(200));
    if (!text) continue;
    texts.push_back(*text);
    third = text->find("\"tick\":3,") != std::string::npos;
  }
  EXPECT_TRUE(third);
  for (const auto& t : texts) {
    EXPECT_TRUE(std::holds_alternative<ServerMessage>(protocol::decode_server(t))) << t;
    EXPECT_EQ(t.find("evil"), std::string::npos) << t;
  }

  // A snapshot of two million empty objects: small enough in bytes, but decoding it would cost
  // far more than its bytes. Dropped unread; the next valid one comes through.
  {
    std::string objects = R"({"type":"snapshot","tick":4,"serial":4,"agents":[)";
    for (int i = 0; i < 2'000'000; ++i) objects += i ? ",{}" : "{}";
    upstream.send(objects + "]}");
  }
  upstream.send(snapshot_text(5));
  const auto fifth =
      next<protocol::Snapshot>(*viewer, [](const protocol::Snapshot& s) { return s.tick >= 4; });
  EXPECT_EQ(fifth.tick, 5u) << "the snapshot of empty objects reaches no client";
  std::fprintf(stderr, "2,000,000 empty objects: relay peak RSS %ld kB\n",
               status_kb(relay->pid(), "VmHWM"));
  EXPECT_LT(status_kb(relay->pid(), "VmHWM"), kRelayPeakKb);

  // A flood of 5,000 small snapshots, as fast as the socket takes them: the relay relays a few
  // (at about the welcome's 10 a second), then the newest.
  constexpr std::uint64_t kFlood = 5000;
  for (std::uint64_t tick = 6; tick < 6 + kFlood; ++tick) upstream.send(snapshot_text(tick));
  std::size_t relayed = 0;
  const auto last = next<protocol::Snapshot>(*viewer, [&](const protocol::Snapshot& s) {
    ++relayed;
    return s.tick == 5 + kFlood;
  });
  EXPECT_EQ(last.tick, 5 + kFlood) << "the newest snapshot is relayed";
  EXPECT_LT(relayed, kFlood / 10) << "relayed at the snapshot rate, not the flood's";
  std::fprintf(stderr, "flood: %zu of %llu snapshots relayed\n", relayed,
               static_cast<unsigned long long>(kFlood));

  // A frame that says it is 196 MB: refused on its header, the link dropped, the relay small.
  const long rss_before = status_kb(relay->pid(), "VmRSS");
  const double cpu_before = cpu_seconds(relay->pid());
  const auto started = std::chrono::steady_clock::now();
  const std::size_t sent = upstream.send_huge(196'000'000);
  EXPECT_TRUE(upstream.closed_by_relay(kWait)) << "the relay drops the link";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const long peak = status_kb(relay->pid(), "VmHWM");
  std::fprintf(stderr,
               "196 MB frame: %zu bytes written before the relay closed, relay RSS %ld kB before, "
               "peak %ld kB, %.2f CPU s in %.2f s\n",
               sent, rss_before, peak, cpu_seconds(relay->pid()) - cpu_before, seconds);
  EXPECT_LT(peak, 100 * 1024) << "kB: the relay's peak RSS stays far below the frame";
  const auto down = next<protocol::Welcome>(
      *viewer, [](const protocol::Welcome& w) { return w.upstream == "reconnecting"; });
  EXPECT_EQ(down.upstream, "reconnecting");
  EXPECT_EQ(client::http_request("127.0.0.1", port, "/healthz").status, 200);

  // It comes back, and serves the next snapshot.
  upstream.accept();
  upstream.send(welcome_text(9000));
  upstream.send(snapshot_text(9001));
  const auto back =
      next<protocol::Snapshot>(*viewer, [](const protocol::Snapshot& s) { return s.tick == 9001; });
  EXPECT_EQ(back.tick, 9001u);
  if (HasFailure()) std::fprintf(stderr, "relay:\n%s\n", slurp(relay_out).c_str());
}

}  // namespace
}  // namespace herd
