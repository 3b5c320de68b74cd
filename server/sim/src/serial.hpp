// herd::sim binary serialisation for checkpoints: little-endian, exact bits for doubles, and a
// reader that never trusts a count (a corrupt file can not make it allocate without bound) and
// turns every problem into a flag rather than an exception. A record is described once, as a
// serialize function over a stream (Save writes it, Load reads it), as the binary snapshot's
// records are.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "herd/sim/types.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void vec(Vec2 v) {
    f64(v.x);
    f64(v.y);
  }
  void tile(TileCoord t) {
    i32(t.x);
    i32(t.y);
  }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void bytes(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }

 private:
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  std::size_t remaining() const { return in_.size() - pos_; }
  void fail() { ok_ = false; }
  std::uint8_t u8() {
    if (pos_ >= in_.size()) {
      ok_ = false;
      return 0;
    }
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{u8()} << (8 * i);
    return v;
  }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  double f64() { return std::bit_cast<double>(u64()); }
  Vec2 vec() {
    const double x = f64();
    return {x, f64()};
  }
  TileCoord tile() {
    const std::int32_t x = i32();
    return {x, i32()};
  }
  bool boolean() { return u8() != 0; }
  std::string bytes() {
    const std::uint64_t n = u64();
    if (n > remaining()) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A count of items of at least `min_item_bytes` each: refused when the rest of the input could
  // not hold them.
  std::size_t count(std::size_t min_item_bytes) {
    const std::uint64_t n = u64();
    if (min_item_bytes > 0 && n > remaining() / min_item_bytes) {
      ok_ = false;
      return 0;
    }
    return static_cast<std::size_t>(n);
  }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// The streams a record's serialize(s, record) runs over. Both take each field by reference, in
// the record's order: Save writes it (and takes const ones), Load reads into it. version() is the
// checkpoint format being written or read, so a field a later format added is read only from
// files that have it; check(c) marks what a loaded record must satisfy (Load fails without it).
class Save {
 public:
  static constexpr bool kLoading = false;
  Save(Writer& w, std::uint32_t version) : w_(w), version_(version) {}
  std::uint32_t version() const { return version_; }
  bool ok() const { return true; }
  void check(bool) {}
  void u8(const std::uint8_t& v) { w_.u8(v); }
  void u32(const std::uint32_t& v) { w_.u32(v); }
  void u64(const std::uint64_t& v) { w_.u64(v); }
  void i32(const std::int32_t& v) { w_.i32(v); }
  void f64(const double& v) { w_.f64(v); }
  void vec(const Vec2& v) { w_.vec(v); }
  void tile(const TileCoord& t) { w_.tile(t); }
  void boolean(const bool& v) { w_.boolean(v); }
  void bytes(std::string_view s) { w_.bytes(s); }
  // A size_t field, kept as 64 bits.
  void size(const std::size_t& v) { w_.u64(v); }
  // The number of items that follow (for records kept as parallel arrays): loading refuses a
  // count the rest of the file could not hold at min_item_bytes an item.
  void count(const std::size_t& n, std::size_t) { w_.u64(n); }
  // An enum as one byte, at most `last` (loading refuses more).
  template <class E>
  void enumeration(const E& e, E) {
    w_.u8(static_cast<std::uint8_t>(e));
  }
  // An enum bounded by its kCount: a kind added to it is readable at once.
  template <class E>
  void enumeration(const E& e) {
    w_.u8(static_cast<std::uint8_t>(e));
  }
  // An optional value: whether it is there, then the value (a default one when absent).
  void optional_vec(const std::optional<Vec2>& o) {
    w_.boolean(o.has_value());
    w_.vec(o.value_or(Vec2{}));
  }
  void optional_tile(const std::optional<TileCoord>& o) {
    w_.boolean(o.has_value());
    w_.tile(o.value_or(TileCoord{}));
  }
  // A container: its size, then each(item) for each item. Loading refuses a size the rest of
  // the file could not hold at min_item_bytes an item.
  template <class C, class Each>
  void items(C& c, std::size_t, Each&& each) {
    w_.u64(c.size());
    for (auto& item : c) each(item);
  }

 private:
  Writer& w_;
  std::uint32_t version_;
};

class Load {
 public:
  static constexpr bool kLoading = true;
  Load(Reader& r, std::uint32_t version) : r_(r), version_(version) {}
  std::uint32_t version() const { return version_; }
  bool ok() const { return r_.ok(); }
  void check(bool c) {
    if (!c) r_.fail();
  }
  void u8(std::uint8_t& v) { v = r_.u8(); }
  void u32(std::uint32_t& v) { v = r_.u32(); }
  void u64(std::uint64_t& v) { v = r_.u64(); }
  void i32(std::int32_t& v) { v = r_.i32(); }
  void f64(double& v) { v = r_.f64(); }
  void vec(Vec2& v) { v = r_.vec(); }
  void tile(TileCoord& t) { t = r_.tile(); }
  void boolean(bool& v) { v = r_.boolean(); }
  void bytes(std::string& s) { s = r_.bytes(); }
  void size(std::size_t& v) { v = static_cast<std::size_t>(r_.u64()); }
  void count(std::size_t& n, std::size_t min_item_bytes) { n = r_.count(min_item_bytes); }
  template <class E>
  void enumeration(E& e, E last) {
    const std::uint8_t v = r_.u8();
    check(v <= static_cast<std::uint8_t>(last));
    e = static_cast<E>(v);
  }
  template <class E>
  void enumeration(E& e) {
    enumeration(e, static_cast<E>(static_cast<std::uint8_t>(E::kCount) - 1));
  }
  void optional_vec(std::optional<Vec2>& o) {
    const bool has = r_.boolean();
    const Vec2 v = r_.vec();
    o = has ? std::optional(v) : std::nullopt;
  }
  void optional_tile(std::optional<TileCoord>& o) {
    const bool has = r_.boolean();
    const TileCoord t = r_.tile();
    o = has ? std::optional(t) : std::nullopt;
  }
  template <class C, class Each>
  void items(C& c, std::size_t min_item_bytes, Each&& each) {
    c.resize(r_.count(min_item_bytes));
    for (auto& item : c) each(item);
  }

 private:
  Reader& r_;
  std::uint32_t version_;
};

template <class S>
concept CheckpointStream = std::same_as<S, Save> || std::same_as<S, Load>;

// FNV-1a 64 of a byte string (the checkpoint's checksum).
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace herd::sim
