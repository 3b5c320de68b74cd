// herd::client::WsClient — a blocking WebSocket client with timeouts on every call.
//
// Used by the tests, herd-ctl and herd-view exactly as a third-party client would talk to the
// server: over a real socket, with the protocol's JSON text; ws:// or, through a TLS proxy in
// front of a server, wss:// (OpenSSL, the peer's certificate and name verified). Beast stays in
// ws_client.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "protocol/ws_url.hpp"

namespace herd::client {

using Millis = std::chrono::milliseconds;

// Thrown when the connection cannot be made or is lost; what() says why.
struct ConnectionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How a wss:// connection checks the server's certificate: against the system's trusted
// certificates, plus those in ca_file (PEM) when it is given, and always for the URL's host name
// or address.
struct TlsOptions {
  std::string ca_file;
};

class WsClient {
 public:
  WsClient();
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // Connects to ws://host:port{path}. Throws ConnectionError.
  void connect(const std::string& host, std::uint16_t port, const std::string& path = "/ws",
               Millis timeout = Millis(5000));
  // Connects to the URL, ws:// or wss:// (TLS, verified as tls says). Throws ConnectionError,
  // whose what() names a certificate that failed verification.
  void connect(const protocol::WsUrl& url, Millis timeout = Millis(5000),
               const TlsOptions& tls = {});

  // Sends one text (or binary) frame. Throws ConnectionError.
  void send(std::string_view text, Millis timeout = Millis(5000));
  void send_binary(std::string_view data, Millis timeout = Millis(5000));

  // The next message received, or nullopt if none came within timeout. Throws ConnectionError
  // once the connection is closed and every message before the close has been returned.
  std::optional<std::string> receive(Millis timeout);

  bool is_open() const;
  // The close code the server sent (0 when none was received).
  int close_code() const;
  std::string close_reason() const;

  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct HttpResult {
  int status = 0;
  std::string content_type;
  std::string body;
};

// GET (or another method) of http://host:port{target}. Throws ConnectionError.
HttpResult http_request(const std::string& host, std::uint16_t port, const std::string& target,
                        const std::string& method = "GET", Millis timeout = Millis(5000));
// The same at the URL's server: http:// for a ws:// URL, https:// (verified as tls says) for
// wss://.
HttpResult http_request(const protocol::WsUrl& url, const std::string& target,
                        const TlsOptions& tls, const std::string& method = "GET",
                        Millis timeout = Millis(5000));

}  // namespace herd::client
