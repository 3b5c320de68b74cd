#include "app/agones.hpp"

#include <algorithm>
#include <cctype>

#include "app/http_client.hpp"
#include "exec/thread_pool.hpp"

namespace herd::app {

bool AgonesSdk::call(const char* method, const char* path, const std::string& body) {
  return http_request("127.0.0.1", port_, method, path, body, timeout_).ok();
}

std::string label_value(const std::string& text) {
  std::string v;
  for (char c : text) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (alnum || c == '-' || c == '_' || c == '.')
      v += c;
    else
      v += '_';
    if (v.size() == 63) break;
  }
  auto edge = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; };
  while (!v.empty() && edge(v.front())) v.erase(v.begin());
  while (!v.empty() && edge(v.back())) v.pop_back();
  return v;
}

bool AgonesSdk::set_label(const std::string& key, const std::string& value) {
  // Both are label_value's output or fixed keys: nothing in them needs escaping in JSON.
  return call("PUT", "/metadata/label",
              "{\"key\":\"" + label_value(key) + "\",\"value\":\"" + label_value(value) + "\"}");
}

AgonesLink::AgonesLink(AgonesSdk sdk, AgonesServerView view, std::chrono::milliseconds interval,
                       std::function<void(const std::string&)> log,
                       std::shared_ptr<PlayerEvents> players)
    : sdk_(sdk),
      view_(std::move(view)),
      interval_(interval),
      log_(std::move(log)),
      players_(std::move(players)) {
  thread_ = std::thread([this] { run(); });
  exec::name_thread(thread_, "herd-agones");
}

void AgonesLink::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool AgonesLink::wait(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, d, [this] { return stopping_; });
}

void AgonesLink::update_labels() {
  const std::string scenario = label_value(view_.scenario()),
                    agents = std::to_string(view_.agents());
  if (scenario != scenario_label_ && sdk_.set_label("scenario", scenario))
    scenario_label_ = scenario;
  if (agents != agents_label_ && sdk_.set_label("agents", agents)) agents_label_ = agents;
}

void AgonesLink::run() {
  // Ready, retried with backoff (0.5 s doubling to 5 s): the sidecar may not be up yet.
  std::chrono::milliseconds backoff(500);
  for (bool said = false;; backoff = std::min(backoff * 2, std::chrono::milliseconds(5000))) {
    update_labels();
    if (sdk_.ready()) break;
    if (!said)
      log_("the Agones SDK sidecar on port " + std::to_string(sdk_.port()) +
           " does not answer yet; retrying Ready");
    said = true;
    if (!wait(backoff)) return;
  }
  log_("Agones: Ready");
  if (view_.player_capacity > 0 && !sdk_.set_player_capacity(view_.player_capacity))
    log_("Agones: the sidecar refused the player capacity (is the PlayerTracking feature on?)");
  report_players();
  for (bool was_healthy = true; wait(interval_);) {
    report_players();
    const bool healthy = view_.healthy();
    if (healthy)
      sdk_.health();
    else if (was_healthy)
      log_("Agones: no Health while the server is behind its schedule");
    was_healthy = healthy;
    update_labels();
  }
}

// Each join and leave since the last report, in order (the SDK counts them: a player connected
// twice without a disconnect between would be one, as herd reports only a player's first session
// and its last).
void AgonesLink::report_players() {
  if (!players_) return;
  for (const auto& [player, joined] : players_->take())
    if (!(joined ? sdk_.player_connect(player) : sdk_.player_disconnect(player)))
      log_("Agones: the sidecar did not take player " + label_value(player) +
           (joined ? " connecting" : " leaving"));
}

}  // namespace herd::app
