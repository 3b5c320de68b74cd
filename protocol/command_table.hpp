// Every wire command's fields, declared once (command_table.cpp): each field's name, kind,
// presence, range or choices, default, sample and one line of help, and each command's variants
// (fields that depend on one field's value). The codec's readers (commands.cpp) take their ranges
// and choices from here; the catalogue clients/web/commands.json (and its copies in the JS and
// Python packages) is generated from it by herd-catalogue; herd-ctl builds its subcommands'
// flags from it. A field added here reaches every client with no other edit.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace herd::protocol {

// What a field's value is on the wire (the catalogue's "kinds" says each in words).
enum class FieldKind {
  selection,    // "all", agent ids, {"group"}, {"team"}, {"rect"}
  point,        // {"x", "y"}, world units
  tile,         // {"x", "y"}, a map tile's integer coordinates
  agent,        // an agent id
  obstacle,     // an obstacle id
  integer,      // in [min, max]
  number,       // finite, in [min, max] (min_exclusive: above min)
  boolean,      // true or false
  enumeration,  // one of choices (the catalogue's "enum")
  string,       // min_length to max_length bytes
  rows,         // a tile map's rows of '#' and '.'
  area,         // {"x", "y", "width", "height"}
  list,         // min_items to max_items objects of the item's fields
};

enum class Presence { required, optional, exactly_one, at_most_one, at_least_one };

struct FieldSpec {
  std::string_view name;
  FieldKind kind = FieldKind::number;
  Presence presence = Presence::optional;
  std::optional<double> min, max;                     // number, integer, agent, obstacle
  bool min_exclusive = false;                         // number: above min, not at it
  std::optional<std::size_t> min_length, max_length;  // string
  std::optional<std::size_t> min_items, max_items;    // list
  std::vector<std::string_view> choices;              // enumeration, as written
  bool numeric_choices = false;    // the choices are numbers on the wire (neighbours: 8 or 4)
  std::string_view choices_from;   // string: the welcome's list holding the valid values
  std::string_view with;           // applies only when this other field is given
  std::string_view default_value;  // JSON text; empty when the default is not one value
  std::string_view sample;         // JSON text: a value the codec takes
  std::string_view help;           // one line, for people
  std::vector<FieldSpec> item;     // list: each item's fields
};

// A command whose fields depend on one field's value: each case names the fields it takes.
struct VariantCase {
  std::string_view value;  // JSON text of the deciding field's value
  std::string_view help;
  std::vector<std::pair<std::string_view, Presence>> fields;
};
struct Variants {
  std::string_view field;  // empty: the command has no variants
  std::vector<VariantCase> cases;
};

struct CommandSpec {
  std::string_view cmd;
  bool control = false;  // a control of the server (pause, step, kick...), not a world command
  std::string_view help;
  std::vector<FieldSpec> fields;
  Variants variants;

  // The field named `name`; nullptr when the command has none.
  const FieldSpec* field(std::string_view name) const;
};

// Every command, in the catalogue's order.
const std::vector<CommandSpec>& command_table();
// The command named `cmd`; nullptr when there is none.
const CommandSpec* find_command(std::string_view cmd);
// The field `name` among `fields` (a command's, or a list's items); nullptr when there is none.
const FieldSpec* find_field(const std::vector<FieldSpec>& fields, std::string_view name);

std::string_view to_string(FieldKind kind);
std::string_view to_string(Presence presence);

// The catalogue as clients/web/commands.json holds it: the words for kinds and presences, then
// every command with its fields, in the table's order.
nlohmann::ordered_json catalogue_json();
// Its text: catalogue_json() indented by 2, ending in a newline; the JS package's module
// (`export default ...;`) when `js` is true.
std::string catalogue_text(bool js = false);

}  // namespace herd::protocol
