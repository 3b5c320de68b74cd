// herd::net::RequestRate — plain HTTP requests (the viewer's files, /metrics, anything but a
// WebSocket upgrade) per client address: a token bucket per address_key (IPv6 by its /64), so one
// address cannot make the server read files and render /metrics as fast as it can ask. Bounded
// memory whoever asks: at most max_addresses buckets. Any thread. No Boost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "net/limits.hpp"

namespace herd::net {

class RequestRate {
 public:
  static constexpr std::size_t kMaxAddresses = 16384;  // about 2 MB of buckets at most

  // `per_second` requests a second from one address, in bursts of twice that (at least one);
  // 0: no limit (admit() always lets a request through and keeps nothing).
  explicit RequestRate(double per_second, std::size_t max_addresses = kMaxAddresses);

  // One request from `ip` at `now` (seconds on a steady clock): nullopt when it may be served,
  // else the whole seconds (at least 1) until the address may ask again, for Retry-After. A
  // refused request costs the address nothing more.
  std::optional<std::uint32_t> admit(std::string_view ip, double now);

  bool enabled() const { return rate_ > 0; }
  double rate() const { return rate_; }
  double burst() const { return burst_; }
  std::size_t addresses() const;  // buckets kept now

 private:
  // Room for one more address (mutex_ held): forgets full buckets (they hold nothing a new one
  // would not), then, if the table is still over three quarters of the cap (every address busy),
  // the fullest of the rest, which lose the least by starting over. Each sweep leaves a quarter of
  // the cap free, so sweeps cost O(1) a request on average.
  void make_room(double now);

  const double rate_, burst_;
  const std::size_t max_addresses_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, TokenBucket> buckets_;  // by address_key (mutex_)
};

}  // namespace herd::net
