// herd on Agones: the game server's side of the Agones SDK, over the sidecar's local REST API
// (http://localhost:${AGONES_SDK_HTTP_PORT}, default 9358): labels for the scenario and the agent
// count, Ready once the world is loaded and the server listens, Health every interval while the
// server's own /healthz says its ticks are on time, and Shutdown after a graceful stop. The
// sidecar may start after the server, so Ready is retried with backoff until it answers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace herd::app {

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
  std::uint16_t port() const { return port_; }

 private:
  bool call(const char* method, const char* path, const std::string& body);
  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
};

// A label value Kubernetes accepts, made from any text.
std::string label_value(const std::string& text);

// What the link reports about the server it runs beside.
struct AgonesServerView {
  std::function<bool()> healthy;          // the server's /healthz answers 200
  std::function<std::string()> scenario;  // the running scenario's name
  std::function<std::uint64_t()> agents;  // its agent count
};

// A thread that marks the game server Ready, then sends Health every `interval` while the
// server is healthy and keeps the labels current. stop() ends it; the caller sends Shutdown
// (AgonesSdk::shutdown) once the server has stopped and written its last checkpoint.
class AgonesLink {
 public:
  AgonesLink(AgonesSdk sdk, AgonesServerView view, std::chrono::milliseconds interval,
             std::function<void(const std::string&)> log);
  ~AgonesLink() { stop(); }
  void stop();

 private:
  void run();
  bool wait(std::chrono::milliseconds d);  // false when stopped meanwhile
  void update_labels();

  AgonesSdk sdk_;
  AgonesServerView view_;
  std::chrono::milliseconds interval_;
  std::function<void(const std::string&)> log_;
  std::string scenario_label_, agents_label_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace herd::app
