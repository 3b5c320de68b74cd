// What the server's I/O side shares: Asio's names, the clock, the Server header's value, shared
// message texts, and a socket's peer for logs. Asio only, no Beast.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "net/outbound.hpp"

namespace herd::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

inline constexpr std::string_view kServerName = "herd/" HERD_VERSION;

inline SharedText share(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

// A setting in seconds as a clock duration.
inline Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// "address:port" of the socket's peer for logs and refusals, "?" when it is already gone.
inline std::string peer_of(const tcp::socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string("?")
            : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// The socket's peer address without its port, empty when it is already gone.
inline std::string ip_of(const tcp::socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string() : endpoint.address().to_string();
}

}  // namespace herd::net
