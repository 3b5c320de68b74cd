// herd-view's palette and drawing, in process: the compiled palette against the file the browser
// imports (clients/web/palette.json; palette.test.mjs measures its colours apart), and frames drawn
// by draw_frame onto a software renderer's surface, read back pixel by pixel: a collided agent
// keeps its group colour inside a red ring, a walker's trail and a collision's flash are drawn as
// the browser draws them.
#include <SDL.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "native/render.hpp"
#include "native/view_math.hpp"
#include "native/viewer.hpp"

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

// A software renderer drawing into a 816 x 616 surface: an 800 x 600 world fits it at scale 1,
// 8 pixels in (kFitMargin), so world (x, y) is pixel (x + 8, y + 8).
class DrawFrameTest : public ::testing::Test {
 protected:
  static constexpr int kW = 816, kH = 616;
  static constexpr double kOffset = 8;

  void SetUp() override {
    surface_ = SDL_CreateRGBSurfaceWithFormat(0, kW, kH, 32, SDL_PIXELFORMAT_ARGB8888);
    ASSERT_NE(surface_, nullptr) << SDL_GetError();
    renderer_ = SDL_CreateSoftwareRenderer(surface_);
    ASSERT_NE(renderer_, nullptr) << SDL_GetError();
    protocol::Welcome w;
    w.world = {800, 600};
    w.snapshot_rate = 20;
    protocol::MapState map;
    map.width = 20;
    map.height = 15;
    map.tile_size = 40;
    map.rows.assign(15, std::string(20, '.'));
    w.map = map;
    viewer_.on_message(w, {});
  }
  void TearDown() override {
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (surface_) SDL_FreeSurface(surface_);
  }

  // Draws the frame at `now` after snapshot `s` arrived at `arrived`.
  void draw(const protocol::Snapshot& s, view::Viewer::Time arrived = {},
            view::Viewer::Time now = {}) {
    viewer_.on_message(s, arrived);
    ASSERT_EQ(view::fit_camera(800, 600, kW, kH).scale, 1);
    view::draw_frame(renderer_, viewer_, now, view::Overlay{});
    SDL_RenderPresent(renderer_);
  }

  // The pixel at world (x, y) plus (dx, dy) pixels.
  Rgb at(double x, double y, int dx = 0, int dy = 0) const {
    const int px = static_cast<int>(std::lround(x + kOffset)) + dx,
              py = static_cast<int>(std::lround(y + kOffset)) + dy;
    std::uint32_t v = 0;
    std::memcpy(
        &v, static_cast<const std::uint8_t*>(surface_->pixels) + py * surface_->pitch + px * 4, 4);
    Rgb c;
    SDL_GetRGB(v, surface_->format, &c.r, &c.g, &c.b);
    return c;
  }

  SDL_Surface* surface_ = nullptr;
  SDL_Renderer* renderer_ = nullptr;
  view::Viewer viewer_;
};

protocol::AgentState agent(std::uint32_t id, double x, double y, std::uint8_t group, double r) {
  protocol::AgentState a;
  a.id = id;
  a.x = x;
  a.y = y;
  a.r = r;
  a.group = group;
  return a;
}

TEST_F(DrawFrameTest, ACollidedAgentKeepsItsGroupColourInsideARedRing) {
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {agent(1, 200, 300, 1, 10), agent(2, 500, 300, 4, 10)};
  s.agents[0].collided = true;
  draw(s);
  for (const auto& a : s.agents) {
    SCOPED_TRACE("agent " + std::to_string(a.id));
    const Rgb body = view::group_colour(a.group);
    // The body is its group's colour to its rim (radius 10 pixels) ...
    EXPECT_EQ(str(at(a.x, a.y)), str(body));
    EXPECT_EQ(str(at(a.x, a.y, 10, 0)), str(body));
    EXPECT_EQ(str(at(a.x, a.y, 0, -10)), str(body));
    // ... and just outside it, the red ring (kCollidedRingPx wide) while collided, else the ground.
    const Rgb ring = a.collided ? view::colour::kCollided : view::colour::kWorld;
    for (int d = 11; d <= 10 + view::kCollidedRingPx; ++d) {
      EXPECT_EQ(str(at(a.x, a.y, d, 0)), str(ring)) << d;
      EXPECT_EQ(str(at(a.x, a.y, -d, 0)), str(ring)) << d;
      EXPECT_EQ(str(at(a.x, a.y, 0, d)), str(ring)) << d;
    }
    EXPECT_EQ(str(at(a.x, a.y, 11 + view::kCollidedRingPx, 0)), str(view::colour::kWorld));
  }
}

