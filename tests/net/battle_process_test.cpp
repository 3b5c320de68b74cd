// A game two players finish, against the real herd-server process with a players file: the
// operator arms two armies of 30 (one a team), each player attack-moves its own through the
// other's, and the world is stepped by hand until one side is dead. Over the wire: the battle ends
// within a minute of world time, the same way from the same seed in another process, and the same
// way again when that process is stopped mid-battle (its checkpoint written) and a new one resumes
// from the checkpoint; no player frame carries another team's behaviour, phase or target, and the
// events a player is told are its own agents' or ones it sees. Every wait is for a message with a
// timeout.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "app/checkpoint_file.hpp"
#include "common/process.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"

#include <nlohmann/json.hpp>

namespace herd {
namespace {

using namespace herd::testing;
using client::Millis;
using json = nlohmann::json;

constexpr const char* kOperator = "operator-token-0123456789";
constexpr const char* kRed = "red-player-token-0123456789";
constexpr const char* kBlue = "blue-player-token-0123456789";

// One session: its hello, then commands answered in order, and every message it was sent kept.
class Session {
 public:
  Session(int port, const std::string& hello) {
    ws_.connect("127.0.0.1", static_cast<std::uint16_t>(port));
    ws_.send(hello);
    welcome_ = wait([](const json& m) { return m.value("type", "") == "welcome"; });
  }
  // The ack (or error) of command `fields` (a JSON object's members, without braces).
  json command(const std::string& fields) {
    const std::uint32_t seq = ++seq_;
    ws_.send(R"({"type":"command","seq":)" + std::to_string(seq) + "," + fields + "}");
    return wait([&](const json& m) {
      return (m.value("type", "") == "ack" || m.value("type", "") == "error") &&
             m.value("seq", 0U) == seq;
    });
  }
  // Receives until a message satisfies pred (kept in snapshots() if a snapshot), or 10 s pass.
  template <class Pred>
  json wait(Pred&& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto text = ws_.receive(Millis(100));
      if (!text) continue;
      json m = json::parse(*text, nullptr, false);
      if (m.is_discarded()) continue;
      if (m.value("type", "") == "snapshot") snapshots_.push_back(m);
      if (pred(m)) return m;
    }
    ADD_FAILURE() << "no such message within 10 s";
    return json::object();
  }
  // What has come so far, without waiting for anything in particular.
  void drain() {
    while (auto text = ws_.receive(Millis(20))) {
      json m = json::parse(*text, nullptr, false);
      if (!m.is_discarded() && m.value("type", "") == "snapshot") snapshots_.push_back(m);
    }
  }
  const json& welcome() const { return welcome_; }
  std::vector<json>& snapshots() { return snapshots_; }

 private:
  client::WsClient ws_;
  std::uint32_t seq_ = 0;
  json welcome_;
  std::vector<json> snapshots_;
};

std::string hello(const char* role, const char* token) {
  return std::string(R"({"type":"hello","protocol":1,"role":")") + role + R"(","token":")" + token +
         R"("})";
}

class BattleProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_battle_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "players.json")
        << R"({"players":[{"name":"red","team":1,"token":")" << kRed
        << R"("},{"name":"blue","team":2,"token":")" << kBlue << R"("}]})";
    ::chmod((dir_ / "players.json").c_str(), 0600);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> args(const std::string& checkpoint) const {
    return {"--address",
            "127.0.0.1",
            "--port",
            "0",
            "--web-root",
            dir_.string(),
            "--scenario",
            "empty",
            "--players",
            (dir_ / "players.json").string(),
            "--command-token",
            kOperator,
            "--checkpoint",
            checkpoint,
            "--checkpoint-interval",
            "86400",
            "--spectator-delay",
            "0"};
  }
  // The two armies, armed by the operator: red's on the left, blue's on the right, half with a
  // weapon of range 0 (the body slam), half with one of range 40.
  static void arm(Session& op) {
    for (const int team : {1, 2}) {
      json agents = json::array();
      for (int k = 0; k < 30; ++k) {
        const double x = team == 1 ? 60 + 30.0 * (k % 5) : 740 - 30.0 * (k % 5);
        agents.push_back({{"x", x},
                          {"y", 160 + 30.0 * (k / 5)},
                          {"group", k % 3},  // groups mixed across teams: hostility is by team
                          {"damage", 12},
                          {"range", k % 2 == 0 ? 0 : 40},
                          {"cooldown", 0.6}});
      }
      const json ack = op.command(R"("cmd":"spawn","team":)" + std::to_string(team) +
                                  R"(,"agents":)" + agents.dump());
      ASSERT_EQ(ack.value("type", ""), "ack") << ack.dump();
    }
  }
  // Each player attack-moves all its own through the other's army.
  static void order(Session& red, Session& blue) {
    for (auto [player, x] : {std::pair{&red, 760}, std::pair{&blue, 40}}) {
      const json ack = player->command(R"("cmd":"attack_move","agents":"all","target":{"x":)" +
                                       std::to_string(x) + R"(,"y":240})");
      ASSERT_EQ(ack.value("type", ""), "ack") << ack.dump();
    }
  }
  // A battle begun on a server just started: the operator pauses the world and arms both
  // armies, and each player orders its own through the other's. The three sessions.
  struct Sides {
    std::unique_ptr<Session> op, red, blue;
  };
  static Sides begin_battle(int port) {
    Sides s{std::make_unique<Session>(port, hello("operator", kOperator)), nullptr, nullptr};
    EXPECT_EQ(s.op->command(R"("cmd":"pause")").value("type", ""), "ack");
    arm(*s.op);
    s.red = std::make_unique<Session>(port, hello("player", kRed));
    s.blue = std::make_unique<Session>(port, hello("player", kBlue));
    order(*s.red, *s.blue);
    return s;
  }
  // Steps `ticks` and returns the operator's snapshot of the tick the step ended at.
  static json step(Session& op, int ticks) {
    const json ack = op.command(R"("cmd":"step","ticks":)" + std::to_string(ticks));
    const std::uint64_t tick = ack.value("tick", std::uint64_t{0});
    return op.wait([&](const json& m) {
      return m.value("type", "") == "snapshot" && m.value("tick", std::uint64_t{0}) >= tick;
    });
  }
  static std::map<int, int> alive(const json& snapshot) {
    std::map<int, int> n{{1, 0}, {2, 0}};
    for (const json& a : snapshot["agents"]) ++n[a.value("team", 0)];
    return n;
  }

  fs::path dir_;
};

