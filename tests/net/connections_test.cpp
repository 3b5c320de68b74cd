// Connections as a resource: the listener out of file descriptors pauses instead of spinning and
// resumes by itself; connections over the cap are answered 503 and closed; kept-alive HTTP
// connections close when idle and beyond their own cap; a malformed WebSocket key is refused; a
// large static file is streamed, not held in memory per reader. Waits are for events, bounded.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <regex>

#include "net/limits.hpp"
#include "net/raw_socket.hpp"
#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

using testing::RawSocket;
using Steady = std::chrono::steady_clock;

// Polls `ready` until it holds or `limit` passes.
template <class Pred>
bool eventually(Pred ready, std::chrono::milliseconds limit = kWait) {
  const auto end = Steady::now() + limit;
  while (!ready()) {
    if (Steady::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

std::size_t count_lines(const std::vector<std::string>& lines, std::string_view what) {
  return static_cast<std::size_t>(
      std::count_if(lines.begin(), lines.end(),
                    [&](const std::string& l) { return l.find(what) != std::string::npos; }));
}

constexpr std::string_view kHealth = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// Whether a reply is /healthz's own answer: 200, or 503 with its JSON body while the world's
// ticks run late (a loaded machine), as against the connection cap's refusal, which has no body.
// These tests are about connections, not about the world's health.
bool health_answer(const std::string& reply) {
  return reply.rfind("HTTP/1.1 ", 0) == 0 && reply.find("\r\n\r\n{") != std::string::npos;
}

// ---- out of descriptors -------------------------------------------------------------------------

TEST_F(ServerTest, OutOfDescriptorsTheListenerPausesLogsOnceAndResumesByItself) {
  // Sockets made now, connected once the process has no descriptor left: the server's accept
  // then fails with EMFILE while the connections wait in the kernel's queue.
  std::vector<int> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM, 0));
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit tight = before;
  tight.rlim_cur = static_cast<rlim_t>(*std::max_element(clients.begin(), clients.end()) + 16);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  std::vector<int> fillers;  // every free descriptor below the limit
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fillers.push_back(fd);
  ASSERT_EQ(errno, EMFILE);

  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int fd : clients)
    ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);

  // A listener that retried at once would have failed thousands of times before this first look.
  std::uint64_t seen = 0;
  EXPECT_TRUE(eventually([&] { return (seen = server_->stats().accept_failures) >= 4; }));
  EXPECT_LT(seen, 10u) << "the listener spins on EMFILE";
  EXPECT_EQ(count_lines(log_lines(), " accept_failed "), 1u)
      << "logged once an interval, not once a try";

  for (int fd : fillers) ::close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &before), 0);
  // The connections that waited are served once descriptors are back, with nothing done by hand.
  ASSERT_EQ(::send(clients[0], kHealth.data(), kHealth.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(kHealth.size()));
  timeval limit{10, 0};
  ::setsockopt(clients[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  char reply[64] = {};
  ASSERT_GT(::recv(clients[0], reply, sizeof reply - 1, 0), 0);
  EXPECT_EQ(std::string(reply).rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_EQ(count_lines(log_lines(), " accepting_again "), 1u);
  for (int fd : clients) ::close(fd);
}

// ---- the connection cap -------------------------------------------------------------------------

class CapTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.max_connections = 2; }
};

TEST_F(CapTest, OverTheCapConnectionsGet503AndServiceResumesWhenOthersClose) {
  auto a = std::make_unique<RawSocket>(port_);
  RawSocket b(port_);
  a->write_all(kHealth);  // both served: the server holds them before the third comes
  b.write_all(kHealth);
  EXPECT_TRUE(health_answer(a->read_until("}\n", kWait)));
  EXPECT_TRUE(health_answer(b.read_until("}\n", kWait)));
  RawSocket c(port_);
  EXPECT_TRUE(c.wait_closed(kWait));
  EXPECT_EQ(c.received().rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << c.received();
  EXPECT_NE(c.received().find("Retry-After: 1\r\n"), std::string::npos);
  EXPECT_EQ(server_->stats().max_connections, 2u);

  a.reset();  // one closes: the next is served, with nothing done by hand
  bool served = false;
  EXPECT_TRUE(eventually([&] {
    RawSocket d(port_);
    d.write_all(kHealth);
    served = health_answer(d.read_until("}\n", kWait));
    return served;
  }));
  EXPECT_GE(count_lines(log_lines(), "reason=connections"), 1u);
}

// ---- one address -------------------------------------------------------------------------------

class PerAddressCapTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.max_connections = 40; }
};

