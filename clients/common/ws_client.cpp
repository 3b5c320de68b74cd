#include "common/ws_client.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <deque>
#include <optional>
#include <variant>

#include "protocol/ws_url.hpp"

namespace herd::client {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
namespace ssl = asio::ssl;

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

// A client TLS context: TLS 1.2 or later, the peer verified against the system's certificates
// and tls.ca_file's. Throws ConnectionError when ca_file cannot be read.
void configure_tls(ssl::context& ctx, const TlsOptions& tls) {
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                  ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  ctx.set_verify_mode(ssl::verify_peer);
  beast::error_code ec;
  ctx.set_default_verify_paths(ec);  // no system store is not an error: ca_file may suffice
  if (!tls.ca_file.empty()) {
    ctx.load_verify_file(tls.ca_file, ec);
    if (ec) throw ConnectionError("cannot read the CA file '" + tls.ca_file + "': " + ec.message());
  }
}

// SNI for a host name (not for an address), and the certificate checked for that name.
void expect_host(beast::ssl_stream<beast::tcp_stream>& stream, const std::string& host) {
  beast::error_code parse_ec;
  asio::ip::make_address(host, parse_ec);
  if (parse_ec) SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());
  stream.set_verify_callback(ssl::host_name_verification(host));
}

// "TLS: " before OpenSSL's reasons ("certificate verify failed"), as the clients print them.
std::string why(const beast::error_code& ec) {
  return ec.category() == asio::error::get_ssl_category() ? "TLS: " + ec.message() : ec.message();
}

// Resolves host, connects `tcp_layer` and, when `tls` is given (the stream over that TCP layer),
// runs its handshake for host; then `next(error)`, with the first step's error or none.
template <class Next>
void open_transport(tcp::resolver& resolver, beast::tcp_stream& tcp_layer,
                    beast::ssl_stream<beast::tcp_stream>* tls, const std::string& host,
                    std::uint16_t port, Next next) {
  resolver.async_resolve(host, std::to_string(port),
                         [&, tls, next](beast::error_code ec, tcp::resolver::results_type r) {
                           if (ec) return next(ec);
                           tcp_layer.async_connect(
                               r, [&, tls, next](beast::error_code ec2, const tcp::endpoint&) {
                                 if (ec2 || !tls) return next(ec2);
                                 expect_host(*tls, host);
                                 tls->async_handshake(ssl::stream_base::client, next);
                               });
                         });
}

}  // namespace

// One WebSocket over plain TCP or over TLS; every operation below is written once, for either.
using PlainWs = websocket::stream<beast::tcp_stream>;
using TlsWs = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

struct WsClient::Impl {
  asio::io_context ioc;
  std::optional<ssl::context> tls_context;  // made by a wss:// connect
  std::variant<PlainWs, TlsWs> ws{std::in_place_type<PlainWs>, ioc};
  beast::flat_buffer buffer;
  std::deque<std::string> inbox;
  bool open = false;
  bool reading = false;
  std::string failure;  // why the connection ended, once it has

  template <class F>
  decltype(auto) with_ws(F&& f) {
    return std::visit(std::forward<F>(f), ws);
  }

  beast::tcp_stream& tcp() {
    return with_ws([](auto& w) -> beast::tcp_stream& { return beast::get_lowest_layer(w); });
  }

  void start_read() {
    reading = true;
    with_ws([this](auto& w) {
      w.async_read(buffer, [this](beast::error_code ec, std::size_t) {
        reading = false;
        if (ec) {
          open = false;
          failure =
              ec == websocket::error::closed ? "connection closed by the server" : ec.message();
          return;
        }
        inbox.emplace_back(beast::buffers_to_string(buffer.data()));
        buffer.consume(buffer.size());
        start_read();
      });
    });
  }

  void write(std::string_view data, bool text, Millis timeout) {
    if (!open) throw ConnectionError("not connected: " + failure);
    bool done = false;
    beast::error_code result;
    with_ws([&](auto& w) {
      w.text(text);
      w.async_write(asio::buffer(data.data(), data.size()), [&](beast::error_code ec, std::size_t) {
        result = ec;
        done = true;
      });
    });
    if (!run_until(ioc, timeout, [&] { return done; })) {
      tcp().close();
      run_until(ioc, Millis(1000), [&] { return done; });
      open = false;
      failure = "write timed out";
      throw ConnectionError(failure);
    }
    if (result) throw ConnectionError("write failed: " + result.message());
  }

  // The TLS context of a wss:// connection (configure_tls).
  ssl::context& make_tls_context(const TlsOptions& tls) {
    auto& ctx = tls_context.emplace(ssl::context::tls_client);
    configure_tls(ctx, tls);
    return ctx;
  }
};

WsClient::WsClient() : impl_(std::make_unique<Impl>()) {}
WsClient::~WsClient() {
  beast::error_code ec;
  impl_->tcp().socket().close(ec);
}

