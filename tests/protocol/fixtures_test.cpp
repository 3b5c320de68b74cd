// protocol/fixtures: the example messages shared with the browser viewer's tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/codec.hpp"

namespace herd::protocol {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> files_in(const std::string& sub) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(HERD_FIXTURE_DIR) / sub))
    out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Fixtures, EveryValidClientMessageDecodesAndReencodesToTheSameMeaning) {
  const auto files = files_in("client/valid");
  ASSERT_GE(files.size(), 5u);
  for (const auto& f : files) {
    const auto d = decode_client(read(f));
    ASSERT_TRUE(std::holds_alternative<ClientMessage>(d))
        << f << ": " << std::get<Error>(d).message;
    const std::string again =
        std::visit([](const auto& m) { return encode(m); }, std::get<ClientMessage>(d));
    EXPECT_EQ(decode_client(again), d) << f;
  }
}

TEST(Fixtures, EveryInvalidClientMessageGetsItsCode) {
  const auto files = files_in("client/invalid");
  ASSERT_GE(files.size(), 30u);
  for (const auto& f : files) {
    const auto fixture = nlohmann::json::parse(read(f));
    const auto d = decode_client(fixture.at("raw").get<std::string>());
    ASSERT_TRUE(std::holds_alternative<Error>(d)) << f << " was accepted";
    EXPECT_EQ(to_string(std::get<Error>(d).code), fixture.at("code").get<std::string>())
        << f << ": " << std::get<Error>(d).message;
    EXPECT_FALSE(std::get<Error>(d).message.empty());
  }
}

TEST(Fixtures, EveryServerMessageDecodesAndReencodesByteForByte) {
  const auto files = files_in("server");
  ASSERT_GE(files.size(), 5u);
  for (const auto& f : files) {
    std::string text = read(f);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const auto d = decode_server(text);
    ASSERT_TRUE(std::holds_alternative<ServerMessage>(d))
        << f << ": " << std::get<Error>(d).message;
    // The fixtures are written exactly as the server writes them.
    EXPECT_EQ(std::visit([](const auto& m) { return encode(m); }, std::get<ServerMessage>(d)), text)
        << f;
  }
}

}  // namespace
}  // namespace herd::protocol
