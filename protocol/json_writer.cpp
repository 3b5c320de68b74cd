#include "protocol/json_writer.hpp"

#include <charconv>
#include <cmath>

namespace herd::protocol {

void JsonWriter::key(std::string_view k) {
  string(k);
  out_ += ':';
  first_ = true;  // the value that follows needs no comma
}

void JsonWriter::string(std::string_view s) {
  separator();
  out_ += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (u < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out_ += "\\u00";
          out_ += kHex[u >> 4];
          out_ += kHex[u & 0xf];
        } else {
          out_ += c;  // UTF-8 passes through; callers only pass valid UTF-8
        }
    }
  }
  out_ += '"';
}

void JsonWriter::number(double v) {
  separator();
  if (!std::isfinite(v))
    v = 0.0;  // the wire never carries NaN/inf; the sim asserts they never occur
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  if (res.ec != std::errc{}) {  // beyond 1e60: cannot happen for world values, but stay valid JSON
    res = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, res.ptr);
    return;
  }
  char* end = res.ptr;
  while (end[-1] == '0') --end;
  if (end[-1] == '.') --end;
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  if (text == "-0") text = "0";
  out_ += text;
}

void JsonWriter::integer(std::uint64_t v) {
  separator();
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, res.ptr);
}

void JsonWriter::signed_integer(std::int64_t v) {
  separator();
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, res.ptr);
}

}  // namespace herd::protocol
