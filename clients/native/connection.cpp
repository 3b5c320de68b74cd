#include "native/connection.hpp"

#include <algorithm>

#include "protocol/codec.hpp"

namespace herd::view {

namespace {
constexpr std::chrono::milliseconds kFirstBackoff{500};
constexpr std::chrono::milliseconds kMaxBackoff{5000};
// Reconnects happen inside the render loop: a short timeout keeps a dead host from freezing the
// window for long (a refused connection fails at once anyway).
constexpr std::chrono::milliseconds kReconnectTimeout{300};
constexpr std::chrono::milliseconds kPingEvery{1000};
// Messages handled per frame at most, so a flood cannot starve drawing.
constexpr int kMaxMessagesPerPoll = 64;
}  // namespace

bool Connection::connect(std::chrono::milliseconds timeout, std::string& error) {
  try {
    ws_.emplace();
    ws_->connect(url_, timeout, tls_);
    binary_.reset();
    protocol::Hello hello{protocol::kProtocolVersion, role_, "herd-view/" HERD_VERSION, token_,
                          format_};
    hello.scale = scale_;
    ws_->send(protocol::encode(hello), timeout);
    connected_ = true;
    ping_pending_ = false;
    next_ping_ = Clock::now();
    return true;
  } catch (const client::ConnectionError& e) {
    ws_.reset();
    connected_ = false;
    error = e.what();
    return false;
  }
}

void Connection::lost(const std::string& why, Clock::time_point now) {
  ws_.reset();
  connected_ = false;
  error_ = why;
  rtt_ms_.reset();
  retry_at_ = now + backoff_;
  backoff_ = std::min(backoff_ * 2, kMaxBackoff);
}

double Connection::retry_in_seconds(Clock::time_point now) const {
  return std::max(0.0, std::chrono::duration<double>(retry_at_ - now).count());
}

std::vector<protocol::ServerMessage> Connection::poll(Clock::time_point now) {
  std::vector<protocol::ServerMessage> out;
  if (!connected_) {
    if (now < retry_at_) return out;
    std::string why;
    if (!connect(kReconnectTimeout, why)) {
      lost(why, Clock::now());
      return out;
    }
  }
  try {
    maybe_ping(now);
    // receive(0) would not pump the socket; 1 ms is the smallest wait that does.
    for (int i = 0; i < kMaxMessagesPerPoll; ++i) {
      auto text = ws_->receive(std::chrono::milliseconds(1));
      if (!text) break;
      if (protocol::is_binary_snapshot(*text)) {
        receive_binary(*text, out);
        continue;
      }
      auto decoded = protocol::decode_server(*text);
      auto* msg = std::get_if<protocol::ServerMessage>(&decoded);
      if (!msg) continue;
      if (std::holds_alternative<protocol::Welcome>(*msg)) backoff_ = kFirstBackoff;
      if (auto* pong = std::get_if<protocol::Pong>(msg)) note_pong(pong->id, Clock::now());
      out.push_back(std::move(*msg));
    }
  } catch (const client::ConnectionError& e) {
    lost(e.what(), now);
  }
  return out;
}

void Connection::receive_binary(const std::string& bytes,
                                std::vector<protocol::ServerMessage>& out) {
  auto got = binary_.receive(bytes);
  if (got.ack)
    ws_->send(protocol::encode(protocol::SnapshotAck{*got.ack}), std::chrono::milliseconds(100));
  if (got.keyframe)
    ws_->send(protocol::encode(protocol::KeyframeRequest{}), std::chrono::milliseconds(100));
  if (!got.frame) return;
  auto snap = protocol::to_snapshot(*got.frame);
  if (auto* s = std::get_if<protocol::Snapshot>(&snap)) out.push_back(std::move(*s));
}

void Connection::maybe_ping(Clock::time_point now) {
  if (ping_pending_ || now < next_ping_) return;
  ws_->send(protocol::encode(protocol::Ping{++ping_id_}), std::chrono::milliseconds(100));
  ping_sent_ = now;
  ping_pending_ = true;
  next_ping_ = now + kPingEvery;
}

void Connection::note_pong(std::uint32_t id, Clock::time_point now) {
  if (!ping_pending_ || id != ping_id_) return;
  ping_pending_ = false;
  rtt_ms_ = std::chrono::duration<double, std::milli>(now - ping_sent_).count();
}

void Connection::send_command(const sim::Command& command) {
  if (!connected_) return;
  try {
    ws_->send(protocol::encode(protocol::CommandMsg{++seq_, command}),
              std::chrono::milliseconds(200));
  } catch (const client::ConnectionError& e) {
    lost(e.what(), Clock::now());
  }
}

}  // namespace herd::view
