// herd-view's camera, colours and the sizes of what it draws round agents: header-only so the
// screenshot test computes pixels with the very functions the viewer draws with (a picture and its
// check cannot disagree).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

#include "native/palette.hpp"  // generated from clients/web/palette.json (cmake/palette_header.cmake)
#include "native/rgb.hpp"

namespace herd::view {

// The colours both viewers draw (the ground, obstacles, walls, selection, the collision ring, the
// groups) are the palette's, generated into namespace colour from the one file the browser reads
// too; here only those herd-view alone has.
namespace colour {
inline constexpr Rgb kHeading{0xcc, 0xcc, 0xcc};  // the browser's white at 0.8 over its dark ground
inline constexpr Rgb kText{0xe0, 0xe6, 0xee};
inline constexpr Rgb kTextBad{0xff, 0x6b, 0x6b};
inline constexpr Rgb kStalled{0xf4, 0xf4, 0xf4};  // the browser's stall badge (theme.js's stalled)
inline constexpr Rgb kTeamNeutral{0xb4, 0xb9, 0xc0};  // nobody's agents (theme.js's teamNeutral)
// A hurt agent's hit-point bar (theme.js's health colours): its full part green over half, amber
// over a quarter, else red, on a dark back.
inline constexpr Rgb kHealthHigh{0x4c, 0xd9, 0x64};
inline constexpr Rgb kHealthMid{0xff, 0xcc, 0x00};
inline constexpr Rgb kHealthLow{0xff, 0x3b, 0x30};
inline constexpr Rgb kHealthBack{0x00, 0x00, 0x00};
}  // namespace colour

// Group g uses g mod the palette's size, as the browser does.
inline Rgb group_colour(unsigned group) {
  return colour::kGroups[group % std::size(colour::kGroups)];
}

// Team t's colour when the welcome gives none (theme.js's teamColor): 0 (nobody's) neutral grey,
// 1 and up the groups' colours in turn.
inline Rgb team_palette_colour(unsigned team) {
  return team == 0 ? colour::kTeamNeutral : group_colour(team - 1);
}

// "#rrggbb" as a colour; nothing for anything else.
inline std::optional<Rgb> parse_hex_colour(std::string_view s) {
  if (s.size() != 7 || s[0] != '#') return std::nullopt;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::uint8_t v[3];
  for (int i = 0; i < 3; ++i) {
    const int hi = nibble(s[1 + 2 * i]), lo = nibble(s[2 + 2 * i]);
    if (hi < 0 || lo < 0) return std::nullopt;
    v[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return Rgb{v[0], v[1], v[2]};
}

// A hurt agent's bar (clients/web/game_layer.js): kHealthBarPx high, kHealthGapPx above its
// body, as wide as the body and at least kHealthMinPx.
inline constexpr double kHealthBarPx = 4, kHealthGapPx = 3, kHealthMinPx = 16;
inline Rgb health_colour(double fraction) {
  return fraction > 0.5    ? colour::kHealthHigh
         : fraction > 0.25 ? colour::kHealthMid
                           : colour::kHealthLow;
}

// The fog of war over a player's world (clients/web/fog_layer.js): black at this opacity where
// its team does not see; darker where it has never explored, when its explored ground is known.
inline constexpr double kFogAlpha = 0.6, kUnexploredAlpha = 0.88;
// An agent's sight when its snapshot gives none: the world's default.
inline constexpr double kDefaultSight = 200;

// The ring round a collided agent, window pixels: from its rim outwards, inside the selection ring
// (3 px out), so the whole body keeps its group colour (clients/web/agent_layer.js draws the
// same).
inline constexpr int kCollidedRingPx = 2;
// The badge of a stalled agent (PROTOCOL.md's `stall`), window pixels: a white disc of this radius
// on its upper left, past its rim, as the browser draws it (without the browser's letter).
inline constexpr double kStallBadgePx = 4;
// Walls (add_wall) are a line of the obstacles' stone this many pixels wide on a rim of their
// darker edge kWallRimPx more on each side, whatever the zoom, as the browser draws them
// (clients/web/view_marks.js).
inline constexpr double kWallPx = 3, kWallRimPx = 2;

// The dot on each point of a selected agent's queued route, window pixels (its radius, as
// fill_circle rounds it), as clients/web/view_marks.js draws it.
inline constexpr double kRouteDotPx = 2;

// A no-backtracking walker's trail, as clients/web/map_view.js draws it: a square on the centre of
// each tile of its history joined by a line, in its group colour, fading with age.
// The opacity at history entry i of n (0 the oldest): the newest opaque, the oldest 0.15.
inline double trail_alpha(std::size_t i, std::size_t n) {
  return n <= 1 ? 1.0 : 1.0 - 0.85 * static_cast<double>(n - 1 - i) / static_cast<double>(n - 1);
}
// The line's width and the square's side, window pixels, for tiles `tile_px` wide.
inline double trail_width_px(double tile_px) { return std::max(2.0, tile_px * 0.1); }
inline double trail_mark_px(double tile_px) { return std::max(3.0, tile_px * 0.22); }

// A collision's flash at its point, as clients/web/view_marks.js draws it: a ring in the palette's
// flash colour that grows from a dot and fades over kFlashSeconds, to a size that says, a little,
// how hard the hit was (log2: a hit ten times harder is only a few pixels larger), and a 3-pixel
// dot on the point.
inline constexpr double kFlashSeconds = 0.5;
struct FlashRing {
  double r = 0;      // window pixels
  double alpha = 0;  // 0..1
};
// The ring `age` seconds after a collision of `impulse`; none (alpha 0) once it has faded.
inline FlashRing flash_ring(double impulse, double age) {
  const double t = age / kFlashSeconds;
  if (!(t >= 0 && t < 1)) return {};
  const double full = std::min(28.0, 7 + 4 * std::log2(1 + std::max(0.0, impulse) / 40));
  return {2 + (full - 2) * std::sqrt(t), 1 - t};
}

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
