// The server's defences: the pieces on their own, then each limit against the real
// server over real sockets. Nothing sleeps: waits are for messages or closes, bounded in time.
#include "net/limits.hpp"

#include <cstdlib>

#include "net/admission.hpp"
#include "net/raw_socket.hpp"
#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

using testing::RawSocket;

std::string refusals(std::string_view reason) {
  return "herd_refusals_total{reason=\"" + std::string(reason) + "\"}";
}

// ---- the pieces ---------------------------------------------------------------------------------

TEST(TokenBucket, StartsFullRefillsAtTheRateAndNeverAboveTheBurst) {
  TokenBucket b(8, 3, 100.0);  // times below are exact in binary
  EXPECT_TRUE(b.take(100.0));
  EXPECT_TRUE(b.take(100.0));
  EXPECT_TRUE(b.take(100.0));
  EXPECT_FALSE(b.take(100.0));     // burst spent
  EXPECT_FALSE(b.take(100.0625));  // half a token back
  EXPECT_TRUE(b.take(100.125));    // one whole token
  EXPECT_FALSE(b.take(100.125));
  EXPECT_TRUE(b.take(1000.0));  // long idle: full again, but no more than the burst
  EXPECT_TRUE(b.take(1000.0));
  EXPECT_TRUE(b.take(1000.0));
  EXPECT_FALSE(b.take(1000.0));
  EXPECT_FALSE(b.take(999.0));  // a clock going backwards adds nothing
}

TEST(ConstantTimeEqual, IsEqualityWhateverTheLengths) {
  EXPECT_TRUE(constant_time_equal("s3cret", "s3cret"));
  EXPECT_FALSE(constant_time_equal("s3cre", "s3cret"));
  EXPECT_FALSE(constant_time_equal("s3cret!", "s3cret"));
  EXPECT_FALSE(constant_time_equal("S3cret", "s3cret"));
  EXPECT_FALSE(constant_time_equal("", "s3cret"));
  EXPECT_FALSE(constant_time_equal(std::string_view("s3cret\0", 7), "s3cret"));
  EXPECT_TRUE(constant_time_equal("", ""));
}

TEST(Origins, ParseAListAndCompareWithoutCase) {
  std::vector<std::string> list;
  std::string why;
  ASSERT_TRUE(parse_origins(" https://Game.Example , http://localhost:8080", list, why)) << why;
  EXPECT_EQ(list, (std::vector<std::string>{"https://game.example", "http://localhost:8080"}));
  const std::string_view host = "127.0.0.1:8080";
  EXPECT_TRUE(origin_allowed(list, "https://game.example", true, host));
  EXPECT_TRUE(origin_allowed(list, "HTTPS://GAME.EXAMPLE", true, host));
  EXPECT_FALSE(origin_allowed(list, "https://game.example.evil", true, host));
  EXPECT_FALSE(origin_allowed(list, "http://localhost:8081", true, host));
  EXPECT_FALSE(origin_allowed(list, "null", true, host));
  EXPECT_TRUE(origin_allowed(list, "", false, host));  // no Origin header: not a browser
  ASSERT_TRUE(parse_origins("*", list, why)) << why;
  EXPECT_TRUE(origin_allowed(list, "https://anything", true, host));
  EXPECT_TRUE(origin_allowed(list, "null", true, host));

  ASSERT_TRUE(parse_origins("", list, why));
  EXPECT_TRUE(list.empty());
  for (const char* bad :
       {"game.example", "https://game.example/", "https://a.example,,https://b.example", "https://",
        "ht tp://x", "https://x?y"}) {
    EXPECT_FALSE(parse_origins(bad, list, why)) << bad;
    EXPECT_FALSE(why.empty());
    EXPECT_TRUE(list.empty());
  }
}

// With no list, only the server's own pages: an Origin whose host[:port] is the request's Host.
// Any other page (another port of the same host included, or a sandboxed one's "null") is refused.
TEST(Origins, WithoutAListOnlyTheServersOwnOrigin) {
  EXPECT_TRUE(origin_allowed({}, "http://127.0.0.1:8080", true, "127.0.0.1:8080"));
  EXPECT_TRUE(origin_allowed({}, "http://LocalHost:8080", true, "localhost:8080"));
  EXPECT_TRUE(origin_allowed({}, "https://herd.example", true, "herd.example"));
  EXPECT_FALSE(origin_allowed({}, "http://evil.example", true, "127.0.0.1:8080"));
  EXPECT_FALSE(origin_allowed({}, "http://127.0.0.1:9000", true, "127.0.0.1:8080"));
  EXPECT_FALSE(origin_allowed({}, "null", true, "127.0.0.1:8080"));
  EXPECT_FALSE(origin_allowed({}, "http://127.0.0.1:8080", true, ""));
  EXPECT_TRUE(origin_allowed({}, "", false, "127.0.0.1:8080"));
}

