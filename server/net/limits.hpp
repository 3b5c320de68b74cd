// herd::net's defences against hostile or broken clients, without Beast (unit-tested on their own):
// a token bucket per session, the command token's constant-time comparison, the Origin allow-list,
// and the count of sessions per address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace herd::net {

// Messages per second with bursts: starts full (burst tokens) and refills at `rate` per second.
// Time is passed in (seconds on any monotonic clock), so tests drive it without waiting.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst, double now)
      : rate_(rate), burst_(burst), tokens_(burst), last_(now) {}
  // Takes one token if there is one; false (and nothing taken) when the bucket is empty.
  bool take(double now);
  // Adds what the time since the last look has earned, up to the burst (take() does it first).
  void refill(double now);
  double tokens() const { return tokens_; }
  // Full again: no different from a new bucket, so a table of them may forget it.
  bool full() const { return tokens_ >= burst_; }
  double rate() const { return rate_; }

 private:
  double rate_, burst_, tokens_, last_;
};

// True when a equals b. The time taken depends only on the lengths of b (the secret) and a, never
// on where they differ, so a client cannot find the token one byte at a time.
bool constant_time_equal(std::string_view a, std::string_view secret);

// "https://a.example, http://localhost:8080" -> the list of origins. Each must be
// scheme://host[:port] (no path, no trailing slash), or "*" for any origin; an empty string is an
// empty list (the server's own origin only). On a malformed entry returns false and says which in
// `why`.
bool parse_origins(std::string_view text, std::vector<std::string>& out, std::string& why);

// Whether a WebSocket upgrade may proceed, as Jupyter decides: a request without an Origin header
// comes from a program, not a browser (a browser always sends it), and is let through; a
// browser's must be the server's own origin (its host[:port] is the request's Host, so the page
// came from this server) or on the list (compared without case, as browsers send them
// lower-case), or the list holds "*". Any other page, `null` included, may not command or watch
// from a visitor's browser.
bool origin_allowed(const std::vector<std::string>& allowed, std::string_view origin,
                    bool has_origin, std::string_view host);

// "game.example, herd.internal" -> host names the server answers to besides its own; "*" for
// any. Each a name or address without scheme, port or path. On a malformed entry returns false
// and says which in `why`.
bool parse_hosts(std::string_view text, std::vector<std::string>& out, std::string& why);

// Whether a request's Host header (name[:port]) names this server, against DNS rebinding (a
// page of evil.example whose name now resolves to the server's address): an IP address in its
// canonical form (a.b.c.d, [IPv6]; not 2130706433, 0x7f000001 or 127.1), a loopback name
// (localhost, *.localhost), the machine's own name (`own_name`, whole or its first label), or a
// name on the list (or "*" there). Any other name is refused, one of one label too (`evil`, which
// a search domain makes evil.corp.example). A request without Host (HTTP/1.0) is let through.
bool host_allowed(const std::vector<std::string>& allowed, std::string_view host, bool has_host,
                  std::string_view own_name);

// Whether a WebSocket upgrade's Sec-WebSocket-Key is what RFC 6455 (4.1) asks: a random 16-byte
// nonce in base64, so 24 characters, the last two "==" and the one before them carrying no bits
// beyond the 16 bytes.
bool valid_websocket_key(std::string_view key);

// The key an address is counted under for the per-address limits: an IPv4 address as it is (an
// IPv4-mapped IPv6 one as IPv4), an IPv6 address by its /64 prefix ("2001:db8:1:2::/64"), since
// one subscriber is given a whole /64 and picks addresses in it at will. Text that is no address
// is its own key.
std::string address_key(std::string_view ip);

// Open sessions per remote address, for the per-address limit.
class AddressCounts {
 public:
  // Counts a new session from `address` unless it already has `limit`; false when refused.
  bool try_add(const std::string& address, std::size_t limit);
  void remove(const std::string& address);
  std::size_t count(const std::string& address) const;
  std::size_t addresses() const { return counts_.size(); }

 private:
  std::unordered_map<std::string, std::size_t> counts_;
};

}  // namespace herd::net
