// herd::net::WorldSource — where the world the hub serves comes from: a world stepped here
// (LocalWorld: the tick loop, commands and controls, broadcast) or another server's, watched over
// a link (RelayWorld). Main chooses which and gives it to the Server. The hub hands it its
// clients' hellos, commands and controls; it answers them through the hub (Hub::greet, Hub::reply)
// and makes the snapshots the hub sends. Neither the hub nor a session asks which one it is. No
// Boost in this header.
#pragma once

#include <cstdint>
#include <string>

#include "net/observability_text.hpp"
#include "protocol/messages.hpp"

namespace herd::sim {
class World;
}

namespace herd::net {

struct SourceParts;  // source_parts.hpp

class WorldSource {
 public:
  // A client's hello, as the session passes it on (the role after the session's own checks).
  struct Hello {
    protocol::Role role = protocol::Role::viewer;
    protocol::SnapshotFormat format = protocol::SnapshotFormat::json;
    std::string token;      // the client's command token (a relay's commander link presents it)
    std::string client;     // the client's name for itself
    std::uint8_t team = 0;  // a player's team (its token named it)
    std::string player;     // a player's name
    bool says_operator = false;  // the operator, asked for by that name
  };

  virtual ~WorldSource() = default;

  // Once, by the server it was given to, before start(): the server's parts it works with, which
  // outlive it. Main makes the source (a LocalWorld, or a RelayWorld) and gives it to the
  // server; the server asks nothing else of which one it is.
  virtual void attach(const SourceParts& parts) = 0;
  // The world, when it is stepped here; nullptr when it is another server's (a relay's). The app
  // writes its last checkpoint and trajectory frame from it after run().
  virtual const sim::World* world() const { return nullptr; }

  // The hub's thread: from run() until begin_stop(); stop() ends timers and links.
  virtual void start() = 0;
  virtual void stop() = 0;

  // The hub's thread. What a client of `role` is welcomed with (also again after a change); it
  // differs between sessions of one role only in `session` (the hub encodes the rest once).
  virtual protocol::Welcome welcome(std::uint64_t session, protocol::Role role) const = 0;
  // A joined client's hello: answered with Hub::greet, now or once the world is known.
  virtual void hello(std::uint64_t id, Hello hello) = 0;
  // A commander's command or control, decoded and checked by its session; exactly one Hub::reply
  // answers it.
  virtual void command(std::uint64_t id, const protocol::CommandMsg& command) = 0;
  virtual void control(std::uint64_t id, const protocol::ControlMsg& control) = 0;
  // A client left (after its requests, which the hub no longer answers).
  virtual void left(std::uint64_t id) = 0;
  // The union of the agents clients inspect changed (Hub::inspected()).
  virtual void inspected_changed() = 0;

  // Any thread: /healthz, and this source's part of /metrics.
  virtual Health health() const = 0;
  virtual void add_metrics(MetricsView& m) const = 0;
};

}  // namespace herd::net
