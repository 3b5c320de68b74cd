// herd::sim binary serialisation for checkpoints: little-endian, exact bits for doubles, and a
// reader that never trusts a count (a corrupt file can not make it allocate without bound) and
// turns every problem into a flag rather than an exception.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
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
