// herd::net::SessionStats and list_sessions — the operator's view of the WebSocket sessions
// (PROTOCOL.md, "sessions"). A session counts what it writes, what it drops and its round trip
// in its SessionStats, on its shard; the hub holds the same object (as it holds the session's
// ViewerInbox) and reads it when a commander asks, so the answer needs no round of posts to the
// shards and keeps its place among the hub's other replies. Atomics, relaxed: each figure stands
// alone. No Boost.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/messages.hpp"

namespace herd::net {

struct SessionStats {
  using Clock = std::chrono::steady_clock;
  SessionStats(std::string address, Clock::time_point opened)
      : address(std::move(address)), opened(opened) {}

  const std::string address;                     // the peer, "ip:port"
  const Clock::time_point opened;                // when the WebSocket's upgrade came
  std::atomic<std::uint64_t> bytes_sent{0};      // payload bytes written
  std::atomic<std::uint64_t> snapshots_sent{0};  // snapshot frames written
  std::atomic<std::uint64_t> dropped{0};         // snapshots queued for it and never written
  std::atomic<std::int64_t> rtt_us{-1};          // the last ping's round trip; -1: none yet
};

// A session as the hub knows it, for one row.
struct SessionRow {
  std::uint64_t id = 0;
  const SessionStats* stats = nullptr;
  std::optional<protocol::Role> role;  // none until its hello was answered
  std::optional<protocol::SnapshotFormat> format;
  std::string_view client;
  std::string_view player;  // a player's: its name and team
  std::optional<std::uint8_t> team;
};

// The answer to `asker`'s request `seq`: the rows by id, at most `cap` of them, the asker's always
// among them (the first cap - 1 others by id, then the asker's in its place), and how many were
// left out. Seconds and round trips as of `now`.
protocol::SessionList list_sessions(std::uint32_t seq, std::uint64_t asker,
                                    std::vector<SessionRow> rows,
                                    SessionStats::Clock::time_point now,
                                    std::size_t cap = protocol::kMaxSessionsListed);

}  // namespace herd::net