void WsClient::connect(const std::string& host, std::uint16_t port, const std::string& path,
                       Millis timeout) {
  connect(protocol::WsUrl{host, port, path}, timeout);
}

void WsClient::connect(const protocol::WsUrl& url, Millis timeout, const TlsOptions& tls) {
  Impl& s = *impl_;
  if (url.tls) {
    auto& ctx = s.make_tls_context(tls);
    s.ws.emplace<TlsWs>(s.ioc, ctx);
  } else {
    s.ws.emplace<PlainWs>(s.ioc);
  }
  bool done = false;
  beast::error_code result;
  tcp::resolver resolver(s.ioc);
  auto& stream = s.tcp();
  stream.expires_after(timeout);
  // The WebSocket upgrade, once TCP (and TLS) is up.
  auto upgrade = [&] {
    s.with_ws([&](auto& w) {
      w.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
      w.async_handshake(url.authority(), url.path, [&](beast::error_code ec) {
        result = ec;
        done = true;
      });
    });
  };
  auto* secure = std::get_if<TlsWs>(&s.ws);
  open_transport(resolver, stream, secure ? &secure->next_layer() : nullptr, url.host, url.port,
                 [&](beast::error_code ec) {
                   if (ec) {
                     result = ec;
                     done = true;
                     return;
                   }
                   stream.expires_never();
                   upgrade();
                 });
  const bool finished = run_until(s.ioc, timeout + Millis(500), [&] { return done; });
  if (!finished || result) {
    stream.close();
    throw ConnectionError("cannot connect to " + url.text() + ": " +
                          (finished ? why(result) : std::string("timed out")));
  }
  s.with_ws([](auto& w) { w.read_message_max(64u << 20); });
  s.open = true;
  s.start_read();
}

void WsClient::send(std::string_view text, Millis timeout) { impl_->write(text, true, timeout); }
void WsClient::send_binary(std::string_view data, Millis timeout) {
  impl_->write(data, false, timeout);
}

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
int WsClient::close_code() const {
  return std::visit([](auto& w) { return static_cast<int>(w.reason().code); }, impl_->ws);
}
std::string WsClient::close_reason() const {
  return std::visit([](auto& w) { return std::string(w.reason().reason.c_str()); }, impl_->ws);
}

void WsClient::close() {
  Impl& s = *impl_;
  if (!s.open) return;
  bool done = false;
  s.with_ws([&](auto& w) {
    w.async_close(websocket::close_code::normal, [&](beast::error_code) { done = true; });
  });
  run_until(s.ioc, Millis(2000), [&] { return done && !s.reading; });
  s.open = false;
}

namespace {

// One HTTP request on `stream` (plain, or TLS: then `tls` is the stream), to host:port.
template <class Stream>
HttpResult exchange(asio::io_context& ioc, Stream& stream,
                    beast::ssl_stream<beast::tcp_stream>* tls, const std::string& host,
                    std::uint16_t port, const std::string& target, const std::string& method,
                    Millis timeout) {
  tcp::resolver resolver(ioc);
  http::request<http::empty_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, protocol::WsUrl{host, port}.authority());
  req.set(http::field::user_agent, "herd-client");
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  if (method == "HEAD") parser.skip(true);  // a HEAD response has headers but no body
  beast::flat_buffer buffer;
  beast::error_code result;
  bool done = false;
  auto& tcp_layer = beast::get_lowest_layer(stream);
  tcp_layer.expires_after(timeout);
  auto request = [&] {
    http::async_write(stream, req, [&](beast::error_code ec3, std::size_t) {
      if (ec3) {
        result = ec3;
        done = true;
        return;
      }
      http::async_read(stream, buffer, parser, [&](beast::error_code ec4, std::size_t) {
        result = ec4;
        done = true;
      });
    });
  };
  open_transport(resolver, tcp_layer, tls, host, port, [&](beast::error_code ec) {
    if (ec) {
      result = ec;
      done = true;
      return;
    }
    request();
  });
  if (!run_until(ioc, timeout + Millis(500), [&] { return done; }) || result)
    throw ConnectionError("HTTP " + method + " " + target +
                          " failed: " + (done ? why(result) : std::string("timed out")));
  const auto& res = parser.get();
  return {static_cast<int>(res.result_int()), std::string(res[http::field::content_type]),
          res.body()};
}

}  // namespace

HttpResult http_request(const std::string& host, std::uint16_t port, const std::string& target,
                        const std::string& method, Millis timeout) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  return exchange(ioc, stream, nullptr, host, port, target, method, timeout);
}

HttpResult http_request(const protocol::WsUrl& url, const std::string& target,
                        const TlsOptions& tls, const std::string& method, Millis timeout) {
  if (!url.tls) return http_request(url.host, url.port, target, method, timeout);
  asio::io_context ioc;
  ssl::context ctx{ssl::context::tls_client};
  configure_tls(ctx, tls);
  beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
  return exchange(ioc, stream, &stream, url.host, url.port, target, method, timeout);
}

}  // namespace herd::client
