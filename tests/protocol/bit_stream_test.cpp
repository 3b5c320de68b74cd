// The bit writer against a plain bit-by-bit reference: the same bytes for any mix of field widths
// (up to the writer's 56), runs (BitWriter::Run), varints and byte-aligned appends; and the reader
// reads them back.
#include "protocol/bit_stream.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace herd::protocol {
namespace {

// One bit at a time, least significant first: what PROTOCOL.md says, written the slow way.
struct ReferenceWriter {
  std::string out;
  unsigned fill = 0;  // bits used in out.back()
  void bits(std::uint64_t v, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      if (fill % 8 == 0) out.push_back('\0'), fill = 0;
      out.back() = static_cast<char>(out.back() | (((v >> i) & 1) << fill));
      ++fill;
    }
  }
  void align() { fill = 0; }
};

TEST(BitStream, TheWriterWritesWhatTheReferenceWritesAndTheReaderReadsIt) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::string out = "prefix";  // the writer appends to what is there
    BitWriter w(out);
    ReferenceWriter ref;
    ref.out = "prefix";
    struct Field {
      std::uint64_t value;
      unsigned count;  // 0xff: an appended string of `value` bytes
    };
    std::vector<Field> fields;
    const int n = static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      const unsigned kind = static_cast<unsigned>(rng() % 20);
      if (kind == 0) {
        const std::size_t len = rng() % 5;
        const std::string bytes(len, static_cast<char>('a' + len));
        w.append(bytes);
        ref.align();
        ref.out += bytes;
        fields.push_back({len, 0xff});
        continue;
      }
      if (kind == 1) {
        // A run, as a frame's hot loop writes it: room checked before each field, a new run
        // (which grows the string) when short; then plain writes carry on after it.
        BitWriter::Run run = w.run(8);
        for (int m = static_cast<int>(rng() % 100); m > 0; --m) {
          if (!run.room(8)) {
            w.end(run);
            run = w.run(8);
          }
          const unsigned count = static_cast<unsigned>(rng() % 57);
          const std::uint64_t value = rng();
          run.bits(value, count);
          ref.bits(value, count);
          fields.push_back({value & ((std::uint64_t{1} << count) - 1), count});
        }
        w.end(run);
        continue;
      }
      const unsigned count = static_cast<unsigned>(rng() % 57);
      const std::uint64_t value = rng();  // bits above count must be ignored
      w.bits(value, count);
      ref.bits(value, count);
      fields.push_back({value & ((std::uint64_t{1} << count) - 1), count});
    }
    w.flush();
    ASSERT_EQ(out, ref.out) << "round " << round;
    BitReader r(std::string_view(out).substr(6));
    for (const Field& f : fields) {
      if (f.count == 0xff) {
        r.align();
        ASSERT_TRUE(r.skip_bytes(f.value));
        continue;
      }
      std::uint32_t lo = 0, hi = 0;
      ASSERT_TRUE(r.bits(std::min(f.count, 32u), lo));
      ASSERT_TRUE(r.bits(f.count > 32 ? f.count - 32 : 0, hi));
      ASSERT_EQ(lo | (static_cast<std::uint64_t>(hi) << 32), f.value);
    }
  }
}

TEST(BitStream, VarintsAreLeb128AtAByteBoundary) {
  std::string out;
  BitWriter w(out);
  w.varint(0);
  w.varint(127);
  w.varint(128);
  w.varint(300);
  w.flush();
  EXPECT_EQ(out, std::string("\x00\x7f\x80\x01\xac\x02", 6));
}

}  // namespace
}  // namespace herd::protocol