// A stalled agent (its snapshot's `stall`) wears a white badge on its upper left, past its rim,
// as in the browser; one that is not stalled has none, and an unreachable one keeps its own mark.
TEST_F(DrawFrameTest, AStalledAgentWearsABadgeOnItsUpperLeft) {
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {agent(1, 200, 300, 1, 10), agent(2, 500, 300, 4, 10)};
  s.agents[0].state = sim::MoveState::moving;
  s.agents[0].stall = sim::StallReason::queueing;
  s.agents[0].stall_for = 2.5;
  draw(s);
  // The badge's centre: (r + 3 + 0.6 * badge) from the centre, up and to the left at 45 degrees.
  const int d =
      static_cast<int>(std::lround((10 + 3 + view::kStallBadgePx * 0.6) / std::sqrt(2.0)));
  EXPECT_EQ(str(at(200, 300, -d, -d)), str(view::colour::kStalled));
  EXPECT_EQ(str(at(500, 300, -d, -d)), str(view::colour::kWorld)) << "not stalled: no badge";
  EXPECT_EQ(str(at(200, 300)), str(view::group_colour(1))) << "the body keeps its colour";
}

// What `c` at opacity `alpha` (0..255) over `under` blends to.
Rgb over(Rgb c, int alpha, Rgb under) {
  const auto mix = [&](int a, int b) {
    return static_cast<std::uint8_t>((a * alpha + b * (255 - alpha) + 127) / 255);
  };
  return {mix(c.r, under.r), mix(c.g, under.g), mix(c.b, under.b)};
}

void expect_near(Rgb got, Rgb want, int tolerance, const std::string& what) {
  EXPECT_LE(std::abs(got.r - want.r), tolerance)
      << what << ": " << str(got) << ", want " << str(want);
  EXPECT_LE(std::abs(got.g - want.g), tolerance)
      << what << ": " << str(got) << ", want " << str(want);
  EXPECT_LE(std::abs(got.b - want.b), tolerance)
      << what << ": " << str(got) << ", want " << str(want);
}

// A selected agent's queued route (its snapshot's `waypoints`, after its goal) is drawn as the
// browser draws it: a faint line from the goal through each point and a dot on each; an agent not
// selected has none drawn.
TEST_F(DrawFrameTest, ASelectedAgentsQueuedRouteIsALineWithADotOnEachPoint) {
  protocol::Snapshot s;
  s.tick = 1;
  auto chosen = agent(1, 100, 100, 1, 8), other = agent(2, 100, 400, 2, 8);
  chosen.target = sim::Vec2{300, 100};
  chosen.waypoints = {{300, 250}, {500, 250}};
  other.target = sim::Vec2{300, 400};
  other.waypoints = {{300, 550}, {500, 550}};
  s.agents = {chosen, other};
  viewer_.on_message(s, {});
  viewer_.select_at(100, 100, 1);
  ASSERT_EQ(viewer_.selection(), (std::vector<std::uint32_t>{1}));
  draw(s);
  const Rgb ground = view::colour::kWorld, target = view::colour::kTarget;
  for (const sim::Vec2& w : chosen.waypoints) {
    EXPECT_EQ(str(at(w.x, w.y)), str(target)) << "the dot at " << w.x << ", " << w.y;
    // Below it (the legs come from above and from the left): the ground.
    EXPECT_EQ(str(at(w.x, w.y, 0, 1 + static_cast<int>(view::kRouteDotPx) + 2)), str(ground))
        << "below the dot at " << w.x << ", " << w.y;
  }
  // Half way along each leg: the line, fainter than the dots.
  expect_near(at(300, 175), over(target, 128, ground), 3, "the leg from the goal");
  expect_near(at(400, 250), over(target, 128, ground), 3, "the leg between the points");
  for (const sim::Vec2& w : other.waypoints)
    EXPECT_EQ(str(at(w.x, w.y)), str(ground)) << "an unselected agent's point";
}

