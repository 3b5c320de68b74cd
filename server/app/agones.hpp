// herd on Agones: the game server's side of the Agones SDK, over the sidecar's local REST API
// (http://localhost:${AGONES_SDK_HTTP_PORT}, default 9358): labels for the scenario and the agent
// count, Ready once the world is loaded and the server listens, Health every interval while the
// server's own /healthz says its ticks are on time, and Shutdown after a graceful stop. The
// sidecar may start after the server, so Ready is retried with backoff until it answers. With
// players (--players), player tracking (the SDK's alpha API): the capacity is the number of
// players, and each player is reported connected while it has a session and disconnected after.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace herd::app {

// A label value Kubernetes accepts, made from any text.
std::string label_value(const std::string& text);

// The SDK's REST calls; each returns whether the sidecar answered 2xx.
class AgonesSdk {
 public:
  explicit AgonesSdk(std::uint16_t port,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(2000))
      : port_(port), timeout_(timeout) {}
  bool ready() { return call("POST", "/ready", "{}"); }
  bool health() { return call("POST", "/health", "{}"); }
  bool shutdown() { return call("POST", "/shutdown", "{}"); }
  // Agones prefixes the key with "agones.dev/sdk-"; the value is cut to a valid Kubernetes label
  // value (at most 63 of [A-Za-z0-9-_.], starting and ending alphanumeric).
  bool set_label(const std::string& key, const std::string& value);
  // Player tracking (alpha): POST /alpha/player/connect and /disconnect {"playerID": id}, and
  // PUT /alpha/player/capacity {"count": n}. An id is label_value()'s text of the player's name.
  bool player_connect(const std::string& id) { return player_call("/alpha/player/connect", id); }
  bool player_disconnect(const std::string& id) {
    return player_call("/alpha/player/disconnect", id);
  }
  bool set_player_capacity(std::size_t count) {
    return call("PUT", "/alpha/player/capacity", "{\"count\":" + std::to_string(count) + "}");
  }
  std::uint16_t port() const { return port_; }

 private:
  bool call(const char* method, const char* path, const std::string& body);
  bool player_call(const char* path, const std::string& id) {
    return call("POST", path, "{\"playerID\":\"" + label_value(id) + "\"}");
  }
  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
};

// What the link reports about the server it runs beside.
struct AgonesServerView {
  std::function<bool()> healthy;          // the server's /healthz answers 200
  std::function<std::string()> scenario;  // the running scenario's name
  std::function<std::uint64_t()> agents;  // its agent count
  std::size_t player_capacity = 0;        // players configured (0: no player tracking)
};

// Players joining and leaving, from the server's hub thread to the link's (which reports them
// once Ready, at its next wake): never blocks the hub on the sidecar.
class PlayerEvents {
 public:
  void push(const std::string& player, bool joined) {
    const std::lock_guard lock(mutex_);
    events_.push_back({player, joined});
  }
  std::deque<std::pair<std::string, bool>> take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(events_, {});
  }

 private:
  std::mutex mutex_;
  std::deque<std::pair<std::string, bool>> events_;
};

// A thread that marks the game server Ready, then sends Health every `interval` while the
// server is healthy and keeps the labels current. stop() ends it; the caller sends Shutdown
// (AgonesSdk::shutdown) once the server has stopped and written its last checkpoint.
class AgonesLink {
 public:
  AgonesLink(AgonesSdk sdk, AgonesServerView view, std::chrono::milliseconds interval,
             std::function<void(const std::string&)> log,
             std::shared_ptr<PlayerEvents> players = nullptr);
  ~AgonesLink() { stop(); }
  void stop();

 private:
  void run();
  bool wait(std::chrono::milliseconds d);  // false when stopped meanwhile
  void update_labels();
  void report_players();

  AgonesSdk sdk_;
  AgonesServerView view_;
  std::chrono::milliseconds interval_;
  std::function<void(const std::string&)> log_;
  std::string scenario_label_, agents_label_;
  std::shared_ptr<PlayerEvents> players_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace herd::app
