// The relay's upstream WebSocket client (upstream.hpp), after Beast's async WebSocket client
// example: resolve, connect, handshake, then one read at a time when the owner asks, and one
// write at a time.
#include "net/upstream_link.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>

namespace herd::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// The read buffer's capacity kept between messages; more is freed after the message that needed
// it.
constexpr std::size_t kKeptBufferBytes = 1u << 20;

class Link final : public UpstreamLink, public std::enable_shared_from_this<Link> {
 public:
  Link(asio::io_context& ioc, UpstreamUrl url, std::string hello, Events events, Options options)
      : ioc_(ioc),
        resolver_(ioc),
        ws_(ioc),
        url_(std::move(url)),
        hello_(std::make_shared<const std::string>(std::move(hello))),
        events_(std::move(events)),
        options_(options) {}

  void start() {
    asio::post(ioc_, [self = shared_from_this()] {
      self->resolver_.async_resolve(
          self->url_.host, std::to_string(self->url_.port),
          [self](beast::error_code ec, tcp::resolver::results_type results) {
            self->on_resolve(ec, results);
          });
    });
  }

 protected:
  void do_send(std::shared_ptr<const std::string> text) override {
    asio::post(ioc_, [self = shared_from_this(), text = std::move(text)]() mutable {
      if (self->ended_) return;
      if (self->queue_.size() >= self->options_.max_queued_writes)
        return self->end("upstream stopped reading");
      self->queue_.push_back(std::move(text));
      self->pump();
    });
  }
  void do_read_next(std::size_t max_message_bytes) override {
    asio::post(ioc_, [self = shared_from_this(), max_message_bytes] {
      if (self->ended_ || !self->opened_ || self->reading_) return;
      self->ws_.read_message_max(max_message_bytes);
      self->do_read();
    });
  }
  void do_close() override {
    asio::post(ioc_, [self = shared_from_this()] { self->end("closed by the relay"); });
  }

 private:
  void on_resolve(beast::error_code ec, const tcp::resolver::results_type& results) {
    if (ended_) return;
    if (ec) return end("cannot resolve " + url_.host + ": " + ec.message());
    beast::get_lowest_layer(ws_).expires_after(options_.connect_timeout);
    beast::get_lowest_layer(ws_).async_connect(
        results, [self = shared_from_this()](beast::error_code e, const tcp::endpoint&) {
          self->on_connect(e);
        });
  }

  void on_connect(beast::error_code ec) {
    if (ended_) return;
    if (ec) return end("cannot connect to " + url_.text() + ": " + ec.message());
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ignored);
    beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts from here on
    websocket::stream_base::timeout t{};
    t.handshake_timeout = options_.connect_timeout;
    t.idle_timeout = options_.idle_timeout;
    t.keep_alive_pings = true;
    ws_.set_option(t);
    ws_.set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
      req.set(beast::http::field::user_agent, "herd-relay");
    }));
    ws_.async_handshake(
        url_.authority(), url_.path,
        [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
  }

  void on_handshake(beast::error_code ec) {
    if (ended_) return;
    if (ec) return end("WebSocket handshake with " + url_.text() + " failed: " + ec.message());
    opened_ = true;
    queue_.push_front(hello_);
    pump();
    if (events_.opened) events_.opened();
  }

  void do_read() {
    reading_ = true;
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    reading_ = false;
    if (ended_) return;
    if (ec == websocket::error::message_too_big)
      return end("the upstream sent a message larger than the " +
                 std::to_string(ws_.read_message_max()) + " bytes a relay takes");
    if (ec)
      return end(ec == websocket::error::closed ? "upstream closed the connection"
                                                : "read failed: " + ec.message());
    std::string message = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    // A large message's buffer is not kept for the small ones that follow.
    if (buffer_.capacity() > kKeptBufferBytes) buffer_.shrink_to_fit();
    const bool binary = ws_.got_binary();
    beast::error_code waiting_ec;
    const std::size_t waiting = beast::get_lowest_layer(ws_).socket().available(waiting_ec);
    const bool newer = !waiting_ec && waiting >= kNewerWaitingBytes;
    if (events_.message) events_.message(std::move(message), binary, newer);
  }

  void pump() {
    if (writing_ || !opened_ || queue_.empty() || ended_) return;
    writing_ = true;
    auto next = queue_.front();
    queue_.pop_front();
    ws_.text(true);
    ws_.async_write(asio::buffer(*next),
                    [self = shared_from_this(), next](beast::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) return self->end("write failed: " + ec.message());
                      self->pump();
                    });
  }

  // Ends the link once: cancels what is pending and tells the owner why.
  void end(std::string why) {
    if (ended_) return;
    ended_ = true;
    queue_.clear();
    beast::error_code ignored;
    resolver_.cancel();
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(ws_).close();
    if (events_.closed) events_.closed(std::move(why));
    events_ = {};  // the owner's captures go with the link's last callback
  }

  asio::io_context& ioc_;
  tcp::resolver resolver_;
  websocket::stream<beast::tcp_stream> ws_;
  UpstreamUrl url_;
  std::shared_ptr<const std::string> hello_;
  Events events_;
  Options options_;
  beast::flat_buffer buffer_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  bool opened_ = false, writing_ = false, reading_ = false, ended_ = false;
};

}  // namespace

std::shared_ptr<UpstreamLink> UpstreamLink::open(asio::io_context& ioc, const UpstreamUrl& url,
                                                 std::string hello, Events events,
                                                 Options options) {
  auto link = std::make_shared<Link>(ioc, url, std::move(hello), std::move(events), options);
  link->start();
  return link;
}

void UpstreamLink::read_next(std::size_t max_message_bytes) { do_read_next(max_message_bytes); }
void UpstreamLink::send(std::shared_ptr<const std::string> text) { do_send(std::move(text)); }
void UpstreamLink::close() { do_close(); }

}  // namespace herd::net