// A wall (add_wall) is drawn as the browser draws it: a line of the obstacles' stone kWallPx
// wide on a rim of their darker edge; a closed wall joins its last point to its first.
TEST_F(DrawFrameTest, AWallIsALineOfStoneOnADarkerRim) {
  protocol::Snapshot s;
  s.tick = 1;
  s.walls = std::vector<protocol::WallState>{{1, {{100, 100}, {300, 100}}, false},
                                             {2, {{400, 200}, {600, 200}, {500, 400}}, true}};
  draw(s);
  ASSERT_EQ(view::kWallPx, 3);
  ASSERT_EQ(view::kWallRimPx, 2);
  const std::string stone = str(view::colour::kObstacle), rim = str(view::colour::kObstacleRim),
                    ground = str(view::colour::kWorld);
  EXPECT_EQ(str(at(200, 100)), stone) << "on the segment";
  EXPECT_EQ(str(at(200, 100, 0, -3)), rim) << "beside it";
  EXPECT_EQ(str(at(200, 100, 0, -6)), ground) << "clear of it";
  EXPECT_EQ(str(at(350, 100)), ground) << "past its end";
  EXPECT_EQ(str(at(450, 300)), stone) << "the side that closes the polygon";
  EXPECT_EQ(str(at(500, 280)), ground) << "inside the polygon";
}

TEST_F(DrawFrameTest, AWalkersTrailIsASquarePerTileJoinedByALineFadingWithAge) {
  protocol::Snapshot s;
  s.tick = 1;
  // Tiles 40 units (pixels) wide: the line is 4 pixels wide, the squares 8.8 pixels.
  ASSERT_DOUBLE_EQ(view::trail_width_px(40), 4);
  ASSERT_NEAR(view::trail_mark_px(40), 8.8, 1e-9);
  auto walker = agent(1, 7.5 * 40, 3.5 * 40, 2, 8);  // on the tile after its history
  walker.history = {{2, 3}, {3, 3}, {4, 3}, {5, 3}, {6, 3}};
  auto plain = agent(2, 300, 500, 2, 8);  // no history: no trail
  s.agents = {walker, plain};
  draw(s);
  const Rgb g = view::group_colour(2), ground = view::colour::kWorld;
  const auto centre = [](int tile) { return (tile + 0.5) * 40; };
  const std::size_t n = walker.history.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double x = centre(walker.history[i].x), y = centre(walker.history[i].y);
    const int alpha = static_cast<int>(std::lround(255 * view::trail_alpha(i, n)));
    // The square, above the line (2 pixels each side of the centre): only the square's colour.
    expect_near(at(x, y, 0, -3), over(g, alpha, ground), 3, "square " + std::to_string(i));
    // Beside the square: the ground.
    EXPECT_EQ(str(at(x, y, 0, -6)), str(ground)) << "above square " << i;
    if (i == 0) continue;
    // Half way from the previous tile: the line, in the newer tile's opacity; off it, the ground.
    const double mx = (centre(walker.history[i - 1].x) + x) / 2;
    expect_near(at(mx, y), over(g, alpha, ground), 3, "line to " + std::to_string(i));
    EXPECT_EQ(str(at(mx, y, 0, -4)), str(ground)) << "beside the line to " << i;
  }
  EXPECT_DOUBLE_EQ(view::trail_alpha(n - 1, n), 1.0);  // the newest is opaque
  EXPECT_EQ(str(at(centre(6), centre(3), 0, -3)), str(g));
  EXPECT_NEAR(view::trail_alpha(0, n), 0.15, 1e-12);  // the oldest faint
  // The agent without a history leaves no mark round it.
  EXPECT_EQ(str(at(plain.x - 40, plain.y)), str(ground));
}

