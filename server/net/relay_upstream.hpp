// herd::net::RelayUpstream — the world source of a relay: a herd-server started with an upstream
// URL steps no world of its own. It watches the upstream server (or another relay) over one link,
// as one whole-world JSON viewer, and serves its own clients from what comes: each JSON
// snapshot's text as it came, binary frames encoded here from it (quantised, with this relay's
// baselines, acks and viewports), and welcomes made from the upstream's. A commander's hello opens
// a link of its own, with the commander's token, that carries its commands and controls unchanged
// and brings back their answers; the upstream decides what the token allows. So the upstream's
// cost is one observer per relay plus one small link per commander, whatever the relay's viewers
// number.
//
// Everything here runs on the hub's thread; the links run on an I/O shard's thread and post their
// events here, tagged with the link's generation so a replaced link's late events are ignored.
// Asio only (timers, and UpstreamLink's plain interface), no Beast.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
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
#include "net/observability.hpp"
#include "net/upstream.hpp"
#include "net/world_source.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

class RelayUpstream final : public WorldSource {
 public:
  // Timers run on `ioc` (the hub's), links on `link_ioc` (an I/O shard's); welcomes say
  // `max_message_bytes` (this relay's own limit).
  RelayUpstream(UpstreamUrl url, std::size_t max_message_bytes, asio::io_context& ioc,
                asio::io_context& link_ioc, Hub& hub, Observability& observe);

  void start() override;
  void stop() override;
  protocol::Welcome welcome(std::uint64_t session, protocol::Role role) const override;
  void hello(std::uint64_t id, Hello hello) override;
  void command(std::uint64_t id, const protocol::CommandMsg& command, std::string wire) override;
  void control(std::uint64_t id, const protocol::ControlMsg& control, std::string wire) override;
  void left(std::uint64_t id) override;
  // The upstream traces them: told with the next snapshot (at most the snapshot rate).
  void inspected_changed() override { inspect_dirty_ = true; }
  // Healthy while it serves, also while it reconnects upstream (its viewers stay and are told
  // so): the body says which.
  Health health() const override;
  void add_metrics(MetricsView& m) const override;

 private:
  // Hellos waiting for the upstream's first welcome (nothing to welcome them to before it).
  struct WaitingHello {
    std::uint64_t id;
    protocol::Role role;
    protocol::SnapshotFormat format;
  };
  // One commander's link: its hello (with the commander's token), the commands forwarded and not
  // answered yet (the upstream answers in order), and those that came before the link was up.
  struct Commander {
    enum class State : std::uint8_t { connecting, open, down };
    std::shared_ptr<UpstreamLink> link;
    std::uint64_t generation = 0;
    State state = State::connecting;
    std::string hello;
    protocol::SnapshotFormat format = protocol::SnapshotFormat::json;
    bool welcomed = false;                  // the session was welcomed (its hello answered)
    std::optional<protocol::Role> granted;  // what the upstream's welcome granted
    std::string refusal;                    // an error the upstream sent before that welcome
    std::deque<std::uint32_t> in_flight;
    std::deque<std::pair<std::uint32_t, std::string>> queued;
    std::chrono::milliseconds backoff{0};
    std::unique_ptr<asio::steady_timer> retry;
  };

  UpstreamLink::Events events(std::uint64_t generation, std::optional<std::uint64_t> commander);
  // The main link: the upstream's world.
  void connect();
  void retry_later();
  void on_main(std::uint64_t generation, std::string text);
  void on_welcome(protocol::Welcome w);
  void on_main_closed(std::uint64_t generation, const std::string& why);
  void on_snapshot(std::string text, std::uint64_t tick);
  void new_world();
  void send_inspect();
  // Commanders' links.
  void forward(std::uint64_t id, std::uint32_t seq, std::string wire);
  void open_command_link(std::uint64_t id);
  void on_command(std::uint64_t id, std::uint64_t generation, std::string text);
  void on_command_opened(std::uint64_t id, std::uint64_t generation);
  void on_command_closed(std::uint64_t id, std::uint64_t generation, const std::string& why);
  void finish_hello(std::uint64_t id);
  void unavailable(std::uint64_t id, std::uint32_t seq,
                   std::string message);  // upstream_unavailable

  const UpstreamUrl url_;
  const std::size_t max_message_bytes_;
  asio::io_context& ioc_;
  asio::io_context& link_ioc_;
  Hub& hub_;
  Observability& observe_;
  Observability::Counters& counters_ = observe_.counters();
  bool stopped_ = false;
  std::shared_ptr<UpstreamLink> main_;
  std::uint64_t main_generation_ = 0;
  std::chrono::milliseconds backoff_{0};
  asio::steady_timer retry_;
  std::optional<protocol::Welcome> welcome_;  // the upstream's newest (world, rates, map, paused)
  std::optional<std::uint64_t> last_tick_;    // the newest snapshot's
  std::vector<std::uint32_t>
      inspect_sent_;  // the union of clients' inspected agents, as told upstream
  bool inspect_dirty_ = false;
  std::vector<WaitingHello> waiting_;
  std::unordered_map<std::uint64_t, Commander> commanders_;
  std::uint64_t next_generation_ = 1;
  // Read by /healthz and /metrics on the I/O threads. live: connected, and the upstream is not
  // itself a relay reconnecting to its own (a chain says so at every hop).
  std::atomic<bool> connected_{false}, live_{false};
  std::atomic<std::uint64_t> connects_{0}, snapshots_{0}, bytes_{0}, command_links_{0};
};

}  // namespace herd::net
