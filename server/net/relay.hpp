// The hub's relay mode (Server::Impl::Relay): a herd-server started with an upstream URL steps no
// world of its own. It watches the upstream server (or another relay) over one link, as one
// whole-world JSON viewer, and serves its own viewers from what comes: each JSON snapshot's text
// as it came, binary frames encoded here from it (quantised, with this relay's baselines, acks
// and viewports), and welcomes made from the upstream's. A commander's hello opens a link of its
// own, with the commander's token, that carries its commands and controls unchanged and brings
// back their answers; the upstream decides what the token allows. So the upstream's cost is one
// observer per relay plus one small link per commander, whatever the relay's viewers number.
//
// Everything here runs on the hub's thread; the links run on shards[0]'s I/O thread and post
// their events here, tagged with the link's generation so a replaced link's late events are
// ignored.
#pragma once

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/hub.hpp"
#include "net/upstream.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

struct Server::Impl::Relay {
  // Pauses before a new attempt after a link is lost or could not be made: doubling, jittered.
  static constexpr std::chrono::milliseconds kRetryMin{250}, kRetryMax{5000};
  // Commands a commander may send while its link is being made; more get upstream_unavailable.
  static constexpr std::size_t kMaxQueuedCommands = 64;

  Relay(UpstreamUrl u, asio::io_context& hub_ioc) : url(std::move(u)), retry(hub_ioc) {}

  UpstreamUrl url;
  std::shared_ptr<UpstreamLink> main;
  std::uint64_t main_generation = 0;
  std::chrono::milliseconds backoff{0};
  asio::steady_timer retry;
  std::optional<protocol::Welcome> welcome;  // the upstream's newest (world, rates, map, paused)
  std::optional<std::uint64_t> last_tick;    // the newest snapshot's
  std::vector<std::uint32_t> inspect_sent;   // the union of viewers' inspected agents, as told upstream
  bool inspect_dirty = false;

  // Hellos waiting for the upstream's first welcome (nothing to welcome them to before it).
  struct WaitingHello {
    std::uint64_t id;
    protocol::Role role;
    protocol::SnapshotFormat format;
  };
  std::vector<WaitingHello> waiting;

  // One commander's link: its hello (with the commander's token), the commands forwarded and not
  // answered yet (the upstream answers in order), and those that came before the link was up.
  struct Commander {
    enum class State : std::uint8_t { connecting, open, down };
    std::shared_ptr<UpstreamLink> link;
    std::uint64_t generation = 0;
    State state = State::connecting;
    std::string hello;
    protocol::SnapshotFormat format = protocol::SnapshotFormat::json;
    bool welcomed = false;                    // the session was welcomed (its hello answered)
    std::optional<protocol::Role> granted;    // what the upstream's welcome granted
    std::string refusal;                      // an error the upstream sent before that welcome
    std::deque<std::uint32_t> in_flight;
    std::deque<std::pair<std::uint32_t, std::string>> queued;
    std::chrono::milliseconds backoff{0};
    std::unique_ptr<asio::steady_timer> retry;
  };
  std::unordered_map<std::uint64_t, Commander> commanders;
  std::uint64_t next_generation = 1;

  // Read by /healthz and /metrics on the I/O threads. live: connected, and the upstream is not
  // itself a relay reconnecting to its own (a chain says so at every hop).
  std::atomic<bool> connected{false}, live{false};
  std::atomic<std::uint64_t> connects{0}, snapshots{0}, bytes{0}, command_links{0};
};

}  // namespace herd::net
