// herd::net::Gate — one WebSocket session's access checks, in one place and tested alone
// (tests/net/gate_test.cpp): which role a hello earns (the operator's command token, a player's
// token, the per-address budget of wrong tokens), whether the session has said hello, what its
// role may ask, the size of a spawn, and the message rate. The session asks and carries out what
// it is told (the error sent, the refusal counted, the close); nothing else decides who may do
// what. No Beast, no Asio.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/binary_feed.hpp"
#include "net/limits.hpp"
#include "net/observability_text.hpp"
#include "net/server.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

class Gate {
 public:
  // What the gate was told at the session's start: the server's settings, the clock's now.
  Gate(const ServerConfig& config, double now);

  // What a hello earned: the role (a viewer's becomes a spectator's on a server with players), a
  // player's team and name, and, when a token was not taken, the unauthorized error to send (the
  // session watches instead), whether the wrong token is to be counted against the address, and
  // whether the address was over its budget of wrong tokens (the session is to be closed). A
  // right token is taken whatever the budget: `may_try_token` is asked only of a wrong one.
  // token_holder: the hello's token was taken (the operator's, a player's), so the session may
  // take a reserved place; an open server's commanders hold none.
  struct Welcomed {
    protocol::Role role = protocol::Role::viewer;
    bool token_holder = false;
    std::uint8_t team = 0;
    std::string player;
    std::optional<std::string> unauthorized;
    bool wrong_token = false;
    bool throttled = false;
  };
  Welcomed hello(const protocol::Hello& hello, const std::function<bool()>& may_try_token);

  // Why the session may not have `msg` acted on: the error's code and words, and the refusal the
  // metrics count (spawn_too_large). Nothing when it may. A hello is hello()'s; a ping may come
  // before it.
  struct Refused {
    protocol::ErrorCode code;
    std::string why;
    std::optional<Refusal> counted;
  };
  std::optional<Refused> check(const protocol::ClientMessage& msg) const;

  // The message rate: every message (and WebSocket ping) costs a token of the rate; a refused one
  // takes from a second bucket of the same size, and a session past both is closed. A snapshot
  // ack is free while the session has acked no more frames than it was sent (plus a few).
  enum class Rate { within, refused, close };
  Rate message(double now, bool snapshot_ack);
  Rate ping(double now);
  void frame_sent() { ack_budget_.on_frame(); }

  bool greeted() const { return greeted_; }
  protocol::Role role() const { return role_; }

 private:
  void as_player(const protocol::Hello& hello, Welcomed& w) const;

  const ServerConfig& config_;
  TokenBucket bucket_, overflow_;
  AckBudget ack_budget_;
  bool greeted_ = false;
  bool unauthorized_ = false;  // said hello as commander (or player) without a token taken
  protocol::Role role_ = protocol::Role::viewer;
};

}  // namespace herd::net
