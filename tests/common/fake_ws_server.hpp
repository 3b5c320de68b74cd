// A WebSocket server of the test's own, for clients run against something that is not herd: a
// listener another local user could have planted (it records every byte a client sends it, the
// upgrade request and each message), or a hostile server (its script answers as it likes). One
// thread accepts, one thread per session reads; the destructor shuts every socket and joins them.
#pragma once

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace herd::testing {

class FakeWsServer {
 public:
  using tcp = boost::asio::ip::tcp;
  using Stream = boost::beast::websocket::stream<tcp::socket>;
  // What the server does with a session, on that session's thread: after the upgrade, and with
  // each message it reads. Either may write to the stream; an exception ends the session.
  struct Script {
    std::function<void(Stream&)> on_open;
    std::function<void(Stream&, const std::string&)> on_message;
  };

  // Listens on `address`:`port` (0: a port the OS chooses); ok() says whether it could.
  FakeWsServer(const std::string& address, std::uint16_t port, Script script = {})
      : acceptor_(ioc_), script_(std::move(script)) {
    boost::system::error_code ec;
    const tcp::endpoint at{boost::asio::ip::make_address(address, ec), port};
    if (!ec) acceptor_.open(at.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(at, ec);
    if (!ec) acceptor_.listen(16, ec);
    if (ec) {
      error_ = ec.message();
      return;
    }
    port_ = acceptor_.local_endpoint().port();
    accepting_ = std::thread([this] { accept_loop(); });
  }
  ~FakeWsServer() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    if (acceptor_.is_open()) ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    if (accepting_.joinable()) accepting_.join();
    for (auto& t : sessions_) t.join();
  }
  FakeWsServer(const FakeWsServer&) = delete;
  FakeWsServer& operator=(const FakeWsServer&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::uint16_t port() const { return port_; }
  // Everything clients sent so far: each upgrade request as it came, each message on a line.
  std::string received() const {
    const std::lock_guard lock(mutex_);
    return received_;
  }
  // Messages read so far, over all sessions.
  std::size_t messages() const {
    const std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  void accept_loop() {
    for (;;) {
      tcp::socket socket(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      const std::lock_guard lock(mutex_);
      if (ec || stopping_) return;
      fds_.push_back(socket.native_handle());
      sessions_.emplace_back([this, s = std::move(socket)]() mutable { session(std::move(s)); });
    }
  }
  void session(tcp::socket socket) {
    namespace http = boost::beast::http;
    const int fd = socket.native_handle();
    std::optional<Stream> ws;
    try {
      boost::beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request);
      {
        std::ostringstream text;
        text << request;
        const std::lock_guard lock(mutex_);
        received_ += text.str();
      }
      if (boost::beast::websocket::is_upgrade(request)) {
        ws.emplace(std::move(socket));
        ws->accept(request);
        if (script_.on_open) script_.on_open(*ws);
        for (;;) {
          boost::beast::flat_buffer message;
          ws->read(message);
          const std::string text = boost::beast::buffers_to_string(message.data());
          {
            const std::lock_guard lock(mutex_);
            received_ += text + "\n";
            ++messages_;
          }
          if (script_.on_message) script_.on_message(*ws, text);
        }
      }
    } catch (const std::exception&) {
      // The client went, or the test is over.
    }
    // Closed under the lock, and forgotten first: the destructor never shuts a number reused.
    const std::lock_guard lock(mutex_);
    fds_.erase(std::remove(fds_.begin(), fds_.end(), fd), fds_.end());
    boost::system::error_code ignored;
    if (ws) ws->next_layer().close(ignored);
    socket.close(ignored);
  }

  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  Script script_;
  std::string error_;
  std::uint16_t port_ = 0;
  std::thread accepting_;
  mutable std::mutex mutex_;
  bool stopping_ = false;
  std::vector<int> fds_;
  std::vector<std::thread> sessions_;
  std::string received_;
  std::size_t messages_ = 0;
};

}  // namespace herd::testing
