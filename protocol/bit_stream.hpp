// herd::protocol bit streams for the binary snapshot format (PROTOCOL.md "Binary snapshots").
//
// Bits are packed least significant first: bit i of the stream is bit (i % 8) of byte i / 8, and
// a field of n bits is written from its least significant bit. Varints are groups of 8 bits
// (7 value bits, least significant group first, and a continuation bit on top), so at a byte
// boundary they are exactly LEB128.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace herd::protocol {

// A varint through any writer with bits(value, count).
template <class Writer>
void write_varint(Writer& w, std::uint64_t v) {
  do {
    const std::uint64_t more = v >= 0x80 ? 1 : 0;
    w.bits((v & 0x7f) | (more << 7), 8);
    v >>= 7;
  } while (v != 0);
}

class BitWriter {
 public:
  // Appends to `out`, whose size is only exact again after flush(): the writer sizes the string
  // ahead of what it has written and stores into it directly.
  explicit BitWriter(std::string& out) : out_(out), pos_(out.size()) {}

  // The low `count` bits of value, count in [0, 56]. Branch-free but for the buffer's growth: the
  // pending bits (fewer than 8) and the new ones are stored as 8 bytes at the write position,
  // which then moves past the whole bytes among them. Inlined: it is called a few times per
  // agent per viewer.
  [[gnu::always_inline]] void bits(std::uint64_t value, unsigned count) {
    if (pos_ + 8 > out_.size()) [[unlikely]]
      grow(0);
    put(out_.data(), pos_, acc_, fill_, value, count);
  }
  [[gnu::always_inline]] void bit(bool b) { bits(b ? 1 : 0, 1); }
  void varint(std::uint64_t v) { write_varint(*this, v); }
  // Writes out every bit so far, padding with zero bits to the next byte, and gives `out` its
  // exact size.
  void flush() {
    out_.resize(pos_);
    if (fill_ > 0) out_.push_back(static_cast<char>(acc_ & 0xff));
    acc_ = 0;
    fill_ = 0;
    pos_ = out_.size();
  }
  // A run of writes with the writer's state in the caller's locals: a hot loop keeps them in
  // registers (the writer's own fields are reloaded after every byte store, which may alias them).
  // Its bits() does not grow the string: the loop checks room() before each record, and when it
  // is short ends the run and starts another, which grows it.
  struct Run {
    char* data;
    std::size_t pos, size;
    std::uint64_t acc;
    unsigned fill;
    // Whether `bytes` more whole bytes fit (each bits() call needs 8 from its position).
    bool room(std::size_t bytes) const { return pos + bytes + 8 <= size; }
    [[gnu::always_inline]] void bits(std::uint64_t value, unsigned count) {  // count in [0, 56]
      put(data, pos, acc, fill, value, count);
    }
  };
  // A run with room for at least `bytes` more (the string grown as bits() grows it).
  Run run(std::size_t bytes) {
    if (pos_ + bytes + 8 > out_.size()) grow(bytes);
    return {out_.data(), pos_, out_.size(), acc_, fill_};
  }
  void end(const Run& r) {
    pos_ = r.pos;
    acc_ = r.acc;
    fill_ = r.fill;
  }
  // Bytes as they are, at the next byte boundary (after flush()'s padding); writing goes on after
  // them.
  void append(std::string_view bytes) {
    flush();
    out_.append(bytes);
    pos_ = out_.size();
  }

 private:
  // Room for `bytes` more past the 8 every store needs, at least doubling.
  void grow(std::size_t bytes) {
    out_.resize(std::max<std::size_t>(2 * out_.size(), pos_ + bytes + 64));
  }
  // One field: the pending bits (fewer than 8) and the new ones are stored as 8 bytes at `pos`,
  // which then moves past the whole bytes among them. `fill` is at most 7 + 56 before the shift,
  // so the shift is at most 56.
  [[gnu::always_inline]] static void put(char* data, std::size_t& pos, std::uint64_t& acc,
                                         unsigned& fill, std::uint64_t value, unsigned count) {
    acc |= (value & ((std::uint64_t{1} << count) - 1)) << fill;
    fill += count;
    store(data + pos, acc);
    pos += fill >> 3;
    acc >>= fill & ~7u;
    fill &= 7;
  }
  // Little-endian whatever the host (compiles to one store on x86 and ARM).
  static void store(char* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
  }

