// protocol::parse_ws_url: the one reader of ws:// URLs (herd-ctl, herd-view, relays).
#include "protocol/ws_url.hpp"

#include <gtest/gtest.h>

namespace herd::protocol {
namespace {

WsUrl ok(std::string_view text) {
  auto u = parse_ws_url(text);
  if (auto* why = std::get_if<std::string>(&u)) ADD_FAILURE() << text << ": " << *why;
  return std::holds_alternative<WsUrl>(u) ? std::get<WsUrl>(u) : WsUrl{};
}

std::string refused(std::string_view text) {
  auto u = parse_ws_url(text);
  if (std::holds_alternative<WsUrl>(u))
    ADD_FAILURE() << text << " was taken as " << std::get<WsUrl>(u).text();
  return std::holds_alternative<std::string>(u) ? std::get<std::string>(u) : std::string{};
}

TEST(WsUrl, SplitsHostPortAndPathWithHerdsDefaults) {
  const WsUrl a = ok("ws://herd:8080/ws");
  EXPECT_EQ(a.host, "herd");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(a.path, "/ws");
  const WsUrl b = ok("ws://10.0.0.5");
  EXPECT_EQ(b.host, "10.0.0.5");
  EXPECT_EQ(b.port, 80);
  EXPECT_EQ(b.path, "/ws");
  const WsUrl c = ok("ws://example.org:9000/custom/ws?room=2");
  EXPECT_EQ(c.path, "/custom/ws?room=2");
  EXPECT_EQ(ok("ws://example.org/").path, "/");
  EXPECT_EQ(ok("ws://HOST.example:1/x").port, 1);
  EXPECT_EQ(ok("ws://h:65535/x").port, 65535);
}

TEST(WsUrl, TakesBracketedIPv6AndPutsTheBracketsBack) {
  const WsUrl u = ok("ws://[::1]:9000/ws");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, 9000);
  EXPECT_EQ(u.text(), "ws://[::1]:9000/ws");
  EXPECT_EQ(u.authority(), "[::1]:9000");
  EXPECT_EQ(ok("ws://[2001:db8::7]/ws").host, "2001:db8::7");
  EXPECT_EQ(ok("ws://herd:8080/ws").text(), "ws://herd:8080/ws");
}

TEST(WsUrl, TakesWssWithPort443ByDefault) {
  const WsUrl u = ok("wss://herd.example/ws");
  EXPECT_TRUE(u.tls);
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.text(), "wss://herd.example:443/ws");
  EXPECT_EQ(ok("wss://[::1]:8443/x").text(), "wss://[::1]:8443/x");
  EXPECT_FALSE(ok("ws://herd/ws").tls);
}

TEST(WsUrl, RefusesWhatIsNotAWebSocketUrlAndSaysWhy) {
  EXPECT_NE(refused("http://herd/ws").find("ws://"), std::string::npos);
  EXPECT_NE(refused("ws://herd:0/ws").find("port"), std::string::npos);
  EXPECT_NE(refused("ws://herd:70000/ws").find("port"), std::string::npos);
  EXPECT_NE(refused("ws://herd:99999/ws").find("port"),
            std::string::npos);  // not its low 16 bits, 34463
  EXPECT_NE(refused("ws://herd:65536/ws").find("port"), std::string::npos);
  EXPECT_NE(refused("ws://user@herd/ws").find("user"), std::string::npos);
  for (const char* bad :
       {"", "herd:8080", "ws://", "ws://:80/ws", "ws://herd:/ws", "ws://[::1/ws", "ws://herd/a b",
        "ws://herd:80x/ws", "ws://herd/ws#top", "ws:herd", "ws://[v1.x]/ws", "ws://herd:080080/ws"})
    EXPECT_FALSE(refused(bad).empty()) << bad;
}

}  // namespace
}  // namespace herd::protocol
