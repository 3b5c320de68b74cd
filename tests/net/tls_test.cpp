// wss:// from the client's side: the real server behind a TLS-terminating proxy (as deployed:
// herd-server speaks plain ws), reached by WsClient with the certificate verified.
#include "common/tls_proxy.hpp"
#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

using testing::TlsProxy;

protocol::WsUrl wss_url(std::uint16_t port, const std::string& host = "127.0.0.1") {
  return protocol::WsUrl{host, port, "/ws", true};
}

TEST_F(ServerTest, WssThroughATlsProxyCarriesTheSameSession) {
  TlsProxy proxy(port_);
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    SCOPED_TRACE(host);
    WsClient c;
    c.connect(wss_url(proxy.port(), host), kWait, client::TlsOptions{TlsProxy::ca_file()});
    c.send(protocol::encode(
        protocol::Hello{protocol::kProtocolVersion, protocol::Role::commander, "tls-test", {}}));
    EXPECT_EQ(wait_for<protocol::Welcome>(c).role, protocol::Role::commander);
    c.send(R"({"type":"command","seq":7,"cmd":"spawn","agents":[{"x":10,"y":10}]})");
    EXPECT_EQ(wait_for<protocol::Ack>(c).seq, 7u);
    EXPECT_GE(wait_for<protocol::Snapshot>(
                  c, [](const protocol::Snapshot& s) { return !s.agents.empty(); })
                  .agents.size(),
              1u);
    c.close();
  }
}

TEST_F(ServerTest, WssRefusesACertificateItCannotVerify) {
  TlsProxy proxy(port_);
  // Not trusted: the system's certificates do not include the test's self-signed one.
  WsClient untrusted;
  try {
    untrusted.connect(wss_url(proxy.port()), kWait);
    FAIL() << "connected without trusting the certificate";
  } catch (const client::ConnectionError& e) {
    EXPECT_NE(std::string(e.what()).find("certificate verify failed"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("wss://127.0.0.1:"), std::string::npos) << e.what();
  }
  // A CA file that is not there is named.
  WsClient missing;
  try {
    missing.connect(wss_url(proxy.port()), kWait, client::TlsOptions{"/nonexistent/ca.pem"});
    FAIL() << "connected with a CA file that does not exist";
  } catch (const client::ConnectionError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ca.pem"), std::string::npos) << e.what();
  }
  // Plain ws:// to the TLS port is not a WebSocket handshake the proxy answers.
  WsClient plain;
  EXPECT_THROW(plain.connect("127.0.0.1", proxy.port(), "/ws", Millis(3000)),
               client::ConnectionError);
}

}  // namespace
}  // namespace herd::net
