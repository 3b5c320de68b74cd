// A bare TCP client on POSIX sockets, for the tests that must misbehave below the WebSocket
// layer: send headers a browser would send, stop reading, stop answering pings, cut a handshake
// or a frame in half. Every wait is bounded by a timeout (poll), none sleeps.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace herd::net::testing {

class RawSocket {
 public:
  // Connects to 127.0.0.1:port. rcvbuf > 0 shrinks the receive buffer first (a slow reader's
  // buffers fill sooner).
  // `from` (another loopback address, such as 127.0.0.2) is the address it connects from.
  explicit RawSocket(std::uint16_t port, int rcvbuf = 0, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket() failed");
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (from) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
        ::close(fd_);
        throw std::runtime_error("bind() failed");
      }
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect() failed");
    }
  }
  ~RawSocket() { close(); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Closes with a TCP reset instead of a FIN (a client that vanishes).
  void reset() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close();
  }

  bool write_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Reads until `marker` has arrived, the peer closes, or the timeout passes; returns all read.
  std::string read_until(std::string_view marker, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (received_.find(marker) == std::string::npos && !closed_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      read_some(static_cast<int>(left.count()));
    }
    return received_;
  }

  // Reads and discards until the peer closes the connection; false if it did not within timeout.
  bool wait_closed(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      read_some(static_cast<int>(left.count()));
      if (received_.size() > (1u << 20)) received_.clear();
    }
    return true;
  }

  const std::string& received() const { return received_; }

  // An HTTP/1.1 WebSocket upgrade request for /ws, with an Origin header when one is given.
  static std::string upgrade_request(std::string_view origin = {}) {
    std::string r =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    if (!origin.empty()) r += "Origin: " + std::string(origin) + "\r\n";
    return r + "\r\n";
  }

  // A client's frame (masked, as RFC 6455 requires of clients; the all-zero key leaves the payload
  // as it is): opcode 0x1 text, 0x8 close, 0xA pong. Payloads up to 65,535 bytes.
  static std::string frame(int opcode, std::string_view payload) {
    std::string f;
    f += static_cast<char>(0x80 | opcode);
    if (payload.size() < 126) {
      f += static_cast<char>(0x80 | payload.size());
    } else {
      f += static_cast<char>(0x80 | 126);
      f += static_cast<char>((payload.size() >> 8) & 0xff);
      f += static_cast<char>(payload.size() & 0xff);
    }
    f += std::string(4, '\0');
    f += payload;
    return f;
  }
  static std::string text_frame(std::string_view payload) { return frame(0x1, payload); }

 private:
  void read_some(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0)
      closed_ = true;
    else
      received_.append(buf, static_cast<std::size_t>(n));
  }

  int fd_ = -1;
  bool closed_ = false;
  std::string received_;
};

}  // namespace herd::net::testing
