// The command catalogue (clients/web/commands.json, which the browser viewer builds its command
// palette and context menu from) against the codec: it names exactly the commands the server
// takes, and every field's presence, kind, range and choices are what the readers in
// protocol/commands.cpp accept and refuse. A command added to the server without its entry, or a
// reader changed without the entry, fails here; so does an entry whose samples do not decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "herd/sim/types.hpp"
#include "protocol/codec.hpp"
#include "protocol/commands.hpp"

namespace herd::protocol {
namespace {

using nlohmann::json;

const json& catalogue() {
  static const json c = [] {
    std::ifstream in(HERD_COMMAND_CATALOGUE);
    return json::parse(in, nullptr, /*allow_exceptions=*/false);
  }();
  return c;
}

// One way to fill a command: the command, and the case of its variants (null when it has none).
struct Form {
  const json* command;
  const json* variant;  // {"value", "fields": {name: presence}}, or null
  std::string label() const {
    std::string s = (*command)["cmd"].get<std::string>();
    if (variant) s += " (" + (*variant)["value"].dump() + ")";
    return s;
  }
};

std::vector<Form> every_form() {
  std::vector<Form> out;
  for (const json& c : catalogue()["commands"]) {
    if (!c.contains("variants")) {
      out.push_back({&c, nullptr});
      continue;
    }
    for (const json& k : c["variants"]["cases"]) out.push_back({&c, &k});
  }
  return out;
}

// The fields some case of the command names: only the chosen case decides whether they apply.
std::set<std::string> variant_fields(const json& command) {
  std::set<std::string> names;
  if (command.contains("variants"))
    for (const json& k : command["variants"]["cases"])
      for (const auto& [name, presence] : k["fields"].items()) names.insert(name);
  return names;
}

// How field `f` is given in this form: required, optional, exactly_one, at_most_one, at_least_one,
// or "" when the form does not take it.
std::string presence(const Form& form, const json& f) {
  const std::string name = f["name"];
  if (!variant_fields(*form.command).contains(name)) return f["presence"];
  const json& taken = (*form.variant)["fields"];
  return taken.contains(name) ? taken[name].get<std::string>() : std::string();
}

bool is_selector(const Form& form, const json& f) {
  return form.variant && f["name"] == (*form.command)["variants"]["field"];
}

// An object of `fields` (a command's, or a list item's) as this form takes them: the required ones,
// the first of each exactly_one and at_least_one group unless `include` names another member, and
// the others only when `include` names them; each from its sample.
json fill(const Form& form, const json& fields, const std::set<std::string>& include, bool item) {
  json out = json::object();
  const auto pres = [&](const json& f) {
    return item ? f["presence"].get<std::string>() : presence(form, f);
  };
  std::map<std::string, bool> group_included;  // presence -> a member is in `include`
  for (const json& f : fields)
    if (include.contains(f["name"])) group_included[pres(f)] = true;
  std::set<std::string> group_started;
  for (const json& f : fields) {
    const std::string name = f["name"], p = pres(f);
    if (p.empty()) continue;
    if (!item && is_selector(form, f)) {
      out[name] = (*form.variant)["value"];
      continue;
    }
    bool in = include.contains(name) || p == "required";
    if ((p == "exactly_one" || p == "at_least_one") && !group_included[p] &&
        !group_started.contains(p))
      in = true;
    if (p == "exactly_one" || p == "at_least_one") group_started.insert(p);
    if (f.contains("with") && !out.contains(f["with"].get<std::string>())) in = false;
    if (in) out[name] = f["sample"];
  }
  return out;
}

json message(const Form& form, const std::set<std::string>& include = {}) {
  json m = fill(form, (*form.command)["fields"], include, false);
  m["type"] = "command";
  m["seq"] = 1;
  m["cmd"] = (*form.command)["cmd"];
  return m;
}

// Every field that this form may carry at once: the optional ones, each `with` field whose field is
// given, and `member` of its exclusive group.
std::set<std::string> everything_with(const Form& form, const std::string& member) {
  std::set<std::string> names;
  for (const json& f : (*form.command)["fields"]) {
    const std::string p = presence(form, f);
    if (p == "optional" || p == "at_least_one") names.insert(f["name"]);
  }
  if (!member.empty()) names.insert(member);
  return names;
}

::testing::AssertionResult decodes(const json& m, const Form& form) {
  const auto d = decode_client(m.dump());
  if (const Error* e = std::get_if<Error>(&d))
    return ::testing::AssertionFailure()
           << m.dump() << " -> " << to_string(e->code) << ": " << e->message;
  const bool control = form.command->value("control", false);
  const ClientMessage& msg = std::get<ClientMessage>(d);
  if (control ? !std::holds_alternative<ControlMsg>(msg) : !std::holds_alternative<CommandMsg>(msg))
    return ::testing::AssertionFailure() << m.dump() << " decodes as the other kind of command";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult refused(const json& m) {
  const auto d = decode_client(m.dump());
  const Error* e = std::get_if<Error>(&d);
  if (!e) return ::testing::AssertionFailure() << "accepted: " << m.dump();
  if (e->code != ErrorCode::bad_field)
    return ::testing::AssertionFailure()
           << m.dump() << " -> " << to_string(e->code) << " (not bad_field): " << e->message;
  return ::testing::AssertionSuccess();
}

// Not refused as a bad field: decoded, or refused for another reason (a map's rows that no longer
// fit its width is bad_map).
::testing::AssertionResult not_a_bad_field(const json& m) {
  const auto d = decode_client(m.dump());
  const Error* e = std::get_if<Error>(&d);
  if (e && e->code == ErrorCode::bad_field)
    return ::testing::AssertionFailure() << m.dump() << " -> bad_field: " << e->message;
  return ::testing::AssertionSuccess();
}

// The words of a refusal's "must be ..." ("must be one of a, b or c", "must be \"a\" or \"b\""):
// the choices the codec takes.
std::set<std::string> named_choices(const json& m) {
  const auto d = decode_client(m.dump());
  const Error* e = std::get_if<Error>(&d);
  if (!e) return {};
  const auto at = e->message.find("must be ");
  if (at == std::string::npos) return {};
  std::set<std::string> words;
  std::string word;
  for (char c : e->message.substr(at + 8) + " ") {
    if ((c >= 'a' && c <= 'z') || c == '_') {
      word += c;
      continue;
    }
    if (!word.empty() && word != "one" && word != "of" && word != "or") words.insert(word);
    word.clear();
  }
  return words;
}

// The range's bounds themselves (but an exclusive minimum), which no codec refuses as a bad field.
std::vector<json> bounds(const json& f) {
  std::vector<json> out;
  if (f.contains("min") && !f.value("min_exclusive", false)) out.push_back(f["min"]);
  if (f.contains("max")) out.push_back(f["max"]);
  if (f.contains("min_length")) out.push_back(std::string(f["min_length"].get<std::size_t>(), 'a'));
  if (f.contains("max_length")) out.push_back(std::string(f["max_length"].get<std::size_t>(), 'a'));
  return out;
}

// Values of the wrong JSON type for a field of this kind.
json wrong_type(const json& f) {
  const std::string kind = f["kind"];
  if (kind == "selection") return true;
  if (kind == "agent" || kind == "obstacle" || kind == "integer") return 1.5;
  if (kind == "number") return "x";
  if (kind == "boolean") return 1;
  if (kind == "enum") return f["choices"][0].is_string() ? json(5) : json("x");
  return 5;  // point, tile, string, rows, list
}

// Values just outside the field's range or choices.
std::vector<json> out_of_range(const json& f) {
  std::vector<json> out;
  const bool integer = f["kind"] != "number";
  if (f.contains("min")) {
    const double min = f["min"];
    if (f.value("min_exclusive", false))
      out.push_back(min);
    else
      out.push_back(integer ? json(static_cast<std::int64_t>(min) - 1) : json(min - 1));
  }
  if (f.contains("max")) {
    if (!integer)
      out.push_back(f["max"].get<double>() + 1);
    else if (f["max"].get<std::uint64_t>() < (std::uint64_t{1} << 53))
      out.push_back(f["max"].get<std::uint64_t>() + 1);
    else
      out.push_back(f["max"].get<double>() * 2);  // no integer a double can hold exactly
  }
  if (f.contains("choices")) {
    const json& c = f["choices"];
    if (c[0].is_string()) {
      out.push_back("no_such_choice");
    } else {  // every other integer from 0 to one past the largest choice
      std::uint64_t top = 0;
      for (const json& v : c) top = std::max(top, v.get<std::uint64_t>());
      for (std::uint64_t v = 0; v <= top + 1; ++v)
        if (std::find(c.begin(), c.end(), json(v)) == c.end()) out.push_back(v);
    }
  }
  if (f.value("min_items", 0) > 0) out.push_back(json::array());
  if (f.contains("max_items"))
    out.push_back(json(f["max_items"].get<std::size_t>() + 1, f["sample"][0]));
  if (f.contains("min_length") && f["min_length"].get<std::size_t>() > 0)
    out.push_back(std::string(f["min_length"].get<std::size_t>() - 1, 'a'));
  if (f.contains("max_length"))
    out.push_back(std::string(f["max_length"].get<std::size_t>() + 1, 'a'));
  return out;
}

// The sample is a value of the field's kind (the samples decode, so a kind that is not the
// sample's is the catalogue's mistake).
::testing::AssertionResult sample_fits_kind(const json& f) {
  const std::string kind = f["kind"];
  const json& v = f["sample"];
  const auto is_xy = [](const json& p, bool integers) {
    return p.is_object() && p.size() == 2 && p.contains("x") && p.contains("y") &&
           (integers ? p["x"].is_number_integer() && p["y"].is_number_integer()
                     : p["x"].is_number() && p["y"].is_number());
  };
  bool ok = false;
  if (kind == "selection")
    ok = v == "all" || v.is_array() || v.is_object();
  else if (kind == "point" || kind == "tile")
    ok = is_xy(v, kind == "tile");
  else if (kind == "agent" || kind == "obstacle" || kind == "integer")
    ok = v.is_number_integer();
  else if (kind == "number")
    ok = v.is_number();
  else if (kind == "boolean")
    ok = v.is_boolean();
  else if (kind == "enum")
    ok = f["choices"].is_array() &&
         std::find(f["choices"].begin(), f["choices"].end(), v) != f["choices"].end();
  else if (kind == "string")
    ok = v.is_string();
  else if (kind == "rows")
    ok = v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& r) { return r.is_string(); });
  else if (kind == "area")
    ok = v.is_object() && v.size() == 4 && v.contains("x") && v.contains("y") &&
         v.contains("width") && v.contains("height");
  else if (kind == "list")
    ok = v.is_array() && !v.empty() && f["item"].is_array() &&
         std::all_of(v.begin(), v.end(), [](const json& i) { return i.is_object(); });
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << f["name"] << ": " << v.dump() << " is not of kind " << kind;
}

TEST(CommandCatalogue, EveryFieldHasAKnownKindAndPresenceAndASampleOfItsKind) {
  const std::set<std::string> presences{"required", "optional", "exactly_one", "at_most_one",
                                        "at_least_one"};
  for (const json& c : catalogue()["commands"]) {
    EXPECT_TRUE(c["help"].is_string() && !c["help"].empty()) << c["cmd"];
    std::vector<const json*> fields;
    for (const json& f : c["fields"]) {
      fields.push_back(&f);
      if (f["kind"] == "list")
        for (const json& g : f["item"]) fields.push_back(&g);
    }
    for (const json* f : fields) {
      EXPECT_TRUE(catalogue()["kinds"].contains((*f)["kind"])) << c["cmd"] << " " << *f;
      EXPECT_TRUE(presences.contains((*f)["presence"])) << c["cmd"] << " " << *f;
      EXPECT_TRUE((*f)["help"].is_string()) << c["cmd"] << " " << *f;
      EXPECT_TRUE(sample_fits_kind(*f)) << c["cmd"];
    }
  }
}

TEST(CommandCatalogue, Loads) {
  ASSERT_TRUE(catalogue().is_object()) << HERD_COMMAND_CATALOGUE << " is not valid JSON";
  ASSERT_TRUE(catalogue()["commands"].is_array());
}

// "Generated from the command table": a command the server takes without an entry here (or an
// entry for one it does not take) fails, so the palette lists every command there is.
TEST(CommandCatalogue, NamesExactlyTheCommandsAndControlsTheServerTakes) {
  std::vector<std::string> listed;
  std::set<std::string> controls;
  for (const json& c : catalogue()["commands"]) {
    listed.push_back(c["cmd"]);
    if (c.value("control", false)) controls.insert(c["cmd"]);
  }
  const std::set<std::string> unique(listed.begin(), listed.end());
  EXPECT_EQ(unique.size(), listed.size()) << "a cmd is listed twice";
  std::set<std::string> expected, expected_controls;
  for (std::string_view n : command_names()) expected.insert(std::string(n));
  for (std::string_view n : control_names()) {
    expected.insert(std::string(n));
    expected_controls.insert(std::string(n));
  }
  EXPECT_EQ(unique, expected);
  EXPECT_EQ(controls, expected_controls) << "\"control\": true marks exactly the server controls";
}

// set_behaviour's cases are the behaviours' table (sim::kBehaviours), in its order.
TEST(CommandCatalogue, SetBehaviourHasACasePerBehaviour) {
  const json* sb = nullptr;
  for (const json& c : catalogue()["commands"])
    if (c["cmd"] == "set_behaviour") sb = &c;
  ASSERT_NE(sb, nullptr);
  std::vector<std::string> cases, choices, kinds;
  for (const json& k : (*sb)["variants"]["cases"]) cases.push_back(k["value"]);
  for (const json& f : (*sb)["fields"])
    if (f["name"] == "behaviour") choices = f["choices"].get<std::vector<std::string>>();
  for (const sim::BehaviourTraits& t : sim::kBehaviours) kinds.emplace_back(t.name);
  EXPECT_EQ(cases, kinds);
  EXPECT_EQ(choices, kinds);
}

TEST(CommandCatalogue, EveryVariantFieldIsAnEnumWhoseChoicesAreTheCases) {
  for (const json& c : catalogue()["commands"]) {
    if (!c.contains("variants")) continue;
    std::vector<json> values;
    for (const json& k : c["variants"]["cases"]) values.push_back(k["value"]);
    bool found = false;
    for (const json& f : c["fields"]) {
      if (f["name"] != c["variants"]["field"]) continue;
      found = true;
      EXPECT_EQ(f["kind"], "enum") << c["cmd"];
      EXPECT_EQ(f["choices"].get<std::vector<json>>(), values) << c["cmd"];
    }
    EXPECT_TRUE(found) << c["cmd"] << ": variants.field names no field";
    // The codec's refusal of another value names exactly the cases.
    json m = message(Form{&c, &c["variants"]["cases"][0]});
    m[c["variants"]["field"].get<std::string>()] = "no_such_choice";
    std::set<std::string> names;
    for (const json& v : values) names.insert(v.get<std::string>());
    EXPECT_EQ(named_choices(m), names) << c["cmd"];
    for (const std::string& name : variant_fields(c)) {
      bool listed = false;
      for (const json& f : c["fields"]) listed = listed || f["name"] == name;
      EXPECT_TRUE(listed) << c["cmd"] << ": a case names " << name << ", which is no field";
    }
  }
}

// The samples: the required fields alone, then with every optional field too (each member of an
// exclusive group in turn), decode as the command they name.
TEST(CommandCatalogue, SamplesDecodeAloneAndWithEveryOptionalField) {
  for (const Form& form : every_form()) {
    SCOPED_TRACE(form.label());
    EXPECT_TRUE(decodes(message(form), form));
    std::vector<std::string> members;
    for (const json& f : (*form.command)["fields"]) {
      const std::string p = presence(form, f);
      if (p == "exactly_one" || p == "at_most_one") members.push_back(f["name"]);
    }
    if (members.empty()) members.push_back("");
    for (const std::string& member : members) {
      SCOPED_TRACE("with " + member);
      EXPECT_TRUE(decodes(message(form, everything_with(form, member)), form));
    }
  }
}

TEST(CommandCatalogue, AnUnknownFieldIsRefused) {
  for (const Form& form : every_form()) {
    json m = message(form);
    m["no_such_field"] = 1;
    EXPECT_TRUE(refused(m)) << form.label();
  }
}

// Presence: a required field left out, an exclusive group given none or two, a field given without
// the one it goes with, and a field of another case: each refused.
TEST(CommandCatalogue, PresenceIsTheCodecs) {
  for (const Form& form : every_form()) {
    SCOPED_TRACE(form.label());
    const json& fields = (*form.command)["fields"];
    std::map<std::string, std::vector<std::string>> groups;
    for (const json& f : fields) {
      const std::string name = f["name"], p = presence(form, f);
      if (p == "required") {
        json m = message(form);
        m.erase(name);
        EXPECT_TRUE(refused(m)) << name << " left out";
      }
      if (p == "exactly_one" || p == "at_most_one" || p == "at_least_one")
        groups[p].push_back(name);
      if (f.contains("with")) {
        json m = message(form, {name});
        ASSERT_TRUE(m.contains(name));
        // Give another member of the `with` field's group instead of it.
        for (const json& g : fields)
          if (g["name"] != f["with"] && presence(form, g) == "exactly_one" &&
              !m.contains(g["name"]))
            m[g["name"].get<std::string>()] = g["sample"];
        m.erase(f["with"].get<std::string>());
        EXPECT_TRUE(refused(m)) << name << " without " << f["with"];
      }
      if (p.empty() && !is_selector(form, f)) {
        json m = message(form);
        m[name] = f["sample"];
        EXPECT_TRUE(refused(m)) << name << " is not taken here";
      }
    }
    for (const auto& [p, members] : groups) {
      json none = message(form);
      for (const std::string& n : members) none.erase(n);
      if (p == "exactly_one" || p == "at_least_one") {
        EXPECT_TRUE(refused(none)) << "no " << p;
      }
      if ((p == "exactly_one" || p == "at_most_one") && members.size() >= 2) {
        EXPECT_TRUE(refused(message(form, {members[0], members[1]})))
            << members[0] << " and " << members[1] << " together";
      }
    }
  }
}

// Kinds, ranges and choices: a value of the wrong type, or just outside the range, the choices or
// the length, is refused; the bounds are not, every choice is accepted, and a refused choice's
// message names exactly the catalogue's choices. In list items too.
TEST(CommandCatalogue, KindsRangesAndChoicesAreTheCodecs) {
  int checked = 0;
  for (const Form& form : every_form()) {
    SCOPED_TRACE(form.label());
    for (const json& f : (*form.command)["fields"]) {
      const std::string name = f["name"];
      if (presence(form, f).empty() || is_selector(form, f)) continue;
      const json base = message(form, {name});
      const auto with = [&](const json& v) {
        json m = base;
        m[name] = v;
        return m;
      };
      EXPECT_TRUE(refused(with(wrong_type(f)))) << name << " of the wrong type";
      for (const json& v : out_of_range(f)) EXPECT_TRUE(refused(with(v))) << name << " = " << v;
      for (const json& v : bounds(f)) EXPECT_TRUE(not_a_bad_field(with(v))) << name << " = " << v;
      if (f.contains("choices")) {
        for (const json& v : f["choices"])
          EXPECT_TRUE(decodes(with(v), form)) << name << " = " << v;
        if (f["choices"][0].is_string()) {
          EXPECT_EQ(named_choices(with("no_such_choice")),
                    f["choices"].get<std::set<std::string>>())
              << name;
        }
      }
      ++checked;
      if (f["kind"] != "list") continue;
      // Each item field, in a list of one item.
      for (const json& g : f["item"]) {
        const std::string item_field = g["name"];
        const json item = fill(form, f["item"], {item_field}, true);
        // As many items as the list takes at least (each the same, but a line's two points
        // must differ: the first is the sample's).
        const std::size_t least = f.value("min_items", std::size_t{1});
        const auto items = [&](const json& i) {
          json list = json::array();
          if (least > 1) list.push_back(f["sample"][0]);
          while (list.size() < least) list.push_back(i);
          if (least <= 1) list = json::array({i});
          return list;
        };
        const auto with_item = [&](const json& v) {
          json i = item;
          if (v.is_null())
            i.erase(item_field);
          else
            i[item_field] = v;
          return with(items(i));
        };
        EXPECT_TRUE(decodes(with(items(item)), form)) << name << "." << item_field;
        EXPECT_TRUE(refused(with_item(wrong_type(g)))) << name << "." << item_field;
        for (const json& v : out_of_range(g))
          EXPECT_TRUE(refused(with_item(v))) << name << "." << item_field << " = " << v;
        for (const json& v : bounds(g))
          EXPECT_TRUE(not_a_bad_field(with_item(v))) << name << "." << item_field << " = " << v;
        if (g.contains("choices")) {
          for (const json& v : g["choices"]) EXPECT_TRUE(decodes(with_item(v), form)) << v;
        }
        if (g["presence"] == "required") {
          EXPECT_TRUE(refused(with_item(json()))) << item_field;
        }
        ++checked;
      }
      json extra = fill(form, f["item"], {}, true);
      extra["no_such_field"] = 1;
      EXPECT_TRUE(refused(with(json::array({extra})))) << name << ": an unknown item field";
    }
  }
  EXPECT_GT(checked, 50);
}

// A default is what the server uses when the field is left out: where the codec writes the field
// back for a command that left it out, it writes the catalogue's default.
TEST(CommandCatalogue, DefaultsAreWhatTheCodecWritesForAFieldLeftOut) {
  int checked = 0;
  for (const Form& form : every_form()) {
    SCOPED_TRACE(form.label());
    const json m = message(form);
    const auto d = decode_client(m.dump());
    ASSERT_FALSE(std::holds_alternative<Error>(d)) << m.dump();
    const ClientMessage& msg = std::get<ClientMessage>(d);
    const json back =
        json::parse(std::holds_alternative<CommandMsg>(msg) ? encode(std::get<CommandMsg>(msg))
                                                            : encode(std::get<ControlMsg>(msg)));
    for (const json& f : (*form.command)["fields"]) {
      const std::string name = f["name"];
      if (!f.contains("default") || m.contains(name) || !back.contains(name)) continue;
      EXPECT_EQ(back[name], f["default"]) << name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace herd::protocol
