// herd-view: flags and exit codes, the viewer's state (interpolation, the demo keys),
// and a screenshot of a known world checked pixel by pixel. The server and the viewer are the real
// processes; every wait is for a message or an exit, with a bound.
#include <SDL.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/process.hpp"
#include "common/tls_proxy.hpp"
#include "common/ws_client.hpp"
#include "native/options.hpp"
#include "native/render.hpp"
#include "native/view_math.hpp"
#include "native/viewer.hpp"
#include "protocol/codec.hpp"

namespace herd {
namespace {

namespace fs = std::filesystem;
using client::Millis;
using testing::Process;
using testing::slurp;

// A loopback port the OS says is free now (bound, read, closed): a server started later takes it.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

class ViewProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_view_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    setenv("SDL_VIDEODRIVER", "offscreen", 1);  // no display in tests or CI
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs herd-view with `args`; its exit code, and its output in `out`.
  int run_view(const std::vector<std::string>& args, std::string& out) {
    const fs::path log = dir_ / "view.log";
    Process view(args, log, HERD_VIEW_BIN);
    const int code = view.wait_exit(std::chrono::seconds(30));
    out = slurp(log);
    return code;
  }

  fs::path dir_;
};

TEST_F(ViewProcessTest, BadFlagsExitTwoWithAMessage) {
  const std::vector<std::vector<std::string>> bad = {{"--bogus", "1"},
                                                     {"--url", "http://localhost:8080/ws"},
                                                     {"--url", "ws://:80/ws"},
                                                     {"--url", "ws://h:99999/ws"},
                                                     {"--role", "king"},
                                                     {"--format", "xml"},
                                                     {"--quantum", "0.3"},
                                                     {"--quantum", "fine"},
                                                     {"--frames", "0"},
                                                     {"--screenshot", "x.bmp"},
                                                     {"--width"},
                                                     {"--width", "63"},
                                                     {"--ca-file", "/nonexistent/ca.pem"},
                                                     {"stray"},
                                                     {"--frames", "2", "--frames2", "3"}};
  for (const auto& args : bad) {
    std::string out;
    EXPECT_EQ(run_view(args, out), 2) << args[0] << ": " << out;
    EXPECT_NE(out.find("herd-view: "), std::string::npos) << out;
  }
  std::string out;
  EXPECT_EQ(run_view({"--help"}, out), 0);
  EXPECT_NE(out.find("Usage: herd-view [OPTIONS]"), std::string::npos) << out;
  EXPECT_NE(out.find("--ca-file"), std::string::npos) << out;
  EXPECT_NE(out.find("--quantum"), std::string::npos) << out;
}

TEST_F(ViewProcessTest, AServerNotUpAtStartIsRetriedUntilItIs) {
  // A free loopback port, with nothing on it yet.
  const int port = free_port();
  ASSERT_GT(port, 0);
  const fs::path view_log = dir_ / "view.log", shot = dir_ / "late.bmp";
  Process view({"--url", "ws://127.0.0.1:" + std::to_string(port) + "/ws", "--frames", "2",
                "--screenshot", shot.string()},
               view_log, HERD_VIEW_BIN);
  // It says it will retry, and keeps its window (it does not exit) ...
  ASSERT_TRUE(
      testing::wait_until([&] { return slurp(view_log).find("retrying") != std::string::npos; },
                          std::chrono::milliseconds(10000)))
      << slurp(view_log);
  EXPECT_NE(slurp(view_log).find("cannot connect"), std::string::npos);
  // ... until a server comes up on that port: then it draws its world and exits 0.
  const fs::path server_log = dir_ / "server.log";
  Process server({"--address", "127.0.0.1", "--port", std::to_string(port), "--scenario", "demo32"},
                 server_log);
  ASSERT_GT(testing::listening_port(server_log), 0) << slurp(server_log);
  EXPECT_EQ(view.wait_exit(std::chrono::seconds(20)), 0) << slurp(view_log);
  EXPECT_TRUE(fs::exists(shot));
}

TEST_F(ViewProcessTest, FramesWithNoServerEverExitOneWithAMessage) {
  std::string out;
  // Port 1 on the loopback: nothing listens there; herd-view retries for the first snapshot's
  // wait (10 s), then says why it has none.
  EXPECT_EQ(run_view({"--url", "ws://127.0.0.1:1/ws", "--frames", "1", "--screenshot",
                      (dir_ / "x.bmp").string()},
                     out),
            1);
  EXPECT_NE(out.find("cannot connect"), std::string::npos) << out;
  EXPECT_NE(out.find("no snapshot within 10s"), std::string::npos) << out;
}

TEST(ViewText, TheStatusFontGrowsWithTheWindow) {
  EXPECT_EQ(view::text_scale(800, 600), 3);  // 9 x 15 pixel letters at the smallest
  EXPECT_EQ(view::text_scale(1920, 1080), 5);
  EXPECT_EQ(view::text_scale(3840, 2160), 10);  // 4K
  EXPECT_GT(view::text_scale(1920, 1080), view::text_scale(1024, 768));
}

// The next message of type `T` within the bound, skipping others.
template <class T>
std::optional<T> next_of(client::WsClient& c, Millis bound = Millis(5000)) {
  const auto end = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < end) {
    auto text = c.receive(Millis(100));
    if (!text) continue;
    auto decoded = protocol::decode_server(*text);
    if (auto* m = std::get_if<protocol::ServerMessage>(&decoded))
      if (auto* t = std::get_if<T>(m)) return *t;
  }
  return std::nullopt;
}

