#include "net/session_hub.hpp"

#include <boost/asio/post.hpp>

#include "net/admission.hpp"
#include "net/hub.hpp"
#include "net/observability.hpp"
#include "net/request_rate.hpp"
#include "net/world_source.hpp"

namespace herd::net {

const ServerConfig& SessionHub::config() const { return parts_->config; }
std::uint64_t SessionHub::new_session_id() { return parts_->next_session_id++; }
void SessionHub::ws_created() { parts_->admission.ws_created(); }
void SessionHub::ws_destroyed() { parts_->admission.ws_destroyed(); }
void SessionHub::http_created() { parts_->admission.http_created(); }
void SessionHub::http_destroyed() { parts_->admission.http_destroyed(); }
std::size_t SessionHub::http_sessions() const { return parts_->admission.http_connections(); }
std::optional<Refusal> SessionHub::admit(const std::string& ip) {
  return parts_->admission.admit(ip);
}
void SessionHub::release(const std::string& ip) { parts_->admission.release(ip); }
bool SessionHub::take_place(bool token_holder) {
  return parts_->admission.take_place(token_holder);
}
void SessionHub::leave(bool token_holder) { parts_->admission.leave(token_holder); }
std::optional<std::uint32_t> SessionHub::admit_request(const std::string& ip, double now) {
  return parts_->http_rate.admit(ip, now);
}
bool SessionHub::may_try_token(const std::string& ip, double now) {
  return parts_->admission.may_try_token(ip, now);
}
void SessionHub::token_failed(const std::string& ip, double now) {
  parts_->admission.token_failed(ip, now);
}

bool SessionHub::stopping() const { return parts_->stopping; }
std::uint64_t SessionHub::tick() const { return parts_->observe.counters().tick.load(); }

void SessionHub::refused(Refusal why, std::string_view who) { parts_->observe.refused(why, who); }
void SessionHub::count_error(protocol::ErrorCode code) { parts_->observe.count_error(code); }
void SessionHub::command_rejected() { ++parts_->observe.counters().commands_rejected; }
void SessionHub::written(std::size_t bytes, bool snapshot) {
  auto& counters = parts_->observe.counters();
  counters.bytes_out += bytes;
  if (snapshot) ++counters.snapshots_sent;
}
void SessionHub::snapshot_replaced() { ++parts_->observe.counters().snapshots_replaced; }
void SessionHub::welcome_replaced() { ++parts_->observe.counters().welcomes_replaced; }
void SessionHub::snapshots_superseded(std::size_t n) {
  parts_->observe.counters().snapshots_superseded += n;
}
void SessionHub::observe_reply(Clock::duration d) { parts_->observe.observe_reply(d); }
void SessionHub::log_from(std::string_view who, LogLevel level, std::string_view event,
                          std::initializer_list<LogField> fields) {
  parts_->observe.log_from(who, level, event, fields);
}

Health SessionHub::health() const { return parts_->source.health(); }

std::string SessionHub::metrics_text() const { return parts_->metrics_text(); }

void SessionHub::join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard,
                      std::shared_ptr<ViewerInbox> inbox,
                      std::shared_ptr<const SessionStats> stats) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id, session = std::move(session), shard,
                               inbox = std::move(inbox), stats = std::move(stats)]() mutable {
    hub->join(id, session, shard, std::move(inbox), std::move(stats));
  });
}
void SessionHub::leave(std::uint64_t id) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id] { hub->leave(id); });
}
void SessionHub::hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format,
                       std::string token, std::string client, std::uint8_t team, std::string player,
                       bool says_operator) {
  asio::post(parts_->hub_ioc,
             [hub = &parts_->hub, id,
              hello = WorldSource::Hello{role, format, std::move(token), std::move(client), team,
                                         std::move(player), says_operator}]() mutable {
               hub->hello(id, std::move(hello));
             });
}
void SessionHub::inspect(std::uint64_t id, std::vector<std::uint32_t> agents) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id, agents = std::move(agents)]() mutable {
    hub->inspect(id, std::move(agents));
  });
}
void SessionHub::density(std::uint64_t id, bool on) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id, on] { hub->density(id, on); });
}
void SessionHub::sessions(std::uint64_t id, std::uint32_t seq) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id, seq] { hub->sessions(id, seq); });
}
void SessionHub::command(std::uint64_t id, protocol::CommandMsg command) {
  asio::post(parts_->hub_ioc,
             [hub = &parts_->hub, id, command = std::move(command)] { hub->command(id, command); });
}
void SessionHub::control(std::uint64_t id, protocol::ControlMsg control) {
  asio::post(parts_->hub_ioc,
             [hub = &parts_->hub, id, control = std::move(control)] { hub->control(id, control); });
}
void SessionHub::reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close) {
  asio::post(parts_->hub_ioc, [hub = &parts_->hub, id, msg = std::move(msg), then_close]() mutable {
    hub->reply(id, std::move(msg), then_close);
  });
}

}  // namespace herd::net
