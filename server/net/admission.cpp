#include "net/admission.hpp"

#include <sys/resource.h>

namespace herd::net {
namespace {

constexpr std::size_t kReservedDescriptors = 64;  // for files, timers and the like, not connections

}  // namespace

std::optional<std::uint64_t> Admission::fit_descriptor_limit() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0) return std::nullopt;
  if (files.rlim_cur < files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  }
  if (files.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const std::size_t usable =
      files.rlim_cur > kReservedDescriptors ? files.rlim_cur - kReservedDescriptors : 1;
  if (usable >= max_connections_) return std::nullopt;
  max_connections_ = usable;
  return files.rlim_cur;
}

bool Admission::add_connection(const std::string& ip) {
  const std::lock_guard lock(mutex_);
  return connections_per_address_.try_add(address_key(ip), max_connections_per_address());
}

void Admission::remove_connection(const std::string& ip) {
  const std::lock_guard lock(mutex_);
  connections_per_address_.remove(address_key(ip));
}

std::optional<Refusal> Admission::admit(const std::string& ip) {
  const std::lock_guard lock(mutex_);
  if (welcomed_ >= max_sessions_) return Refusal::sessions;
  if (!per_address_.try_add(address_key(ip), max_sessions_per_address_))
    return Refusal::sessions_per_address;
  return std::nullopt;
}

void Admission::release(const std::string& ip) {
  const std::lock_guard lock(mutex_);
  per_address_.remove(address_key(ip));
}

bool Admission::take_place(bool token_holder) {
  const std::lock_guard lock(mutex_);
  if (welcomed_ >= max_sessions_) return false;
  if (!token_holder && anonymous_ >= max_anonymous_) return false;
  ++welcomed_;
  if (!token_holder) ++anonymous_;
  return true;
}

void Admission::leave(bool token_holder) {
  const std::lock_guard lock(mutex_);
  --welcomed_;
  if (!token_holder) --anonymous_;
}

bool Admission::may_try_token(const std::string& ip, double now) {
  const std::lock_guard lock(mutex_);
  const auto it = guesses_.find(address_key(ip));  // an IPv6 client guesses from its whole /64
  if (it == guesses_.end()) return true;
  TokenBucket probe = it->second;  // looked at, not spent: a right token costs nothing
  return probe.take(now);
}

void Admission::token_failed(const std::string& ip, double now) {
  const std::string key = address_key(ip);
  const std::lock_guard lock(mutex_);
  if (guesses_.size() >= kMaxGuessers && !guesses_.contains(key)) {
    std::erase_if(guesses_, [now](auto& entry) {
      TokenBucket b = entry.second;
      b.take(now);  // refills it to now
      return b.tokens() + 1 >= kTokenGuessBurst;
    });
    if (guesses_.size() >= kMaxGuessers) guesses_.clear();  // all guessing now: start again
  }
  auto it = guesses_.try_emplace(key, kTokenGuessRate, kTokenGuessBurst, now).first;
  it->second.take(now);
}

}  // namespace herd::net