// Host names against DNS rebinding: canonical addresses, loopback names and the machine's own
// pass; other names, of one label too (a search domain makes `evil` evil.corp.example), and the
// numeric shortcuts resolvers read as addresses, only when listed.
TEST(Hosts, AddressesLoopbackNamesTheMachineAndTheList) {
  std::vector<std::string> list;
  std::string why;
  for (const char* ok : {"127.0.0.1:8080", "10.1.2.3", "[::1]:8080", "[fe80::1]", "localhost:8080",
                         "LOCALHOST", "viewer.localhost:80", "box7:8080", "BOX7", "box7.lan"})
    EXPECT_TRUE(host_allowed(list, ok, true, "box7.lan")) << ok;
  for (const char* bad : {"evil.example", "evil.example:8080", "localhost.evil.example", "box.lan",
                          "", "127.0.0.1.evil.example", "herd.default.svc", "evil:8080", "herd",
                          "2130706433:8080", "0x7f000001", "0x7f.0.0.1", "127.1", "0177.0.0.1",
                          "127.0.0.01", "fe80::1", "localhost.", "box7x"})
    EXPECT_FALSE(host_allowed(list, bad, true, "box7.lan")) << bad;
  EXPECT_TRUE(host_allowed(list, "", false, "box7.lan"));  // HTTP/1.0: no Host
  ASSERT_TRUE(parse_hosts("herd", list, why)) << why;      // a compose service, listed
  EXPECT_TRUE(host_allowed(list, "herd:8080", true, "box7.lan"));
  EXPECT_FALSE(host_allowed(list, "evil:8080", true, "box7.lan"));

  ASSERT_TRUE(parse_hosts(" Herd.Example , game.example", list, why)) << why;
  EXPECT_EQ(list, (std::vector<std::string>{"herd.example", "game.example"}));
  EXPECT_TRUE(host_allowed(list, "herd.example:443", true, ""));
  EXPECT_FALSE(host_allowed(list, "evil.example", true, ""));
  ASSERT_TRUE(parse_hosts("*", list, why));
  EXPECT_TRUE(host_allowed(list, "evil.example", true, ""));
  for (const char* bad : {"https://herd.example", "herd.example:8080", "a,,b", "herd.example/x"}) {
    EXPECT_FALSE(parse_hosts(bad, list, why)) << bad;
    EXPECT_TRUE(list.empty());
  }
}

TEST(AddressCounts, RefuseOverTheLimitAndForgetEmptyAddresses) {
  AddressCounts c;
  EXPECT_TRUE(c.try_add("10.0.0.1", 2));
  EXPECT_TRUE(c.try_add("10.0.0.1", 2));
  EXPECT_FALSE(c.try_add("10.0.0.1", 2));
  EXPECT_TRUE(c.try_add("10.0.0.2", 2));
  EXPECT_EQ(c.count("10.0.0.1"), 2u);
  c.remove("10.0.0.1");
  EXPECT_TRUE(c.try_add("10.0.0.1", 2));
  c.remove("10.0.0.1");
  c.remove("10.0.0.1");
  c.remove("10.0.0.2");
  c.remove("10.0.0.9");  // unknown: nothing happens
  EXPECT_EQ(c.addresses(), 0u);
  EXPECT_FALSE(c.try_add("10.0.0.3", 0));
  EXPECT_EQ(c.addresses(), 0u);
}

// ---- the command token
// ----------------------------------------------------------------------------

class TokenTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.command_token = "s3cret-t0ken"; }
};

