// herd::net::Hub — the clients (joined WebSocket sessions) and what is sent to them: welcomes,
// the answers to their requests, and snapshots (JSON encoded once and shared, binary frames per
// client). Their hellos, commands and controls go to the world source (world_source.hpp), which
// answers through the hub and makes the snapshots it broadcasts; the hub never asks which source
// it has. Sessions reach it only through SessionHub (session_hub.hpp). Asio only, no Beast.
//
// Threads. The hub and its world source run on the thread that calls Server::run(), on their own
// io_context; sockets never run there, so a thousand sessions' reads and writes cannot make a
// tick late. Sessions live on I/O shards (shard.hpp): an io_context and a thread each, dealt
// connections in turn by the listener. The two sides talk only by posting handlers (requests to
// the hub, replies and frames to a session's shard: Shard::deliver), through the atomic counters
// (observability.hpp), and through a few small locked things (admission counts, a shard's session
// list, a session's ViewerInbox, the histograms, the log). A handler posted to the hub never owns
// a session: only shards destroy sessions.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "exec/thread_pool.hpp"
#include "net/binary_feed.hpp"
#include "net/frame_steps.hpp"
#include "net/io.hpp"
#include "net/observability.hpp"
#include "net/session_list.hpp"
#include "net/shard.hpp"
#include "net/spectator_delay.hpp"
#include "net/world_source.hpp"
#include "protocol/snapshot_json.hpp"
#include "publish/snapshot_plan.hpp"

namespace herd::net {

class Hub {
 public:
  // Binary frames are encoded on `pool` (the world's, idle between ticks).
  Hub(asio::io_context& ioc, std::vector<std::unique_ptr<Shard>>& shards, Observability& observe,
      exec::ThreadPool& pool)
      : ioc_(ioc), shards_(shards), observe_(observe), pool_(pool) {}

  // Before run(): the world the clients are served.
  void serve(WorldSource& source) { source_ = &source; }
  // Before run(): told when a player's first session is welcomed and its last one leaves.
  void on_player(std::function<void(const std::string&, bool)> f) { on_player_ = std::move(f); }

