// The operator's view of the sessions (PROTOCOL.md, "sessions" and `kick`): the rows a commander
// is sent, what a viewer is refused, and a kick closing one session and no other. The real server
// in process, on three I/O threads so that the sessions live on several shards, with real
// WebSocket clients. Nothing sleeps: every wait is for a message, bounded by a timeout.
#include <algorithm>

#include "net/server_fixture.hpp"
#include "net/session_list.hpp"

namespace herd::net {
namespace {

// ---- list_sessions on its own ------------------------------------------------------------------

TEST(ListSessions, RowsGoByIdWithTheAskerAlwaysAmongThemAndTheRestCounted) {
  const auto t0 = SessionStats::Clock::now();
  std::vector<std::unique_ptr<SessionStats>> stats;
  std::vector<SessionRow> rows;
  for (std::uint64_t id : {5, 2, 9, 7, 1}) {
    stats.push_back(std::make_unique<SessionStats>("127.0.0.1:" + std::to_string(1000 + id), t0));
    stats.back()->bytes_sent = id * 100;
    SessionRow r;
    r.id = id;
    r.stats = stats.back().get();
    if (id != 7) r.role = protocol::Role::viewer;
    rows.push_back(r);
  }
  stats[0]->rtt_us = 1500;  // session 5

  const auto all = list_sessions(3, 9, rows, t0 + std::chrono::milliseconds(2500));
  EXPECT_EQ(all.seq, 3u);
  EXPECT_EQ(all.omitted, 0u);
  std::vector<std::uint64_t> ids;
  for (const auto& s : all.sessions) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2, 5, 7, 9}));
  const auto& five = all.sessions[2];
  EXPECT_EQ(five.address, "127.0.0.1:1005");
  EXPECT_EQ(five.bytes_sent, 500u);
  EXPECT_DOUBLE_EQ(five.connected_s, 2.5);
  ASSERT_TRUE(five.rtt_ms);
  EXPECT_DOUBLE_EQ(*five.rtt_ms, 1.5);
  EXPECT_FALSE(all.sessions[0].rtt_ms) << "not measured yet: absent";
  EXPECT_FALSE(all.sessions[3].role) << "session 7 has not been answered its hello";
  for (const auto& s : all.sessions) EXPECT_EQ(s.you, s.id == 9) << s.id;

  // Over the cap: the first others by id, and the asker's row wherever its id puts it.
  const auto capped = list_sessions(4, 9, rows, t0, 3);
  ids.clear();
  for (const auto& s : capped.sessions) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2, 9}));
  EXPECT_EQ(capped.omitted, 2u);
  const auto early = list_sessions(4, 2, rows, t0, 3);
  ids.clear();
  for (const auto& s : early.sessions) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2, 5}));
  EXPECT_EQ(early.omitted, 2u);
}

// ---- over real WebSockets ----------------------------------------------------------------------

class SessionsTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef&) override { config.io_threads = 3; }

  // The answer to a `sessions` request `seq`, or the error that refused it.
  std::variant<protocol::SessionList, protocol::Error> ask(WsClient& c, std::uint32_t seq) {
    c.send(protocol::encode(protocol::SessionsRequest{seq}));
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto text = c.receive(Millis(200));
      if (!text || protocol::is_binary_snapshot(*text)) continue;
      auto decoded = protocol::decode_server(*text);
      if (!std::holds_alternative<ServerMessage>(decoded)) {
        ADD_FAILURE() << "server sent what its own codec refuses: " << *text;
        continue;
      }
      auto& msg = std::get<ServerMessage>(decoded);
      if (auto* list = std::get_if<protocol::SessionList>(&msg); list && list->seq == seq)
        return *list;
      if (auto* e = std::get_if<protocol::Error>(&msg); e && e->seq == seq) return *e;
    }
    ADD_FAILURE() << "no answer to sessions " << seq;
    return protocol::Error{};
  }

  static const protocol::SessionInfo* row(const protocol::SessionList& list, std::uint64_t id) {
    const auto it = std::find_if(list.sessions.begin(), list.sessions.end(),
                                 [id](const auto& s) { return s.id == id; });
    return it == list.sessions.end() ? nullptr : &*it;
  }

  // Asks `asker` until `holds` accepts the list (each wait lets `others` read, so that they
  // answer the server's pings); the last list.
  protocol::SessionList until(WsClient& asker, std::vector<WsClient*> others,
                              const std::function<bool(const protocol::SessionList&)>& holds) {
    protocol::SessionList list;
    for (std::uint32_t seq = 100; seq < 400; ++seq) {
      const auto answer = ask(asker, seq);
      if (const auto* l = std::get_if<protocol::SessionList>(&answer)) list = *l;
      if (holds(list)) return list;
      for (WsClient* o : others) o->receive(Millis(20));
    }
    ADD_FAILURE() << "the sessions never showed what was waited for";
    return list;
  }
};