TEST_F(TokenTest, CommandersWithoutTheTokenOnlyWatchAndChangeNothing) {
  for (const std::string token : {"", "wrong-token"}) {
    auto c = connect();
    c->send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "test", token}));
    const auto e = wait_for<protocol::Error>(*c);
    EXPECT_EQ(e.code, protocol::ErrorCode::unauthorized) << e.message;
    EXPECT_FALSE(e.seq);
    EXPECT_EQ(wait_for<protocol::Welcome>(*c).role, protocol::Role::viewer);
    c->send(command(1, sim::Spawn{3, 0, {}}));
    auto refused = wait_for<protocol::Error>(*c);
    EXPECT_EQ(refused.code, protocol::ErrorCode::forbidden);
    EXPECT_EQ(refused.seq, 1u);
    c->send(R"({"type":"command","seq":2,"cmd":"pause"})");  // server controls too
    refused = wait_for<protocol::Error>(*c);
    EXPECT_EQ(refused.code, protocol::ErrorCode::forbidden);
    EXPECT_EQ(refused.seq, 2u);
    EXPECT_TRUE(wait_for<protocol::Snapshot>(*c).agents.empty());  // still ticking, still empty
  }
  auto commander = connect();
  commander->send(
      protocol::encode(protocol::Hello{1, protocol::Role::commander, "test", "s3cret-t0ken"}));
  EXPECT_EQ(wait_for<protocol::Welcome>(*commander).role, protocol::Role::commander);
  commander->send(command(1, sim::Spawn{3, 0, {}}));
  EXPECT_EQ(wait_for<protocol::Ack>(*commander).seq, 1u);
  EXPECT_EQ(metric(refusals("bad_token")), 1) << "the wrong token; no token is no guess";
  EXPECT_EQ(metric("herd_errors_total{code=\"unauthorized\"}"), 2);
  for (const std::string& line : log_lines()) {
    EXPECT_EQ(line.find("s3cret"), std::string::npos) << line;
    EXPECT_EQ(line.find("wrong-token"), std::string::npos) << line;
  }
}

