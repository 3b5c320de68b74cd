// herd::net::SourceParts — what a server lends the world source it is given (WorldSource::attach):
// its settings, the hub and the hub's thread, an I/O thread for links to other servers, its
// observability and its thread pool. The source keeps references: the server outlives it.
#pragma once

#include <boost/asio/io_context.hpp>

#include "exec/thread_pool.hpp"
#include "net/hub.hpp"
#include "net/observability.hpp"
#include "net/server.hpp"

namespace herd::net {

struct SourceParts {
  const ServerConfig& config;
  asio::io_context& hub_ioc;   // the hub's thread: the source's timers and its calls to the hub
  asio::io_context& link_ioc;  // an I/O shard's thread: a link to another server
  Hub& hub;
  Observability& observe;
  exec::ThreadPool& pool;  // a local world's per-agent stages; a relay's frame encoding
};

}  // namespace herd::net
