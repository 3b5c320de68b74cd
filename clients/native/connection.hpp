// herd-view's link to the server: one WsClient pumped from the render loop (no thread), hello on
// every (re)connect, pings for the round-trip time, and reconnection with backoff.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/ws_client.hpp"
#include "native/options.hpp"
#include "protocol/messages.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::view {

using Clock = std::chrono::steady_clock;

class Connection {
 public:
  Connection(Url url, protocol::Role role, std::string token = {},
             protocol::SnapshotFormat format = protocol::SnapshotFormat::automatic,
             std::string ca_file = {})
      : url_(std::move(url)),
        role_(role),
        token_(std::move(token)),
        format_(format),
        tls_{std::move(ca_file)} {}

  // The position quantum binary frames are asked for (Hello::scale).
  void set_scale(std::uint8_t scale) { scale_ = scale; }

  // One attempt to connect and say hello; false with `error` set when it fails.
  bool connect(std::chrono::milliseconds timeout, std::string& error);

  // Everything that has arrived (decoded; undecodable text is skipped). While disconnected, tries
  // again when the backoff has passed: 0.5 s, doubling to 5 s, back to 0.5 s after a welcome.
  std::vector<protocol::ServerMessage> poll(Clock::time_point now);

  // Sends a command (dropped while disconnected: a stale order is worse than none).
  void send_command(const sim::Command& command);

  // After a failed first connect: try again from poll() with the backoff, as after a lost one.
  void retry_later(const std::string& why, Clock::time_point now) { lost(why, now); }

  bool connected() const { return connected_; }
  const std::string& last_error() const { return error_; }
  double retry_in_seconds(Clock::time_point now) const;
  std::optional<double> rtt_ms() const { return rtt_ms_; }

 private:
  void lost(const std::string& why, Clock::time_point now);
  void maybe_ping(Clock::time_point now);
  void note_pong(std::uint32_t id, Clock::time_point now);
  // A binary snapshot: decoded (and acknowledged) into out, or answered with a keyframe request.
  void receive_binary(const std::string& bytes, std::vector<protocol::ServerMessage>& out);

  Url url_;
  protocol::Role role_;
  std::string token_;
  protocol::SnapshotFormat format_;
  std::uint8_t scale_ = protocol::kFinestScale;
  client::TlsOptions tls_;
  protocol::BinaryClient binary_;  // binary snapshots: the states deltas build on
  std::optional<client::WsClient> ws_;
  bool connected_ = false;
  std::string error_;
  std::chrono::milliseconds backoff_{500};
  Clock::time_point retry_at_{};
  std::uint32_t seq_ = 0;
  std::uint32_t ping_id_ = 0;
  Clock::time_point ping_sent_{};
  bool ping_pending_ = false;
  Clock::time_point next_ping_{};
  std::optional<double> rtt_ms_;
};

}  // namespace herd::view
