#include "net/listener.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

#include "net/http_session.hpp"

namespace herd::net {
namespace {

constexpr auto kAcceptPauseMin = std::chrono::milliseconds(10);
constexpr auto kAcceptPauseMax = std::chrono::milliseconds(1000);
constexpr auto kAcceptLogPeriod = std::chrono::seconds(10);

}  // namespace

Listener::Listener(std::vector<std::unique_ptr<Shard>>& shards, Admission& admission,
                   Observability& observe, SessionHub sessions, const std::atomic<bool>& stopping)
    : shards_(shards),
      admission_(admission),
      observe_(observe),
      sessions_(sessions),
      stopping_(stopping),
      acceptor_(shards.front()->ioc),
      pause_(shards.front()->ioc) {}

std::uint16_t Listener::listen(const std::string& address_text, std::uint16_t port) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(address_text, ec);
  if (ec) throw std::runtime_error("bad listen address '" + address_text + "': " + ec.message());
  const tcp::endpoint endpoint{address, port};
  auto check = [&](const char* what) {
    if (ec)
      throw std::runtime_error(std::string(what) + " " + address_text + ":" + std::to_string(port) +
                               ": " + ec.message());
  };
  acceptor_.open(endpoint.protocol(), ec);
  check("cannot open a socket for");
  acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  check("cannot set options on");
  acceptor_.bind(endpoint, ec);
  check("cannot bind");
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  check("cannot listen on");
  return acceptor_.local_endpoint().port();
}

void Listener::start() {
  asio::post(shards_.front()->ioc, [this] { do_accept(); });
}

void Listener::close() {
  asio::post(shards_.front()->ioc, [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
    pause_.cancel();
  });
}

void Listener::do_accept() {
  // Each connection goes to the next shard in turn: its socket is made on that shard's
  // io_context, and its session starts there.
  Shard& shard = *shards_[next_shard_];
  next_shard_ = (next_shard_ + 1) % shards_.size();
  acceptor_.async_accept(shard.ioc, [this, &shard](boost::system::error_code ec,
                                                   tcp::socket socket) {
    if (stopping_) return;
    if (ec) return on_accept_failed(ec);
    if (backoff_.count() > 0) {
      observe_.log(LogLevel::info, "accepting_again",
                   {{"failures", std::to_string(failures_unlogged_)}});
      backoff_ = std::chrono::milliseconds(0);
      failures_unlogged_ = 0;
    }
    boost::system::error_code peer_ec;
    const auto peer = socket.remote_endpoint(peer_ec);
    const std::string ip = peer_ec ? std::string() : peer.address().to_string();
    std::optional<Refusal> refused;
    ConnectionSlot slot;
    if (admission_.full())
      refused = Refusal::connections;
    else if (!admission_.add_connection(ip))
      refused = Refusal::connections_per_address;
    else
      slot = ConnectionSlot(&admission_, ip);
    if (refused) observe_.refused(*refused, peer_of(socket));
    // A refused connection still goes to its shard: a health check on it is answered.
    asio::post(shard.ioc, [this, &shard, socket = std::move(socket), refused,
                           slot = std::move(slot)]() mutable {
      if (refused) return shard.take_refused(std::move(socket), *refused, sessions_);
      std::make_shared<HttpSession>(std::move(socket), sessions_, shard, std::move(slot))->run();
    });
    do_accept();
  });
}

// A failed accept leaves the connection waiting in the kernel's queue: retrying at once would
// spin a core for as long as the cause lasts (out of file descriptors: until connections close).
// The listener pauses instead, 10 ms doubling to 1 s, and says so once per kAcceptLogPeriod; a
// connection aborted by its client is not a failure of ours and is skipped at once.
void Listener::on_accept_failed(const boost::system::error_code& ec) {
  if (ec == asio::error::operation_aborted) return;  // the acceptor was closed
  if (ec == asio::error::connection_aborted || ec == asio::error::connection_reset)
    return do_accept();
  ++accept_failures_;
  ++failures_unlogged_;
  backoff_ = std::clamp(backoff_ * 2, kAcceptPauseMin, kAcceptPauseMax);
  const auto now = Clock::now();
  if (failure_logged_ == Clock::time_point{} || now - failure_logged_ >= kAcceptLogPeriod) {
    failure_logged_ = now;
    observe_.log(LogLevel::error, "accept_failed",
                 {{"reason", ec.message()},
                  {"failures", std::to_string(failures_unlogged_)},
                  {"pause_ms", std::to_string(backoff_.count())},
                  {"connections", std::to_string(admission_.connections())}});
    failures_unlogged_ = 0;
  }
  pause_.expires_after(backoff_);
  pause_.async_wait([this](boost::system::error_code wait_ec) {
    if (!wait_ec && !stopping_) do_accept();
  });
}

}  // namespace herd::net
