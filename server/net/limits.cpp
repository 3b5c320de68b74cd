#include "net/limits.hpp"

#include <algorithm>
#include <cctype>

namespace herd::net {

bool TokenBucket::take(double now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + (now - last_) * rate_);
    last_ = now;
  }
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

bool constant_time_equal(std::string_view a, std::string_view secret) {
  // Walks the whole secret whatever a holds; volatile keeps the compiler from stopping early.
  volatile unsigned char diff = a.size() == secret.size() ? 0 : 1;
  for (std::size_t i = 0; i < secret.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ static_cast<unsigned char>(secret[i])));
  }
  return diff == 0;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool valid_origin(std::string_view o) {
  const auto scheme_end = o.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return false;
  const std::string_view host = o.substr(scheme_end + 3);
  if (host.empty() || host.find_first_of("/?#@ ") != std::string_view::npos) return false;
  return std::all_of(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(scheme_end), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

}  // namespace

bool parse_origins(std::string_view text, std::vector<std::string>& out, std::string& why) {
  out.clear();
  if (trim(text).empty()) return true;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view entry = trim(text.substr(start, comma - start));
    if (!valid_origin(entry)) {
      why = "'";  // appended: GCC 12 warns falsely (-Wrestrict) on chained operator+
      why += entry;
      why += "' is not an origin like https://example.com or http://localhost:8080";
      out.clear();
      return false;
    }
    out.push_back(lower(entry));
    start = comma + 1;
  }
  return true;
}

bool origin_allowed(const std::vector<std::string>& allowed, std::string_view origin,
                    bool has_origin) {
  if (allowed.empty() || !has_origin) return true;
  const std::string o = lower(origin);
  return std::find(allowed.begin(), allowed.end(), o) != allowed.end();
}

bool AddressCounts::try_add(const std::string& address, std::size_t limit) {
  std::size_t& n = counts_[address];
  if (n >= limit) {
    if (n == 0) counts_.erase(address);
    return false;
  }
  ++n;
  return true;
}

void AddressCounts::remove(const std::string& address) {
  const auto it = counts_.find(address);
  if (it == counts_.end()) return;
  if (--it->second == 0) counts_.erase(it);
}

std::size_t AddressCounts::count(const std::string& address) const {
  const auto it = counts_.find(address);
  return it == counts_.end() ? 0 : it->second;
}

bool valid_websocket_key(std::string_view key) {
  static constexpr std::string_view kBase64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (std::size_t i = 0; i < 22; ++i)
    if (kBase64.find(key[i]) == std::string_view::npos) return false;
  return (kBase64.find(key[21]) & 15) == 0;  // the last 4 bits are padding
}

}  // namespace herd::net