view::Rgb pixel(SDL_Surface* s, double x, double y) {
  const int px = static_cast<int>(std::lround(x)), py = static_cast<int>(std::lround(y));
  const auto* row = static_cast<const std::uint8_t*>(s->pixels) + py * s->pitch;
  std::uint32_t v = 0;
  std::memcpy(&v, row + px * 4, 4);
  std::uint8_t r = 0, g = 0, b = 0;
  SDL_GetRGB(v, s->format, &r, &g, &b);
  return {r, g, b};
}

std::string str(view::Rgb c) {
  return std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b);
}

TEST_F(ViewProcessTest, ScreenshotShowsAgentsAndObstacleWhereTheSnapshotPutsThem) {
  const fs::path server_log = dir_ / "server.log";
  Process server({"--address", "127.0.0.1", "--port", "0", "--scenario", "empty"}, server_log);
  const int port = testing::listening_port(server_log);
  ASSERT_GT(port, 0) << slurp(server_log);

  // Two still agents (no target: they stay where spawned) and an obstacle between them.
  client::WsClient c;
  c.connect("127.0.0.1", static_cast<std::uint16_t>(port));
  c.send(protocol::encode(protocol::Hello{1, protocol::Role::commander, "view-test", {}}));
  c.send(
      R"({"type":"command","seq":1,"cmd":"spawn","agents":[{"x":200,"y":150,"group":0,"radius":10},)"
      R"({"x":600,"y":450,"group":3,"radius":12}]})");
  ASSERT_TRUE(next_of<protocol::Ack>(c));
  c.send(R"({"type":"command","seq":2,"cmd":"add_obstacle","x":400,"y":300,"radius":30})");
  ASSERT_TRUE(next_of<protocol::Ack>(c));
  std::optional<protocol::Snapshot> snap;
  for (int i = 0; i < 20 && !(snap && snap->agents.size() == 2 && snap->obstacles &&
                              snap->obstacles->size() == 1);
       ++i)
    snap = next_of<protocol::Snapshot>(c);
  ASSERT_TRUE(snap && snap->agents.size() == 2 && snap->obstacles && snap->obstacles->size() == 1);

  // A relay in front of the server: herd-view connects to it as to the server.
  const fs::path relay_log = dir_ / "relay.log";
  Process relay({"--address", "127.0.0.1", "--port", "0", "--relay",
                 "ws://127.0.0.1:" + std::to_string(port) + "/ws"},
                relay_log);
  const int relay_port = testing::listening_port(relay_log);
  ASSERT_GT(relay_port, 0) << slurp(relay_log);

  // And a TLS proxy in front of the server: wss://, its certificate trusted with --ca-file.
  testing::TlsProxy tls(static_cast<std::uint16_t>(port));
  const std::string wss = "wss://localhost:" + std::to_string(tls.port()) + "/ws";

  // JSON (what auto gives a world this small) and binary snapshots draw the same picture, from the
  // server, through the relay (whose binary frames it encodes itself) and over TLS.
  for (const auto& [via, url] :
       {std::pair{"server", "ws://127.0.0.1:" + std::to_string(port) + "/ws"},
        std::pair{"relay", "ws://127.0.0.1:" + std::to_string(relay_port) + "/ws"},
        std::pair{"tls", wss}})
    for (const std::string format : {"auto", "binary"}) {
      SCOPED_TRACE(std::string(via) + ", --format " + format);
      const std::string bmp = (dir_ / ("out_" + std::string(via) + "_" + format + ".bmp")).string();
      std::string out;
      ASSERT_EQ(run_view({"--url", url, "--frames", "30", "--screenshot", bmp, "--width", "800",
                          "--height", "600", "--format", format, "--ca-file",
                          testing::TlsProxy::ca_file()},
                         out),
                0)
          << out;
      if (const char* keep = std::getenv("HERD_VIEW_SCREENSHOT"))
        fs::copy_file(bmp, keep, fs::copy_options::overwrite_existing);

      SDL_Surface* loaded = SDL_LoadBMP(bmp.c_str());
      ASSERT_NE(loaded, nullptr) << SDL_GetError();
      SDL_Surface* s = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ARGB8888, 0);
      SDL_FreeSurface(loaded);
      ASSERT_NE(s, nullptr);
      ASSERT_EQ(s->w, 800);
      ASSERT_EQ(s->h, 600);

      // The viewer's own fit: the world 800 x 600 in the 800 x 600 window.
      const view::Camera cam = view::fit_camera(800, 600, 800, 600);
      for (const auto& a : snap->agents)
        EXPECT_EQ(str(pixel(s, cam.to_screen_x(a.x), cam.to_screen_y(a.y))),
                  str(view::group_colour(a.group)))
            << "agent " << a.id << " at " << a.x << "," << a.y;
      EXPECT_EQ(str(pixel(s, cam.to_screen_x(400), cam.to_screen_y(300))),
                str(view::colour::kObstacle));
      EXPECT_EQ(str(pixel(s, cam.to_screen_x(700), cam.to_screen_y(100))),
                str(view::colour::kWorld));
      EXPECT_EQ(str(pixel(s, 798, 598)),
                str(view::colour::kOutside));  // the margin round the fitted world
      SDL_FreeSurface(s);
    }
}

