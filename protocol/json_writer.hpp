// herd::protocol::JsonWriter — appends JSON to a string without building a DOM.
// Used for server messages, the snapshot above all (written once per snapshot for every session).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace herd::protocol {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() {
    separator();
    out_ += '{';
    first_ = true;
  }
  void end_object() {
    out_ += '}';
    first_ = false;
  }
  void begin_array() {
    separator();
    out_ += '[';
    first_ = true;
  }
  void end_array() {
    out_ += ']';
    first_ = false;
  }
  void key(std::string_view k);
  void string(std::string_view s);
  void number(double v);  // fixed, at most 3 decimals, trailing zeros trimmed, no "-0"
  void integer(std::uint64_t v);
  void signed_integer(std::int64_t v);
  void boolean(bool v) {
    separator();
    out_ += v ? "true" : "false";
  }
  void boolean_field(std::string_view k, bool v) {
    key(k);
    boolean(v);
  }
  void null() {
    separator();
    out_ += "null";
  }

  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void value(double v) { number(v); }
  void value(std::uint64_t v) { integer(v); }
  void value(std::uint32_t v) { integer(v); }
  void value(int v) { integer(static_cast<std::uint64_t>(v)); }
  void value(std::uint8_t v) { integer(v); }
  void value(std::string_view v) { string(v); }
  void value(const std::string& v) { string(v); }
  void value(const char* v) { string(v); }
  void separator() {
    if (!first_) out_ += ',';
    first_ = false;
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace herd::protocol
