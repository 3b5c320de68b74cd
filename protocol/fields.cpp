#include "protocol/fields.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <sstream>

namespace herd::protocol::detail {

void fail(ErrorCode code, std::string message) { throw FieldError{code, std::move(message)}; }
void bad(const std::string& where, const std::string& what) {
  fail(ErrorCode::bad_field, "'" + where + "' " + what);
}

Fields::Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) bad(path_.empty() ? "message" : path_, "must be an object");
}

const json* Fields::find(const char* key) {
  read_.push_back(key);
  auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

const json& Fields::need(const char* key) {
  const json* v = find(key);
  if (!v) bad(name(key), "is required");
  return *v;
}

void Fields::no_others() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    bool known = false;
    for (const char* k : read_) known = known || it.key() == k;
    if (!known) bad(name(it.key().c_str()), "is not a known field");
  }
}

std::uint64_t integer_bound(double bound) {
  // 2^64 - 1 is not a double: the nearest, 2^64, stands for it.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (bound >= kTwoTo64) return std::numeric_limits<std::uint64_t>::max();
  return bound <= 0 ? 0 : static_cast<std::uint64_t>(bound);
}

const FieldSpec& Fields::spec(const char* key) const {
  const FieldSpec* s = specs_ ? find_field(*specs_, key) : nullptr;
  assert(s && "a reader reads a field the command table does not declare");
  if (!s) fail(ErrorCode::bad_json, "could not decode: '" + name(key) + "' has no declaration");
  return *s;
}

double Fields::number(const json& v, const char* key) const {
  const FieldSpec& s = spec(key);
  const double lo = s.min.value_or(-kHuge), hi = s.max.value_or(kHuge);
  const double d = as_number(v, name(key), lo, hi);
  if (s.min_exclusive && !(d > lo)) {
    std::ostringstream os;
    os << "must be above " << lo << " (at most " << hi << ")";
    bad(name(key), os.str());
  }
  return d;
}

std::uint64_t Fields::integer(const json& v, const char* key) const {
  const FieldSpec& s = spec(key);
  const std::uint64_t hi = integer_bound(s.max.value_or(std::numeric_limits<std::uint32_t>::max()));
  const std::uint64_t lo = integer_bound(s.min.value_or(0));
  const std::uint64_t u = as_uint(v, name(key), hi);
  if (u < lo)
    bad(name(key), s.max ? "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"
                         : "must be " + std::to_string(lo) + " or more");
  return u;
}

std::size_t Fields::choice(const json& v, const char* key) const {
  const FieldSpec& s = spec(key);
  // The refusal names every choice; written only when there is one to make.
  const auto refuse = [&]() {
    std::string must = s.choices.size() > 2 ? "must be one of " : "must be ";
    for (std::size_t i = 0; i < s.choices.size(); ++i) {
      must += i == 0 ? "" : i + 1 == s.choices.size() ? " or " : ", ";
      must += s.numeric_choices ? std::string(s.choices[i]) : '"' + std::string(s.choices[i]) + '"';
    }
    bad(name(key), must);
  };
  std::string given;
  if (s.numeric_choices) {
    if (!v.is_number_unsigned()) refuse();
    given = std::to_string(v.get<std::uint64_t>());
  } else {
    given = std::string(as_string(v, name(key)));
  }
  for (std::size_t i = 0; i < s.choices.size(); ++i)
    if (s.choices[i] == given) return i;
  refuse();
  return 0;  // not reached: refuse() throws
}

std::uint64_t as_uint(const json& v, const std::string& where, std::uint64_t max) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= max) return u;
  } else if (!v.is_number_integer()) {
    bad(where, "must be an integer");
  }
  bad(where, "must be in [0, " + std::to_string(max) + "]");
}

std::uint32_t as_u32(const json& v, const std::string& where) {
  return static_cast<std::uint32_t>(as_uint(v, where, std::numeric_limits<std::uint32_t>::max()));
}

std::uint8_t as_group(const json& v, const std::string& where) {
  return static_cast<std::uint8_t>(as_uint(v, where, 255));
}

double as_number(const json& v, const std::string& where, double lo, double hi) {
  if (!v.is_number()) bad(where, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) bad(where, "must be finite");
  if (d < lo || d > hi) {
    std::ostringstream os;
    os << "must be in [" << lo << ", " << hi << "]";
    bad(where, os.str());
  }
  return d;
}