TEST(ViewOptions, UrlIsSplitIntoHostPortAndPath) {
  auto u = std::get<view::Url>(view::parse_url("ws://example.org:9000/custom/ws"));
  EXPECT_EQ(u.host, "example.org");
  EXPECT_EQ(u.port, 9000);
  EXPECT_EQ(u.path, "/custom/ws");
  auto d = std::get<view::Url>(view::parse_url("ws://10.0.0.2"));
  EXPECT_EQ(d.port, 80);
  EXPECT_EQ(d.path, "/ws");
  EXPECT_TRUE(std::holds_alternative<std::string>(view::parse_url("ws://host:abc/ws")));
  auto v6 = std::get<view::Url>(
      view::parse_url("ws://[::1]:9000/ws"));  // split at the bracket, not the last colon
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 9000);
  const auto wss = std::get<view::Url>(view::parse_url("wss://example.org/ws"));
  EXPECT_TRUE(wss.tls);
  EXPECT_EQ(wss.port, 443);
}

protocol::Snapshot snapshot_with(std::uint64_t tick, double x) {
  protocol::Snapshot s;
  s.tick = tick;
  protocol::AgentState a;
  a.id = 1;
  a.x = x;
  a.y = 50;
  s.agents.push_back(a);
  return s;
}

TEST(ViewViewer, InterpolatesFromThePreviousSnapshotToTheNewest) {
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  w.snapshot_rate = 20;  // 50 ms apart
  const auto t0 = std::chrono::steady_clock::now();
  v.on_message(w, t0);
  v.on_message(snapshot_with(1, 100), t0);
  v.on_message(snapshot_with(4, 200), t0);
  EXPECT_DOUBLE_EQ(v.agents_at(t0)[0].x, 100);
  EXPECT_NEAR(v.agents_at(t0 + std::chrono::milliseconds(25))[0].x, 150, 1e-9);
  EXPECT_DOUBLE_EQ(v.agents_at(t0 + std::chrono::milliseconds(80))[0].x,
                   200);  // never past the newest
}