  // ---- sessions' requests, posted here by SessionHub ---------------------------------------
  void join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard,
            std::shared_ptr<ViewerInbox> inbox, std::shared_ptr<const SessionStats> stats);
  void leave(std::uint64_t id);
  void hello(std::uint64_t id, WorldSource::Hello hello);
  void inspect(std::uint64_t id, std::vector<std::uint32_t> agents);
  // Whether the client takes the density layer (protocol::DensityRequest).
  void density(std::uint64_t id, bool on);
  // The sessions and `kick` are the hub's own: on a relay too they are its own clients, never
  // its upstream's.
  void sessions(std::uint64_t id, std::uint32_t seq);
  void command(std::uint64_t id, const protocol::CommandMsg& command);
  void control(std::uint64_t id, const protocol::ControlMsg& control);
  // The answer to a session's request, posted to its shard (nothing when it has ended); then the
  // close, if one is given (a WebSocket close code).
  void reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close = {});

  // ---- what the world source tells the clients ----------------------------------------------
  bool has(std::uint64_t id) const { return clients_.contains(id); }
  std::size_t size() const { return clients_.size(); }
  // Answers a hello: the client is welcomed (source's welcome) with `role` and `format`.
  void greet(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format);
  // A message of the source's own to one client, outside the answers to its requests.
  void tell(std::uint64_t id, SharedText msg);
  // Welcomes every greeted client again (new rates, pause, the upstream's state); with
  // new_world, frames of the old world still waiting are not written after it.
  void send_welcomes(bool new_world);
  // The world was replaced: every baseline, acknowledgement and frame not yet handed over goes.
  void new_world();
  // The agents some client inspects (each client's list, concatenated).
  std::vector<std::uint32_t> inspected() const;

  // ---- snapshots ----------------------------------------------------------------------------
  // Who takes the snapshot as binary frames, commanders and players apart (their frames go
  // first; players' are their team's: BinaryFeed::set_seen, set_team_side).
  struct BinaryTakers {
    std::vector<std::uint64_t> commanders, viewers, players;
    bool empty() const { return commanders.empty() && viewers.empty() && players.empty(); }
  };
  // A snapshot begins. The last one's frames not yet encoded are sent first for at most
  // `finish_within`; the viewers still left then get this one instead (begin_snapshot in hub.cpp).
  // Returns its number (`serial`).
  std::uint64_t begin_snapshot(std::chrono::nanoseconds finish_within);
  // What players and spectators are sent instead of viewers' snapshot, on a server with players
  // (or a spectator delay): a team's JSON snapshot, filtered by its sight (made once per team,
  // when its first JSON player needs it; binary players are returned as BinaryTakers::players),
  // and the spectators' delayed one (empty: none is due), as JSON or binary frames of their own
  // feed (spectator_feed). The parts attached per session reach them as the snapshot plan's rows
  // say (players: their own agents' traces, no density layer; delayed spectators: neither).
  struct Restricted {
    std::function<SharedText(std::uint8_t team)> team;
    // The traces players are sent (publish::inspect_texts with the fog): of each inspected
    // agent as its team sees it.
    protocol::InspectTexts team_inspect;
    SpectatorDelay::Snapshot delayed;
    bool delay = false;  // spectators are delayed (else they are sent what viewers are)
  };
  // Hands every greeted JSON client `json()` (made once, when the first needs it), followed for
  // a client that inspects agents by their traces from `inspect` (this snapshot's), and players
  // and spectators what `restricted` gives them; returns those that take binary frames (`auto`:
  // by the world's `agents`, protocol::auto_binary; delayed spectators by their snapshot's own
  // choice).
  BinaryTakers send_json(std::size_t agents, const std::function<SharedText()>& json,
                         protocol::InspectTexts inspect, const Restricted& restricted);
  BinaryTakers send_json(std::size_t agents, const std::function<SharedText()>& json,
                         protocol::InspectTexts inspect = {});
  // Whether some greeted spectator takes JSON snapshots, and some binary frames, of a delayed
  // snapshot that `auto` spectators take as binary frames or not (SpectatorDelay::Snapshot's
  // auto_binary): the delayed snapshots are kept only in the formats someone takes (one who joins
  // waits the delay for its first anyway).
  struct SpectatorFormats {
    bool json = false, binary = false;
  };
  SpectatorFormats spectator_formats(bool auto_binary) const;
  // Whether some player's session is welcomed.
  bool has_players() const { return !player_sessions_.empty(); }
  // The team of a player's session (0: not a player's).
  std::uint8_t team_of(std::uint64_t id) const;
  // The binary frames of the snapshot binary_feed() has begun: commanders' and players' now,
  // viewers' in steps. A client that inspects agents gets a side section of its own, from
  // `side_open` (protocol::side_section) and the traces given to send_json; a player's, from its
  // team's in `team_opens`.
  void send_binary(BinaryTakers takers, std::string side_open = {},
                   std::map<std::uint8_t, std::string> team_opens = {});
  BinaryFeed& binary_feed() { return binary_feed_; }
  // The delayed spectators' frames (Restricted::delayed).
  const BinaryFeed& spectator_feed() const { return spectator_feed_; }
  // Frames of the last snapshot not sent yet, all now (before the world is replaced).
  void finish_steps();
  // The density layer: whether some client asks for it, and the layer of the snapshot begun
  // (begin_snapshot) when the source's snapshot plan says one is due. The source makes it once and
  // attaches it, before send_json: the clients that take it get it after the snapshot's members
  // (JSON) or in their side section.
  bool density_asked() const { return density_clients_ > 0; }
  void attach_density(const protocol::DensityLayer& layer);

 private:
  struct Client {
    std::weak_ptr<WsSession> session;
    Shard* shard = nullptr;
    std::shared_ptr<ViewerInbox> inbox;
    std::shared_ptr<const SessionStats> stats;  // what the session counts (its shard writes it)
    std::string client;                         // hello's name for itself
    bool greeted = false;
    protocol::Role role = protocol::Role::viewer;
    protocol::SnapshotFormat format = protocol::SnapshotFormat::json;
    std::uint8_t team = 0;       // a player's team
    std::string player;          // a player's name
    bool says_operator = false;  // the operator, by that name
    BinaryViewer binary;         // viewport, acknowledged ticks and frames sent (binary snapshots)
    std::vector<std::uint32_t> inspect;  // agents whose avoidance this client wants traced
    bool density = false;                // takes the density layer
    // Whether this client's snapshot now is binary (hello's format; auto: as its stream's
    // `auto_binary` says).
    bool wants_binary(bool auto_binary) const {
      return format == protocol::SnapshotFormat::binary ||
             (format == protocol::SnapshotFormat::automatic && auto_binary);
    }
    bool sent_binary = false;  // its last snapshot was binary frames
  };
  // An `auto` client's snapshot is about to go as binary frames or not: one that switches to
  // them is sent a keyframe, as it may hold no baseline of the frames it was sent before its
  // JSON ones.
  static void switch_format(Client& c, bool binary);
  static constexpr std::size_t kViewersPerStep = 128;

  // Ends session `target` for `from`'s kick `seq`: acknowledged, then closed on its shard.
  void kick(std::uint64_t from, std::uint32_t seq, std::uint64_t target);
  void hand_over(std::vector<std::vector<Delivery>>& by_shard);
  // The snapshot plan's audience a client is sent this snapshot as: a player's team's, the
  // delayed spectators' (frames of `feed`, the spectators' own), or the whole world's.
  publish::Audience audience(const Client& c, const BinaryFeed* feed = nullptr) const;
  // What follows a JSON client's snapshot text in place of its closing brace: the parts attached
  // per session that reach its audience (the plan's rows), the density layer when it asked for
  // it and the traces of the agents it inspects (a player's: its own, as its team sees them).
  // Null: none.
  SharedText session_tail(const Client& c, publish::Audience audience) const;
  // The side section of a client's frames of this snapshot: its own when it inspects agents that
  // are traced (with the density layer when it takes one), else empty (the snapshot's, the
  // team's, or the one with the layer that the clients taking it share:
  // BinaryFeed::set_layer_side).
  std::string own_side(const Client& c, publish::Audience audience) const;
  // The agents a player inspects that are its own and traced (player_inspect_).
  std::vector<std::uint32_t> own_traced(const Client& c) const;
  void send_frames(BinaryFeed& feed, std::span<const std::uint64_t> ids);
  void send_in_steps(std::vector<std::uint64_t> ids);
  // Whether the steps are of the snapshot the feed has now (not of a world since replaced).
  bool steps_current() const;
  bool send_next_step();  // one step; true when more are left

  asio::io_context& ioc_;
  std::vector<std::unique_ptr<Shard>>& shards_;
  Observability& observe_;
  Observability::Counters& counters_ = observe_.counters();
  exec::ThreadPool& pool_;
  WorldSource* source_ = nullptr;
  std::unordered_map<std::uint64_t, Client> clients_;  // joined WebSocket sessions by id
  BinaryFeed binary_feed_;                             // quantised snapshots and binary frames
  BinaryFeed spectator_feed_;                          // the delayed spectators' (Restricted)
  std::uint64_t snapshots_made_ = 0;  // broadcasts so far (the shards' outboxes tell them apart)
  // The viewers whose frames of the last snapshot are still to be encoded (send_in_steps), and
  // that snapshot: snapshots_made_ and binary_feed_.sequence() when it was begun.
  FrameSteps steps_;
  std::uint64_t steps_made_ = 0, steps_sequence_ = 0;
  protocol::InspectTexts inspect_;         // this snapshot's traces (send_json)
  protocol::InspectTexts player_inspect_;  // the same as players may have them (Restricted)
  std::string side_open_;                  // this snapshot's side section, open (send_binary)
  std::map<std::uint8_t, std::string> team_opens_;  // the same, each team's (send_binary)
  // The density layer: clients that take it, and this snapshot's as `,"density":{...}` (empty:
  // none) and as a JSON client's tail (that and the closing brace).
  std::size_t density_clients_ = 0;
  std::string density_;
  SharedText density_tail_;
  bool step_posted_ = false;
  std::function<void(const std::string&, bool)> on_player_;
  std::unordered_map<std::string, std::size_t> player_sessions_;  // welcomed sessions per player
  std::size_t spectators_by_format_[3] = {};  // greeted spectators by SnapshotFormat
  bool auto_binary_ = false;  // `auto`'s format for the live world's stream (protocol::auto_binary)
  // The welcome of `c`'s session, its head (its id, role and, for a player, name and team) made
  // from `shared`, the one of its role.
  static std::string welcome_head(protocol::Welcome shared, std::uint64_t id, const Client& c);
};

}  // namespace herd::net
