// herd-view's state, free of SDL: the world as the server last described it, the two latest
// snapshots (drawing interpolates between them), the selection, the camera, the order armed for
// the next right click, and the commands the mouse and the keys turn into.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "herd/sim/commands.hpp"
#include "native/view_math.hpp"
#include "protocol/messages.hpp"

namespace herd::view {

class Viewer {
 public:
  using Time = std::chrono::steady_clock::time_point;

  // A collision a snapshot told of, shown as a flash at its point from when it arrived.
  struct Flash {
    double x = 0, y = 0;  // world units
    double impulse = 0;
    Time at{};
  };

  void on_message(const protocol::ServerMessage& msg, Time now);

  // The agents as they should be drawn at `now`: one snapshot interval behind the newest, moving
  // from the previous snapshot's positions to the newest's, so motion is smooth at any frame rate.
  std::vector<protocol::AgentState> agents_at(Time now) const;

  bool has_world() const { return world_.width > 0; }
  bool has_snapshot() const { return have_current_; }
  const protocol::WorldInfo& world() const { return world_; }
  const std::optional<protocol::MapState>& map() const { return map_; }
  // The obstacles as last told (welcome, or a snapshot that carried them).
  const std::vector<protocol::ObstacleState>& obstacles() const { return obstacles_; }
  // The walls as last told (welcome, or a snapshot that carried them).
  const std::vector<protocol::WallState>& walls() const { return walls_; }
  const protocol::Snapshot& latest() const { return current_; }
  // The collisions of the last kFlashSeconds (at most kMaxFlashes, the newest), oldest first.
  const std::vector<Flash>& flashes() const { return flashes_; }
  static constexpr std::size_t kMaxFlashes = 256;
  // Empty unless the server is a relay: "connected" while the world reaches it live,
  // "reconnecting" while its link upstream is being made again (the last snapshot stays shown).
  // Who this session is, as its welcome said: the role, and a player's name and team.
  const std::string& who() const { return who_; }
  const std::string& upstream() const { return upstream_; }

  // The game. A player's team (its fog is drawn: what the team does not see darkened), from the
  // welcome; none for the other roles.
  std::optional<std::uint8_t> player_team() const { return player_team_; }
  // Whether agents are drawn by team, not group: some agent of the newest snapshot has a team
  // other than 0 (a server with players), as the browser decides.
  bool colours_by_team() const { return by_team_; }
  // Team t's colour: the welcome's `teams` for it when given, else the palette's by team.
  Rgb team_colour(unsigned team) const;
  // Agent a's colour: its team's when colours_by_team(), else its group's.
  Rgb agent_colour(const protocol::AgentState& a) const;
  // A player's team's ghosts (the newest snapshot's) and explored ground (as last told).
  const std::vector<protocol::GhostState>& ghosts() const { return ghosts_; }
  const std::optional<protocol::ExploredState>& explored() const { return explored_; }
  // Whether world point (x, y) lies in a cell of the explored ground (false off its grid).
  bool explored_at(double x, double y) const;
  // A late spectator's line until its first snapshot (the welcome's `delay`, counted down from
  // the welcome): "THE WORLD AS IT WAS 30 S AGO: FIRST VIEW IN 27 S"; empty otherwise.
  std::string delay_note(Time now) const;

  // Camera: the fitted view, zoomed and panned.
  Camera camera(int win_w, int win_h) const;
  void pan(double dx, double dy) {
    pan_x_ += dx;
    pan_y_ += dy;
  }
  // Zooms by `factor` keeping the world point under (sx, sy) where it is.
  void zoom_at(double factor, double sx, double sy, int win_w, int win_h);
  void fit() {
    zoom_ = 1;
    pan_x_ = pan_y_ = 0;
  }

  // Selection, in world units. A click picks the agent under it (or clears); a box picks those
  // whose centre is inside.
  void select_at(double wx, double wy, double pick_radius);
  void select_box(double x0, double y0, double x1, double y1);
  const std::vector<std::uint32_t>& selection() const { return selection_; }

  // The orders of the right button, as the browser gives them (clients/web/orders.js): a move that
  // keeps the selection's shape (spread keep), queued after its current orders with Shift; or the
  // order a key armed for the next right click: A an attack-move, Q a patrol.
  enum class Armed { none, attack_move, patrol };
  // Arms `kind` for the next right click; false, and nothing armed, when nothing is selected.
  bool arm(Armed kind);
  void disarm();
  Armed armed() const { return armed_; }
  // A patrol's route points given so far with Shift (world units), in order.
  const std::vector<sim::Vec2>& route() const { return route_; }
  // The most points a patrol takes (the protocol's limit): the route is sent when it has them.
  static constexpr std::size_t kMaxRoutePoints = 64;

  // Right click at world point (wx, wy), clamped into the world, with Shift held or not: the move,
  // or the armed order. A move or attack-move with Shift is queued (and Shift keeps the
  // attack-move armed); a patrol's Shift + right click adds a route point instead, and the route
  // goes with the plain right click that gives its last point. Nothing without a selection (an
  // armed order is dropped: it has no one to give it to).
  std::optional<sim::Command> order_command(double wx, double wy, bool shift);
  // Shift let go: a patrol route given with Shift goes; an attack-move queued with Shift is done.
  std::optional<sim::Command> shift_released();
  // C: the selection stops and forgets its queued orders and patrol routes.
  std::optional<sim::Command> stop_command();
  // The right button's move alone: the selection to (wx, wy), each keeping its place; nothing when
  // nothing is selected.
  std::optional<sim::Command> target_command(double wx, double wy, bool queue = false) const;
  // R, B, T, G, P as clients/web/demo_keys.js: on the selection, or everyone when it is empty,
  // around the world's centre; B follows the last of G and P.
  std::optional<sim::Command> demo_command(char key);

 private:
  sim::Selection selection_or_all() const;
  sim::Vec2 clamp_to_world(double wx, double wy) const;
  sim::SetTarget order_to(sim::BehaviourKind kind, sim::Vec2 p, bool queue) const;
  void prune_selection();
  void add_flashes(Time now);
  void apply_health(const std::vector<protocol::HealthState>& health);

  std::string upstream_;
  protocol::WorldInfo world_;
  std::optional<protocol::MapState> map_;
  std::vector<protocol::ObstacleState> obstacles_;
  std::vector<protocol::WallState> walls_;
  double snapshot_interval_ = 0.05;  // seconds, from the welcome
  std::string who_;
  std::optional<std::uint8_t> player_team_;
  bool by_team_ = false;
  double delay_ = 0;
  Time welcomed_at_{};
  std::map<unsigned, Rgb> team_colours_;  // the welcome's `teams`
  std::vector<protocol::GhostState> ghosts_;
  std::optional<protocol::ExploredState> explored_;
  protocol::Snapshot previous_, current_;
  bool have_previous_ = false, have_current_ = false;
  Time current_at_{};
  std::vector<Flash> flashes_;
  double zoom_ = 1, pan_x_ = 0, pan_y_ = 0;
  std::vector<std::uint32_t> selection_;  // sorted ids
  char last_shape_ = 0;                   // the last of R, T, G, P
  Armed armed_ = Armed::none;
  std::vector<sim::Vec2> route_;  // the patrol's points given with Shift
  bool used_ = false;             // the armed attack-move was given with Shift at least once
};

}  // namespace herd::view