// Pause and resume welcome every client again: the world stays on screen. A new world's welcome
// (its ticks start again) clears it.
TEST(ViewViewer, AWelcomeToTheSameWorldKeepsItAndANewWorldClearsIt) {
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  w.snapshot_rate = 20;
  v.on_message(w, {});
  v.on_message(snapshot_with(30, 100), {});
  w.tick = 31;
  w.paused = true;
  v.on_message(w, {});
  ASSERT_TRUE(v.has_snapshot()) << "paused: no snapshot comes to replace it";
  EXPECT_DOUBLE_EQ(v.agents_at({})[0].x, 100);
  w.tick = 0;  // reset
  w.paused = false;
  v.on_message(w, {});
  EXPECT_FALSE(v.has_snapshot());
}

TEST(ViewViewer, ARelaysWelcomeSaysWhetherItsUpstreamIsLive) {
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  v.on_message(w, {});
  EXPECT_EQ(v.upstream(), "") << "a server is no relay";
  w.upstream = "connected";
  v.on_message(w, {});
  EXPECT_EQ(v.upstream(), "connected");
  v.on_message(snapshot_with(30, 100), {});
  w.tick = 30;
  w.upstream = "reconnecting";  // the same world: what is shown stays
  v.on_message(w, {});
  EXPECT_EQ(v.upstream(), "reconnecting");
  EXPECT_TRUE(v.has_snapshot());
}

// A late spectator (the welcome's `delay`) is told when its first view comes, counted down from
// the welcome; its first snapshot ends the note. Without a delay there is none.
TEST(ViewViewer, ALateSpectatorCountsDownToItsFirstView) {
  using std::chrono::milliseconds;
  const view::Viewer::Time t0{std::chrono::seconds(50)};
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  w.role = protocol::Role::spectator;
  v.on_message(w, t0);
  EXPECT_EQ(v.delay_note(t0), "") << "no delay";
  view::Viewer late;
  w.delay = 30;
  late.on_message(w, t0);
  EXPECT_EQ(late.delay_note(t0), "THE WORLD AS IT WAS 30 S AGO: FIRST VIEW IN 30 S");
  EXPECT_EQ(late.delay_note(t0 + milliseconds(3200)),
            "THE WORLD AS IT WAS 30 S AGO: FIRST VIEW IN 27 S");
  late.on_message(w, t0 + milliseconds(5000));  // a pause's welcome: the count goes on
  EXPECT_EQ(late.delay_note(t0 + milliseconds(5000)),
            "THE WORLD AS IT WAS 30 S AGO: FIRST VIEW IN 25 S");
  late.on_message(snapshot_with(1, 100), t0 + milliseconds(30000));
  EXPECT_EQ(late.delay_note(t0 + milliseconds(30000)), "");
}

TEST(ViewViewer, DemoKeysSendWhatTheBrowserSends) {
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  v.on_message(w, {});
  auto demo = [&](char k) { return std::get<sim::Demo>(*v.demo_command(k)).move; };
  EXPECT_EQ(demo('B'), sim::DemoMove::swap_places);
  auto r = std::get<sim::Form>(*v.demo_command('R'));
  EXPECT_EQ(r.def.shape, sim::Shape::circle);
  EXPECT_TRUE(r.agents.all);
  EXPECT_EQ(r.def.centre, (sim::Vec2{400, 300}));
  auto g = std::get<sim::Form>(*v.demo_command('G'));
  EXPECT_EQ(g.def.shape, sim::Shape::block);
  EXPECT_TRUE(g.def.regroup);
  EXPECT_EQ(demo('B'), sim::DemoMove::exchange);
  auto p = std::get<sim::Form>(*v.demo_command('P'));
  EXPECT_EQ(p.def.shape, sim::Shape::lines);
  EXPECT_TRUE(p.def.vertical);
  EXPECT_EQ(p.def.assignment, sim::SlotAssignment::keep_order);
  EXPECT_EQ(demo('B'), sim::DemoMove::invert);
  EXPECT_EQ(demo('T'), sim::DemoMove::opposite);
  EXPECT_EQ(demo('B'), sim::DemoMove::swap_places);
  EXPECT_FALSE(v.demo_command('X'));
}

