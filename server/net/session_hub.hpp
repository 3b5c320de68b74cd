// herd::net::SessionHub — all a session may ask of the server, and nothing more: its settings,
// admission against the connection and session limits, the counters and logs it feeds, the
// answers for /healthz and /metrics, and the requests it posts to the hub's thread (join, leave,
// hello, commands...), each answered later through the session's shard. Sessions hold one by
// value; they never see the world source (a local world or a relay's world: every session is
// served the same way), the clients table or the tick loop. Asio only, no Beast.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/io.hpp"
#include "net/limits.hpp"
#include "net/observability_text.hpp"
#include "net/server.hpp"
#include "net/session_list.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

class WsSession;
class ViewerInbox;
struct Shard;
class Admission;
class RequestRate;
class Observability;
class Hub;
class WorldSource;

class SessionHub {
 public:
  // The server's parts a session reaches, and only those: the server owns them (server_impl.hpp)
  // and outlives its sessions.
  struct Parts {
    const ServerConfig& config;
    std::atomic<std::uint64_t>& next_session_id;
    Admission& admission;
    RequestRate& http_rate;
    const std::atomic<bool>& stopping;
    Observability& observe;
    asio::io_context& hub_ioc;  // the hub's thread, where requests are posted
    Hub& hub;
    const WorldSource& source;  // for /healthz
    std::function<std::string()> metrics_text;
  };
  explicit SessionHub(const Parts& parts) : parts_(&parts) {}

  // ---- any thread --------------------------------------------------------------------------
  // The settings sessions read: the server's at start, never changed.
  const ServerConfig& config() const;
  std::uint64_t new_session_id();
  // Session objects alive (handshakes and refused ones included), against max_connections.
  void ws_created();
  void ws_destroyed();
  void http_created();
  void http_destroyed();
  std::size_t http_sessions() const;

  // A WebSocket upgrade from `ip` (Admission::admit): nullopt when admitted (then release() it
  // when it ends), else the limit it is over.
  std::optional<Refusal> admit(const std::string& ip);
  void release(const std::string& ip);
  // A hello's place among max_sessions (Admission::take_place).
  bool take_place(bool token_holder);
  void leave(bool token_holder);
  // A plain HTTP request from `ip` against its address's request rate (RequestRate::admit):
  // nullopt when it may be served, else the seconds to say in Retry-After.
  std::optional<std::uint32_t> admit_request(const std::string& ip, double now);
  // Wrong command tokens per address (Admission::may_try_token).
  bool may_try_token(const std::string& ip, double now);
  void token_failed(const std::string& ip, double now);

  bool stopping() const;
  std::uint64_t tick() const;

  // Counters and logs.
  void refused(Refusal why, std::string_view who);
  void count_error(protocol::ErrorCode code);
  void command_rejected();
  void written(std::size_t bytes, bool snapshot);
  void snapshot_replaced();
  void welcome_replaced();
  void snapshots_superseded(std::size_t n);
  void observe_reply(Clock::duration d);
  void log_from(std::string_view who, LogLevel level, std::string_view event,
                std::initializer_list<LogField> fields);

  // HTTP answers: /healthz and /metrics (Prometheus text).
  Health health() const;
  std::string metrics_text() const;

  // ---- posted to the hub's thread ----------------------------------------------------------
  // Each request with an answer gets exactly one reply, through the session's shard.
  void join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard,
            std::shared_ptr<ViewerInbox> inbox, std::shared_ptr<const SessionStats> stats);
  void leave(std::uint64_t id);
  // The role is the one the session grants (after its token check); the token and the client's
  // name go with it (a relay's commander link presents them upstream).
  void hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format,
             std::string token, std::string client, std::uint8_t team = 0, std::string player = {},
             bool says_operator = false);
  void inspect(std::uint64_t id, std::vector<std::uint32_t> agents);
  // Whether the session takes the density layer (protocol::DensityRequest).
  void density(std::uint64_t id, bool on);
  // A commander's `sessions` request: answered with the server's sessions (session_list.hpp).
  void sessions(std::uint64_t id, std::uint32_t seq);
  // A command or control checked by the session.
  void command(std::uint64_t id, protocol::CommandMsg command);
  void control(std::uint64_t id, protocol::ControlMsg control);
  // A reply the session made itself, sent back through the hub to keep its order among the
  // hub's answers; then the close (a WebSocket close code), if given.
  void reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close);

 private:
  const Parts* parts_;
};

}  // namespace herd::net
