// The command table (protocol/commands.hpp) against what must agree with it: PROTOCOL.md documents
// every `cmd`, the fuzzer's dictionary holds every one, and each decodes and re-encodes to itself.
#include "protocol/commands.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "protocol/codec.hpp"

namespace herd::protocol {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string_view> every_name() {
  auto names = command_names();
  const auto controls = control_names();
  names.insert(names.end(), controls.begin(), controls.end());
  return names;
}

// The commands' names and every behaviour's: what PROTOCOL.md and the fuzzer's dictionary must
// name.
std::vector<std::string_view> every_wire_name() {
  auto names = every_name();
  for (const sim::BehaviourTraits& t : sim::kBehaviours) names.push_back(t.name);
  return names;
}

// The behaviours' table has a row per kind, in the enum's order, each name read back to its kind
// (the table's static_assert says the same at compile time; this says which row is wrong).
TEST(Behaviours, TheTableHasARowPerKindAndTheCodecReadsEachName) {
  for (std::size_t i = 0; i < sim::kBehaviourCount; ++i) {
    const auto kind = static_cast<sim::BehaviourKind>(i);
    EXPECT_EQ(sim::traits(kind).kind, kind) << i;
    EXPECT_FALSE(sim::traits(kind).name.empty()) << i;
    EXPECT_EQ(behaviour_from_string(sim::traits(kind).name), kind) << sim::traits(kind).name;
    EXPECT_EQ(to_string(kind), sim::traits(kind).name);
  }
  EXPECT_EQ(behaviour_from_string("kCount"), std::nullopt);
  EXPECT_EQ(behaviour_names(" or "),
            "idle, hold, seek, arrive, flee, pursue, evade, attack, react, patrol, attack_move, "
            "wander, flock, follow_path, follow or queue");
}

TEST(Commands, NamesAreUniqueAndCoverEveryKind) {
  const auto names = every_name();
  EXPECT_EQ(std::set<std::string_view>(names.begin(), names.end()).size(), names.size());
  // Every alternative of sim::Command and Control has at least one name (the demo's moves four,
  // orders to a point three: set_target, attack_move, patrol).
  EXPECT_EQ(command_names().size(), std::variant_size_v<sim::Command> + 3 + 2);
  EXPECT_EQ(control_names().size(), std::variant_size_v<Control>);
}

TEST(Commands, ProtocolDocumentDescribesEveryCommand) {
  const std::string doc = slurp(std::string(HERD_PROTOCOL_DOC));
  ASSERT_FALSE(doc.empty());
  for (std::string_view name : every_wire_name())
    EXPECT_NE(doc.find("`" + std::string(name) + "`"), std::string::npos)
        << name << " is not in PROTOCOL.md";
}

TEST(Commands, FuzzDictionaryHoldsEveryCommand) {
  const std::string dict = slurp(std::string(HERD_FUZZ_DICT));
  ASSERT_FALSE(dict.empty());
  for (std::string_view name : every_wire_name())
    EXPECT_NE(dict.find("\"\\\"" + std::string(name) + "\\\"\""), std::string::npos)
        << name << " is not in client_message.dict";
}

TEST(Commands, AnUnknownNameIsRefusedWithItsName) {
  const auto d = decode_client(R"({"type":"command","seq":3,"cmd":"teleport"})");
  ASSERT_TRUE(std::holds_alternative<Error>(d));
  EXPECT_EQ(std::get<Error>(d).code, ErrorCode::unknown_command);
  EXPECT_EQ(std::get<Error>(d).seq, 3u);
  EXPECT_NE(std::get<Error>(d).message.find("teleport"), std::string::npos);
}

}  // namespace
}  // namespace herd::protocol
