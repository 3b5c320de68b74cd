#include "native/font.hpp"

#include <cctype>

namespace herd::view {

namespace {

// Five rows of three pixels each, top row first: '#' lit.
struct Glyph {
  char c;
  const char* rows;
};

constexpr Glyph kGlyphs[] = {
    {'A', ".#.#.#####.##.#"}, {'B', "##.#.###.#.###."}, {'C', ".###..#..#...##"},
    {'D', "##.#.##.##.###."}, {'E', "####..####..###"}, {'F', "####..####..#.."},
    {'G', ".###..#.##.#.##"}, {'H', "#.##.#####.##.#"}, {'I', "###.#..#..#.###"},
    {'J', "..#..#..##.#.#."}, {'K', "#.##.###.#.##.#"}, {'L', "#..#..#..#..###"},
    {'M', "#.#####.##.##.#"}, {'N', "##.#.##.##.##.#"}, {'O', ".#.#.##.##.#.#."},
    {'P', "##.#.###.#..#.."}, {'Q', ".#.#.##.##.#.##"}, {'R', "##.#.###.#.##.#"},
    {'S', ".###...#...###."}, {'T', "###.#..#..#..#."}, {'U', "#.##.##.##.####"},
    {'V', "#.##.##.##.#.#."}, {'W', "#.##.##.######."}, {'X', "#.##.#.#.#.##.#"},
    {'Y', "#.##.#.#..#..#."}, {'Z', "###..#.#.#..###"}, {'0', "####.##.##.####"},
    {'1', ".#.##..#..#.###"}, {'2', "###..#####..###"}, {'3', "###..####..####"},
    {'4', "#.##.####..#..#"}, {'5', "####..###..####"}, {'6', "####..####.####"},
    {'7', "###..#..#..#..#"}, {'8', "####.#####.####"}, {'9', "####.####..####"},
    {'.', "............#.."}, {':', "....#.....#...."}, {'-', "......###......"},
    {'/', "..#..#.#..#..#."}, {'(', ".#.#..#..#...#."}, {')', ".#...#..#..#.#."},
    {'%', "#.#..#.#.#..#.#"},
};

const char* rows_of(char c) {
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& g : kGlyphs)
    if (g.c == up) return g.rows;
  return nullptr;
}

}  // namespace

int draw_text(SDL_Renderer* r, int x, int y, std::string_view text, int scale) {
  for (char c : text) {
    if (const char* rows = rows_of(c)) {
      for (int i = 0; i < kGlyphW * kGlyphH && rows[i]; ++i) {
        if (rows[i] != '#') continue;
        const SDL_Rect px{x + (i % kGlyphW) * scale, y + (i / kGlyphW) * scale, scale, scale};
        SDL_RenderFillRect(r, &px);
      }
    }
    x += (kGlyphW + 1) * scale;
  }
  return x;
}

}  // namespace herd::view