// Guessing: ten wrong tokens from one address, then nothing is compared from it (the right token
// included) until a second's refill; a right token never spends the budget.
TEST_F(TokenTest, MetricsAreServedOnlyWithTheToken) {
  const auto bare = client::http_request("127.0.0.1", port_, "/metrics");
  EXPECT_EQ(bare.status, 401);
  EXPECT_EQ(bare.body.find("herd_tick"), std::string::npos);
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/metrics?token=wrong-token").status, 401);
  RawSocket bearer(port_);
  bearer.write_all(
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret-t0ken\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_TRUE(bearer.wait_closed(kWait));
  EXPECT_EQ(bearer.received().rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << bearer.received();
  EXPECT_NE(bearer.received().find("herd_tick "), std::string::npos);
  EXPECT_EQ(metric(refusals("bad_token")), 1) << "a wrong token on /metrics is a guess too";
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/healthz").status, 200) << "health: open";
}

TEST(TokenGuesses, TenWrongThenOneASecondAndARightOneCostsNothing) {
  Admission a(100, 100, 100);
  const std::string ip = "10.0.0.7";
  for (int i = 0; i < 50; ++i) EXPECT_TRUE(a.may_try_token(ip, 0.0));  // looking spends nothing
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(a.may_try_token(ip, 0.0)) << i;
    a.token_failed(ip, 0.0);
  }
  EXPECT_FALSE(a.may_try_token(ip, 0.0));
  EXPECT_FALSE(a.may_try_token(ip, 0.5));
  EXPECT_TRUE(a.may_try_token("10.0.0.8", 0.5)) << "other addresses are not held back";
  EXPECT_TRUE(a.may_try_token(ip, 1.0));
  a.token_failed(ip, 1.0);
  EXPECT_FALSE(a.may_try_token(ip, 1.5));
  EXPECT_TRUE(a.may_try_token(ip, 20.0));
}

// An IPv6 client holds a whole /64: its guesses share one budget, as its connections do.
TEST(TokenGuesses, OneBudgetForAnIpv6Prefix) {
  Admission a(100, 100, 100);
  for (int i = 0; i < 10; ++i) a.token_failed("2001:db8:1:2::" + std::to_string(i + 1), 0.0);
  EXPECT_FALSE(a.may_try_token("2001:db8:1:2:ffff::9", 0.0)) << "another address of the same /64";
  EXPECT_TRUE(a.may_try_token("2001:db8:1:3::1", 0.0)) << "another /64";
}

// Over the real server: one address guessing fast is soon over its budget, and a wrong token
// from it then closes its session; the right token from that address is still taken, for a
// session and for /metrics (everyone behind one NAT, proxy or relay shares the budget). Before, 4
// wrong tokens a second from one address refused 18 of 20 right hellos from it.
TEST_F(TokenTest, AGuessingAddressIsClosedWhileTheRightTokenFromItIsTaken) {
  bool throttled = false;
  for (int i = 0; i < 100 && !throttled; ++i) {
    auto c = connect();
    c->send(protocol::encode(
        protocol::Hello{1, protocol::Role::commander, "guess", "guess-" + std::to_string(i)}));
    const auto e = wait_for<protocol::Error>(*c);
    EXPECT_EQ(e.code, protocol::ErrorCode::unauthorized);
    throttled = e.message.find("too many wrong tokens") != std::string::npos;
    if (throttled)
      EXPECT_EQ(wait_closed(*c), 1008) << "over the budget: closed, not welcomed";
    else
      EXPECT_EQ(wait_for<protocol::Welcome>(*c).role, protocol::Role::viewer);
  }
  ASSERT_TRUE(throttled);
  for (int i = 0; i < 5; ++i) {
    auto right = connect();
    right->send(protocol::encode(
        protocol::Hello{1, protocol::Role::commander, "operator", "s3cret-t0ken"}));
    EXPECT_EQ(wait_for<protocol::Welcome>(*right).role, protocol::Role::commander);
  }
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/metrics?token=s3cret-t0ken").status, 200);
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/metrics?token=guess-again").status, 429);
  // Another address is served as ever.
  RawSocket other(port_, 0, "127.0.0.2");
  other.write_all(
      "GET /metrics?token=s3cret-t0ken HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(other.wait_closed(kWait));
  const std::string& m = other.received();
  auto value = [&](const std::string& series) {
    const auto at = m.find("\n" + series + " ");
    return at == std::string::npos ? -1.0 : std::stod(m.substr(at + series.size() + 2));
  };
  EXPECT_EQ(value(refusals("token_throttled")), 2) << "the hello and /metrics";
  EXPECT_GE(value(refusals("bad_token")), 10);
}

// ---- Origins ------------------------------------------------------------------------------------

class OriginTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override {
    c.allowed_origins = {"https://game.example"};
  }
};

TEST_F(OriginTest, UpgradesFromOtherOriginsGet403) {
  auto status_of = [&](std::string_view origin) {
    RawSocket s(port_);
    s.write_all(RawSocket::upgrade_request(origin));
    const std::string reply = s.read_until("\r\n", kWait);
    return reply.substr(0, reply.find("\r\n"));
  };
  EXPECT_EQ(status_of("https://evil.example"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("null"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("https://GAME.example"), "HTTP/1.1 101 Switching Protocols");
  EXPECT_EQ(status_of("http://127.0.0.1"), "HTTP/1.1 101 Switching Protocols");  // its own
  EXPECT_EQ(status_of(""), "HTTP/1.1 101 Switching Protocols");                  // not a browser
  EXPECT_EQ(metric(refusals("origin")), 2);
}

// The default: no list, the server's own origin only.
TEST_F(ServerTest, UpgradesFromAnotherPageGet403ByDefault) {
  auto status_of = [&](std::string_view origin) {
    RawSocket s(port_);
    s.write_all(RawSocket::upgrade_request(origin));
    const std::string reply = s.read_until("\r\n", kWait);
    return reply.substr(0, reply.find("\r\n"));
  };
  EXPECT_EQ(status_of("http://evil.example"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("null"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("http://127.0.0.1"), "HTTP/1.1 101 Switching Protocols");
  EXPECT_EQ(metric(refusals("origin")), 2);
}

// DNS rebinding: a request naming another host gets 403 on every path but /healthz.
TEST_F(ServerTest, RequestsForAnotherHostGet403ButHealth) {
  auto status_of = [&](std::string_view target, std::string_view host) {
    RawSocket s(port_);
    s.write_all("GET " + std::string(target) + " HTTP/1.1\r\nHost: " + std::string(host) +
                "\r\nConnection: close\r\n\r\n");
    const std::string reply = s.read_until("\r\n", kWait);
    return reply.substr(0, reply.find("\r\n"));
  };
  EXPECT_EQ(status_of("/metrics", "evil.example:8080"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("/", "evil.example"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("/healthz", "evil.example"), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/metrics", "localhost:" + std::to_string(port_)), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/metrics", "127.0.0.1:" + std::to_string(port_)), "HTTP/1.1 200 OK");
  EXPECT_EQ(metric(refusals("host")), 2);
}

// A Transfer-Encoding other than chunked is refused (400, closed), not read as a request with no
// body whose body then becomes the next request.
TEST_F(ServerTest, ATransferEncodingOtherThanChunkedIsRefused) {
  RawSocket s(port_);
  s.write_all(
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: xchunked\r\n\r\n"
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string reply = s.read_until("\r\n", kWait);
  EXPECT_EQ(reply.substr(0, reply.find("\r\n")), "HTTP/1.1 400 Bad Request");
}

// ---- message rate
// --------------------------------------------------------------------------------

class RateTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override {
    c.rate_limit = 0.001;  // no refill within the test: the burst is all there is
    c.rate_burst = 3;
  }
};

TEST_F(RateTest, OverTheRateIsRefusedWithItsSeqAndAFloodIsClosed) {
  auto c = connect();
  c->send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "test", {}}));  // 1
  wait_for<protocol::Welcome>(*c);
  c->send(protocol::encode(protocol::Ping{5}));  // 2
  EXPECT_EQ(wait_for<protocol::Pong>(*c).id, 5u);
  c->send(command(1, sim::Spawn{1, 0, {}}));  // 3: the last within the burst
  EXPECT_EQ(wait_for<protocol::Ack>(*c).seq, 1u);
  for (std::uint32_t seq = 2; seq <= 4; ++seq) {  // refused, answered with their seq
    c->send(command(seq, sim::Spawn{1, 0, {}}));
    const auto e = wait_for<protocol::Error>(*c);
    EXPECT_EQ(e.code, protocol::ErrorCode::rate_limited);
    EXPECT_EQ(e.seq, seq);
  }
  c->send(command(5, sim::Spawn{1, 0, {}}));  // still sending, twice over: closed
  EXPECT_EQ(wait_closed(*c), 1008);
  EXPECT_EQ(c->close_reason(), "message rate far over the limit");

  auto viewer = greeted(protocol::Role::viewer);
  EXPECT_EQ(wait_for<protocol::Snapshot>(*viewer).agents.size(), 1u);  // only seq 1 was applied
  EXPECT_EQ(metric(refusals("rate_limited")), 3);
  EXPECT_EQ(metric(refusals("flooding")), 1);
}

// WebSocket ping frames count as messages: a client that only pings is closed as a flood too.
TEST_F(RateTest, PingFramesCountAndAPingFloodIsClosed) {
  RawSocket s(port_);
  s.write_all(RawSocket::upgrade_request());
  s.read_until("\r\n\r\n", kWait);
  s.write_all(RawSocket::frame(
      0x1, protocol::encode(protocol::Hello{1, protocol::Role::viewer, "pinger", {}})));
  std::string pings;
  for (int i = 0; i < 10; ++i) pings += RawSocket::frame(0x9, "p");
  s.write_all(pings);
  const std::string got = s.read_until("message rate far over the limit", kWait);
  EXPECT_NE(got.find("message rate far over the limit"), std::string::npos);
  EXPECT_NE(got.find("\x88"), std::string::npos) << "a close frame";
  EXPECT_EQ(metric(refusals("flooding")), 1);
}

// ---- sessions --------------------------------------------------------------------------------

class PerAddressTest : public ServerTest {
 protected:
  void configure(ServerConfig& c, sim::WorldDef&) override { c.max_sessions_per_address = 2; }

  // Connects until the server takes the session: a closed session leaves the counts once the
  // server has read its close. Each try is one round trip; a bounded number of them.
  std::unique_ptr<WsClient> connect_retrying() {
    for (int attempt = 0; attempt < 200; ++attempt) {
      auto c = connect();
      c->send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "test", {}}));
      try {
        while (auto text = c->receive(Millis(2000)))
          if (text->find("\"welcome\"") != std::string::npos) return c;
      } catch (const client::ConnectionError&) {
      }
    }
    ADD_FAILURE() << "never welcomed";
    return nullptr;
  }
};