// One address opens as many idle sockets as the server takes: it gets half of them (the default
// per-address cap), other addresses are still served, and a health check from that same address
// is answered (a refused connection may still ask /healthz or /readyz).
TEST_F(PerAddressCapTest, OneAddressTakesHalfTheHouseAndHealthIsAlwaysAnswered) {
  std::vector<std::unique_ptr<RawSocket>> idle;
  for (int i = 0; i < 40; ++i) idle.push_back(std::make_unique<RawSocket>(port_));
  // The last one was accepted after the others (the listen queue is first in, first out) and is
  // over the cap: it is answered 503 and closed, so every one of them has been counted by now.
  EXPECT_TRUE(idle.back()->wait_closed(kWait));
  EXPECT_EQ(idle.back()->received().rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u);
  EXPECT_NE(idle.back()->received().find("from this address"), std::string::npos);
  EXPECT_EQ(server_->stats().refusals, 20u);  // /metrics itself is over the cap from here

  for (const char* path : {"/healthz", "/readyz"}) {
    const auto health = client::http_request("127.0.0.1", port_, path);
    EXPECT_EQ(health.status, 200) << path << ": " << health.body;
    EXPECT_EQ(health.body.rfind("{\"status\":\"ok\"", 0), 0u) << health.body;
  }
  RawSocket page(port_);
  page.write_all("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_TRUE(page.wait_closed(kWait));
  EXPECT_EQ(page.received().rfind("HTTP/1.1 503", 0), 0u) << "only health is answered over a cap";

  RawSocket other(port_, 0, "127.0.0.2");  // another address: served
  other.write_all("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(other.wait_closed(kWait));
  EXPECT_EQ(other.received().rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << other.received();
}

TEST(AddressKey, IPv4AsItIsIPv6ByItsSlash64) {
  EXPECT_EQ(address_key("203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(address_key("::ffff:203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(address_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  EXPECT_EQ(address_key("2001:db8:1:2::1"), address_key("2001:db8:1:2:ffff::9"));
  EXPECT_NE(address_key("2001:db8:1:2::1"), address_key("2001:db8:1:3::1"));
  EXPECT_EQ(address_key("::1"), "::/64");
}

// ---- HTTP keep-alive ----------------------------------------------------------------------------

class KeepAliveTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override {
    c.http_idle_timeout = 0.2;
    c.max_http_keepalive = 1;
  }
};

TEST_F(KeepAliveTest, AKeptAliveConnectionIsClosedWhenIdle) {
  RawSocket s(port_);
  // From before the request: the idle wait starts after the answer is written, so at least the
  // timeout passes from here however late this thread reads the answer.
  const auto asked = Steady::now();
  s.write_all(kHealth);
  const std::string first = s.read_until("}\n", kWait);
  ASSERT_TRUE(health_answer(first)) << first;
  EXPECT_EQ(first.find("Connection: close"), std::string::npos)
      << "kept alive: the only HTTP connection";
  EXPECT_TRUE(s.wait_closed(kWait)) << "an idle kept-alive connection must not be held forever";
  EXPECT_GE(Steady::now() - asked, std::chrono::milliseconds(150))
      << "closed before its idle timeout";
}

TEST_F(KeepAliveTest, BeyondTheKeepAliveCapAnswersSayConnectionClose) {
  RawSocket a(port_), b(port_);
  b.write_all(kHealth);
  const std::string reply = b.read_until("}\n", kWait);
  ASSERT_TRUE(health_answer(reply)) << reply;
  EXPECT_NE(reply.find("Connection: close\r\n"), std::string::npos)
      << "two HTTP connections, a cap of one: " << reply;
  EXPECT_TRUE(b.wait_closed(kWait));
}

// ---- the WebSocket handshake --------------------------------------------------------------------

TEST(WebSocketKey, OnlyA16ByteNonceInBase64) {
  EXPECT_TRUE(valid_websocket_key("dGhlIHNhbXBsZSBub25jZQ=="));  // RFC 6455's example
  EXPECT_TRUE(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAAA=="));
  for (const char* bad : {"", "abc", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ===",
                          "dGhlIHNhbXBsZSBub25jZR==", "dGhlIHNhbXBsZSBub25j*Q==",
                          "dGhlIHNhbXBsZSBub25jZQ=A", "dGhlIHNhbXBsZSBub25jZXM="})
    EXPECT_FALSE(valid_websocket_key(bad)) << bad;
}

TEST_F(ServerTest, AnUpgradeWithAShortKeyIsRefusedWith400) {
  RawSocket s(port_);
  std::string request = RawSocket::upgrade_request();
  request.replace(request.find("dGhlIHNhbXBsZSBub25jZQ=="), 24, "abc");
  s.write_all(request);
  EXPECT_TRUE(s.wait_closed(kWait));
  EXPECT_EQ(s.received().rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << s.received();
  EXPECT_EQ(server_->stats().sessions, 0u);
}

// ---- static files -------------------------------------------------------------------------------

TEST_F(ServerTest, LargeFilesAreStreamedNotHeldInMemoryPerReader) {
  const std::size_t size = 24u << 20;  // over the old 16 MiB limit of files read whole
  {
    std::ofstream big(web_root_ / "big.bin", std::ios::binary);
    std::string block(1 << 20, 'x');
    for (std::size_t i = 0; i < size / block.size(); ++i) big << block;
  }
  // Readers that take the headers and then stop reading: with the file read whole per request,
  // each would pin 24 MiB for as long as it stalls.
  const std::uint64_t before = resident_memory_bytes();
  std::vector<std::unique_ptr<RawSocket>> readers;
  for (int i = 0; i < 8; ++i) {
    readers.push_back(std::make_unique<RawSocket>(port_, 4096));
    readers.back()->write_all("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
  for (auto& r : readers) {
    const std::string head = r->read_until("\r\n\r\n", kWait);
    ASSERT_NE(head.find(" 200 "), std::string::npos) << head.substr(0, 200);
    EXPECT_NE(head.find("Content-Length: " + std::to_string(size) + "\r\n"), std::string::npos);
  }
  const std::uint64_t after = resident_memory_bytes();
  EXPECT_LT(after - std::min(after, before), 64u << 20)
      << "8 stalled readers of a 24 MiB file raised RSS by " << (after - before) / (1 << 20)
      << " MiB";
  // And a reader that reads gets the whole file.
  RawSocket whole(port_);
  whole.write_all("GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(whole.wait_closed(kWait));
}

}  // namespace
}  // namespace herd::net
