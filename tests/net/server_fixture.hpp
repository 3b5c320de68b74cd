// The real server, in process, on a port the OS picks, driven by real WebSocket and HTTP clients.
// Nothing sleeps: every wait is for a message, bounded by a timeout. Shared by the server's tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "common/ws_client.hpp"
#include "net/server.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {

using client::Millis;
using client::WsClient;
using protocol::ServerMessage;
namespace fs = std::filesystem;

inline constexpr Millis kWait(10000);

class ServerTest : public ::testing::Test {
 protected:
  // Tests of settings change them here, before the server starts.
  virtual void configure(ServerConfig&, sim::WorldDef&) {}

  void SetUp() override {
    web_root_ = fs::temp_directory_path() / ("herd_web_" + std::to_string(::getpid()));
    fs::create_directories(web_root_);
    std::ofstream(web_root_ / "index.html") << "<!doctype html><title>herd</title>";
    ServerConfig config;
    config.address = "127.0.0.1";
    config.port = 0;
    config.web_root = web_root_.string();
    config.tick_rate = 120;
    config.snapshot_rate = 30;
    sim::WorldDef def;
    def.dt = 1.0 / config.tick_rate;
    def.max_agents = 100;
    config.log = [this](std::string_view line) {
      std::lock_guard lock(log_mutex_);
      log_.emplace_back(line);
    };
    config.scenario = "test-world";
    config.list_scenarios = [] { return std::vector<std::string>{"other", "test-world"}; };
    config.describe_scenarios = [] {
      return std::map<std::string, std::string>{{"other", "a narrower world"}};
    };
    configure(config, def);
    token_ = config.command_token;
    config.load_world =
        [def](const std::string& name,
              std::optional<std::uint64_t> seed) -> std::variant<sim::World, std::string> {
      if (name != "test-world" && name != "other") return "no scenario '" + name + "'";
      sim::WorldDef d = def;
      if (seed) d.seed = *seed;
      if (name == "other") d.width = 500;
      return sim::World(d);
    };
    server_ = std::make_unique<Server>(config, sim::World(def));
    port_ = server_->start();
    thread_ = std::thread([this] { server_->run(); });
  }

  void TearDown() override {
    server_->stop();
    thread_.join();
    fs::remove_all(web_root_);
  }

  std::unique_ptr<WsClient> connect() {
    auto c = std::make_unique<WsClient>();
    c->connect("127.0.0.1", port_);
    return c;
  }

  // Receives until a message satisfies pred, skipping binary snapshot frames; fails the test after
  // kWait.
  template <class T>
  T wait_for(
      WsClient& c, std::function<bool(const T&)> pred = [](const T&) { return true; }) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto text = c.receive(Millis(200));
      if (!text || protocol::is_binary_snapshot(*text)) continue;
      auto decoded = protocol::decode_server(*text);
      if (!std::holds_alternative<ServerMessage>(decoded)) {
        ADD_FAILURE() << "server sent what its own codec refuses: " << *text;
        continue;
      }
      const auto& msg = std::get<ServerMessage>(decoded);
      if (const T* m = std::get_if<T>(&msg); m && pred(*m)) return *m;
    }
    ADD_FAILURE() << "timed out waiting";
    return T{};
  }

  // A client welcomed with `role`, its snapshots in `format`; its welcome in `welcome` if given.
  std::unique_ptr<WsClient> greeted(
      protocol::Role role, protocol::SnapshotFormat format = protocol::SnapshotFormat::json,
      protocol::Welcome* welcome = nullptr) {
    auto c = connect();
    protocol::Hello h{1, role, "test", {}};
    h.format = format;
    c->send(protocol::encode(h));
    const auto w = wait_for<protocol::Welcome>(*c);
    EXPECT_EQ(w.role, role);
    if (welcome) *welcome = w;
    return c;
  }

  std::string command(std::uint32_t seq, sim::Command cmd) {
    return protocol::encode(protocol::CommandMsg{seq, std::move(cmd)});
  }

  // Closes are seen by receiving until the connection ends.
  static int wait_closed(WsClient& c) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    try {
      while (std::chrono::steady_clock::now() < deadline) c.receive(Millis(200));
    } catch (const client::ConnectionError&) {
      return c.close_code();
    }
    ADD_FAILURE() << "connection was not closed";
    return -1;
  }

  // One series' value from /metrics, e.g. metric("herd_refusals_total{reason=\"origin\"}").
  double metric(const std::string& series) {
    // A server with a command token serves /metrics only with it.
    const auto m = client::http_request("127.0.0.1", port_,
                                        token_.empty() ? "/metrics" : "/metrics?token=" + token_);
    const auto at = m.body.find("\n" + series + " ");
    if (at == std::string::npos) {
      ADD_FAILURE() << "no series " << series;
      return -1;
    }
    return std::stod(m.body.substr(at + series.size() + 2));
  }

  std::vector<std::string> log_lines() {
    std::lock_guard lock(log_mutex_);
    return log_;
  }

  std::mutex log_mutex_;
  std::vector<std::string> log_;
  fs::path web_root_;
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
  std::string token_;  // the server's command token (empty: open)
  std::thread thread_;
};

// A server whose world the test drives by hand: a commander, welcomed and paused, sends commands
// written as JSON text and steps the world. Tests of it that configure the world call this
// configure() first: it lifts the rate limits, which the stepping would otherwise run into.
class SteppedServerTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef&) override {
    config.rate_limit = 100000;
    config.rate_burst = 100000;
  }
  std::unique_ptr<WsClient> c_;
  std::uint32_t seq_ = 100;

  void SetUp() override {
    ServerTest::SetUp();
    c_ = greeted(protocol::Role::commander);
    ok(R"({"cmd":"pause"})");
  }
  // `text` (a command's fields, as JSON) as a command message numbered `seq`.
  static std::string with_seq(const std::string& text, std::uint32_t seq) {
    std::string msg = text;
    msg.insert(1, R"("type":"command","seq":)" + std::to_string(seq) + ",");
    return msg;
  }
  // The command's ack (an error instead fails the test, naming it).
  protocol::Ack ok(const std::string& text) {
    const std::uint32_t seq = ++seq_;
    c_->send(with_seq(text, seq));
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = c_->receive(Millis(200));
      if (!got || protocol::is_binary_snapshot(*got)) continue;
      auto decoded = protocol::decode_server(*got);
      if (!std::holds_alternative<ServerMessage>(decoded)) continue;
      const auto& msg = std::get<ServerMessage>(decoded);
      if (const auto* a = std::get_if<protocol::Ack>(&msg); a && a->seq == seq) return *a;
      if (const auto* e = std::get_if<protocol::Error>(&msg); e && e->seq == seq) {
        ADD_FAILURE() << text.substr(0, 80) << ": " << protocol::to_string(e->code) << ": "
                      << e->message;
        return {};
      }
    }
    ADD_FAILURE() << "no answer to " << text.substr(0, 80);
    return {};
  }
  // The code the command is refused with.
  protocol::ErrorCode refused(const std::string& text) {
    const std::uint32_t seq = ++seq_;
    c_->send(with_seq(text, seq));
    return wait_for<protocol::Error>(*c_, [&](const auto& e) { return e.seq == seq; }).code;
  }
  // Steps the world `ticks` ticks; the snapshot of the tick it reached.
  protocol::Snapshot step(int ticks) {
    const auto ack = ok(R"({"cmd":"step","ticks":)" + std::to_string(ticks) + "}");
    return wait_for<protocol::Snapshot>(*c_, [&](const auto& s) { return s.tick == ack.tick; });
  }
};

}  // namespace herd::net
