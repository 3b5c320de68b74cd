// herd-view: the native SDL2 viewer. Talks to the server only over WebSocket, as any
// third-party client would; see --help and clients/native/README.md.
#include <SDL.h>
#include <cctype>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "native/connection.hpp"
#include "native/options.hpp"
#include "native/render.hpp"
#include "native/viewer.hpp"

namespace herd::view {
namespace {

constexpr std::chrono::milliseconds kFirstConnectTimeout{3000};
// --frames mode counts frames from the first snapshot, so the picture shows the world; a server
// that never sends one still gets its picture after this long.
constexpr std::chrono::seconds kFirstSnapshotWait{10};
constexpr int kDragThreshold = 4;       // pixels a press must move to become a selection box
constexpr double kPickSlack = 4;        // pixels round an agent that still pick it
constexpr double kPanStep = 40;         // pixels per arrow key press
constexpr std::uint32_t kFrameMs = 16;  // frame pacing when there is no vsync (offscreen)

struct App {
  Options opts;
  Connection conn;
  Viewer viewer;
  SDL_Window* window = nullptr;
  SDL_Renderer* renderer = nullptr;
  bool left_down = false, box = false, middle_down = false;
  int press_x = 0, press_y = 0, mouse_x = 0, mouse_y = 0;
  bool quit = false;
  SDL_Cursor* arrow = nullptr;  // the system's cursors: a crosshair while an order is armed
  SDL_Cursor* crosshair = nullptr;
};

// The operator and players command (a player its team's agents); viewers and spectators look.
bool commands(protocol::Role role) {
  return role == protocol::Role::commander || role == protocol::Role::player;
}

Camera camera_of(const App& app) {
  int w = 0, h = 0;
  SDL_GetRendererOutputSize(app.renderer, &w, &h);
  return app.viewer.camera(w, h);
}

void send(App& app, const std::optional<sim::Command>& cmd) {
  // Viewers may not command (the server would answer `forbidden`): keys and clicks only look.
  if (cmd && commands(app.opts.role)) app.conn.send_command(*cmd);
}

void on_left_up(App& app) {
  const Camera cam = camera_of(app);
  if (app.box) {
    app.viewer.select_box(cam.to_world_x(app.press_x), cam.to_world_y(app.press_y),
                          cam.to_world_x(app.mouse_x), cam.to_world_y(app.mouse_y));
  } else {
    app.viewer.select_at(cam.to_world_x(app.mouse_x), cam.to_world_y(app.mouse_y),
                         kPickSlack / cam.scale);
  }
  app.left_down = app.box = false;
}

bool commander(const App& app) { return commands(app.opts.role); }

// A or Q: the order the next right click gives (a viewer gives none).
void arm(App& app, Viewer::Armed kind) {
  if (commander(app)) app.viewer.arm(kind);
}

void on_key(App& app, SDL_Keycode key) {
  switch (key) {
    case SDLK_ESCAPE:  // an armed order first, then the window
      if (app.viewer.armed() != Viewer::Armed::none)
        app.viewer.disarm();
      else
        app.quit = true;
      break;
    case SDLK_a:
      arm(app, Viewer::Armed::attack_move);
      break;
    case SDLK_q:
      arm(app, Viewer::Armed::patrol);
      break;
    case SDLK_c:
      send(app, app.viewer.stop_command());
      break;
    case SDLK_LEFT:
      app.viewer.pan(kPanStep, 0);
      break;
    case SDLK_RIGHT:
      app.viewer.pan(-kPanStep, 0);
      break;
    case SDLK_UP:
      app.viewer.pan(0, kPanStep);
      break;
    case SDLK_DOWN:
      app.viewer.pan(0, -kPanStep);
      break;
    case SDLK_f:
      app.viewer.fit();
      break;
    case SDLK_r:
    case SDLK_b:
    case SDLK_t:
    case SDLK_g:
    case SDLK_p:
      send(app, app.viewer.demo_command(static_cast<char>(key - SDLK_a + 'A')));
      break;
    default:
      break;
  }
}

void on_event(App& app, const SDL_Event& e) {
  switch (e.type) {
    case SDL_QUIT:
      app.quit = true;
      break;
    case SDL_KEYDOWN:
      on_key(app, e.key.keysym.sym);
      break;
    case SDL_KEYUP:
      if (e.key.keysym.sym == SDLK_LSHIFT || e.key.keysym.sym == SDLK_RSHIFT)
        send(app, app.viewer.shift_released());
      break;
    case SDL_MOUSEBUTTONDOWN:
      app.mouse_x = e.button.x, app.mouse_y = e.button.y;
      if (e.button.button == SDL_BUTTON_LEFT) {
        app.left_down = true, app.box = false, app.press_x = e.button.x, app.press_y = e.button.y;
      } else if (e.button.button == SDL_BUTTON_MIDDLE) {
        app.middle_down = true;
      } else if (e.button.button == SDL_BUTTON_RIGHT) {
        const Camera cam = camera_of(app);
        if (commander(app))
          send(app, app.viewer.order_command(cam.to_world_x(e.button.x), cam.to_world_y(e.button.y),
                                             (SDL_GetModState() & KMOD_SHIFT) != 0));
      }
      break;
    case SDL_MOUSEBUTTONUP:
      app.mouse_x = e.button.x, app.mouse_y = e.button.y;
      if (e.button.button == SDL_BUTTON_LEFT && app.left_down) on_left_up(app);
      if (e.button.button == SDL_BUTTON_MIDDLE) app.middle_down = false;
      break;
    case SDL_MOUSEMOTION:
      app.mouse_x = e.motion.x, app.mouse_y = e.motion.y;
      if (app.middle_down) app.viewer.pan(e.motion.xrel, e.motion.yrel);
      if (app.left_down && (std::abs(app.mouse_x - app.press_x) > kDragThreshold ||
                            std::abs(app.mouse_y - app.press_y) > kDragThreshold))
        app.box = true;
      break;
    case SDL_MOUSEWHEEL: {
      int w = 0, h = 0;
      SDL_GetRendererOutputSize(app.renderer, &w, &h);
      app.viewer.zoom_at(std::pow(1.15, e.wheel.y), app.mouse_x, app.mouse_y, w, h);
      break;
    }
    default:
      break;
  }
}

Overlay overlay_of(const App& app, Clock::time_point now) {
  Overlay o;
  if (app.box) {
    o.box = SDL_Rect{std::min(app.press_x, app.mouse_x), std::min(app.press_y, app.mouse_y),
                     std::abs(app.mouse_x - app.press_x), std::abs(app.mouse_y - app.press_y)};
  }
  char line[160];
  if (!app.conn.connected()) {
    std::snprintf(line, sizeof line, "DISCONNECTED - RETRY IN %.1fS",
                  app.conn.retry_in_seconds(now));
    o.status_ok = false;
  } else {
    const auto rtt = app.conn.rtt_ms();
    const auto& upstream = app.viewer.upstream();
    const char* state = upstream.empty()             ? "CONNECTED"
                        : upstream == "reconnecting" ? "RELAY: RECONNECTING UPSTREAM"
                                                     : "CONNECTED VIA RELAY";
    o.status_ok = upstream != "reconnecting";
    std::string who = app.viewer.who();
    for (char& ch : who) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    std::snprintf(line, sizeof line, "%s  %s  TICK %llu  AGENTS %zu  SEL %zu  RTT %s", state,
                  who.c_str(), static_cast<unsigned long long>(app.viewer.latest().tick),
                  app.viewer.latest().agents.size(), app.viewer.selection().size(),
                  rtt ? (std::to_string(std::lround(*rtt)) + "MS").c_str() : "-");
  }
  o.status = line;
  // An armed order says how to give it (the 3x5 font has capitals, digits and a few signs).
  switch (app.viewer.armed()) {
    case Viewer::Armed::attack_move:
      o.note = "ATTACK-MOVE: RIGHT CLICK (SHIFT: QUEUE)  ESC: CANCEL";
      break;
    case Viewer::Armed::patrol:
      o.note = app.viewer.route().empty()
                   ? "PATROL: RIGHT CLICK (SHIFT: A ROUTE)  ESC: CANCEL"
                   : "PATROL ROUTE: " + std::to_string(app.viewer.route().size()) +
                         " POINTS  RIGHT CLICK OR LET GO OF SHIFT: GO";
      break;
    case Viewer::Armed::none:
      // A late spectator waiting for its first snapshot: when it comes.
      if (app.conn.connected()) o.note = app.viewer.delay_note(now);
      break;
  }
  return o;
}

// The frame just drawn (before present: the back buffer is what was drawn) as a BMP.
bool save_screenshot(SDL_Renderer* r, const std::string& path) {
  int w = 0, h = 0;
  SDL_GetRendererOutputSize(r, &w, &h);
  SDL_Surface* s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
  if (!s) return false;
  const bool ok =
      SDL_RenderReadPixels(r, nullptr, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0 &&
      SDL_SaveBMP(s, path.c_str()) == 0;
  SDL_FreeSurface(s);
  return ok;
}

bool open_window(App& app) {
  if (SDL_Init(SDL_INIT_VIDEO) != 0) return false;
  app.window = SDL_CreateWindow("herd-view", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                app.opts.width, app.opts.height, SDL_WINDOW_RESIZABLE);
  if (!app.window) return false;
  // Screenshots use the software renderer: it needs no GPU and reads back exactly what it drew.
  if (app.opts.frames == 0)
    app.renderer =
        SDL_CreateRenderer(app.window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
  if (!app.renderer) app.renderer = SDL_CreateRenderer(app.window, -1, SDL_RENDERER_SOFTWARE);
  app.arrow = SDL_CreateSystemCursor(SDL_SYSTEM_CURSOR_ARROW);
  app.crosshair = SDL_CreateSystemCursor(SDL_SYSTEM_CURSOR_CROSSHAIR);
  return app.renderer != nullptr;
}

// The render loop; returns the exit code.
int run(App& app) {
  const auto started = Clock::now();
  int frames_done = 0;
  while (!app.quit) {
    const std::uint32_t frame_start = SDL_GetTicks();
    SDL_Event e;
    while (SDL_PollEvent(&e)) on_event(app, e);
    const auto now = Clock::now();
    for (const auto& msg : app.conn.poll(now)) app.viewer.on_message(msg, Clock::now());
    draw_frame(app.renderer, app.viewer, now, overlay_of(app, now));
    SDL_Cursor* cursor = app.viewer.armed() != Viewer::Armed::none ? app.crosshair : app.arrow;
    if (cursor && SDL_GetCursor() != cursor) SDL_SetCursor(cursor);
    if (app.opts.frames > 0 && (app.viewer.has_snapshot() || now - started > kFirstSnapshotWait) &&
        ++frames_done >= app.opts.frames) {
      if (!app.opts.screenshot.empty() && !save_screenshot(app.renderer, app.opts.screenshot)) {
        std::fprintf(stderr, "herd-view: cannot write %s: %s\n", app.opts.screenshot.c_str(),
                     SDL_GetError());
        return 1;
      }
      if (!app.viewer.has_snapshot()) {
        std::fprintf(stderr, "herd-view: no snapshot within %llds (%s)\n",
                     static_cast<long long>(kFirstSnapshotWait.count()),
                     app.conn.connected() ? "connected" : app.conn.last_error().c_str());
        return 1;
      }
      return 0;
    }
    SDL_RenderPresent(app.renderer);
    const std::uint32_t spent = SDL_GetTicks() - frame_start;
    if (spent < kFrameMs) SDL_Delay(kFrameMs - spent);
  }
  return 0;
}

}  // namespace
}  // namespace herd::view

int main(int argc, char** argv) {
  using namespace herd::view;
  auto parsed = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (auto* err = std::get_if<std::string>(&parsed)) {
    std::fprintf(stderr, "herd-view: %s\nusage: see 'herd-view --help'\n", err->c_str());
    return 2;
  }
  const Options opts = std::get<Options>(parsed);
  if (opts.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  App app{opts, Connection(opts.url, opts.role, opts.token, opts.format, opts.ca_file), {}};
  app.conn.set_scale(opts.scale);
  std::string why;
  if (!app.conn.connect(kFirstConnectTimeout, why)) {
    // As the browser viewer does: the window opens and says so, and the connection is tried again
    // with the same backoff (0.5 s doubling to 5 s). The client's message names the URL and why.
    std::fprintf(stderr, "herd-view: %s; retrying (0.5 s, doubling to 5 s)\n", why.c_str());
    app.conn.retry_later(why, Clock::now());
  }
  int code = 1;
  if (open_window(app)) {
    code = run(app);
  } else {
    std::fprintf(stderr, "herd-view: cannot open a window: %s\n", SDL_GetError());
  }
  if (app.arrow) SDL_FreeCursor(app.arrow);
  if (app.crosshair) SDL_FreeCursor(app.crosshair);
  if (app.renderer) SDL_DestroyRenderer(app.renderer);
  if (app.window) SDL_DestroyWindow(app.window);
  SDL_Quit();
  return code;
}
