// herd::net::WsSession — one client's WebSocket: reads and checks its messages (rates, roles,
// the token, sizes), asks the hub through SessionHub, and writes what the hub hands its shard on
// two lanes (outbound.hpp): control messages in order, and snapshots where the newest wins, so a
// slow reader costs a bounded amount of memory. Lives on one shard (shard.hpp), owned by its
// pending operations (Beast's advanced server); the hub and the shard hold weak_ptrs.
#pragma once

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/admission.hpp"
#include "net/binary_feed.hpp"
#include "net/gate.hpp"
#include "net/io.hpp"
#include "net/limits.hpp"
#include "net/outbound.hpp"
#include "net/session_hub.hpp"
#include "net/shard.hpp"
#include "protocol/codec.hpp"

namespace herd::net {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

class WsSession : public std::enable_shared_from_this<WsSession> {
 public:
  // A connection whose upgrade request `run` will answer (http_session.cpp hands it over).
  WsSession(tcp::socket&& socket, SessionHub hub, Shard& shard, ConnectionSlot slot = {});

  // On the shard's thread, or on the thread destroying its io_context.
  ~WsSession();

  void run(http::request<http::string_body> req);

  // Control lane: acks, errors, pongs, welcome. Bounded; a client that lets it fill is closed.
  void send_control(SharedText msg);

  // The hub's answer to a request this session posted to it; then the close, if one was asked.
  void on_reply(SharedText msg, std::optional<std::uint16_t> then_close = {});

  // A welcome again (new rates, pause): `head` this session's, `tail` shared. It replaces one
  // still waiting (OutboundLanes).
  void send_welcome(SharedText head, SharedText tail);

  // The welcome to a replaced world: the old world's frames still waiting are not written after
  // it (counted as superseded).
  void on_new_world(SharedText head, SharedText tail);

  // Snapshot lane: latest wins (OutboundLanes says how many wait).
  void send_snapshot(SharedText snap, bool binary, SharedText tail = nullptr);

  void close_after_flush(websocket::close_reason reason, bool discard_queued = false);

  // The operator kicked this session: closed with protocol::kKickedCloseCode once the replies
  // already queued are written (a session that kicked itself reads its ack).
  void kick();

  // Called by the shard's sweep: ends a session that has stayed behind on snapshots too long, or
  // whose close could not be delivered (a client that stopped reading never takes the close
  // frame). Closing the socket cancels the stuck write; the session then ends.
  void sweep(Clock::time_point now);

  // How often a greeted session is pinged to measure its round trip (SessionStats::rtt_us), and
  // how long a ping waits for its pong before another may go.
  static constexpr auto kRttPingPeriod = std::chrono::seconds(5);
  static constexpr auto kRttPongTimeout = std::chrono::seconds(30);

 private:
  void drop(Refusal why);

  // The control lane is full: the client does not read its replies (closed with 1008).
  void control_full();

  void on_accept(beast::error_code ec);

  void do_read();

  void on_read(beast::error_code ec);

  static constexpr std::size_t kSmallFrame = 64;  // an ack is about 30 bytes

  static bool is_snapshot_ack(const protocol::Decoded<protocol::ClientMessage>& decoded);

  static std::optional<std::uint32_t> seq_of(
      const protocol::Decoded<protocol::ClientMessage>& decoded);

  void refuse_rate(std::optional<std::uint32_t> seq);

  void send_reply(SharedText msg, std::optional<std::uint16_t> then_close);

  // Asks the hub (`fn` posts the request); its answer comes back through on_reply. Commands and
  // controls are timed.
  template <class Fn>
  void ask_hub(Fn fn, bool timed = false);

  // A reply made here goes behind the hub's answers to earlier messages: replies keep the order
  // of the messages they answer.
  void answer(SharedText msg, std::optional<std::uint16_t> then_close = {});

  void handle(protocol::Decoded<protocol::ClientMessage> decoded);

  // A WebSocket ping whose pong gives the round trip (the control callback times it).
  void ping_for_rtt(Clock::time_point now);
  void on_pong(std::string_view payload);

  void on_hello(const protocol::Hello& hello);

  void send_error(std::optional<std::uint32_t> seq, protocol::ErrorCode code, std::string message);

  // One write at a time: control messages first, then the oldest waiting snapshot, then a pending
  // close.
  void pump();

  websocket::stream<beast::tcp_stream> ws_;
  SessionHub hub_;
  const ServerConfig& config_;  // the server's settings at start
  Shard& shard_;
  const std::uint64_t id_;
  std::shared_ptr<ViewerInbox> inbox_ =
      std::make_shared<ViewerInbox>();   // acks and viewports, to the hub
  std::shared_ptr<SessionStats> stats_;  // what it wrote and dropped, its round trip: to the hub
  beast::flat_buffer buffer_;
  OutboundLanes lanes_{config_.control_queue_limit};  // waiting to be written
  std::optional<websocket::close_reason> close_;
  Clock::time_point close_requested_at_;
  Gate gate_;                       // who it is, what it may ask, how fast
  std::optional<Refusal> refusal_;  // over a session limit: closed after the handshake
  std::deque<std::optional<Clock::time_point>>
      awaiting_;          // requests posted to the hub, not answered yet (when, if timed)
  bool counted_ = false;  // admitted: counted against the session limits
  // Its hello took a place among max_sessions; as a token holder (Admission::take_place).
  bool placed_ = false, placed_with_token_ = false;
  Clock::time_point accepted_at_;  // for the hello's deadline
  bool joined_ = false;            // posted to the hub's clients
  bool close_sent_ = false;
  bool writing_ = false;
  bool dropped_ = false;
  std::string ip_, address_;
  // The round-trip ping: the last one's number (its payload), when it was written, whether its
  // pong is awaited, and whether Beast is still writing it (one ping write at a time).
  std::uint64_t rtt_ping_number_ = 0;
  Clock::time_point rtt_ping_at_;
  bool awaiting_pong_ = false;
  bool rtt_ping_writing_ = false;
  ConnectionSlot slot_;  // the connection's place under its address's cap
};

}  // namespace herd::net
