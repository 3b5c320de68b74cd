// The gate alone (net/gate.hpp): the role each hello earns, what each role may ask before and
// after its hello, the spawn limit and the message rate, with no socket and no server.
#include "net/gate.hpp"

#include <gtest/gtest.h>

#include "protocol/messages.hpp"

namespace herd::net {
namespace {

using protocol::ErrorCode;
using protocol::Role;

ServerConfig with_token(std::string token) {
  ServerConfig c;
  c.command_token = std::move(token);
  c.rate_limit = 10;
  c.rate_burst = 10;
  c.max_spawn = 100;
  return c;
}

protocol::Hello hello(Role role, std::string token = {}) {
  protocol::Hello h;
  h.role = role;
  h.token = std::move(token);
  return h;
}

protocol::ClientMessage command(sim::Command c) {
  protocol::CommandMsg m;
  m.seq = 1;
  m.command = std::move(c);
  return m;
}

const auto kMayTry = [] { return true; };

TEST(Gate, EverythingButHelloAndPingWaitsForTheHello) {
  const ServerConfig c = with_token("");
  Gate gate(c, 0);
  EXPECT_FALSE(gate.check(protocol::Ping{}));
  for (const protocol::ClientMessage& m :
       {protocol::ClientMessage(protocol::SnapshotAck{}),
        protocol::ClientMessage(protocol::Inspect{}),
        protocol::ClientMessage(protocol::ViewportMsg{}), command(sim::Stop{})}) {
    const auto refused = gate.check(m);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, ErrorCode::hello_required);
  }
  gate.hello(hello(Role::viewer), kMayTry);
  EXPECT_FALSE(gate.check(protocol::SnapshotAck{}));
}

TEST(Gate, TheTokenMakesTheOperatorAndAWrongOneWatches) {
  const ServerConfig c = with_token("0123456789abcdef");
  Gate right(c, 0);
  const Gate::Welcomed ok = right.hello(hello(Role::commander, "0123456789abcdef"), kMayTry);
  EXPECT_EQ(ok.role, Role::commander);
  EXPECT_FALSE(ok.unauthorized);
  EXPECT_FALSE(right.check(command(sim::Stop{})));

  Gate wrong(c, 0);
  const Gate::Welcomed no = wrong.hello(hello(Role::commander, "guess"), kMayTry);
  EXPECT_EQ(no.role, Role::viewer);
  ASSERT_TRUE(no.unauthorized);
  EXPECT_NE(no.unauthorized->find("wrong command token"), std::string::npos);
  EXPECT_TRUE(no.wrong_token);
  const auto refused = wrong.check(command(sim::Stop{}));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, ErrorCode::forbidden);
  EXPECT_NE(refused->why.find("did not present the command token"), std::string::npos);

  Gate none(c, 0);
  const Gate::Welcomed bare = none.hello(hello(Role::commander), kMayTry);
  EXPECT_FALSE(bare.wrong_token) << "no token is no wrong guess";
  EXPECT_TRUE(bare.unauthorized);
}

// A right token is taken whatever the address's budget of wrong ones (everyone behind one NAT
// shares it); a wrong one over the budget is refused as throttled, to be closed.
TEST(Gate, ARightTokenIsTakenFromAThrottledAddress) {
  ServerConfig c = with_token("0123456789abcdef");
  c.players = {{"red", 1, "red-token-0123456789"}};
  int asked = 0;
  const auto over_budget = [&] {
    ++asked;
    return false;
  };
  Gate right(c, 0);
  const Gate::Welcomed w = right.hello(hello(Role::commander, "0123456789abcdef"), over_budget);
  EXPECT_EQ(w.role, Role::commander);
  EXPECT_FALSE(w.unauthorized);
  Gate player(c, 0);
  const Gate::Welcomed p = player.hello(hello(Role::player, "red-token-0123456789"), over_budget);
  EXPECT_EQ(p.role, Role::player);
  EXPECT_EQ(p.team, 1);
  EXPECT_EQ(asked, 0) << "a right token does not ask the budget";

  Gate wrong(c, 0);
  const Gate::Welcomed no = wrong.hello(hello(Role::commander, "guess-0123456789"), over_budget);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(no.role, Role::spectator);
  EXPECT_TRUE(no.throttled);
  EXPECT_FALSE(no.wrong_token) << "over the budget, not counted again";
  ASSERT_TRUE(no.unauthorized);
  EXPECT_NE(no.unauthorized->find("too many wrong tokens"), std::string::npos);
}

