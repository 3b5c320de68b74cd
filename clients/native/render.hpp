// herd-view's drawing with SDL2's renderer: the world, its map and obstacles, the agents, the
// selection and its targets, the selection box, and the status line.
#pragma once

#include <SDL.h>

#include <optional>
#include <string>

#include "native/viewer.hpp"

namespace herd::view {

struct Overlay {
  std::optional<SDL_Rect> box;  // the selection box being dragged, screen pixels
  std::string status;           // the status line's text
  bool status_ok = true;        // false: drawn in the warning colour (disconnected)
  std::string note;             // a line under it when not empty: how to give the armed order
};

// The status line's font scale for a w x h pixel output: each of the font's pixels is this many
// screen pixels, so text keeps its share of the window (about 1/40 of its smaller side per line,
// at least 3: 9 x 15 pixel letters) from a small window to 4K.
int text_scale(int w, int h);

void draw_frame(SDL_Renderer* r, const Viewer& viewer, Viewer::Time now, const Overlay& overlay);

}  // namespace herd::view