// The right button's orders, as the browser gives them (clients/web/orders.js,
// tests/web/orders.test.mjs): a move keeping the shape, queued with Shift; A's attack-move; Q's
// patrol, through a route given with Shift; C's stop.
TEST(ViewViewer, RightClickOrdersAreTheBrowsers) {
  view::Viewer v;
  protocol::Welcome w;
  w.world = {800, 600};
  v.on_message(w, {});
  protocol::Snapshot s = snapshot_with(1, 100);
  s.agents.push_back(s.agents[0]);
  s.agents[1].id = 2;
  s.agents[1].x = 140;
  v.on_message(s, {});
  using K = sim::BehaviourKind;
  auto order = [&](double x, double y, bool shift) {
    auto c = v.order_command(x, y, shift);
    return c ? std::optional(std::get<sim::SetTarget>(*c)) : std::nullopt;
  };
  EXPECT_FALSE(order(300, 300, false)) << "nothing selected";
  EXPECT_FALSE(v.arm(view::Viewer::Armed::attack_move)) << "nothing selected to arm it for";
  v.select_box(0, 0, 800, 600);
  ASSERT_EQ(v.selection(), (std::vector<std::uint32_t>{1, 2}));

  auto move = order(300, 900, false);  // below the world: clamped into it
  ASSERT_TRUE(move);
  EXPECT_EQ(move->behaviour, K::arrive);
  EXPECT_EQ(move->spread, sim::Spread::keep);
  EXPECT_FALSE(move->queue);
  EXPECT_EQ(move->target, (sim::Vec2{300, 600}));
  EXPECT_TRUE(order(300, 300, true)->queue);

  ASSERT_TRUE(v.arm(view::Viewer::Armed::attack_move));
  auto queued = order(500, 300, true);
  EXPECT_EQ(queued->behaviour, K::attack_move);
  EXPECT_TRUE(queued->queue);
  EXPECT_EQ(v.armed(), view::Viewer::Armed::attack_move) << "Shift keeps it armed";
  EXPECT_FALSE(v.shift_released());
  EXPECT_EQ(v.armed(), view::Viewer::Armed::none) << "letting go of Shift ends it";
  v.arm(view::Viewer::Armed::attack_move);
  auto once = order(500, 300, false);
  EXPECT_EQ(once->behaviour, K::attack_move);
  EXPECT_FALSE(once->queue);
  EXPECT_EQ(v.armed(), view::Viewer::Armed::none);

  v.arm(view::Viewer::Armed::patrol);
  EXPECT_EQ(order(100, 100, false)->behaviour, K::patrol) << "one point: there and back";
  v.arm(view::Viewer::Armed::patrol);
  EXPECT_FALSE(order(100, 100, true));
  EXPECT_FALSE(order(200, 100, true));
  EXPECT_EQ(v.route().size(), 2u);
  auto route = order(300, 100, false);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->behaviour, K::patrol);
  EXPECT_EQ(route->target, (sim::Vec2{100, 100}));
  EXPECT_EQ(route->points, (std::vector<sim::Vec2>{{200, 100}, {300, 100}}));
  EXPECT_TRUE(v.route().empty());
  v.arm(view::Viewer::Armed::patrol);
  EXPECT_FALSE(order(100, 100, true));
  auto let_go = v.shift_released();
  ASSERT_TRUE(let_go);
  EXPECT_EQ(std::get<sim::SetTarget>(*let_go).behaviour, K::patrol);

  auto stop = v.stop_command();
  ASSERT_TRUE(stop);
  EXPECT_EQ(std::get<sim::Stop>(*stop).agents, sim::Selection(false, {1, 2}));
}

}  // namespace
}  // namespace herd