  std::string& out_;
  std::size_t pos_;        // whole bytes written; out_ is at least 8 bytes longer
  std::uint64_t acc_ = 0;  // the pending bits, fewer than 8 between calls
  unsigned fill_ = 0;
};

// Reads what BitWriter wrote. Every read past the end fails (returns false) and leaves the reader
// failed: hostile or truncated input can only make decoding stop.
class BitReader {
 public:
  explicit BitReader(std::string_view data) : data_(data) {}

  bool bits(unsigned count, std::uint32_t& out) {  // count in [0, 32]
    while (fill_ < count) {
      if (next_ >= data_.size()) return fail();
      acc_ |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[next_++])) << fill_;
      fill_ += 8;
    }
    out = static_cast<std::uint32_t>(acc_ & ((std::uint64_t{1} << count) - 1));
    acc_ >>= count;
    fill_ -= count;
    return true;
  }
  bool bit(bool& out) {
    std::uint32_t v = 0;
    if (!bits(1, v)) return false;
    out = v != 0;
    return true;
  }
  bool varint(std::uint64_t& out) {  // at most 10 groups (64 bits)
    out = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      std::uint32_t group = 0;
      if (!bits(8, group)) return false;
      if (shift == 63 && (group & 0x7e) != 0) return fail();  // more than 64 bits
      out |= static_cast<std::uint64_t>(group & 0x7f) << shift;
      if ((group & 0x80) == 0) return true;
    }
    return fail();
  }
  // Skips to the next byte boundary; the bytes from there on are `rest()`.
  void align() {
    acc_ >>= fill_ % 8;
    fill_ -= fill_ % 8;
  }
  // The unread bytes (after align()).
  std::string_view rest() const { return data_.substr(next_ - fill_ / 8); }
  // Consumes n whole bytes after align(); false when fewer remain.
  bool skip_bytes(std::size_t n) {
    if (fill_ != 0) {
      if (rest().size() < n) return fail();
      const std::size_t at = next_ - fill_ / 8;
      acc_ = 0;
      fill_ = 0;
      next_ = at + n;
      return true;
    }
    if (data_.size() - next_ < n) return fail();
    next_ += n;
    return true;
  }
  bool failed() const { return failed_; }

 private:
  bool fail() {
    failed_ = true;
    return false;
  }
  std::string_view data_;
  std::size_t next_ = 0;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
  bool failed_ = false;
};

// Streams for serialize functions (yojimbo's idea): a record is described once, as a function
// template over the stream, and that one description writes it (WriteStream over a BitWriter, or
// over anything with bits/bit/varint) or reads it (ReadStream over a BitReader). Each call takes
// the value by reference: the writer reads it, the reader fills it; every call returns false once
// a read has run past the end, and writes never fail. A function branches on what it wrote or
// read, never on the stream, except to compute values to write (kWriting) or to check and
// derive what was read (kReading).
template <class Out>
class WriteStream {
 public:
  static constexpr bool kWriting = true, kReading = false;
  explicit WriteStream(Out& out) : out_(out) {}
  [[gnu::always_inline]] bool bits(const std::uint32_t& v, unsigned count) {
    out_.bits(v, count);
    return true;
  }
  [[gnu::always_inline]] bool bit(const bool& b) {
    out_.bit(b);
    return true;
  }
  bool varint(const std::uint64_t& v) {
    out_.varint(v);
    return true;
  }

 private:
  Out& out_;
};

class ReadStream {
 public:
  static constexpr bool kWriting = false, kReading = true;
  explicit ReadStream(BitReader& in) : in_(in) {}
  bool bits(std::uint32_t& v, unsigned count) { return in_.bits(count, v); }
  bool bit(bool& b) { return in_.bit(b); }
  bool varint(std::uint64_t& v) { return in_.varint(v); }

 private:
  BitReader& in_;
};

// A field narrower than 32 bits (uint8_t, uint16_t) through a stream, `count` bits of it.
template <class Stream, class T>
[[gnu::always_inline]] inline bool serialize_uint(Stream& s, T& field, unsigned count) {
  std::uint32_t v = field;
  if (!s.bits(v, count)) return false;
  if constexpr (Stream::kReading) field = static_cast<T>(v);
  return true;
}

}  // namespace herd::protocol
