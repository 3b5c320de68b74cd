#include "net/request_rate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace herd::net {

RequestRate::RequestRate(double per_second, std::size_t max_addresses)
    : rate_(std::max(per_second, 0.0)),
      burst_(std::max(2 * rate_, 1.0)),
      max_addresses_(std::max<std::size_t>(max_addresses, 4)) {}

std::optional<std::uint32_t> RequestRate::admit(std::string_view ip, double now) {
  if (!enabled()) return std::nullopt;
  std::string key = address_key(ip);
  const std::lock_guard lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_addresses_) make_room(now);
    it = buckets_.try_emplace(std::move(key), rate_, burst_, now).first;
  }
  TokenBucket& bucket = it->second;
  if (bucket.take(now)) return std::nullopt;
  // Until the bucket holds a whole token again, rounded up: asking sooner is refused again.
  const double wait = std::ceil((1.0 - bucket.tokens()) / rate_);
  return static_cast<std::uint32_t>(std::clamp(wait, 1.0, 86400.0));
}

std::size_t RequestRate::addresses() const {
  const std::lock_guard lock(mutex_);
  return buckets_.size();
}

void RequestRate::make_room(double now) {
  for (auto& [key, bucket] : buckets_) bucket.refill(now);
  std::erase_if(buckets_, [](const auto& entry) { return entry.second.full(); });
  const std::size_t keep = max_addresses_ * 3 / 4;
  if (buckets_.size() <= keep) return;
  using Entry = decltype(buckets_)::iterator;
  std::vector<Entry> entries;
  entries.reserve(buckets_.size());
  for (auto it = buckets_.begin(); it != buckets_.end(); ++it) entries.push_back(it);
  const std::size_t drop = buckets_.size() - keep;
  std::nth_element(
      entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(drop), entries.end(),
      [](const Entry& a, const Entry& b) { return a->second.tokens() > b->second.tokens(); });
  for (std::size_t i = 0; i < drop; ++i) buckets_.erase(entries[i]);
}

}  // namespace herd::net