TEST_F(DrawFrameTest, ACollisionFlashesAtItsPointThenFades) {
  using std::chrono::milliseconds;
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {agent(1, 100, 100, 0, 8)};
  protocol::CollisionState c;
  c.a = 1;
  c.b = 2;
  c.x = 400;
  c.y = 300;
  c.impulse = 40;
  s.collisions = {c};
  const view::Viewer::Time t0{std::chrono::seconds(100)};
  // A quarter of the way through: the dot at the point, and the ring (to 11 pixels for this
  // impulse) half grown, three quarters opaque.
  draw(s, t0, t0 + milliseconds(125));
  const view::FlashRing ring = view::flash_ring(40, 0.125);
  ASSERT_NEAR(ring.alpha, 0.75, 1e-9);
  ASSERT_NEAR(ring.r, 2 + (11 - 2) * 0.5, 1e-9);
  const Rgb lit = over(view::colour::kFlash, 191, view::colour::kWorld);
  expect_near(at(400, 300), lit, 3, "the dot");
  // The ring is two 1-pixel circles, at r -+ 0.5: above the point, one of the two rows there is lit
  // at least as brightly (where a circle's segments meet, a pixel may be blended twice).
  const auto lit_at = [&](int dy) {
    const Rgb p = at(400, 300, 0, dy);
    return p.r + 3 >= lit.r && p.g + 3 >= lit.g && p.b + 3 >= lit.b;
  };
  EXPECT_TRUE(lit_at(-6) || lit_at(-7))
      << str(at(400, 300, 0, -6)) << " " << str(at(400, 300, 0, -7));
  EXPECT_EQ(str(at(400, 300, 0, -3)), str(view::colour::kWorld)) << "inside the ring";
  // Faded after kFlashSeconds, and forgotten by the next snapshot after that.
  view::draw_frame(renderer_, viewer_, t0 + milliseconds(500), view::Overlay{});
  EXPECT_EQ(str(at(400, 300)), str(view::colour::kWorld));
  EXPECT_EQ(viewer_.flashes().size(), 1u);
  s.tick = 2;
  s.collisions.clear();
  draw(s, t0 + milliseconds(500), t0 + milliseconds(500));
  EXPECT_TRUE(viewer_.flashes().empty());
}

// The game: a welcome to the same 800 x 600 world as a player of `team` (or as the viewer), with
// the players file's team colours.
protocol::Welcome game_welcome(std::optional<std::uint8_t> team,
                               std::vector<protocol::Welcome::TeamColour> teams = {}) {
  protocol::Welcome w;
  w.world = {800, 600};
  w.snapshot_rate = 20;
  if (team) {
    w.role = protocol::Role::player;
    w.player = "red";
    w.team = team;
  }
  w.teams = std::move(teams);
  return w;
}

protocol::AgentState team_agent(std::uint32_t id, double x, double y, std::uint8_t team) {
  protocol::AgentState a = agent(id, x, y, 0, 10);
  a.team = team;
  return a;
}

// Agents of a server with players are drawn in their team's colour: the welcome's `teams` where
// it gives one, else the palette's by team (nobody's neutral grey), whatever their group.
TEST_F(DrawFrameTest, AgentsAreDrawnInTheWelcomesTeamColoursElseThePalettes) {
  viewer_.on_message(game_welcome(std::nullopt, {{1, "#d04040"}}), {});
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {team_agent(1, 200, 300, 1), team_agent(2, 400, 300, 2), team_agent(3, 600, 300, 0)};
  s.agents[0].group = 3;
  draw(s);
  EXPECT_EQ(str(at(200, 300)), str(Rgb{0xd0, 0x40, 0x40}));
  EXPECT_EQ(str(at(400, 300)), str(view::group_colour(1)));
  EXPECT_EQ(str(at(600, 300)), str(view::colour::kTeamNeutral));
}

