#include "net/limits.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace herd::net {

void TokenBucket::refill(double now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + (now - last_) * rate_);
    last_ = now;
  }
}

bool TokenBucket::take(double now) {
  refill(now);
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

// The host of a Host header or an origin's authority, without its port (an IPv6 address keeps
// its brackets off), lower-case.
std::string host_name(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    return lower(
        authority.substr(1, close == std::string_view::npos ? authority.size() - 1 : close - 1));
  }
  return lower(authority.substr(0, authority.find(':')));
}

bool ip_literal(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool valid_host_entry(std::string_view h) {
  return !h.empty() && h.find_first_of("/?#@ :") == std::string_view::npos;
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

// "a, b, *" -> the lower-case entries; each must be "*" or pass `valid`, else false, `out`
// empty, and `why` names the entry and what it should look like. An empty text is an empty list.
bool parse_list(std::string_view text, std::vector<std::string>& out, std::string& why,
                bool (*valid)(std::string_view), std::string_view should_be) {
  out.clear();
  if (trim(text).empty()) return true;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view entry = trim(text.substr(start, comma - start));
    if (entry != "*" && !valid(entry)) {
      why = "'";  // appended: GCC 12 warns falsely (-Wrestrict) on chained operator+
      why += entry;
      why += "' is not ";
      why += should_be;
      out.clear();
      return false;
    }
    out.push_back(lower(entry));
    start = comma + 1;
  }
  return true;
}

// Whether an allow-list holds `name` (lower-case) or "*".
bool listed(const std::vector<std::string>& allowed, const std::string& name) {
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end() ||
         std::find(allowed.begin(), allowed.end(), "*") != allowed.end();
}

}  // namespace

bool parse_origins(std::string_view text, std::vector<std::string>& out, std::string& why) {
  return parse_list(text, out, why, valid_origin,
                    "an origin like https://example.com or http://localhost:8080 (or *)");
}

bool origin_allowed(const std::vector<std::string>& allowed, std::string_view origin,
                    bool has_origin, std::string_view host) {
  if (!has_origin) return true;
  const std::string o = lower(origin);
  if (listed(allowed, o)) return true;
  const auto scheme_end = o.find("://");
  if (scheme_end == std::string::npos || host.empty()) return false;
  return std::string_view(o).substr(scheme_end + 3) == lower(host);
}

bool parse_hosts(std::string_view text, std::vector<std::string>& out, std::string& why) {
  return parse_list(text, out, why, valid_host_entry,
                    "a host name like game.example (no scheme, port or path; or *)");
}

bool host_allowed(const std::vector<std::string>& allowed, std::string_view host, bool has_host,
                  std::string_view own_name) {
  if (!has_host) return true;
  const std::string name = host_name(trim(host));
  if (name.empty()) return false;
  // An address only as inet_pton reads it: dotted decimal a.b.c.d or a bracketed IPv6 address.
  // 2130706433, 0x7f000001 and 127.1 (which resolvers read as 127.0.0.1) are names here.
  if (ip_literal(name) || name == "localhost" || ends_with(name, ".localhost")) return true;
  // The machine's own name, whole or its first label (what people type for it).
  if (!own_name.empty()) {
    const std::string own = lower(own_name);
    if (name == own || name == own.substr(0, own.find('.'))) return true;
  }
  // Any other name, of one label too, only when listed: a resolver's search domain turns `evil`
  // into evil.corp.example, whose owner can point it at this server (DNS rebinding); a compose
  // service or a Kubernetes Service (`herd`) is listed where it is deployed.
  return listed(allowed, name);
}

std::string address_key(std::string_view ip) {
  const std::string text(ip);
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return text;
  char out[INET6_ADDRSTRLEN] = {};
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    inet_ntop(AF_INET, &v6.s6_addr[12], out, sizeof out);
    return out;
  }
  std::fill(std::begin(v6.s6_addr) + 8, std::end(v6.s6_addr), std::uint8_t{0});
  inet_ntop(AF_INET6, &v6, out, sizeof out);
  return std::string(out) + "/64";
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