TEST_F(PerAddressTest, OneAddressOverItsLimitIsClosedWith1013) {
  auto a = greeted(protocol::Role::viewer);
  auto b = greeted(protocol::Role::viewer);
  auto c = connect();
  EXPECT_EQ(wait_closed(*c), 1013);
  EXPECT_EQ(c->close_reason(), "too many sessions from this address");
  EXPECT_EQ(metric(refusals("sessions_per_address")), 1);  // HTTP is not limited
  a->close();
  ASSERT_NE(connect_retrying(), nullptr);  // a freed place can be taken again
  wait_for<protocol::Snapshot>(*b);        // the others never noticed
}

class TotalSessionsTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.max_sessions = 1; }
};

TEST_F(TotalSessionsTest, OverTheTotalIsClosedWith1013) {
  auto a = greeted(protocol::Role::viewer);
  auto b = connect();
  EXPECT_EQ(wait_closed(*b), 1013);
  EXPECT_EQ(b->close_reason(), "too many sessions");
  EXPECT_EQ(metric(refusals("sessions")), 1);
  wait_for<protocol::Snapshot>(*a);
}

// The last places are kept for token holders: anonymous sessions (viewers, spectators, a wrong
// token) fill only max_sessions less the reserve, so the operator and the players still get in.
class ReservedSessionsTest : public ServerTest {
 protected:
  static constexpr const char* kOperatorToken = "operator-token-0123456789";
  static constexpr const char* kRedToken = "red-token-0123456789";
  void configure(ServerConfig& c, sim::WorldDef&) override {
    c.max_sessions = 8;
    c.reserved_sessions = 2;
    c.command_token = kOperatorToken;
    c.players = {{"red", 1, kRedToken}};
    c.spectator_delay = 0;  // the spectators' snapshots come at once
    c.hello_timeout = 0.5;
  }
  // A client that said hello as `role` with `token`; welcomed (returned) or closed (nullptr, its
  // close code and reason in *code and *reason).
  std::unique_ptr<WsClient> hello(protocol::Role role, std::string token, int* code = nullptr,
                                  std::string* reason = nullptr) {
    auto c = connect();
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    try {  // refused at its upgrade, the session may be closed before its hello is written
      c->send(protocol::encode(protocol::Hello{1, role, "test", std::move(token)}));
      while (std::chrono::steady_clock::now() < deadline)
        if (auto text = c->receive(Millis(200)); text && text->find("\"welcome\"") != npos)
          return c;
    } catch (const client::ConnectionError&) {
      if (code) *code = c->close_code();
      if (reason) *reason = c->close_reason();
      return nullptr;
    }
    ADD_FAILURE() << "neither welcomed nor closed";
    return nullptr;
  }
  static constexpr auto npos = std::string::npos;
};

