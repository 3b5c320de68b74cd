// herd-view's palette: the compiled palette against the file the browser imports
// (clients/web/palette.json; palette.test.mjs measures its colours apart).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "native/view_math.hpp"

namespace herd {
namespace {

using view::Rgb;

Rgb from_hex(const std::string& hex) {
  const auto v = static_cast<std::uint32_t>(std::stoul(hex.substr(1), nullptr, 16));
  return {static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8),
          static_cast<std::uint8_t>(v)};
}

std::string str(Rgb c) {
  return std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b);
}

TEST(ViewPalette, IsThePaletteFileTheBrowserImports) {
  std::ifstream in(HERD_PALETTE_JSON);
  ASSERT_TRUE(in) << HERD_PALETTE_JSON;
  const auto palette = nlohmann::json::parse(in);
  ASSERT_TRUE(palette.is_object());
  // Every entry of the file is compiled in, with its colours, and nothing else is.
  EXPECT_EQ(std::size(view::colour::kAll), palette.size());
  for (const auto& named : view::colour::kAll) {
    SCOPED_TRACE(std::string(named.name));
    ASSERT_TRUE(palette.contains(named.name));
    const auto& entry = palette.at(std::string(named.name));
    const auto& list = entry.is_array() ? entry : nlohmann::json::array({entry});
    ASSERT_EQ(list.size(), named.count);
    for (std::size_t i = 0; i < named.count; ++i)
      EXPECT_EQ(str(named.colours[i]), str(from_hex(list[i].get<std::string>()))) << i;
  }
  // The colours herd-view draws with are the file's.
  const auto& groups = palette.at("groups");
  for (unsigned g = 0; g < 2 * groups.size(); ++g)
    EXPECT_EQ(str(view::group_colour(g)),
              str(from_hex(groups[g % groups.size()].get<std::string>())))
        << "group " << g;
  EXPECT_EQ(str(view::colour::kCollided), str(from_hex(palette.at("collided").get<std::string>())));
  EXPECT_EQ(str(view::colour::kObstacle), str(from_hex(palette.at("obstacle").get<std::string>())));
  EXPECT_EQ(str(view::colour::kWorld), str(from_hex(palette.at("world").get<std::string>())));
}

}  // namespace
}  // namespace herd
