// herd-view's camera and colours: header-only so the screenshot test computes pixels with the very
// functions the viewer draws with (a picture and its check cannot disagree).
#pragma once

#include <algorithm>
#include <cstdint>

namespace herd::view {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// The browser's palette (clients/web/theme.js), so both viewers read alike.
namespace colour {
inline constexpr Rgb kOutside{0x0b, 0x0f, 0x14};  // window outside the world
inline constexpr Rgb kWorld{0x14, 0x1b, 0x24};    // the world rectangle
inline constexpr Rgb kWorldEdge{0x2e, 0x3d, 0x4f};
inline constexpr Rgb kObstacle{0x87, 0x8d, 0x96};  // stone grey, unlike any group hue
inline constexpr Rgb kObstacleRim{0x3f, 0x45, 0x4d};
inline constexpr Rgb kCollided{0xff, 0x1f, 0x1f};  // seed 003: red until the goal is reached
inline constexpr Rgb kHeading{0xcc, 0xcc, 0xcc};
inline constexpr Rgb kSelection{0xff, 0xff, 0xff};
inline constexpr Rgb kTarget{0xff, 0xff, 0xff};
inline constexpr Rgb kWall{0x3a, 0x46, 0x56};
inline constexpr Rgb kFloor{0x19, 0x22, 0x2d};
inline constexpr Rgb kText{0xe0, 0xe6, 0xee};
inline constexpr Rgb kTextBad{0xff, 0x6b, 0x6b};
inline constexpr Rgb kGroups[8] = {{0x4c, 0xc9, 0xf0}, {0xff, 0x6b, 0x6b}, {0xff, 0xd1, 0x66},
                                   {0x06, 0xd6, 0xa0}, {0xc7, 0x7d, 0xff}, {0xff, 0x9f, 0x1c},
                                   {0xf1, 0x5b, 0xb5}, {0xa3, 0xe6, 0x35}};
}  // namespace colour

// Group g uses g mod 8, as the browser does.
inline Rgb group_colour(unsigned group) { return colour::kGroups[group % 8]; }

// Pixels left round the world when it is fitted to the window.
inline constexpr double kFitMargin = 8;

// World units to window pixels: screen = world * scale + offset. The world (y down, like the
// screen) is fitted into the window keeping its aspect ratio and centred (zoom 1, no pan); zoom
// multiplies the scale and pan (pixels) moves the picture.
struct Camera {
  double scale = 1;
  double offset_x = 0, offset_y = 0;

  double to_screen_x(double wx) const { return wx * scale + offset_x; }
  double to_screen_y(double wy) const { return wy * scale + offset_y; }
  double to_world_x(double sx) const { return (sx - offset_x) / scale; }
  double to_world_y(double sy) const { return (sy - offset_y) / scale; }
};

// The camera for a window of `win_w` x `win_h` pixels showing a world of `world_w` x `world_h`
// units at `zoom` (1 = fitted) panned by (`pan_x`, `pan_y`) pixels. Degenerate sizes give scale 1.
inline Camera fit_camera(double world_w, double world_h, int win_w, int win_h, double zoom = 1,
                         double pan_x = 0, double pan_y = 0) {
  Camera c;
  const double avail_w = std::max(1.0, win_w - 2 * kFitMargin);
  const double avail_h = std::max(1.0, win_h - 2 * kFitMargin);
  const double fit =
      (world_w > 0 && world_h > 0) ? std::min(avail_w / world_w, avail_h / world_h) : 1.0;
  c.scale = fit * zoom;
  c.offset_x = (win_w - world_w * c.scale) / 2 + pan_x;
  c.offset_y = (win_h - world_h * c.scale) / 2 + pan_y;
  return c;
}

}  // namespace herd::view
