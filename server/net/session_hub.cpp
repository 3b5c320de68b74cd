#include "net/session_hub.hpp"

#include <boost/asio/post.hpp>

#include "net/hub.hpp"
#include "net/relay.hpp"

namespace herd::net {

const ServerConfig& SessionHub::config() const { return hub_->config_at_start; }
std::uint64_t SessionHub::new_session_id() { return hub_->next_session_id++; }
void SessionHub::ws_created() { hub_->admission.ws_created(); }
void SessionHub::ws_destroyed() { hub_->admission.ws_destroyed(); }
void SessionHub::http_created() { hub_->admission.http_created(); }
void SessionHub::http_destroyed() { hub_->admission.http_destroyed(); }
std::size_t SessionHub::http_sessions() const { return hub_->admission.http_connections(); }
std::optional<Refusal> SessionHub::admit(const std::string& ip) { return hub_->admission.admit(ip); }
void SessionHub::release(const std::string& ip) { hub_->admission.release(ip); }

bool SessionHub::stopping() const { return hub_->stopping; }
std::uint64_t SessionHub::tick() const { return hub_->counters.tick.load(); }

void SessionHub::refused(Refusal why, std::string_view who) { hub_->refused(why, who); }
void SessionHub::count_error(protocol::ErrorCode code) { hub_->count_error(code); }
void SessionHub::command_rejected() { ++hub_->counters.commands_rejected; }
void SessionHub::written(std::size_t bytes, bool snapshot) {
  hub_->counters.bytes_out += bytes;
  if (snapshot) ++hub_->counters.snapshots_sent;
}
void SessionHub::snapshot_replaced() { ++hub_->counters.snapshots_replaced; }
void SessionHub::snapshots_superseded(std::size_t n) { hub_->counters.snapshots_superseded += n; }
void SessionHub::observe_reply(Clock::duration d) { hub_->observe.observe_reply(d); }
void SessionHub::log_from(std::string_view who, LogLevel level, std::string_view event,
                          std::initializer_list<LogField> fields) {
  hub_->log_from(who, level, event, fields);
}

SessionHub::Health SessionHub::health() const {
  const std::string tick = std::to_string(hub_->counters.tick.load());
  if (hub_->relaying()) {
    // A relay is healthy while it serves, also while it reconnects upstream (its viewers stay
    // and are told so): the body says which.
    return {200, "{\"status\":\"ok\",\"tick\":" + tick + ",\"upstream\":\"" +
                     (hub_->relay->live ? "connected" : "reconnecting") + "\"}\n"};
  }
  // Healthy while the tick loop keeps to its schedule (within a second).
  const auto behind = hub_->behind();
  const bool late = behind > std::chrono::seconds(1);
  return {late ? 503 : 200, std::string("{\"status\":\"") + (late ? "late" : "ok") + "\",\"tick\":" + tick +
                                ",\"behind_ms\":" + std::to_string(behind.count()) + "}\n"};
}

std::string SessionHub::metrics_text() const { return hub_->metrics_text(); }

void SessionHub::join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard, std::shared_ptr<ViewerInbox> inbox) {
  asio::post(hub_->ioc, [hub = hub_, id, session = std::move(session), shard, inbox = std::move(inbox)] {
    hub->join(id, session, shard, inbox);
  });
}
void SessionHub::leave(std::uint64_t id) {
  asio::post(hub_->ioc, [hub = hub_, id] { hub->leave(id); });
}
void SessionHub::hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format, std::string token,
                       std::string client) {
  asio::post(hub_->ioc, [hub = hub_, id, role, format, token = std::move(token), client = std::move(client)]() mutable {
    if (hub->relaying()) hub->relay_hello(id, role, format, std::move(token), std::move(client));
    else hub->hello(id, role, format);
  });
}
void SessionHub::inspect(std::uint64_t id, std::vector<std::uint32_t> agents) {
  asio::post(hub_->ioc, [hub = hub_, id, agents = std::move(agents)]() mutable { hub->inspect(id, std::move(agents)); });
}
void SessionHub::command(std::uint64_t id, protocol::CommandMsg command, std::string wire) {
  asio::post(hub_->ioc, [hub = hub_, id, command = std::move(command), wire = std::move(wire)]() mutable {
    if (hub->relaying()) hub->relay_forward(id, command.seq, std::move(wire));
    else hub->command(id, command);
  });
}
void SessionHub::control(std::uint64_t id, protocol::ControlMsg control, std::string wire) {
  asio::post(hub_->ioc, [hub = hub_, id, control = std::move(control), wire = std::move(wire)]() mutable {
    if (hub->relaying()) hub->relay_forward(id, control.seq, std::move(wire));
    else hub->control(id, control);
  });
}
void SessionHub::reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close) {
  asio::post(hub_->ioc, [hub = hub_, id, msg = std::move(msg), then_close]() mutable { hub->reply(id, std::move(msg), then_close); });
}
}  // namespace herd::net