TEST_F(SessionsTest, ACommanderSeesEverySessionWithWhatItWasSent) {
  protocol::Welcome own, theirs;
  auto commander = greeted(protocol::Role::commander, protocol::SnapshotFormat::json, &own);
  auto viewer = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary, &theirs);
  auto silent = connect();  // no hello yet
  ASSERT_NE(own.session, theirs.session);
  // Some ticks' snapshots written to the viewer, and a round trip measured.
  const auto list = until(*commander, {viewer.get()}, [&](const protocol::SessionList& l) {
    const auto* v = row(l, theirs.session);
    return v && v->snapshots_sent >= 3 && v->rtt_ms.has_value() && l.sessions.size() == 3;
  });
  ASSERT_EQ(list.sessions.size(), 3u);
  EXPECT_EQ(list.omitted, 0u);
  EXPECT_TRUE(std::is_sorted(list.sessions.begin(), list.sessions.end(),
                             [](const auto& a, const auto& b) { return a.id < b.id; }));

  const auto* me = row(list, own.session);
  ASSERT_NE(me, nullptr);
  EXPECT_TRUE(me->you);
  EXPECT_EQ(me->role, protocol::Role::commander);
  EXPECT_EQ(me->format, protocol::SnapshotFormat::json);
  EXPECT_EQ(me->client, "test");

  const auto* v = row(list, theirs.session);
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->you);
  EXPECT_EQ(v->role, protocol::Role::viewer);
  EXPECT_EQ(v->format, protocol::SnapshotFormat::binary);
  EXPECT_EQ(v->address.rfind("127.0.0.1:", 0), 0u) << v->address;
  EXPECT_GE(v->snapshots_sent, 3u);
  EXPECT_GT(v->bytes_sent, v->snapshots_sent) << "the welcome and the frames";
  EXPECT_GT(v->connected_s, 0.0);
  ASSERT_TRUE(v->rtt_ms);
  EXPECT_GE(*v->rtt_ms, 0.0);
  EXPECT_LT(*v->rtt_ms, 5000.0);

  // The session that has not said hello: listed, without a role or a format, sent nothing.
  const auto other = std::find_if(list.sessions.begin(), list.sessions.end(), [&](const auto& s) {
    return s.id != own.session && s.id != theirs.session;
  });
  ASSERT_NE(other, list.sessions.end());
  EXPECT_FALSE(other->role);
  EXPECT_FALSE(other->format);
  EXPECT_EQ(other->snapshots_sent, 0u);
  EXPECT_EQ(other->bytes_sent, 0u);
  silent->close();
}

TEST_F(SessionsTest, AViewerIsRefusedAndNothingChanges) {
  auto viewer = greeted(protocol::Role::viewer);
  const auto answer = ask(*viewer, 7);
  ASSERT_TRUE(std::holds_alternative<protocol::Error>(answer));
  EXPECT_EQ(std::get<protocol::Error>(answer).code, protocol::ErrorCode::forbidden);
  viewer->send(R"({"type":"command","seq":8,"cmd":"kick","session":1})");
  const auto kick = wait_for<protocol::Error>(*viewer, [](const auto& e) { return e.seq == 8; });
  EXPECT_EQ(kick.code, protocol::ErrorCode::forbidden);
  // Still open and still watching.
  wait_for<protocol::Snapshot>(*viewer);
  EXPECT_TRUE(viewer->is_open());
  // Before hello: hello_required, with the request's seq.
  auto fresh = connect();
  const auto early = ask(*fresh, 9);
  ASSERT_TRUE(std::holds_alternative<protocol::Error>(early));
  EXPECT_EQ(std::get<protocol::Error>(early).code, protocol::ErrorCode::hello_required);
}

TEST_F(SessionsTest, AKickClosesThatSessionWithItsReasonAndNoOther) {
  protocol::Welcome own, target_welcome, bystander_welcome;
  auto commander = greeted(protocol::Role::commander, protocol::SnapshotFormat::json, &own);
  auto target = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &target_welcome);
  auto bystander =
      greeted(protocol::Role::commander, protocol::SnapshotFormat::binary, &bystander_welcome);

  // An id no session has: its own code, and nobody is closed.
  commander->send(protocol::encode(protocol::ControlMsg{1, protocol::Kick{999999}}));
  const auto unknown =
      wait_for<protocol::Error>(*commander, [](const auto& e) { return e.seq == 1; });
  EXPECT_EQ(unknown.code, protocol::ErrorCode::unknown_session);
  EXPECT_NE(unknown.message.find("999999"), std::string::npos) << unknown.message;

  commander->send(
      protocol::encode(protocol::ControlMsg{2, protocol::Kick{target_welcome.session}}));
  wait_for<protocol::Ack>(*commander, [](const auto& a) { return a.seq == 2; });
  EXPECT_EQ(wait_closed(*target), protocol::kKickedCloseCode);
  EXPECT_EQ(target->close_reason(), protocol::kKickedCloseReason);

  // The others go on: the asker and the bystander still get snapshots and answers, and the list
  // no longer holds the kicked session.
  const auto after = wait_for<protocol::Snapshot>(*commander);
  wait_for<protocol::Snapshot>(*commander, [&](const auto& s) { return s.tick > after.tick; });
  bystander->send(protocol::encode(protocol::Ping{5}));
  wait_for<protocol::Pong>(*bystander, [](const auto& p) { return p.id == 5; });
  const auto list = until(*commander, {bystander.get()}, [&](const protocol::SessionList& l) {
    return !row(l, target_welcome.session);
  });
  EXPECT_EQ(list.sessions.size(), 2u);
  EXPECT_NE(row(list, bystander_welcome.session), nullptr);
  EXPECT_TRUE(bystander->is_open());
  EXPECT_TRUE(commander->is_open());
  EXPECT_EQ(metric("herd_errors_total{code=\"unknown_session\"}"), 1);

  // A commander may kick itself: its ack comes before the close.
  bystander->send(
      protocol::encode(protocol::ControlMsg{3, protocol::Kick{bystander_welcome.session}}));
  wait_for<protocol::Ack>(*bystander, [](const auto& a) { return a.seq == 3; });
  EXPECT_EQ(wait_closed(*bystander), protocol::kKickedCloseCode);
  EXPECT_TRUE(commander->is_open());
}

}  // namespace
}  // namespace herd::net
