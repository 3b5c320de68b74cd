// The listener: accepts connections on shards[0]'s thread and gives each to the next shard in
// turn, where its HTTP session starts; over max_connections a connection gets a 503 at once;
// a failed accept pauses the listener rather than spinning (Beast's advanced server's listener,
// with herd's limits).
#include <algorithm>

#include "net/http_session.hpp"
#include "net/hub.hpp"

namespace herd::net {
namespace {

constexpr auto kAcceptPauseMin = std::chrono::milliseconds(10);
constexpr auto kAcceptPauseMax = std::chrono::milliseconds(1000);
constexpr auto kAcceptLogPeriod = std::chrono::seconds(10);

}  // namespace

void Server::Impl::do_accept() {
  // Each connection goes to the next shard in turn: its socket is made on that shard's
  // io_context, and its session starts there.
  Shard& shard = *shards[next_shard];
  next_shard = (next_shard + 1) % shards.size();
  acceptor->async_accept(shard.ioc, [this, &shard](beast::error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) return on_accept_failed(ec);
    if (accept_backoff.count() > 0) {
      log(LogLevel::info, "accepting_again", {{"failures", std::to_string(accept_failures_unlogged)}});
      accept_backoff = std::chrono::milliseconds(0);
      accept_failures_unlogged = 0;
    }
    if (http_alive + ws_alive >= max_connections) {
      refuse_connection(socket);
    } else {
      asio::post(shard.ioc, [this, &shard, socket = std::move(socket)]() mutable {
        std::make_shared<HttpSession>(std::move(socket), SessionHub(*this), shard)->run();
      });
    }
    do_accept();
  });
}

// A failed accept leaves the connection waiting in the kernel's queue: retrying at once would
// spin a core for as long as the cause lasts (out of file descriptors: until connections close).
// The listener pauses instead, 10 ms doubling to 1 s, and says so once per kAcceptLogPeriod; a
// connection aborted by its client is not a failure of ours and is skipped at once.
void Server::Impl::on_accept_failed(const beast::error_code& ec) {
  if (ec == asio::error::operation_aborted) return;  // the acceptor was closed
  if (ec == asio::error::connection_aborted || ec == asio::error::connection_reset) return do_accept();
  ++accept_failures;
  ++accept_failures_unlogged;
  accept_backoff = std::clamp(accept_backoff * 2, kAcceptPauseMin, kAcceptPauseMax);
  const auto now = Clock::now();
  if (accept_failure_logged == Clock::time_point{} || now - accept_failure_logged >= kAcceptLogPeriod) {
    accept_failure_logged = now;
    log(LogLevel::error, "accept_failed",
        {{"reason", ec.message()}, {"failures", std::to_string(accept_failures_unlogged)},
         {"pause_ms", std::to_string(accept_backoff.count())}, {"connections", std::to_string(http_alive + ws_alive)}});
    accept_failures_unlogged = 0;
  }
  accept_pause->expires_after(accept_backoff);
  accept_pause->async_wait([this](beast::error_code wait_ec) {
    if (!wait_ec && !stopping) do_accept();
  });
}

void Server::Impl::refuse_connection(tcp::socket& socket) {
  refused(Refusal::connections, peer_of(socket));
  beast::error_code ec;
  // Best effort and never blocking: the answer fits in an empty socket's send buffer.
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: herd\r\nRetry-After: 1\r\nConnection: close\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 43\r\n\r\ntoo many connections to this server; retry\n";
  socket.non_blocking(true, ec);
  socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace herd::net
