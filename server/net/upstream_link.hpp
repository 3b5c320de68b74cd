// herd::net::UpstreamLink — a relay's WebSocket client connection to the server (or relay) it
// relays: connect, say hello, then read one message at a time when the owner asks for it, and
// write what it is given, on one I/O thread's io_context. A plain interface: Beast stays in
// upstream_link.cpp.
//
// The link reports to its owner through three callbacks, each called on the link's io_context:
// opened (the handshake is done and the hello written), message (one frame, text or binary), and
// closed (once, whether the link was opened or never got that far). It reads nothing until the
// owner calls read_next(), and after each message nothing more until the next call: the upstream
// is read only as fast as the owner deals with what it sent (backpressure: TCP holds the rest),
// and the owner sets the largest message it takes each time (a frame whose header says more is
// refused with close 1009 before its payload is read). It does not reconnect: the owner (the
// relay's hub) decides when to try again.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/ws_url.hpp"

namespace herd::net {

// Where the upstream is: protocol::parse_ws_url reads it.
using UpstreamUrl = protocol::WsUrl;

class UpstreamLink {
 public:
  struct Events {
    std::function<void()> opened;
    // newer_waiting: when it was read, kNewerWaitingBytes or more from the upstream already
    // waited in the socket behind it (a newer message has come, at least in part).
    std::function<void(std::string message, bool binary, bool newer_waiting)> message;
    std::function<void(std::string why)> closed;
  };
  static constexpr std::size_t kNewerWaitingBytes = 1024;
  struct Options {
    std::chrono::milliseconds connect_timeout{5000};  // resolve, connect and handshake
    // Without a frame from upstream for this long, the link is given up (Beast pings at half of
    // it).
    std::chrono::milliseconds idle_timeout{10000};
    std::size_t max_queued_writes = 1024;  // more unwritten: the link is closed
  };

  // Starts connecting at once; the first message written after the handshake is `hello`.
  static std::shared_ptr<UpstreamLink> open(boost::asio::io_context& ioc, const UpstreamUrl& url,
                                            std::string hello, Events events, Options options);
  // Any thread, once `opened` was called: reads the next message, of at most `max_message_bytes`
  // (larger: the link closes); `message` follows. Ignored while a read is pending or once closed.
  void read_next(std::size_t max_message_bytes);
  // Any thread. Written in the order given, after the hello; dropped once the link is closed.
  void send(std::shared_ptr<const std::string> text);
  // Any thread; idempotent. `closed` follows (if it has not been called yet).
  void close();

  virtual ~UpstreamLink() = default;

 protected:
  UpstreamLink() = default;
  virtual void do_send(std::shared_ptr<const std::string> text) = 0;
  virtual void do_read_next(std::size_t max_message_bytes) = 0;
  virtual void do_close() = 0;
};

}  // namespace herd::net
