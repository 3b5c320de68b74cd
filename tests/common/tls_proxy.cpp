#include "common/tls_proxy.hpp"

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <thread>

namespace herd::testing {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// One client's connection: TLS on one side, the server's TCP on the other, bytes copied both ways
// until either side ends.
struct Pipe : std::enable_shared_from_this<Pipe> {
  ssl::stream<tcp::socket> client;
  tcp::socket server;
  std::array<char, 16384> up{}, down{};

  Pipe(tcp::socket s, ssl::context& ctx)
      : client(std::move(s), ctx), server(client.get_executor()) {}

  void start(std::uint16_t upstream_port) {
    client.async_handshake(
        ssl::stream_base::server, [self = shared_from_this(), upstream_port](error_code ec) {
          if (ec) return;
          self->server.async_connect({asio::ip::address_v4::loopback(), upstream_port},
                                     [self](error_code ec2) {
                                       if (ec2) return self->stop();
                                       self->pump(self->client, self->server, self->up);
                                       self->pump(self->server, self->client, self->down);
                                     });
        });
  }

  // Copies what `from` reads to `to`, buffer by buffer, until either side ends.
  template <class From, class To>
  void pump(From& from, To& to, std::array<char, 16384>& buffer) {
    from.async_read_some(asio::buffer(buffer), [self = shared_from_this(), &from, &to, &buffer](
                                                   error_code ec, std::size_t n) {
      if (ec) return self->stop();
      asio::async_write(to, asio::buffer(buffer.data(), n),
                        [self, &from, &to, &buffer](error_code ec2, std::size_t) {
                          if (ec2) return self->stop();
                          self->pump(from, to, buffer);
                        });
    });
  }

  void stop() {
    error_code ignored;
    server.close(ignored);
    client.lowest_layer().close(ignored);
  }
};

}  // namespace

struct TlsProxy::Impl {
  asio::io_context ioc;
  ssl::context ctx{ssl::context::tls_server};
  tcp::acceptor acceptor{ioc};
  std::uint16_t upstream_port;
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](error_code ec, tcp::socket s) {
      if (ec) return;
      std::make_shared<Pipe>(std::move(s), ctx)->start(upstream_port);
      accept();
    });
  }
};

TlsProxy::TlsProxy(std::uint16_t upstream_port) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  p.upstream_port = upstream_port;
  p.ctx.use_certificate_chain_file(std::string(HERD_TLS_DIR) + "/cert.pem");
  p.ctx.use_private_key_file(std::string(HERD_TLS_DIR) + "/key.pem", ssl::context::pem);
  const tcp::endpoint at{asio::ip::address_v4::loopback(), 0};
  p.acceptor.open(at.protocol());
  p.acceptor.bind(at);
  p.acceptor.listen();
  p.accept();
  p.thread = std::thread([&p] { p.ioc.run(); });
}

TlsProxy::~TlsProxy() {
  impl_->ioc.stop();
  impl_->thread.join();
}

std::uint16_t TlsProxy::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string TlsProxy::ca_file() { return std::string(HERD_TLS_DIR) + "/cert.pem"; }

}  // namespace herd::testing
