// herd::net::Admission — who may connect: TCP connections (HTTP and WebSocket session objects,
// handshakes and refused ones included) against max_connections, kept under the process's
// descriptor limit, and against max_connections_per_address; WebSocket sessions against
// max_sessions_per_address from their upgrade, and against max_sessions from their hello, when
// their role is known: the last reserved_sessions places are kept for hellos that carry the
// operator's or a player's token, so that anonymous sessions cannot lock them out. Addresses are
// counted by address_key (IPv6 by its /64). Any thread. No Boost.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "net/limits.hpp"
#include "net/observability_text.hpp"

namespace herd::net {

class Admission {
 public:
  // max_connections_per_address 0: half of max_connections (after fit_descriptor_limit), at most
  // kDefaultConnectionsPerAddress.
  static constexpr std::size_t kDefaultConnectionsPerAddress = 512;
  // reserved_sessions: of max_sessions, the places only a token's hello may take (at most
  // max_sessions: then only token holders are welcomed).
  Admission(std::size_t max_connections, std::size_t max_sessions,
            std::size_t max_sessions_per_address, std::size_t max_connections_per_address = 0,
            std::size_t reserved_sessions = 0)
      : max_sessions_(max_sessions),
        max_anonymous_(max_sessions - std::min(reserved_sessions, max_sessions)),
        max_sessions_per_address_(max_sessions_per_address),
        max_connections_(max_connections),
        per_address_given_(max_connections_per_address) {}

  // Before the server runs: lowers max_connections to what the descriptor limit leaves (raised to
  // its hard maximum first, as servers do), with some descriptors kept for checkpoints and the
  // like. Returns the descriptor limit when it lowered the cap.
  std::optional<std::uint64_t> fit_descriptor_limit();
  std::size_t max_connections() const { return max_connections_; }
  std::size_t max_connections_per_address() const {
    if (per_address_given_ > 0) return per_address_given_;
    return std::clamp<std::size_t>(max_connections_ / 2, 1, kDefaultConnectionsPerAddress);
  }

  // Session objects alive, counted as they are made and destroyed.
  void ws_created() { ++ws_alive_; }
  void ws_destroyed() { --ws_alive_; }
  void http_created() { ++http_alive_; }
  void http_destroyed() { --http_alive_; }
  std::size_t ws_connections() const { return ws_alive_; }
  std::size_t http_connections() const { return http_alive_; }
  std::size_t connections() const { return http_alive_ + ws_alive_; }
  // No room for another connection: it is refused as it is accepted.
  bool full() const { return connections() >= max_connections_; }

  // A connection from `ip` counted against max_connections_per_address: false when it is over
  // (then it is refused), else remove_connection() it when it ends (ConnectionSlot does).
  bool add_connection(const std::string& ip);
  void remove_connection(const std::string& ip);

  // A WebSocket upgrade from `ip` counted against max_sessions_per_address, and refused when
  // max_sessions are welcomed already (no hello could take a place): nullopt when admitted (then
  // release() it when it ends), else the limit it is over.
  std::optional<Refusal> admit(const std::string& ip);
  void release(const std::string& ip);
  // An admitted session's hello takes its place among max_sessions: a token holder's (the
  // operator's token, a player's) any free one, an anonymous one's (viewers, spectators, a
  // commander without a token taken) only one of the first max_sessions - reserved_sessions.
  // False when there is none (the session is closed 1013); else leave() it when it ends.
  bool take_place(bool token_holder);
  void leave(bool token_holder);

  // Wrong command tokens from one address: kTokenGuessBurst at once, then one a second
  // (kTokenGuessRate), so guessing a 16-byte token takes longer than anyone waits. A hello with a
  // token from an address over it is refused without comparing (token_throttled); a right token
  // never counts. `now` in seconds of a steady clock.
  static constexpr double kTokenGuessRate = 1, kTokenGuessBurst = 10;
  bool may_try_token(const std::string& ip, double now);
  void token_failed(const std::string& ip, double now);

 private:
  const std::size_t max_sessions_, max_anonymous_, max_sessions_per_address_;
  std::size_t max_connections_;  // written before the server's threads start
  const std::size_t per_address_given_;
  std::atomic<std::size_t> ws_alive_{0}, http_alive_{0};
  std::mutex mutex_;
  AddressCounts per_address_;              // open WebSocket sessions per IP address (mutex_)
  AddressCounts connections_per_address_;  // open connections per IP address (mutex_)
  // Sessions whose hello took a place, all and anonymous ones (mutex_).
  std::size_t welcomed_ = 0, anonymous_ = 0;
  // Token guesses left per address (mutex_); addresses back at a full burst are dropped when the
  // map grows past kMaxGuessers, so it stays bounded whoever connects.
  static constexpr std::size_t kMaxGuessers = 4096;
  std::unordered_map<std::string, TokenBucket> guesses_;
};

// A connection counted against its address's cap, from its accept to the end of its last session
// object (the HTTP session, then the WebSocket session it became). Move-only.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  ConnectionSlot(Admission* admission, std::string key)
      : admission_(admission), key_(std::move(key)) {}
  ConnectionSlot(ConnectionSlot&& o) noexcept
      : admission_(std::exchange(o.admission_, nullptr)), key_(std::move(o.key_)) {}
  ConnectionSlot& operator=(ConnectionSlot&& o) noexcept {
    if (this != &o) {
      release();
      admission_ = std::exchange(o.admission_, nullptr);
      key_ = std::move(o.key_);
    }
    return *this;
  }
  ~ConnectionSlot() { release(); }

 private:
  void release() {
    if (admission_) admission_->remove_connection(key_);
    admission_ = nullptr;
  }
  Admission* admission_ = nullptr;
  std::string key_;
};

}  // namespace herd::net