TEST_F(ReservedSessionsTest, AnonymousSessionsLeaveTheReserveToTokenHolders) {
  // Six anonymous sessions, as many as max_sessions less the reserve: spectators (a viewer's
  // hello on a server with players) and a wrong token, welcomed as a spectator.
  std::vector<std::unique_ptr<WsClient>> anonymous;
  for (int i = 0; i < 5; ++i) anonymous.push_back(hello(protocol::Role::viewer, ""));
  anonymous.push_back(hello(protocol::Role::commander, "wrong-token-0123456789"));
  for (const auto& c : anonymous) ASSERT_NE(c, nullptr);

  // A seventh is closed at its hello, whatever it asks for without a token taken.
  int code = 0;
  std::string reason;
  EXPECT_EQ(hello(protocol::Role::viewer, "", &code, &reason), nullptr);
  EXPECT_EQ(code, 1013);
  EXPECT_EQ(reason, "too many sessions");
  EXPECT_EQ(hello(protocol::Role::player, "not-a-player-token-0123", &code), nullptr);
  EXPECT_EQ(code, 1013);
  EXPECT_EQ(metric(refusals("sessions")), 2);

  // Sessions that never say hello take no place: they are closed when their time is up.
  auto silent = connect();
  auto silent_too = connect();

  // The operator's token and a player's take the reserve.
  auto op = hello(protocol::Role::commander, kOperatorToken);
  ASSERT_NE(op, nullptr);
  auto red = hello(protocol::Role::player, kRedToken);
  ASSERT_NE(red, nullptr);
  op->send(command(1, sim::Spawn{3, 0, {}}));
  EXPECT_EQ(wait_for<protocol::Ack>(*op).seq, 1u) << "the operator commands";

  // Now all eight places are taken: the next upgrade, token or not, is closed 1013.
  EXPECT_EQ(hello(protocol::Role::commander, kOperatorToken, &code, &reason), nullptr);
  EXPECT_EQ(code, 1013);
  EXPECT_EQ(reason, "too many sessions");
  EXPECT_EQ(wait_closed(*silent), 1008);
  EXPECT_EQ(silent->close_reason(), "no hello in time");
  EXPECT_EQ(wait_closed(*silent_too), 1008);
  EXPECT_EQ(metric(refusals("hello_timeout")), 2);

  // The operator leaves: its place is the reserve's still, not an anonymous session's.
  op->close();
  op.reset();
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!op && std::chrono::steady_clock::now() < deadline) {
    EXPECT_EQ(hello(protocol::Role::viewer, "", &code), nullptr);
    EXPECT_EQ(code, 1013);
    op = hello(protocol::Role::commander, kOperatorToken);  // once the server has read the close
  }
  ASSERT_NE(op, nullptr) << "the operator's place was never freed";
  for (const auto& c : anonymous) wait_for<protocol::Snapshot>(*c);  // the others never noticed
}

