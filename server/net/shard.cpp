#include "net/shard.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

#include "net/http_session.hpp"
#include "net/websocket_session.hpp"

namespace herd::net {
namespace {

constexpr auto kSweepPeriod = std::chrono::milliseconds(250);  // slow-consumer and close checks

}  // namespace

template <class K, class T>
std::vector<std::shared_ptr<T>> Shard::alive(const std::unordered_map<K, std::weak_ptr<T>>& from) {
  std::vector<std::shared_ptr<T>> out;
  out.reserve(from.size());
  for (auto& [key, weak] : from)
    if (auto s = weak.lock()) out.push_back(std::move(s));
  return out;
}

void Shard::add(std::uint64_t id, std::weak_ptr<WsSession> session) {
  const std::lock_guard lock(mutex);
  ws[id] = std::move(session);
}

void Shard::remove_ws(std::uint64_t id) {
  const std::lock_guard lock(mutex);
  ws.erase(id);
}

void Shard::add(HttpSession* key, std::weak_ptr<HttpSession> session) {
  const std::lock_guard lock(mutex);
  http[key] = std::move(session);
}

void Shard::remove_http(HttpSession* key) {
  const std::lock_guard lock(mutex);
  http.erase(key);
}

void Shard::sweep() {
  const auto now = Clock::now();
  // Copied under the lock, swept without it: a dropped session may end meanwhile.
  std::vector<std::shared_ptr<WsSession>> sessions;
  {
    const std::lock_guard lock(mutex);
    sessions = alive(ws);
  }
  for (auto& s : sessions) s->sweep(now);
  sessions.clear();
  sweep_timer.expires_after(kSweepPeriod);
  sweep_timer.async_wait([this](beast::error_code ec) {
    if (!ec) sweep();
  });
}

std::size_t Shard::deliver(std::uint64_t snapshot, std::vector<Delivery> frames) {
  const auto added = outbox.add(snapshot, std::move(frames));
  if (added.post) asio::post(ioc, [this] { hand_to_sessions(); });
  return added.skipped;
}

void Shard::deliver(Delivery message) {
  if (outbox.add_message(std::move(message))) asio::post(ioc, [this] { hand_to_sessions(); });
}

void Shard::hand_to_sessions() {
  auto taken = outbox.take(kFramesPerTurn);
  for (Delivery& d : taken.messages) {
    const auto s = d.session.lock();
    if (!s) continue;
    switch (d.kind) {
      case Delivery::Kind::reply:
        s->on_reply(std::move(d.frame), d.then_close);
        break;
      case Delivery::Kind::new_world:
        s->on_new_world(std::move(d.frame), std::move(d.tail));
        break;
      case Delivery::Kind::welcome:
        s->send_welcome(std::move(d.frame), std::move(d.tail));
        break;
      case Delivery::Kind::kick:
        s->kick();
        break;
      default:
        s->send_control(std::move(d.frame));
        break;
    }
  }
  for (Delivery& d : taken.frames)
    if (auto s = d.session.lock())
      s->send_snapshot(std::move(d.frame), d.binary, std::move(d.tail));
  if (taken.more) asio::post(ioc, [this] { hand_to_sessions(); });
}

void Shard::take_refused(tcp::socket socket, Refusal why, SessionHub hub) {
  std::erase_if(refused, [](const std::weak_ptr<HttpSession>& w) { return w.expired(); });
  if (refused.size() >= kHealthDesk) {
    const auto oldest = std::find_if(refused.begin(), refused.end(), [](const auto& w) {
      const auto s = w.lock();
      return s && s->waiting();
    });
    if (oldest == refused.end()) return answer_busy(socket, why);
    if (const auto s = oldest->lock()) s->evict();
    refused.erase(oldest);
  }
  auto session = std::make_shared<HttpSession>(std::move(socket), hub, *this, why);
  refused.push_back(session);
  session->run();
}

void Shard::close_all() {
  sweep_timer.cancel();
  std::vector<std::shared_ptr<WsSession>> sessions;
  std::vector<std::shared_ptr<HttpSession>> https;
  {
    const std::lock_guard lock(mutex);
    sessions = alive(ws);
    https = alive(http);
  }
  for (auto& s : sessions) s->close_after_flush(websocket::close_code::going_away);
  for (auto& h : https) h->close();
}

}  // namespace herd::net