// The world of a checkpoint file, by each agent's id, position, velocity and hit points (the tick
// a world was paused at differs from process to process: the agents' states do not).
std::string agents_of(const std::string& checkpoint) {
  auto w = app::read_checkpoint(checkpoint);
  if (!std::holds_alternative<sim::World>(w)) return "no checkpoint";
  std::string out;
  for (const sim::Agent& a : std::get<sim::World>(w).agents()) {
    char line[160];
    std::snprintf(line, sizeof line, "%u %u %a %a %a %a %a\n", a.id, a.team, a.position.x,
                  a.position.y, a.velocity.x, a.velocity.y, static_cast<double>(a.hp));
    out += line;
  }
  return out;
}

TEST_F(BattleProcessTest, TwoArmiesFightToAnEndThatReplaysAndSurvivesACheckpoint) {
  // The whole battle, in one process, to the end.
  const std::string whole = (dir_ / "whole.ckpt").string();
  int ticks_to_end = 0;
  {
    const fs::path out = dir_ / "whole.log";
    Process server(args(whole), out);
    const int port = listening_port(out);
    ASSERT_GT(port, 0) << slurp(out);
    const Sides sides = begin_battle(port);
    Session& op = *sides.op;
    Session& red = *sides.red;
    ASSERT_EQ(red.welcome().value("team", 0), 1);
    std::map<int, int> left;
    for (int t = 0; t < 60 * 60; t += 30) {  // a minute of world time at 60 Hz, half a second a go
      left = alive(step(op, 30));
      ticks_to_end = t + 30;
      if (left[1] == 0 || left[2] == 0) break;
    }
    EXPECT_TRUE(left[1] == 0 || left[2] == 0)
        << "after 60 s: " << left[1] << " red and " << left[2] << " blue alive";
    // Red's snapshots: blue's agents without their orders, and events only of what red may know.
    red.drain();
    ASSERT_FALSE(red.snapshots().empty());
    std::size_t deaths_told = 0;
    for (const json& s : red.snapshots()) {
      std::set<std::uint32_t> shown;
      for (const json& a : s["agents"]) {
        shown.insert(a["id"].get<std::uint32_t>());
        if (a.value("team", 0) == 1) continue;
        EXPECT_FALSE(a.contains("behaviour")) << a.dump();
        EXPECT_FALSE(a.contains("phase")) << a.dump();
        EXPECT_FALSE(a.contains("tx")) << a.dump();
        EXPECT_FALSE(a.contains("subject")) << a.dump();
      }
      for (const json& e : s.value("events", json::array())) {
        if (e["type"] == "death") ++deaths_told;
        if (e.contains("by") && !shown.count(e["by"].get<std::uint32_t>()))
          EXPECT_TRUE(e["by"].get<std::uint32_t>() <= 30) << "a hitter red neither owns nor sees";
      }
    }
    EXPECT_GT(deaths_told, 0u);
    server.signal(SIGTERM);
    ASSERT_EQ(server.wait_exit(), 0) << slurp(out);
  }
  ASSERT_GT(ticks_to_end, 0);
  const std::string end = agents_of(whole);

  // The same battle in another process, stopped halfway: its checkpoint resumed by a third.
  const std::string halves = (dir_ / "halves.ckpt").string();
  const int half = ticks_to_end / 2;
  {
    const fs::path out = dir_ / "first_half.log";
    Process server(args(halves), out);
    const int port = listening_port(out);
    ASSERT_GT(port, 0) << slurp(out);
    const Sides sides = begin_battle(port);
    step(*sides.op, half);
    server.signal(SIGTERM);
    ASSERT_EQ(server.wait_exit(), 0) << slurp(out);
  }
  const std::uint64_t saved = [&] {
    auto w = app::read_checkpoint(halves);
    return std::holds_alternative<sim::World>(w) ? std::get<sim::World>(w).tick() : 0;
  }();
  ASSERT_GT(saved, 0u);
  {
    const fs::path out = dir_ / "second_half.log";
    Process server(args(halves), out);
    const int port = listening_port(out);
    ASSERT_GT(port, 0) << slurp(out);
    Session op(port, hello("operator", kOperator));
    const json paused = op.command(R"("cmd":"pause")");
    ASSERT_EQ(paused.value("type", ""), "ack");
    // The restored world may have ticked on the wall clock before the pause: step the rest of
    // the battle's ticks from the checkpoint's.
    const auto at = paused.value("tick", std::uint64_t{0});
    ASSERT_GE(at, saved);
    const int rest = ticks_to_end - half - static_cast<int>(at - saved);
    ASSERT_GT(rest, 0);
    step(op, rest);
    server.signal(SIGTERM);
    ASSERT_EQ(server.wait_exit(), 0) << slurp(out);
  }
  EXPECT_EQ(agents_of(halves), end)
      << "the battle resumed from its checkpoint ends otherwise than the one run whole";
}

}  // namespace
}  // namespace herd