TEST(Gate, PlayersAreNamedByTheirTokensAndWatchersBecomeSpectators) {
  ServerConfig c = with_token("0123456789abcdef");
  c.players = {{"red", 1, "red-token-0123456789"}, {"blue", 2, "blue-token-0123456789"}};
  Gate blue(c, 0);
  const Gate::Welcomed b = blue.hello(hello(Role::player, "blue-token-0123456789"), kMayTry);
  EXPECT_EQ(b.role, Role::player);
  EXPECT_EQ(b.team, 2);
  EXPECT_EQ(b.player, "blue");
  EXPECT_FALSE(blue.check(command(sim::Stop{}))) << "a player commands its own agents";
  const auto control = blue.check(protocol::ControlMsg{});
  ASSERT_TRUE(control);
  EXPECT_EQ(control->code, ErrorCode::forbidden);
  const auto sessions = blue.check(protocol::SessionsRequest{});
  ASSERT_TRUE(sessions);
  EXPECT_NE(sessions->why.find("only the operator may list the sessions"), std::string::npos);

  Gate nobody(c, 0);
  const Gate::Welcomed n = nobody.hello(hello(Role::player, "nobody's"), kMayTry);
  EXPECT_EQ(n.role, Role::spectator);
  EXPECT_EQ(n.team, 0);
  EXPECT_TRUE(n.wrong_token);

  Gate watcher(c, 0);
  EXPECT_EQ(watcher.hello(hello(Role::viewer), kMayTry).role, Role::spectator);
  const auto cmd = watcher.check(command(sim::Stop{}));
  ASSERT_TRUE(cmd);
  EXPECT_NE(cmd->why.find("spectators watch"), std::string::npos);
}

TEST(Gate, ASpawnPastTheServersLimitIsALimitNotAFault) {
  const ServerConfig c = with_token("");
  Gate gate(c, 0);
  gate.hello(hello(Role::commander), kMayTry);
  sim::Spawn small;
  small.count = 100;
  EXPECT_FALSE(gate.check(command(small)));
  sim::Spawn large;
  large.count = 101;
  const auto refused = gate.check(command(large));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, ErrorCode::limit_exceeded);
  EXPECT_EQ(refused->counted, Refusal::spawn_too_large);
}

TEST(Gate, TheRateRefusesThenCloses) {
  const ServerConfig c = with_token("");
  Gate gate(c, 0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gate.message(0, false), Gate::Rate::within) << i;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gate.message(0, false), Gate::Rate::refused) << i;
  EXPECT_EQ(gate.message(0, false), Gate::Rate::close);
  EXPECT_EQ(gate.message(1.0, false), Gate::Rate::within) << "a second refills 10";
}

TEST(Gate, AcksOfSentFramesAreFree) {
  const ServerConfig c = with_token("");
  Gate gate(c, 0);
  for (int i = 0; i < 10; ++i) gate.message(0, false);  // the bucket empty
  for (std::uint64_t i = 0; i < AckBudget::kFreeAcks; ++i)
    EXPECT_EQ(gate.message(0, true), Gate::Rate::within) << "a few acks ahead of the frames";
  EXPECT_EQ(gate.message(0, true), Gate::Rate::refused) << "past them, an ack costs as any";
  gate.frame_sent();
  EXPECT_EQ(gate.message(0, true), Gate::Rate::within) << "an ack of a frame it was sent";
  EXPECT_EQ(gate.message(0, false), Gate::Rate::refused);
}

}  // namespace
}  // namespace herd::net
