// herd::net::Listener — the listening socket: accepts connections on shards[0]'s thread and deals
// each to the next shard in turn, where its HTTP session starts; over max_connections a
// connection gets a 503 at once; a failed accept pauses the listener rather than spinning
// (Beast's advanced server's listener, with herd's limits). Asio only in this header.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/admission.hpp"
#include "net/io.hpp"
#include "net/observability.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"

namespace herd::net {

class Listener {
 public:
  // `sessions` is what each connection's session is given; nothing is accepted once `stopping`.
  Listener(std::vector<std::unique_ptr<Shard>>& shards, Admission& admission,
           Observability& observe, SessionHub sessions, const std::atomic<bool>& stopping);

  // Binds and listens (before the shards run). Returns the bound port. Throws
  // std::runtime_error saying what failed (address in use, bad address).
  std::uint16_t listen(const std::string& address, std::uint16_t port);
  // Any thread: accepting begins, or ends (on shards[0]'s thread, where the socket lives).
  void start();
  void close();

  std::uint64_t accept_failures() const { return accept_failures_; }

 private:
  // shards[0]'s thread.
  void do_accept();
  void on_accept_failed(
      const boost::system::error_code& ec);  // pause, log (once an interval), retry

  std::vector<std::unique_ptr<Shard>>& shards_;
  Admission& admission_;
  Observability& observe_;
  const SessionHub sessions_;
  const std::atomic<bool>& stopping_;
  tcp::acceptor acceptor_;    // on shards[0]
  asio::steady_timer pause_;  // on shards[0]: the pause after a failed accept
  std::atomic<std::uint64_t> accept_failures_{0};
  // shards[0]'s thread only: the next shard, the pause after a failed accept (doubling), and the
  // failures since the last one logged.
  std::size_t next_shard_ = 0;
  std::chrono::milliseconds backoff_{0};
  Clock::time_point failure_logged_{};
  std::uint64_t failures_unlogged_ = 0;
};

}  // namespace herd::net
