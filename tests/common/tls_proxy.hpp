// herd::testing::TlsProxy — a TLS-terminating proxy in front of a herd server, as a deployment
// puts one (herd-server listens in plain ws): it accepts TLS on 127.0.0.1 (an OS-chosen port)
// with the test certificate in tests/common/tls/, and pipes each connection's bytes to and from
// the server's plain TCP port. The clients' wss:// is tested through it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace herd::testing {

class TlsProxy {
 public:
  // Listens at once; connections go to 127.0.0.1:upstream_port. Throws when the certificate
  // cannot be read or the port not bound.
  explicit TlsProxy(std::uint16_t upstream_port);
  ~TlsProxy();
  TlsProxy(const TlsProxy&) = delete;
  TlsProxy& operator=(const TlsProxy&) = delete;

  std::uint16_t port() const;
  // The certificate to trust (the clients' --ca-file).
  static std::string ca_file();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace herd::testing