// A hurt agent (hp under max_hp: JSON's fields, or a binary frame's side section `health`) has a
// bar over it: 4 pixels high, 3 above its body, as wide as the body (20 pixels), its full part
// (40 of 100: amber) on a dark back. An unhurt agent has none.
TEST_F(DrawFrameTest, AHurtAgentHasAHitPointBarOverIt) {
  const Rgb back = over(view::colour::kHealthBack, 200, view::colour::kWorld);
  const auto expect_bar = [&](const std::string& what) {
    // The bar spans x 190..210, y 283..287: its first 8 pixels full.
    expect_near(at(194, 285), view::colour::kHealthMid, 0, what + ": the full part");
    expect_near(at(206, 285), back, 3, what + ": the empty part");
    EXPECT_EQ(str(at(200, 278)), str(view::colour::kWorld)) << what << ": above the bar";
    EXPECT_EQ(str(at(500, 285)), str(view::colour::kWorld)) << what << ": over the unhurt agent";
  };
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {agent(1, 200, 300, 0, 10), agent(2, 500, 300, 0, 10)};
  s.agents[0].hp = 40;
  s.agents[0].max_hp = 100;
  s.agents[1].hp = 100;
  s.agents[1].max_hp = 100;
  draw(s);
  expect_bar("JSON");
  s.tick = 2;
  s.agents = {agent(1, 200, 300, 0, 10), agent(2, 500, 300, 0, 10)};
  s.health = std::vector<protocol::HealthState>{{1, 40, 100}};
  draw(s);
  expect_bar("binary");
}

// A player's world: what its team does not see veiled (black at kFogAlpha), a clear disc of its
// agent's sight round it; its ghosts outlined in the enemy team's colour over the fog; and once its
// explored ground is known, ground never explored darker (kUnexploredAlpha) than ground explored.
TEST_F(DrawFrameTest, APlayersFogVeilsWhatItsTeamDoesNotSeeWithItsGhostsAndExploredGround) {
  viewer_.on_message(game_welcome(1), {});
  protocol::Snapshot s;
  s.tick = 1;
  s.agents = {team_agent(1, 200, 300, 1)};
  s.agents[0].sight = 100;
  protocol::GhostState g;
  g.id = 9;
  g.x = 600;
  g.y = 300;
  g.r = 10;
  g.team = 2;
  g.time = 1;
  s.ghosts = std::vector<protocol::GhostState>{g};
  draw(s);
  const Rgb world = view::colour::kWorld;
  const Rgb veiled = over(Rgb{}, 153, world), dark = over(Rgb{}, 224, world);
  EXPECT_EQ(str(at(250, 330)), str(world)) << "in sight";
  expect_near(at(400, 100), veiled, 1, "out of sight");
  expect_near(at(200, 405), veiled, 1, "just past the sight's rim");
  expect_near(at(610, 300), over(view::group_colour(1), 200, veiled), 3, "the ghost's outline");
  expect_near(at(600, 300), veiled, 1, "inside the ghost's outline");

  // Cells of 100 units, 8 x 6: the left half (columns 0 to 3) explored.
  protocol::ExploredState e;
  e.cell = 100;
  e.cols = 8;
  e.rows = 6;
  e.bits.assign(6, 0);
  for (std::uint32_t row = 0; row < 6; ++row)
    for (std::uint32_t col = 0; col < 4; ++col) {
      const std::uint32_t i = row * 8 + col;
      e.bits[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
    }
  s.tick = 2;
  s.explored = e;
  draw(s);
  EXPECT_EQ(str(at(250, 330)), str(world)) << "in sight";
  expect_near(at(350, 100), veiled, 1, "explored, out of sight");
  expect_near(at(650, 500), dark, 1, "never explored");
  expect_near(at(405, 100), dark, 1, "just past the explored cells");
  // Absent from the next snapshot, the explored ground is as last told.
  s.tick = 3;
  s.explored.reset();
  draw(s);
  expect_near(at(650, 500), dark, 1, "never explored, as last told");
}

}  // namespace
}  // namespace herd
