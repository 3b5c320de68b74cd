// herd::net::Shard — an I/O thread: its io_context, the sessions on it, and the outbox through
// which the hub hands it snapshot frames and messages (outbound.hpp). The listener gives shards
// connections in turn; a session lives and ends on its shard. Asio only, no Beast.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "net/io.hpp"
#include "net/outbound.hpp"

namespace herd::net {

class WsSession;
class HttpSession;
class SessionHub;
enum class Refusal : std::uint8_t;

// A snapshot's frame or a message for one session, from the hub to the session's shard.
struct Delivery {
  enum class Kind : std::uint8_t {
    snapshot,   // a frame, binary or JSON
    reply,      // the answer to one of the session's requests, then_close after it if given
    control,    // a message of the hub's own
    welcome,    // a welcome again (new rates, pause): `frame` the session's head, `tail` shared
    new_world,  // the same to a replaced world: frames of the old one still waiting are dropped
    kick,       // the operator ends the session: closed once its replies are written
  };
  std::weak_ptr<WsSession> session;  // weak: a session ends on its shard, never on the hub
  SharedText frame;
  // A welcome's part shared by every session (welcome, new_world); a JSON snapshot's end that is
  // this session's own, in place of the frame's closing brace (its inspect traces).
  SharedText tail;
  bool binary = false;
  Kind kind = Kind::snapshot;
  std::optional<std::uint16_t> then_close;  // a WebSocket close code (reply only)

  static Delivery snapshot(std::weak_ptr<WsSession> session, SharedText frame, bool binary,
                           SharedText tail = nullptr) {
    return {std::move(session), std::move(frame), std::move(tail), binary,
            Kind::snapshot,     std::nullopt};
  }
  static Delivery message(Kind kind, std::weak_ptr<WsSession> session, SharedText msg,
                          std::optional<std::uint16_t> then_close = std::nullopt) {
    return {std::move(session), std::move(msg), nullptr, false, kind, then_close};
  }
  static Delivery welcome(bool new_world, std::weak_ptr<WsSession> session, SharedText head,
                          SharedText tail) {
    return {std::move(session),
            std::move(head),
            std::move(tail),
            false,
            new_world ? Kind::new_world : Kind::welcome,
            std::nullopt};
  }
};

// An I/O thread's io_context and the sessions on it (for the sweep and for stop).
struct Shard {
  std::size_t index = 0;
  // Sessions enter and leave these lists themselves: a WebSocket session once its handshake is
  // done, an HTTP one when it starts; both when they end (on this thread, or on the one
  // destroying the io_context).
  void add(std::uint64_t id, std::weak_ptr<WsSession> session);
  void remove_ws(std::uint64_t id);
  void add(HttpSession* key, std::weak_ptr<HttpSession> session);
  void remove_http(HttpSession* key);

  // Before the io_context: destroying it destroys sessions, which leave these lists. Locked:
  // sessions end on this thread, or on the one destroying the io_context.
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<WsSession>> ws;
  std::unordered_map<HttpSession*, std::weak_ptr<HttpSession>> http;
  asio::io_context ioc{1};
  asio::steady_timer sweep_timer{ioc};
  // What the hub handed over, not yet given to the sessions (outbound.hpp: messages are never
  // overtaken by frames handed over after them).
  Outbox<Delivery> outbox;
  // The hub's thread: adds frames of snapshot number `snapshot` (several calls may add to one).
  // Returns how many frames were skipped.
  std::size_t deliver(std::uint64_t snapshot, std::vector<Delivery> frames);
  // The hub's thread: a message for a session (any kind but snapshot).
  void deliver(Delivery message);
  // This thread: gives the sessions every waiting message and up to kFramesPerTurn frames (each
  // one a write started), then posts itself behind what else is queued if frames are left: a
  // command's read or its reply waits for 64 writes, not for a whole snapshot's (500 on each of
  // two threads with 1,000 viewers).
  static constexpr std::size_t kFramesPerTurn = 64;
  void hand_to_sessions();
  template <class K, class T>
  static std::vector<std::shared_ptr<T>> alive(const std::unordered_map<K, std::weak_ptr<T>>& from);
  void sweep();
  void close_all();

  // This thread: a connection over a cap, kept so that a health check is still answered
  // (HttpSession's refused mode). At most kHealthDesk at once; beyond, the oldest that has sent
  // nothing is answered 503 and closed to make room, so that idle sockets cannot keep a health
  // check out (it sends its request at once); when every one is mid-request, the newcomer gets 503.
  static constexpr std::size_t kHealthDesk = 4;
  void take_refused(tcp::socket socket, Refusal why, SessionHub hub);
  std::deque<std::weak_ptr<HttpSession>> refused;  // this thread only
};

}  // namespace herd::net