std::string_view as_string(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "must be a string");
  return v.get_ref<const std::string&>();
}

bool as_bool(const json& v, const std::string& where) {
  if (!v.is_boolean()) bad(where, "must be true or false");
  return v.get<bool>();
}

sim::Vec2 as_point(const json& v, const std::string& where) {
  Fields f(v, where);
  sim::Vec2 p{as_number(f.need("x"), f.name("x"), -kHuge, kHuge),
              as_number(f.need("y"), f.name("y"), -kHuge, kHuge)};
  f.no_others();
  return p;
}

std::vector<std::uint32_t> as_ids(const json& v, const std::string& where, std::size_t max) {
  if (!v.is_array() || v.size() > max)
    bad(where, "must be an array of at most " + std::to_string(max) + " ids");
  std::vector<std::uint32_t> ids;
  ids.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    ids.push_back(as_u32(v[i], where + "[" + std::to_string(i) + "]"));
  return ids;
}

MapState read_map(Fields& f) {
  using L = sim::TileMapLimits;
  MapState m;
  m.width = static_cast<std::int32_t>(as_uint(f.need("width"), f.name("width"), L::kMaxSide));
  m.height = static_cast<std::int32_t>(as_uint(f.need("height"), f.name("height"), L::kMaxSide));
  if (m.width < 1 || m.height < 1) bad(f.name("width"), "and 'height' must be at least 1 tile");
  m.tile_size =
      as_number(f.need("tile_size"), f.name("tile_size"), L::kMinTileSize, L::kMaxTileSize);
  const json& rows = f.need("rows");
  if (!rows.is_array())
    bad(f.name("rows"), "must be an array of 'height' (" + std::to_string(m.height) + ") strings");
  // Well-typed rows that do not make the map the message describes: a map's error, not a field's.
  if (rows.size() != static_cast<std::size_t>(m.height))
    fail(ErrorCode::bad_map, "'" + f.name("rows") + "' has " + std::to_string(rows.size()) +
                                 " rows, expected 'height' (" + std::to_string(m.height) + ")");
  m.rows.reserve(rows.size());
  for (std::size_t y = 0; y < rows.size(); ++y) {
    const std::string where = f.name("rows") + "[" + std::to_string(y) + "]";
    const std::string_view row = as_string(rows[y], where);
    if (row.size() != static_cast<std::size_t>(m.width))
      fail(ErrorCode::bad_map, "'" + where + "' has " + std::to_string(row.size()) +
                                   " tiles, expected 'width' (" + std::to_string(m.width) + ")");
    if (row.find_first_not_of(".#") != std::string_view::npos)
      fail(ErrorCode::bad_map, "'" + where + "' may hold only '.' (walkable) and '#' (blocked)");
    m.rows.emplace_back(row);
  }
  return m;
}

sim::TileMapDef to_tile_map_def(const MapState& m) {
  sim::TileMapDef d;
  d.width = m.width;
  d.height = m.height;
  d.tile_size = m.tile_size;
  d.cells.reserve(static_cast<std::size_t>(m.width) * static_cast<std::size_t>(m.height));
  for (const std::string& row : m.rows)
    for (char c : row) d.cells.push_back(c == '#' ? sim::kBlocked : sim::kWalkable);
  return d;
}

json parse_object(std::string_view text, int max_depth) {
  bool too_deep = false;
  // nlohmann passes a container's start event the depth of its parent (0 for the outermost): a
  // container starting at depth max_depth would be level max_depth + 1.
  json::parser_callback_t depth_guard = [&too_deep, max_depth](int depth, json::parse_event_t event,
                                                               json&) {
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= max_depth) too_deep = true;
    return !too_deep;
  };
  json j = json::parse(text.begin(), text.end(), depth_guard, /*allow_exceptions=*/false);
  if (too_deep)
    fail(ErrorCode::too_deep, "nested deeper than " + std::to_string(max_depth) + " levels");
  if (j.is_discarded()) fail(ErrorCode::bad_json, "not valid JSON (or not valid UTF-8)");
  if (!j.is_object()) fail(ErrorCode::bad_json, "a message must be a JSON object");
  return j;
}

std::string_view read_type(Fields& f) {
  const json* t = f.find("type");
  if (!t || !t->is_string()) fail(ErrorCode::bad_type, "'type' is required and must be a string");
  return t->get_ref<const std::string&>();
}

}  // namespace herd::protocol::detail
