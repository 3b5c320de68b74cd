// A colour herd-view draws with: 8-bit sRGB, as the browser's CSS colours are.
#pragma once

#include <cstdint>

namespace herd::view {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

}  // namespace herd::view
