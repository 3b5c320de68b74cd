// A 3x5 pixel font built in (SDL2 has no text): upper-case letters, digits and a little
// punctuation, enough for the status line. Lower case is drawn as upper case; unknown
// characters as a blank.
#pragma once

#include <SDL.h>

#include <string_view>

namespace herd::view {

inline constexpr int kGlyphW = 3, kGlyphH = 5;

// Draws `text` with its top-left at (x, y), each font pixel `scale` screen pixels, in the
// renderer's current draw colour. Returns the x after the last character.
int draw_text(SDL_Renderer* r, int x, int y, std::string_view text, int scale);

}  // namespace herd::view
