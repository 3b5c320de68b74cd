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

#include <sys/resource.h>

#include "net/hub.hpp"
#include "net/relay.hpp"

namespace herd::net {
namespace {

constexpr std::size_t kReservedDescriptors = 64;  // for files, timers and the like, not connections
constexpr auto kStopGrace = std::chrono::milliseconds(1500);

}  // namespace

// ---- stopping -------------------------------------------------------------------------------

void Server::Impl::begin_stop() {
  if (stopping.exchange(true)) return;
  log(LogLevel::info, "stopping", {{"tick", std::to_string(counters.tick.load())}, {"sessions", std::to_string(clients.size())}});
  tick_timer.cancel();
  if (relay) relay_stop();
  asio::post(shards.front()->ioc, [this] {
    boost::system::error_code ec;
    acceptor->close(ec);
    accept_pause->cancel();
  });
  for (auto& shard : shards) asio::post(shard->ioc, [s = shard.get()] { s->close_all(); });
  // Clients get a moment to answer the close handshake; the loop ends when every session is gone
  // or the grace period is over, whichever comes first.
  finish_stop(Clock::now() + kStopGrace);
}

void Server::Impl::finish_stop(Clock::time_point deadline) {
  if ((ws_alive == 0 && http_alive == 0) || Clock::now() >= deadline) {
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
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(s.config.address, ec);
  if (ec) throw std::runtime_error("bad listen address '" + s.config.address + "': " + ec.message());
  const tcp::endpoint endpoint{address, s.config.port};
  auto check = [&](const char* what) {
    if (ec) throw std::runtime_error(std::string(what) + " " + s.config.address + ":" + std::to_string(s.config.port) + ": " + ec.message());
  };
  s.acceptor->open(endpoint.protocol(), ec);
  check("cannot open a socket for");
  s.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  check("cannot set options on");
  s.acceptor->bind(endpoint, ec);
  check("cannot bind");
  s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  check("cannot listen on");
  // Connections stay under the descriptor limit (raised to its hard maximum first, as servers
  // do), with some descriptors left for checkpoints and the like.
  s.max_connections = s.config.max_connections;
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      rlimit raised = files;
      raised.rlim_cur = files.rlim_max;
      if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
    }
    if (files.rlim_cur != RLIM_INFINITY) {
      const std::size_t usable = files.rlim_cur > kReservedDescriptors ? files.rlim_cur - kReservedDescriptors : 1;
      if (usable < s.max_connections) {
        s.max_connections = usable;
        s.log(LogLevel::warn, "connections_capped",
              {{"max_connections", std::to_string(usable)}, {"descriptor_limit", std::to_string(files.rlim_cur)}});
      }
    }
  }
  return s.acceptor->local_endpoint().port();
}

void Server::run() {
  Impl& s = *impl_;
  // The shards' threads: each runs its io_context until the hub stops it.
  std::vector<std::thread> io_threads;
  for (auto& shard : s.shards) {
    Shard* sh = shard.get();
    asio::post(sh->ioc, [sh] { sh->sweep(); });
    if (sh->index == 0) asio::post(sh->ioc, [&s] { s.do_accept(); });
    io_threads.emplace_back([sh] {
      auto work = asio::make_work_guard(sh->ioc);  // idle until a connection comes
      sh->ioc.run();
    });
  }
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
          c.commands_accepted, c.commands_rejected, c.agents, c.refusals, impl_->accept_failures, impl_->max_connections};
}

}  // namespace herd::net
