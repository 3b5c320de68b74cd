// herd::net::Server: starting (the listening socket, the descriptor limit), running (the shards'
// threads and the hub's loop) and stopping. The pieces, shaped after Boost.Beast's advanced
// server: listener.cpp accepts, http_session.cpp and websocket_session.cpp are the sessions,
// shard.cpp the I/O threads they live on; they reach the hub (the world, the tick loop, commands,
// broadcast: hub.cpp) only through SessionHub (session_hub.hpp). hub.hpp says which thread does
// what. This unit includes no Beast.
#include "net/server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <thread>

#include "net/hub.hpp"
#include "net/relay.hpp"

namespace herd::net {
namespace {

constexpr auto kStopGrace = std::chrono::milliseconds(1500);

}  // namespace

// ---- stopping -------------------------------------------------------------------------------

void Server::Impl::begin_stop() {
  if (stopping.exchange(true)) return;
  log(LogLevel::info, "stopping", {{"tick", std::to_string(counters.tick.load())}, {"sessions", std::to_string(clients.size())}});
  tick_timer.cancel();
  if (relay) relay_stop();
  listener->close();
  for (auto& shard : shards) asio::post(shard->ioc, [s = shard.get()] { s->close_all(); });
  // Clients get a moment to answer the close handshake; the loop ends when every session is gone
  // or the grace period is over, whichever comes first.
  finish_stop(Clock::now() + kStopGrace);
}

void Server::Impl::finish_stop(Clock::time_point deadline) {
  if (admission.connections() == 0 || Clock::now() >= deadline) {
    for (auto& shard : shards) shard->ioc.stop();
    ioc.stop();
    return;
  }
  stop_timer.expires_after(std::chrono::milliseconds(10));
  stop_timer.async_wait([this, deadline](boost::system::error_code) { finish_stop(deadline); });
}

// ---- Server ----------------------------------------------------------------------------------

Server::Server(ServerConfig config, sim::World world)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(world))) {
  if (impl_->config.relay_upstream.empty()) return;
  auto url = protocol::parse_ws_url(impl_->config.relay_upstream);
  if (auto* why = std::get_if<std::string>(&url))
    throw std::invalid_argument("relay upstream '" + impl_->config.relay_upstream + "': " + *why);
  if (std::get<protocol::WsUrl>(url).tls)
    throw std::invalid_argument("relay upstream '" + impl_->config.relay_upstream + "': must be ws://, not wss://");
  impl_->relay = std::make_shared<Impl::Relay>(std::get<protocol::WsUrl>(std::move(url)), impl_->ioc);
}

Server::~Server() = default;

std::uint16_t Server::start() {
  Impl& s = *impl_;
  const std::uint16_t port = s.listener->listen(s.config.address, s.config.port);
  // Connections stay under the descriptor limit, with some descriptors left for checkpoints.
  if (const auto limit = s.admission.fit_descriptor_limit())
    s.log(LogLevel::warn, "connections_capped",
          {{"max_connections", std::to_string(s.admission.max_connections())}, {"descriptor_limit", std::to_string(*limit)}});
  return port;
}

void Server::run() {
  Impl& s = *impl_;
  // The shards' threads: each runs its io_context until the hub stops it.
  std::vector<std::thread> io_threads;
  for (auto& shard : s.shards) {
    Shard* sh = shard.get();
    asio::post(sh->ioc, [sh] { sh->sweep(); });
    io_threads.emplace_back([sh] {
      auto work = asio::make_work_guard(sh->ioc);  // idle until a connection comes
      sh->ioc.run();
    });
  }
  s.listener->start();
  s.start_ticking();
  // Kept running until begin_stop() stops it, also while nothing is scheduled (a relay waits
  // for its upstream's messages, not for a tick timer).
  auto hub_work = asio::make_work_guard(s.ioc);
  s.ioc.run();
  for (auto& t : io_threads) t.join();
}

void Server::stop() {
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->begin_stop(); });
}

void Server::stop_on_signals(std::function<void(int signal)> said) {
  impl_->on_signal = std::move(said);
  impl_->signals = std::make_unique<asio::signal_set>(impl_->ioc, SIGINT, SIGTERM);
  impl_->wait_for_signal();
}

void Server::Impl::wait_for_signal() {
  signals->async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;  // cancelled: the server is being destroyed
    if (!stopping) {
      on_signal(signal);
      begin_stop();
    }
    wait_for_signal();  // a second signal is taken too, not left to kill the process
  });
}

std::uint64_t Server::state_hash() const { return impl_->world.state_hash(); }
const sim::World& Server::world() const { return impl_->world; }

ServerStats Server::stats() const {
  const auto& c = impl_->counters;
  return {c.tick, c.overruns, c.ticks_dropped, c.sessions, c.snapshots_sent, c.snapshots_dropped(),
          c.commands_accepted, c.commands_rejected, c.agents, c.refusals, impl_->listener->accept_failures(),
          impl_->admission.max_connections()};
}

}  // namespace herd::net
