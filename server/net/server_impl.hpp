// Server::Impl — the server's parts and how they are wired: observability, admission, the I/O
// shards, the hub and the world source main gave it (a LocalWorld, or a RelayWorld), the
// listener, and the stop. The parts own their state; this owns them, in the order their lifetimes
// need. hub.hpp says which thread does what. Asio only, no Beast.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exec/thread_pool.hpp"
#include "net/admission.hpp"
#include "net/hub.hpp"
#include "net/io.hpp"
#include "net/listener.hpp"
#include "net/observability.hpp"
#include "net/request_rate.hpp"
#include "net/server.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"
#include "net/world_source.hpp"

namespace herd::net {

struct Server::Impl {
  Impl(ServerConfig config, std::unique_ptr<WorldSource> source);

  void begin_stop();
  void finish_stop(Clock::time_point deadline);
  void wait_for_signal();
  std::string metrics_text() const;

  // Any thread. Declared before the io_contexts so they outlive them: destroying an io_context
  // destroys pending handlers, which destroys sessions, which count themselves out here.
  const ServerConfig
      config;  // what sessions read: never changes (the world source has its own copy)
  Observability observe;
  Admission admission;
  RequestRate http_rate;  // plain HTTP requests per address
  std::atomic<std::uint64_t> next_session_id{1};
  std::atomic<bool> stopping{false};

  exec::ThreadPool pool;    // steps the local world, and encodes binary frames between ticks
  asio::io_context ioc{1};  // the hub's
  asio::steady_timer stop_timer{ioc};
  // SIGINT and SIGTERM, when stop_on_signals() asked for them: they begin the stop on this thread.
  std::unique_ptr<asio::signal_set> signals;
  std::function<void(int)> on_signal;
  std::vector<std::unique_ptr<Shard>>
      shards;  // after ioc: destroyed first, their sessions post to it
  Hub hub;
  // The world source main gave (a LocalWorld or a RelayWorld): its timers on ioc and its links
  // on shards[0], destroyed before them.
  std::unique_ptr<WorldSource> source;
  SessionHub::Parts session_parts;  // what sessions reach of the above, through SessionHub
  Listener listener;                // its socket is on shards[0]: destroyed before it
};

}  // namespace herd::net
