#include "native/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numbers>
#include <utility>
#include <vector>

#include "native/font.hpp"

namespace herd::view {

namespace {

using protocol::AgentState;

void set_colour(SDL_Renderer* r, Rgb c, std::uint8_t alpha = 255) {
  SDL_SetRenderDrawColor(r, c.r, c.g, c.b, alpha);
}

// Pixels xa..xb of row y. A rectangle, not SDL_RenderDrawLine: a line whose ends are one pixel
// draws nothing with some of SDL's line methods, and a circle's top and bottom rows are one pixel.
void span(SDL_Renderer* r, int xa, int xb, int y) {
  const SDL_Rect row{xa, y, xb - xa + 1, 1};
  SDL_RenderFillRect(r, &row);
}

// Scanlines: SDL2's renderer has no circle. The centre pixel is always lit, so tiny agents stay
// visible when zoomed out.
void fill_circle(SDL_Renderer* r, double cx, double cy, double radius) {
  const int rad = std::max(1, static_cast<int>(std::lround(radius)));
  const int x0 = static_cast<int>(std::lround(cx)), y0 = static_cast<int>(std::lround(cy));
  for (int dy = -rad; dy <= rad; ++dy) {
    const int dx = static_cast<int>(std::sqrt(static_cast<double>(rad * rad - dy * dy)));
    span(r, x0 - dx, x0 + dx, y0 + dy);
  }
}

// The pixels round a filled circle of `radius` (as fill_circle rounds it) out to `width` more
// pixels: an outline that touches the disc and covers none of it.
void fill_ring(SDL_Renderer* r, double cx, double cy, double radius, int width) {
  const int in = std::max(1, static_cast<int>(std::lround(radius))), out = in + width;
  const int x0 = static_cast<int>(std::lround(cx)), y0 = static_cast<int>(std::lround(cy));
  const auto half_chord = [](int rad, int dy) {
    return static_cast<int>(std::sqrt(static_cast<double>(rad * rad - dy * dy)));
  };
  for (int dy = -out; dy <= out; ++dy) {
    const int xo = half_chord(out, dy);
    if (std::abs(dy) > in) {
      span(r, x0 - xo, x0 + xo, y0 + dy);
      continue;
    }
    const int xi = half_chord(in, dy);
    if (xo <= xi) continue;
    span(r, x0 - xo, x0 - xi - 1, y0 + dy);
    span(r, x0 + xi + 1, x0 + xo, y0 + dy);
  }
}

// A straight line `width` pixels wide with square ends at the points (butt caps), as a quad.
void thick_line(SDL_Renderer* r, SDL_FPoint a, SDL_FPoint b, double width, SDL_Color c) {
  const double len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 1e-6) return;
  const float nx = static_cast<float>(-(b.y - a.y) / len * width / 2),
              ny = static_cast<float>((b.x - a.x) / len * width / 2);
  const SDL_Vertex v[4] = {{{a.x + nx, a.y + ny}, c, {}},
                           {{b.x + nx, b.y + ny}, c, {}},
                           {{b.x - nx, b.y - ny}, c, {}},
                           {{a.x - nx, a.y - ny}, c, {}}};
  const int quad[6] = {0, 1, 2, 0, 2, 3};
  SDL_RenderGeometry(r, nullptr, v, 4, quad, 6);
}

void draw_circle(SDL_Renderer* r, double cx, double cy, double radius) {
  constexpr int kSegments = 32;
  SDL_FPoint pts[kSegments + 1];
  for (int i = 0; i <= kSegments; ++i) {
    const double a = 2 * std::numbers::pi * i / kSegments;
    pts[i] = {static_cast<float>(cx + radius * std::cos(a)),
              static_cast<float>(cy + radius * std::sin(a))};
  }
  SDL_RenderDrawLinesF(r, pts, kSegments + 1);
}

void draw_world(SDL_Renderer* r, const Viewer& v, const Camera& cam) {
  const SDL_FRect world{static_cast<float>(cam.offset_x), static_cast<float>(cam.offset_y),
                        static_cast<float>(v.world().width * cam.scale),
                        static_cast<float>(v.world().height * cam.scale)};
  set_colour(r, colour::kWorld);
  SDL_RenderFillRectF(r, &world);
  if (const auto& map = v.map()) {
    set_colour(r, colour::kWall);
    const double ts = map->tile_size * cam.scale;
    for (int y = 0; y < map->height && y < static_cast<int>(map->rows.size()); ++y)
      for (int x = 0; x < map->width && x < static_cast<int>(map->rows[y].size()); ++x) {
        if (map->rows[y][x] != '#') continue;
        const SDL_FRect tile{static_cast<float>(cam.to_screen_x(x * map->tile_size)),
                             static_cast<float>(cam.to_screen_y(y * map->tile_size)),
                             static_cast<float>(ts), static_cast<float>(ts)};
        SDL_RenderFillRectF(r, &tile);
      }
  }
  set_colour(r, colour::kWorldEdge);
  SDL_RenderDrawRectF(r, &world);
}

// The no-backtracking walkers' trails (agents whose snapshot carries `history`), as the browser
// draws them (clients/web/map_view.js): a square on the centre of each tile visited, joined by a
// line, in the walker's colour (its group's, or its team's), the newest opaque and the oldest
// faint. Over the map, under everything else. Binary snapshots carry no history (but for inspected
// agents): no trail then.
void draw_trails(SDL_Renderer* r, const Viewer& v, const std::vector<AgentState>& agents,
                 const Camera& cam) {
  const auto& map = v.map();
  if (!map || map->tile_size <= 0) return;
  const double tile_px = map->tile_size * cam.scale;
  const double width = trail_width_px(tile_px), mark = trail_mark_px(tile_px);
  for (const auto& a : agents) {
    const std::size_t n = a.history.size();
    if (n == 0) continue;
    const Rgb c = v.agent_colour(a);
    SDL_FPoint prev{};
    for (std::size_t i = 0; i < n; ++i) {
      const SDL_FPoint p{
          static_cast<float>(cam.to_screen_x((a.history[i].x + 0.5) * map->tile_size)),
          static_cast<float>(cam.to_screen_y((a.history[i].y + 0.5) * map->tile_size))};
      const auto alpha = static_cast<std::uint8_t>(std::lround(255 * trail_alpha(i, n)));
      if (i > 0) thick_line(r, prev, p, width, SDL_Color{c.r, c.g, c.b, alpha});
      set_colour(r, c, alpha);
      const SDL_FRect square{static_cast<float>(p.x - mark / 2), static_cast<float>(p.y - mark / 2),
                             static_cast<float>(mark), static_cast<float>(mark)};
      SDL_RenderFillRectF(r, &square);
      prev = p;
    }
  }
}

void draw_obstacles(SDL_Renderer* r, const Viewer& v, const Camera& cam) {
  for (const auto& o : v.obstacles()) {
    const double sx = cam.to_screen_x(o.x), sy = cam.to_screen_y(o.y), sr = o.r * cam.scale;
    set_colour(r, colour::kObstacle);
    fill_circle(r, sx, sy, sr);
    set_colour(r, colour::kObstacleRim);
    draw_circle(r, sx, sy, sr);
  }
}

// Each wall's segments as the browser strokes them: the rim, then the stone line over it, round
// at the points (a disc at each, so joints and ends have no notch).
void draw_walls(SDL_Renderer* r, const Viewer& v, const Camera& cam) {
  for (const auto& [width, rgb] : {std::pair{kWallPx + 2 * kWallRimPx, colour::kObstacleRim},
                                   std::pair{kWallPx, colour::kObstacle}}) {
    const SDL_Color c{rgb.r, rgb.g, rgb.b, 255};
    set_colour(r, rgb);
    for (const auto& w : v.walls()) {
      const std::size_t n = w.points.size();
      for (std::size_t i = 0; i < n; ++i) {
        const SDL_FPoint p{static_cast<float>(cam.to_screen_x(w.points[i].x)),
                           static_cast<float>(cam.to_screen_y(w.points[i].y))};
        fill_circle(r, p.x, p.y, width / 2);
        if (i + 1 == n && !(w.closed && n > 2)) continue;
        const sim::Vec2 next = w.points[(i + 1) % n];
        thick_line(r, p,
                   SDL_FPoint{static_cast<float>(cam.to_screen_x(next.x)),
                              static_cast<float>(cam.to_screen_y(next.y))},
                   width, c);
      }
    }
  }
}

bool selected(const Viewer& v, std::uint32_t id) {
  return std::binary_search(v.selection().begin(), v.selection().end(), id);
}

// A selected agent's route after its goal (JSON snapshots' `waypoints`: queued orders, a patrol's
// rest of the lap), as the browser draws it (clients/web/view_marks.js): a faint line from the
// goal (tx, ty) through each point, and a dot on each.
void draw_route(SDL_Renderer* r, const AgentState& a, SDL_FPoint goal, const Camera& cam) {
  set_colour(r, colour::kTarget, 128);
  SDL_FPoint prev = goal;
  for (const sim::Vec2& w : a.waypoints) {
    const SDL_FPoint p{static_cast<float>(cam.to_screen_x(w.x)),
                       static_cast<float>(cam.to_screen_y(w.y))};
    SDL_RenderDrawLineF(r, prev.x, prev.y, p.x, p.y);
    prev = p;
  }
  set_colour(r, colour::kTarget);
  for (const sim::Vec2& w : a.waypoints)
    fill_circle(r, cam.to_screen_x(w.x), cam.to_screen_y(w.y), kRouteDotPx);
}

// A line from each selected agent to the point it heads for, a cross there, and its queued route.
void draw_targets(SDL_Renderer* r, const Viewer& v, const std::vector<AgentState>& agents,
                  const Camera& cam) {
  for (const auto& a : agents) {
    if (!a.target || !selected(v, a.id)) continue;
    const float tx = static_cast<float>(cam.to_screen_x(a.target->x)),
                ty = static_cast<float>(cam.to_screen_y(a.target->y));
    set_colour(r, colour::kTarget, 160);
    SDL_RenderDrawLineF(r, static_cast<float>(cam.to_screen_x(a.x)),
                        static_cast<float>(cam.to_screen_y(a.y)), tx, ty);
    SDL_RenderDrawLineF(r, tx - 4, ty - 4, tx + 4, ty + 4);
    SDL_RenderDrawLineF(r, tx - 4, ty + 4, tx + 4, ty - 4);
    if (!a.waypoints.empty()) draw_route(r, a, {tx, ty}, cam);
  }
}

// A patrol's route while it is given (Shift + right clicks after Q): its points joined in order,
// a ring on each.
void draw_route_draft(SDL_Renderer* r, const Viewer& v, const Camera& cam) {
  const auto& route = v.route();
  set_colour(r, colour::kTarget, 230);
  for (std::size_t i = 0; i < route.size(); ++i) {
    const double sx = cam.to_screen_x(route[i].x), sy = cam.to_screen_y(route[i].y);
    draw_circle(r, sx, sy, 5);
    if (i > 0)
      SDL_RenderDrawLineF(r, static_cast<float>(cam.to_screen_x(route[i - 1].x)),
                          static_cast<float>(cam.to_screen_y(route[i - 1].y)),
                          static_cast<float>(sx), static_cast<float>(sy));
  }
}

// Bodies in their group colours, then a red ring round each collided one (over every body, so it
// shows on top of its crowd; the body keeps its colour), then headings and selection rings.
void draw_agents(SDL_Renderer* r, const Viewer& v, const std::vector<AgentState>& agents,
                 const Camera& cam) {
  for (const auto& a : agents) {
    set_colour(r, v.agent_colour(a));
    fill_circle(r, cam.to_screen_x(a.x), cam.to_screen_y(a.y), a.r * cam.scale);
  }
  set_colour(r, colour::kCollided);
  for (const auto& a : agents)
    if (a.collided)
      fill_ring(r, cam.to_screen_x(a.x), cam.to_screen_y(a.y), a.r * cam.scale, kCollidedRingPx);
  set_colour(r, colour::kStalled);
  for (const auto& a : agents)
    if (a.stall != sim::StallReason::none && a.state != sim::MoveState::unreachable) {
      const double d = a.r * cam.scale + 3 + kStallBadgePx * 0.6;
      fill_circle(r, cam.to_screen_x(a.x) - d * std::numbers::sqrt2 / 2,
                  cam.to_screen_y(a.y) - d * std::numbers::sqrt2 / 2, kStallBadgePx);
    }
  for (const auto& a : agents) {
    const double sx = cam.to_screen_x(a.x), sy = cam.to_screen_y(a.y), sr = a.r * cam.scale;
    // Heading: from the rim outwards along the velocity, so the body's colour stays readable.
    const double speed = std::hypot(a.vx, a.vy);
    if (speed > 1e-3) {
      const double ux = a.vx / speed, uy = a.vy / speed, len = std::max(4.0, sr);
      set_colour(r, colour::kHeading);
      SDL_RenderDrawLineF(r, static_cast<float>(sx + ux * sr), static_cast<float>(sy + uy * sr),
                          static_cast<float>(sx + ux * (sr + len)),
                          static_cast<float>(sy + uy * (sr + len)));
    }
    if (selected(v, a.id)) {
      set_colour(r, colour::kSelection);
      draw_circle(r, sx, sy, sr + 3);
    }
  }
}

// A player's fog of war (clients/web/fog_layer.js): black at kFogAlpha over the world where no
// agent of its team sees (each sees a disc of its `sight`, the world's default when not told),
// and at kUnexploredAlpha where its team has never explored, when its explored ground is known.
// Row by row: the chords of the discs on screen that cross the row are sorted, and the spans
// between them veiled, cut where the explored grid's state changes.
void draw_fog(SDL_Renderer* r, const Viewer& v, const std::vector<AgentState>& agents,
              const Camera& cam, int win_w, int win_h) {
  const auto team = v.player_team();
  if (!team) return;
  const double wx0 = std::max(0.0, cam.offset_x), wy0 = std::max(0.0, cam.offset_y);
  const double wx1 = std::min<double>(win_w, cam.to_screen_x(v.world().width)),
               wy1 = std::min<double>(win_h, cam.to_screen_y(v.world().height));
  if (!(wx1 > wx0 && wy1 > wy0)) return;
  struct Disc {
    double x, y, r;  // screen pixels
  };
  std::vector<Disc> discs;  // those that meet the world on screen, from the top down
  for (const auto& a : agents) {
    if (a.team.value_or(0) != *team) continue;
    const Disc d{cam.to_screen_x(a.x), cam.to_screen_y(a.y),
                 a.sight.value_or(kDefaultSight) * cam.scale};
    if (d.r > 0 && d.x + d.r >= wx0 && d.x - d.r <= wx1 && d.y + d.r >= wy0 && d.y - d.r <= wy1)
      discs.push_back(d);
  }
  std::sort(discs.begin(), discs.end(),
            [](const Disc& p, const Disc& q) { return p.y - p.r < q.y - q.r; });
  const auto& explored = v.explored();
  const auto veil = [&](int xa, int xb, int y) {  // pixels xa..xb-1 of row y, out of sight
    if (xb <= xa) return;
    if (!explored) {
      set_colour(r, {}, static_cast<std::uint8_t>(std::lround(255 * kFogAlpha)));
      span(r, xa, xb - 1, y);
      return;
    }
    const double wy = cam.to_world_y(y + 0.5);
    // Runs of pixels whose centres lie in cells of one state (explored or not), each one span:
    // a run goes on to the next cell's edge while that cell is in the same state.
    const double cell = explored->cell;
    const auto cell_end = [&](int x) {
      const double edge = cam.to_screen_x((std::floor(cam.to_world_x(x + 0.5) / cell) + 1) * cell);
      return std::clamp(static_cast<int>(std::ceil(edge - 0.5)), x + 1, xb);
    };
    int x = xa;
    while (x < xb) {
      const bool seen = v.explored_at(cam.to_world_x(x + 0.5), wy);
      int end = cell_end(x);
      while (end < xb && v.explored_at(cam.to_world_x(end + 0.5), wy) == seen) end = cell_end(end);
      set_colour(
          r, {},
          static_cast<std::uint8_t>(std::lround(255 * (seen ? kFogAlpha : kUnexploredAlpha))));
      span(r, x, end - 1, y);
      x = end;
    }
  };
  std::vector<std::pair<double, double>> chords;
  const int ya = static_cast<int>(std::ceil(wy0 - 0.5)),
            yb = static_cast<int>(std::ceil(wy1 - 0.5));
  const int xa = static_cast<int>(std::ceil(wx0 - 0.5)),
            xb = static_cast<int>(std::ceil(wx1 - 0.5));
  // The discs the row may meet: those begun above it (in order of their tops), less those ended.
  std::vector<Disc> active;
  std::size_t next = 0;
  for (int y = ya; y < yb; ++y) {
    const double py = y + 0.5;
    while (next < discs.size() && discs[next].y - discs[next].r <= py)
      active.push_back(discs[next++]);
    std::erase_if(active, [&](const Disc& d) { return d.y + d.r < py; });
    chords.clear();
    for (const auto& d : active) {
      const double dy = py - d.y, room = d.r * d.r - dy * dy;
      if (room < 0) continue;
      const double half = std::sqrt(room);
      chords.emplace_back(d.x - half, d.x + half);
    }
    std::sort(chords.begin(), chords.end());
    int x = xa;
    for (const auto& [c0, c1] : chords) {
      // Pixels whose centres lie within [c0, c1] are in sight.
      const int in0 = static_cast<int>(std::ceil(c0 - 0.5)),
                in1 = static_cast<int>(std::floor(c1 - 0.5)) + 1;
      if (in1 <= x) continue;
      veil(x, std::min(in0, xb), y);
      x = std::max(x, in1);
      if (x >= xb) break;
    }
    veil(x, xb, y);
  }
}

// A player's ghosts: a faint outline in the enemy team's colour where its team last saw each.
void draw_ghosts(SDL_Renderer* r, const Viewer& v, const Camera& cam) {
  for (const auto& g : v.ghosts()) {
    set_colour(r, v.team_colour(g.team), 200);
    const double sx = cam.to_screen_x(g.x), sy = cam.to_screen_y(g.y);
    const double sr = std::max(2.0, g.r * cam.scale);
    draw_circle(r, sx, sy, sr);
    draw_circle(r, sx, sy, sr + 1);
  }
}

// A bar over each hurt agent (hp under max_hp): the dark back, the full part coloured by how full.
void draw_health(SDL_Renderer* r, const std::vector<AgentState>& agents, const Camera& cam) {
  for (const auto& a : agents) {
    if (!a.hp || !a.max_hp || *a.max_hp <= 0 || *a.hp >= *a.max_hp) continue;
    const double f = std::clamp(*a.hp / *a.max_hp, 0.0, 1.0);
    const double sr = a.r * cam.scale, w = std::max(kHealthMinPx, 2 * sr);
    const double x = cam.to_screen_x(a.x) - w / 2,
                 y = cam.to_screen_y(a.y) - sr - kHealthGapPx - kHealthBarPx;
    const SDL_FRect back{static_cast<float>(x - 1), static_cast<float>(y - 1),
                         static_cast<float>(w + 2), static_cast<float>(kHealthBarPx + 2)};
    set_colour(r, colour::kHealthBack, 200);
    SDL_RenderFillRectF(r, &back);
    const SDL_FRect full{static_cast<float>(x), static_cast<float>(y), static_cast<float>(w * f),
                         static_cast<float>(kHealthBarPx)};
    set_colour(r, health_colour(f));
    SDL_RenderFillRectF(r, &full);
  }
}

// Each collision's flash at its point (flash_ring), over the agents: a 2-pixel ring and a dot.
void draw_flashes(SDL_Renderer* r, const Viewer& v, Viewer::Time now, const Camera& cam) {
  for (const auto& f : v.flashes()) {
    const FlashRing ring = flash_ring(f.impulse, std::chrono::duration<double>(now - f.at).count());
    if (ring.alpha <= 0) continue;
    const double sx = cam.to_screen_x(f.x), sy = cam.to_screen_y(f.y);
    set_colour(r, colour::kFlash, static_cast<std::uint8_t>(std::lround(255 * ring.alpha)));
    draw_circle(r, sx, sy, ring.r - 0.5);
    draw_circle(r, sx, sy, ring.r + 0.5);
    const SDL_FRect dot{static_cast<float>(sx - 1.5), static_cast<float>(sy - 1.5), 3, 3};
    SDL_RenderFillRectF(r, &dot);
  }
}

void draw_overlay(SDL_Renderer* r, const Overlay& overlay, int scale) {
  if (overlay.box) {
    set_colour(r, colour::kSelection, 200);
    SDL_RenderDrawRect(r, &*overlay.box);
  }
  const int pad = 2 * scale;
  const int w = static_cast<int>(overlay.status.size()) * (kGlyphW + 1) * scale + 2 * pad;
  const SDL_Rect bar{0, 0, w, kGlyphH * scale + 2 * pad};
  set_colour(r, colour::kOutside, 220);
  SDL_RenderFillRect(r, &bar);
  set_colour(r, overlay.status_ok ? colour::kText : colour::kTextBad);
  draw_text(r, pad, pad, overlay.status, scale);
  if (overlay.note.empty()) return;
  const int nw = static_cast<int>(overlay.note.size()) * (kGlyphW + 1) * scale + 2 * pad;
  const SDL_Rect under{0, bar.h, nw, bar.h};
  set_colour(r, colour::kOutside, 220);
  SDL_RenderFillRect(r, &under);
  set_colour(r, colour::kText);
  draw_text(r, pad, bar.h + pad, overlay.note, scale);
}

}  // namespace

void draw_frame(SDL_Renderer* r, const Viewer& viewer, Viewer::Time now, const Overlay& overlay) {
  SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
  set_colour(r, colour::kOutside);
  SDL_RenderClear(r);
  int w = 0, h = 0;
  SDL_GetRendererOutputSize(r, &w, &h);
  if (viewer.has_world()) {
    const Camera cam = viewer.camera(w, h);
    const auto agents = viewer.agents_at(now);
    draw_world(r, viewer, cam);
    draw_trails(r, viewer, agents, cam);
    draw_walls(r, viewer, cam);
    draw_obstacles(r, viewer, cam);
    draw_fog(r, viewer, agents, cam, w, h);  // under the agents: those drawn are those seen
    draw_ghosts(r, viewer, cam);
    draw_targets(r, viewer, agents, cam);
    draw_agents(r, viewer, agents, cam);
    draw_health(r, agents, cam);
    draw_flashes(r, viewer, now, cam);
    draw_route_draft(r, viewer, cam);
  }
  draw_overlay(r, overlay, text_scale(w, h));
}

int text_scale(int w, int h) { return std::clamp(std::min(w, h) / (40 * kGlyphH), 3, 12); }

}  // namespace herd::view
