#include "net/gate.hpp"

#include <variant>

namespace herd::net {

Gate::Gate(const ServerConfig& config, double now)
    : config_(config),
      bucket_(config.rate_limit, config.rate_burst, now),
      overflow_(config.rate_limit, config.rate_burst, now) {}

Gate::Welcomed Gate::hello(const protocol::Hello& hello,
                           const std::function<bool()>& may_try_token) {
  greeted_ = true;
  Welcomed w;
  w.role = hello.role;
  // On a server with players, whoever only watches watches as a spectator (delayed).
  const protocol::Role watcher =
      config_.players.empty() ? protocol::Role::viewer : protocol::Role::spectator;
  if (w.role == protocol::Role::viewer) w.role = watcher;
  // A right token is always taken: everyone behind one NAT, proxy or relay shares an address, and
  // another's wrong guesses must not lock them out. Tokens are long (16 bytes at least; a made
  // one 32 random characters), so guessing is hopeless; the address's budget decides only what a
  // wrong one costs: past it, the session is closed (each further guess a new connection, which
  // the HTTP rate counts) rather than welcomed as a watcher.
  if (w.role == protocol::Role::player) as_player(hello, w);
  const std::string& token = config_.command_token;
  if (w.role == protocol::Role::commander && !token.empty() &&
      !constant_time_equal(hello.token, token))
    w.unauthorized = hello.token.empty() ? "this server needs a command token to command"
                                         : "wrong command token";
  if (w.unauthorized) {
    const bool wrong = !hello.token.empty();
    w.throttled = wrong && !may_try_token();
    w.wrong_token = wrong && !w.throttled;
    if (w.throttled)
      *w.unauthorized = "too many wrong tokens from this address: try again in a second";
    w.role = watcher;
    w.team = 0;
    w.player.clear();
    *w.unauthorized += w.throttled                            ? "; the session is closed"
                       : watcher == protocol::Role::spectator ? "; welcomed as a spectator"
                                                              : "; welcomed as a viewer";
  }
  w.token_holder = !w.unauthorized && (w.role == protocol::Role::player ||
                                       (w.role == protocol::Role::commander && !token.empty()));
  role_ = w.role;
  unauthorized_ = w.unauthorized.has_value();
  return w;
}

// A player's hello: its token names the player (compared with every player's, in constant time
// each, and all of them, so the time taken tells nothing of which).
void Gate::as_player(const protocol::Hello& hello, Welcomed& w) const {
  const PlayerAccount* found = nullptr;
  for (const PlayerAccount& p : config_.players)
    if (constant_time_equal(hello.token, p.token) && !found) found = &p;
  if (found) {
    w.team = found->team;
    w.player = found->name;
    return;
  }
  w.unauthorized = config_.players.empty() ? "this server has no players"
                   : hello.token.empty()   ? "a player's hello needs its token"
                                           : "no player has this token";
}

std::optional<Gate::Refused> Gate::check(const protocol::ClientMessage& msg) const {
  using protocol::ErrorCode;
  if (std::holds_alternative<protocol::Hello>(msg) || std::holds_alternative<protocol::Ping>(msg))
    return std::nullopt;
  if (!greeted_) return Refused{ErrorCode::hello_required, "send hello first", {}};
  // What the session's role may not do, in its words.
  const auto forbidden = [&](std::string_view what) {
    std::string why;
    if (role_ == protocol::Role::player) {
      if (what == "send commands")
        why =
            "a player commands its own agents; pausing, stepping, resetting and loading the world "
            "are the operator's";
      else
        why = "only the operator may " + std::string(what);
    } else if (role_ == protocol::Role::spectator) {
      why = "spectators watch; they cannot " + std::string(what);
    } else if (unauthorized_) {
      why = "this session did not present the command token; it may only watch";
    } else {
      why = "viewers cannot " + std::string(what) + "; say hello as commander";
    }
    return Refused{ErrorCode::forbidden, std::move(why), {}};
  };
  const bool operator_role = role_ == protocol::Role::commander;
  if (std::holds_alternative<protocol::SessionsRequest>(msg) && !operator_role)
    return forbidden("list the sessions");
  if (std::holds_alternative<protocol::ControlMsg>(msg) && !operator_role)
    return forbidden("send commands");
  if (const auto* cmd = std::get_if<protocol::CommandMsg>(&msg)) {
    if (!operator_role && role_ != protocol::Role::player) return forbidden("send commands");
    if (const auto* spawn = std::get_if<sim::Spawn>(&cmd->command)) {
      const std::size_t n = spawn->agents.empty() ? spawn->count : spawn->agents.size();
      if (n > config_.max_spawn)
        return Refused{ErrorCode::limit_exceeded,
                       "this server spawns at most " + std::to_string(config_.max_spawn) +
                           " agents per command",
                       Refusal::spawn_too_large};
    }
  }
  return std::nullopt;
}

Gate::Rate Gate::message(double now, bool snapshot_ack) {
  if ((snapshot_ack && ack_budget_.take()) || bucket_.take(now)) return Rate::within;
  return overflow_.take(now) ? Rate::refused : Rate::close;
}

Gate::Rate Gate::ping(double now) {
  return bucket_.take(now) || overflow_.take(now) ? Rate::within : Rate::close;
}

}  // namespace herd::net