// ---- JSON depth, spawn size, UTF-8
// ------------------------------------------------------------------

class SmallLimitsTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef& def) override {
    c.max_json_depth = 4;
    c.max_spawn = 5;
    def.max_agents = 100;
  }
};

TEST_F(SmallLimitsTest, DepthSpawnSizeAndUtf8AreRefusedAndTheWorldIsUnchanged) {
  auto c = greeted(protocol::Role::commander);
  // Four levels: decoded (and refused for its unknown field); five: too_deep.
  c->send(R"({"type":"ping","id":1,"x":{"a":{"b":[1]}}})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
  c->send(R"({"type":"ping","id":1,"x":{"a":{"b":[[1]]}}})");
  const auto deep = wait_for<protocol::Error>(*c);
  EXPECT_EQ(deep.code, protocol::ErrorCode::too_deep);
  EXPECT_EQ(deep.message, "nested deeper than 4 levels");

  c->send(command(1, sim::Spawn{6, 0, {}}));
  const auto big = wait_for<protocol::Error>(*c);
  EXPECT_EQ(big.code, protocol::ErrorCode::limit_exceeded);
  EXPECT_EQ(big.seq, 1u);
  EXPECT_EQ(big.message, "this server spawns at most 5 agents per command");
  c->send(command(2, sim::Spawn{5, 0, {}}));
  const auto ack = wait_for<protocol::Ack>(*c);
  EXPECT_EQ(ack.agents->size(), 5u);
  EXPECT_EQ(wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick >= ack.tick; })
                .agents.size(),
            5u);

  // A text frame that is not UTF-8 fails the connection (RFC 6455, 8.1): close 1007.
  c->send("{\"type\":\"ping\",\"id\":2,\"x\":\"\xc3\"}");
  EXPECT_EQ(wait_closed(*c), 1007);
  EXPECT_EQ(metric(refusals("too_deep")), 1);
  EXPECT_EQ(metric(refusals("spawn_too_large")), 1);
  EXPECT_EQ(metric(refusals("invalid_utf8")), 1);
}

// ---- idle and slow clients
// ---------------------------------------------------------------------------

class IdleTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.idle_timeout = 0.4; }
};

TEST_F(IdleTest, AClientThatNeitherSendsNorAnswersPingsIsClosed) {
  RawSocket s(port_);
  s.write_all(RawSocket::upgrade_request());
  ASSERT_NE(s.read_until("\r\n\r\n", kWait).find("101 Switching Protocols"), std::string::npos);
  EXPECT_TRUE(s.wait_closed(kWait));
  EXPECT_EQ(metric(refusals("idle_timeout")), 1);
  // A client that reads answers the server's pings (WsClient does, while receiving) and stays.
  auto alive = greeted(protocol::Role::viewer);
  for (int i = 0; i < 40; ++i)
    wait_for<protocol::Snapshot>(*alive);  // 40 at 30 Hz: over 3 timeouts
  EXPECT_EQ(metric(refusals("idle_timeout")), 1);
}

class SlowClientTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef& def) override {
    c.slow_client_timeout = 0.3;
    def.max_agents = 5000;
  }
};

TEST_F(SlowClientTest, AReaderThatFallsBehindIsClosedAndOthersKeepTheirSnapshots) {
  auto commander = greeted(protocol::Role::commander);
  commander->send(command(1, sim::Spawn{1000, 0, {}}));
  wait_for<protocol::Ack>(*commander);  // snapshots of ~115 KB from now on

  RawSocket slow(port_, /*rcvbuf=*/4096);
  slow.write_all(RawSocket::upgrade_request());
  ASSERT_NE(slow.read_until("\r\n\r\n", kWait).find("101 Switching Protocols"),
            std::string::npos);  // RFC 6455: wait for it
  slow.write_all(RawSocket::text_frame(R"({"type":"hello","protocol":1,"role":"viewer"})"));
  // ...and never reads again. The commander reads on (only each snapshot's tick, so that it keeps
  // up even in the sanitizer build); its ticks keep increasing while the slow reader's buffers
  // fill and, once that one has been behind for the timeout, it is dropped.
  std::uint64_t last_tick = 0, snapshots = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const std::string head = R"({"type":"snapshot","tick":)";
  double dropped = 0;
  while (dropped < 1 && std::chrono::steady_clock::now() < deadline) {
    const auto text = commander->receive(Millis(1000));
    if (!text || text->rfind(head, 0) != 0) continue;
    const std::uint64_t tick = std::strtoull(text->c_str() + head.size(), nullptr, 10);
    EXPECT_GT(tick, last_tick);
    last_tick = tick;
    if (++snapshots % 10 == 0) dropped = metric(refusals("slow_consumer"));
  }
  EXPECT_EQ(dropped, 1);
  EXPECT_TRUE(slow.wait_closed(kWait));
  EXPECT_GT(metric("herd_snapshots_dropped_total"), 0);
  EXPECT_GT(metric(R"(herd_snapshot_drops_total{reason="replaced"})"), 0);
  EXPECT_EQ(metric(R"(herd_snapshot_drops_total{reason="held_for_acks"})"), 0)
      << "JSON clients send no acks";
}

