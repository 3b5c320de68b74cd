#include "app/http_client.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace herd::app {
namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Milliseconds left before `deadline`, at least 0.
int ms_left(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int n = 0;
  do {
    n = ::poll(&p, 1, ms_left(deadline));
  } while (n < 0 && errno == EINTR);
  return n > 0 && (p.revents & events) != 0;
}

}  // namespace

HttpResult http_request(const std::string& address, std::uint16_t port, std::string_view method,
                        std::string_view path, std::string_view body,
                        std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string host = address;
  if (host == "0.0.0.0" || host.empty())
    host = "127.0.0.1";
  else if (host == "::" || host == "[::]")
    host = "::1";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0)
    return {0, "cannot resolve " + host + ": " + ::gai_strerror(rc)};
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);

  Fd sock;
  std::string why = "no address for " + host;
  for (const addrinfo* a = list.get(); a && sock.fd < 0; a = a->ai_next) {
    Fd s{::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol)};
    if (s.fd < 0) continue;
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      int err = errno;
      if (err == EINPROGRESS && wait_for(s.fd, POLLOUT, deadline)) {
        socklen_t len = sizeof err;
        ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      } else if (err == EINPROGRESS) {
        err = ETIMEDOUT;
      }
      if (err != 0) {
        why = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(err);
        continue;
      }
    }
    std::swap(sock.fd, s.fd);
  }
  if (sock.fd < 0) return {0, why};

  std::string request = std::string(method) + " " + std::string(path) +
                        " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n";
  if (!body.empty())
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  else if (method == "POST" || method == "PUT")
    request += "Content-Length: 0\r\n";
  request += "\r\n";
  request += body;
  for (std::size_t sent = 0; sent < request.size();) {
    if (!wait_for(sock.fd, POLLOUT, deadline)) return {0, "timed out sending the request"};
    const ssize_t n = ::send(sock.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      return {0, std::string("cannot send: ") + std::strerror(errno)};
    if (n > 0) sent += static_cast<std::size_t>(n);
  }
  // Only the status line matters: "HTTP/1.1 200 OK".
  std::string answer;
  while (answer.find("\r\n") == std::string::npos && answer.size() < 512) {
    if (!wait_for(sock.fd, POLLIN, deadline)) return {0, "timed out waiting for the answer"};
    char buffer[512];
    const ssize_t n = ::recv(sock.fd, buffer, sizeof buffer, 0);
    if (n == 0) break;
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      return {0, std::string("cannot read: ") + std::strerror(errno)};
    if (n > 0) answer.append(buffer, static_cast<std::size_t>(n));
  }
  const std::string status = answer.substr(0, answer.find("\r\n"));
  int code = 0;
  if (status.rfind("HTTP/1.", 0) == 0 && status.size() >= 12) code = std::atoi(status.c_str() + 9);
  return {code, status.empty() ? "no answer" : status};
}

}  // namespace herd::app
