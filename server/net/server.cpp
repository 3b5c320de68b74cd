// herd::net::Server: wiring its parts (server_impl.hpp), starting (the listening socket, the
// descriptor limit), running (the shards' threads and the hub's loop) and stopping. The pieces,
// shaped after Boost.Beast's advanced server: the listener accepts, http_session.cpp and
// websocket_session.cpp are the sessions, shard.cpp the I/O threads they live on; they reach the
// hub (hub.hpp) and its world source only through SessionHub (session_hub.hpp). This unit
// includes no Beast.
#include "net/server.hpp"

#include <boost/asio/post.hpp>
#include <csignal>
#include <thread>

#include "net/local_world.hpp"
#include "net/server_impl.hpp"
#include "net/session_hub.hpp"
#include "net/source_parts.hpp"

namespace herd::net {
namespace {

constexpr auto kStopGrace = std::chrono::milliseconds(1500);

std::vector<std::unique_ptr<Shard>> make_shards(std::size_t count) {
  std::vector<std::unique_ptr<Shard>> shards;
  for (std::size_t i = 0; i < std::max<std::size_t>(count, 1); ++i) {
    shards.push_back(std::make_unique<Shard>());
    shards.back()->index = i;
  }
  return shards;
}

}  // namespace

Server::Impl::Impl(ServerConfig c, std::unique_ptr<WorldSource> world_source)
    : config(std::move(c)),
      observe(config.log, config.log_format),
      admission(config.max_connections, config.max_sessions, config.max_sessions_per_address,
                config.max_connections_per_address, config.reserved_sessions_count()),
      http_rate(config.http_requests_per_second),
      pool(std::max<std::size_t>(config.sim_threads, 1), "herd-sim"),
      shards(make_shards(config.io_threads)),
      hub(ioc, shards, observe, pool),
      source(std::move(world_source)),
      session_parts{config,    next_session_id,
                    admission, http_rate,
                    stopping,  observe,
                    ioc,       hub,
                    *source,   [this] { return metrics_text(); }},
      listener(shards, admission, observe, SessionHub(session_parts), stopping) {
  source->attach(SourceParts{config, ioc, shards.front()->ioc, hub, observe, pool});
  hub.serve(*source);
  hub.on_player(config.on_player);
}

// ---- stopping -------------------------------------------------------------------------------

void Server::Impl::begin_stop() {
  if (stopping.exchange(true)) return;
  observe.log(LogLevel::info, "stopping",
              {{"tick", std::to_string(observe.counters().tick.load())},
               {"sessions", std::to_string(hub.size())}});
  source->stop();
  listener.close();
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

// Any thread: from the counters, so that /metrics and /healthz answer while a tick runs.
std::string Server::Impl::metrics_text() const {
  MetricsView m = observe.metrics();
  m.http_connections = admission.http_connections();
  m.ws_connections = admission.ws_connections();
  m.max_connections = admission.max_connections();
  m.accept_failures = listener.accept_failures();
  source->add_metrics(m);
  if (config.add_metrics) config.add_metrics(m);
  return render_prometheus(m);
}

// ---- Server ----------------------------------------------------------------------------------

Server::Server(ServerConfig config, std::unique_ptr<WorldSource> source)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(source))) {}
Server::Server(ServerConfig config, sim::World world)
    : Server(std::move(config), std::make_unique<LocalWorld>(std::move(world))) {}

Server::~Server() = default;

std::uint16_t Server::start() {
  Impl& s = *impl_;
  const std::uint16_t port = s.listener.listen(s.config.address, s.config.port);
  // Connections stay under the descriptor limit, with some descriptors left for checkpoints.
  if (const auto limit = s.admission.fit_descriptor_limit())
    s.observe.log(LogLevel::warn, "connections_capped",
                  {{"max_connections", std::to_string(s.admission.max_connections())},
                   {"descriptor_limit", std::to_string(*limit)}});
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
    exec::name_thread(io_threads.back(), "herd-io-" + std::to_string(sh->index));
  }
  s.listener.start();
  s.source->start();
  // Kept running until begin_stop() stops it, also while nothing is scheduled (a relay waits
  // for its upstream's messages, not for a tick timer).
  auto hub_work = asio::make_work_guard(s.ioc);
  // This (main) thread keeps the process's name, herd-server, as ps and pgrep show it: it runs
  // the world's ticks, the snapshots and the frames.
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

const sim::World* Server::world() const { return impl_->source->world(); }
std::uint64_t Server::state_hash() const { return world() ? world()->state_hash() : 0; }

ServerStats Server::stats() const {
  const auto& c = impl_->observe.counters();
  return {c.tick,
          c.overruns,
          c.ticks_dropped,
          c.sessions,
          c.snapshots_sent,
          c.snapshots_dropped(),
          c.commands_accepted,
          c.commands_rejected,
          c.agents,
          c.refusals,
          impl_->listener.accept_failures(),
          impl_->admission.max_connections()};
}

}  // namespace herd::net