class StalledWelcomeTest : public ServerTest {
  void configure(ServerConfig& c, sim::WorldDef&) override {
    c.slow_client_timeout = 0.5;
    c.rate_limit = 100000;  // the commander's controls come as fast as their acks
    c.rate_burst = 100000;
    c.max_message_bytes = 1 << 20;  // the map below is one message
  }
};

// A viewer that stops reading while the world is paused and its welcomes keep coming (a
// commander changing the rates, or pausing and resuming): each welcome carries the map. The
// waiting welcome is replaced by the newer one instead of queueing one per change (the reader
// would pin one map per change, up to 256 of them, until its queue overflowed), and the reader,
// behind from the first replaced welcome, is closed as a slow consumer although no snapshot is
// sent while paused.
TEST_F(StalledWelcomeTest, AStalledReaderKeepsOneWelcomeAndIsClosedAsSlowWhilePaused) {
  auto commander = greeted(protocol::Role::commander);
  sim::TileMapDef map;
  map.width = 400;
  map.height = 300;
  map.tile_size = 2;
  map.cells.assign(400 * 300, sim::kWalkable);
  for (std::size_t i = 0; i < map.cells.size(); i += 7) map.cells[i] = sim::kBlocked;
  commander->send(command(1, sim::LoadMap{map}));
  ASSERT_EQ(wait_for<protocol::Ack>(*commander).seq, 1u);
  commander->send(protocol::encode(protocol::ControlMsg{2, protocol::Pause{}}));
  ASSERT_EQ(wait_for<protocol::Ack>(*commander).seq, 2u);

  RawSocket stalled(port_, /*rcvbuf=*/4096);
  stalled.write_all(RawSocket::upgrade_request());
  ASSERT_NE(stalled.read_until("\r\n\r\n", kWait).find("101 Switching Protocols"),
            std::string::npos);
  stalled.write_all(RawSocket::text_frame(R"({"type":"hello","protocol":1,"role":"viewer"})"));
  auto reader = greeted(protocol::Role::viewer);  // reads on, and stays

  // Each set_param welcomes every client again. The stalled reader never reads again.
  double slow = 0;
  std::uint32_t seq = 3;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (slow < 1 && std::chrono::steady_clock::now() < deadline) {
    const double rate = seq % 2 ? 60 : 120;
    commander->send(protocol::encode(protocol::ControlMsg{seq, protocol::SetParam{rate, 20}}));
    wait_for<protocol::Ack>(*commander, [&](const protocol::Ack& a) { return a.seq == seq; });
    wait_for<protocol::Welcome>(*reader,
                                [&](const protocol::Welcome& w) { return w.tick_rate == rate; });
    if (++seq % 20 == 0) slow = metric(refusals("slow_consumer"));
  }
  EXPECT_EQ(slow, 1) << "the stalled reader is closed as slow while the world is paused";
  EXPECT_TRUE(stalled.wait_closed(kWait));
  EXPECT_EQ(metric(refusals("control_queue_full")), 0) << "welcomes did not pile up";
  EXPECT_GT(metric("herd_welcomes_replaced_total"), 0);
  // The reader that reads had every welcome's newest state and is still served.
  commander->send(protocol::encode(protocol::ControlMsg{seq, protocol::SetParam{30, 10}}));
  const auto last = wait_for<protocol::Welcome>(
      *reader, [](const protocol::Welcome& w) { return w.tick_rate == 30; });
  EXPECT_TRUE(last.paused);
  ASSERT_TRUE(last.map);
}

}  // namespace
}  // namespace herd::net
