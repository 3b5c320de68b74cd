// Internal to herd::protocol: the strict field readers both codecs are built from.
// Readers throw FieldError, which only decode_with() catches: the readers stay short and every
// failure names its field. Nothing here is part of the public interface.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "herd/sim/types.hpp"
#include "protocol/command_table.hpp"
#include "protocol/messages.hpp"

namespace herd::protocol::detail {

using nlohmann::json;

struct FieldError {
  ErrorCode code;
  std::string message;
};

[[noreturn]] void fail(ErrorCode code, std::string message);
[[noreturn]] void bad(const std::string& where, const std::string& what);

inline constexpr double kHuge = 1e9;  // coordinates: finite and sane here; the world checks bounds

// Reads the fields of one JSON object, remembering which it read, so that any other field can be
// refused (PROTOCOL.md: unknown fields get bad_field).
class Fields {
 public:
  Fields(const json& j, std::string path);
  const json* find(const char* key);
  const json& need(const char* key);
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  void no_others() const;  // call after reading every known field

  // The fields' declarations (a command's in the command table, or a list's items): the readers
  // below take each field's range and choices from them.
  void declared_by(const std::vector<FieldSpec>* specs) { specs_ = specs; }
  const FieldSpec& spec(const char* key) const;
  // `v`, the value of field `key`: a number in its declared range (min_exclusive: above min);
  // an integer in it; the index of one of its declared choices.
  double number(const json& v, const char* key) const;
  std::uint64_t integer(const json& v, const char* key) const;
  std::size_t choice(const json& v, const char* key) const;
  // The declared choice `v` names, as the table writes it.
  std::string_view chosen(const json& v, const char* key) const {
    return spec(key).choices[choice(v, key)];
  }
  // The same, of a field that must be given.
  double number(const char* key) { return number(need(key), key); }
  std::uint64_t integer(const char* key) { return integer(need(key), key); }
  std::size_t choice(const char* key) { return choice(need(key), key); }
  std::string_view chosen(const char* key) { return chosen(need(key), key); }

 private:
  const json& j_;
  std::string path_;
  std::vector<const char*> read_;
  const std::vector<FieldSpec>* specs_ = nullptr;
};

// A declared integer bound as an integer (a double of 2^64 or more: 2^64 - 1).
std::uint64_t integer_bound(double bound);
std::uint64_t as_uint(const json& v, const std::string& where, std::uint64_t max);
std::uint32_t as_u32(const json& v, const std::string& where);
std::uint8_t as_group(const json& v, const std::string& where);
double as_number(const json& v, const std::string& where, double lo, double hi);
std::string_view as_string(const json& v, const std::string& where);
bool as_bool(const json& v, const std::string& where);
sim::Vec2 as_point(const json& v, const std::string& where);
std::vector<std::uint32_t> as_ids(const json& v, const std::string& where, std::size_t max);

// A tile map's fields (width, height, tile_size, rows), as load_map, welcome and snapshots carry
// them: rows of '#' (blocked) and '.' (walkable), checked against the sizes and TileMapLimits.
MapState read_map(Fields& f);
sim::TileMapDef to_tile_map_def(const MapState& m);
// A snapshot's `density` (density.cpp): every cell covered once, one speed per occupied cell.
DensityLayer read_density(const json& v, const std::string& where);

// Parses text into a JSON object: bad_json for what is not one, too_deep for one that nests deeper
// than max_depth levels (the outermost object is level 1).
json parse_object(std::string_view text, int max_depth);
std::string_view read_type(Fields& f);

// Runs read_body(fields, type, seq) on the parsed text and turns every failure into an Error.
template <class Result, class ReadBody>
std::variant<Result, Error> decode_with(std::string_view text, int max_depth,
                                        ReadBody&& read_body) {
  std::optional<std::uint32_t> seq;
  try {
    const json j = parse_object(text, max_depth);
    Fields f(j, "");
    const std::string_view type = read_type(f);
    Result m = read_body(f, type, seq);
    f.no_others();
    return m;
  } catch (const FieldError& e) {
    return Error{seq, e.code, e.message};
  } catch (const std::exception& e) {
    // A reader bug must not take the server down: report it as the client's bad message.
    return Error{seq, ErrorCode::bad_json, std::string("could not decode: ") + e.what()};
  }
}

}  // namespace herd::protocol::detail
