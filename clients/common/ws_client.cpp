#include "common/ws_client.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>

#include "protocol/ws_url.hpp"

namespace herd::client {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// Runs the io_context until done() or the timeout; true when done() became true.
template <class Done>
bool run_until(asio::io_context& ioc, Millis timeout, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  ioc.restart();
  while (!done()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    if (ioc.run_one_for(deadline - now) == 0 && ioc.stopped()) ioc.restart();
  }
  return true;
}

}  // namespace

struct WsClient::Impl {
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  beast::flat_buffer buffer;
  std::deque<std::string> inbox;
  bool open = false;
  bool reading = false;
  std::string failure;  // why the connection ended, once it has

  void start_read() {
    reading = true;
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      reading = false;
      if (ec) {
        open = false;
        failure = ec == websocket::error::closed ? "connection closed by the server" : ec.message();
        return;
      }
      inbox.emplace_back(beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      start_read();
    });
  }

  void write(std::string_view data, bool text, Millis timeout) {
    if (!open) throw ConnectionError("not connected: " + failure);
    bool done = false;
    beast::error_code result;
    ws.text(text);
    ws.async_write(asio::buffer(data.data(), data.size()), [&](beast::error_code ec, std::size_t) {
      result = ec;
      done = true;
    });
    if (!run_until(ioc, timeout, [&] { return done; })) {
      beast::get_lowest_layer(ws).close();
      run_until(ioc, Millis(1000), [&] { return done; });
      open = false;
      failure = "write timed out";
      throw ConnectionError(failure);
    }
    if (result) throw ConnectionError("write failed: " + result.message());
  }
};

WsClient::WsClient() : impl_(std::make_unique<Impl>()) {}
WsClient::~WsClient() {
  beast::error_code ec;
  beast::get_lowest_layer(impl_->ws).socket().close(ec);
}

void WsClient::connect(const std::string& host, std::uint16_t port, const std::string& path, Millis timeout) {
  Impl& s = *impl_;
  bool done = false;
  beast::error_code result;
  tcp::resolver resolver(s.ioc);
  auto& stream = beast::get_lowest_layer(s.ws);
  stream.expires_after(timeout);
  resolver.async_resolve(host, std::to_string(port), [&](beast::error_code ec, tcp::resolver::results_type results) {
    if (ec) { result = ec; done = true; return; }
    stream.async_connect(results, [&](beast::error_code ec2, const tcp::endpoint&) {
      if (ec2) { result = ec2; done = true; return; }
      stream.expires_never();
      s.ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
      s.ws.async_handshake(protocol::WsUrl{host, port, path}.authority(), path, [&](beast::error_code ec3) {
        result = ec3;
        done = true;
      });
    });
  });
  const bool finished = run_until(s.ioc, timeout + Millis(500), [&] { return done; });
  if (!finished || result) {
    stream.close();
    const std::string why = finished ? result.message() : "timed out";
    throw ConnectionError("cannot connect to ws://" + host + ":" + std::to_string(port) + path + ": " + why);
  }
  s.ws.read_message_max(64u << 20);
  s.open = true;
  s.start_read();
}

void WsClient::send(std::string_view text, Millis timeout) { impl_->write(text, true, timeout); }
void WsClient::send_binary(std::string_view data, Millis timeout) { impl_->write(data, false, timeout); }

std::optional<std::string> WsClient::receive(Millis timeout) {
  Impl& s = *impl_;
  run_until(s.ioc, timeout, [&] { return !s.inbox.empty() || !s.open; });
  if (!s.inbox.empty()) {
    std::string msg = std::move(s.inbox.front());
    s.inbox.pop_front();
    return msg;
  }
  if (!s.open) throw ConnectionError(s.failure.empty() ? "not connected" : s.failure);
  return std::nullopt;
}

bool WsClient::is_open() const { return impl_->open; }
int WsClient::close_code() const { return static_cast<int>(impl_->ws.reason().code); }
std::string WsClient::close_reason() const { return std::string(impl_->ws.reason().reason.c_str()); }

void WsClient::close() {
  Impl& s = *impl_;
  if (!s.open) return;
  bool done = false;
  s.ws.async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
  run_until(s.ioc, Millis(2000), [&] { return done && !s.reading; });
  s.open = false;
}

HttpResult http_request(const std::string& host, std::uint16_t port, const std::string& target,
                        const std::string& method, Millis timeout) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  tcp::resolver resolver(ioc);
  http::request<http::empty_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "herd-client");
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  if (method == "HEAD") parser.skip(true);  // a HEAD response has headers but no body
  beast::flat_buffer buffer;
  beast::error_code result;
  bool done = false;
  stream.expires_after(timeout);
  resolver.async_resolve(host, std::to_string(port), [&](beast::error_code ec, tcp::resolver::results_type r) {
    if (ec) { result = ec; done = true; return; }
    stream.async_connect(r, [&](beast::error_code ec2, const tcp::endpoint&) {
      if (ec2) { result = ec2; done = true; return; }
      http::async_write(stream, req, [&](beast::error_code ec3, std::size_t) {
        if (ec3) { result = ec3; done = true; return; }
        http::async_read(stream, buffer, parser, [&](beast::error_code ec4, std::size_t) {
          result = ec4;
          done = true;
        });
      });
    });
  });
  if (!run_until(ioc, timeout + Millis(500), [&] { return done; }) || result)
    throw ConnectionError("HTTP " + method + " " + target + " failed: " + (done ? result.message() : "timed out"));
  const auto& res = parser.get();
  return {static_cast<int>(res.result_int()), std::string(res[http::field::content_type]), res.body()};
}

}  // namespace herd::client
