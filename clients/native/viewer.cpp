#include "native/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace herd::view {

using protocol::AgentState;

void Viewer::on_message(const protocol::ServerMessage& msg, Time now) {
  if (const auto* w = std::get_if<protocol::Welcome>(&msg)) {
    // A welcome to another world (reset, load_scenario: its ticks start again) starts afresh;
    // one to the same world (new rates, pause, resume) keeps what is shown: a paused world sends
    // no snapshot to show instead.
    const bool same_world = have_current_ && w->world == world_ && w->tick >= current_.tick;
    world_ = w->world;
    map_ = w->map;
    obstacles_ = w->obstacles;
    walls_ = w->walls;
    upstream_ = w->upstream;
    // The commander is the operator (its name since players came).
    who_ = w->role == protocol::Role::commander ? "operator"
                                                : std::string(protocol::to_string(w->role));
    if (w->team) who_ += " " + w->player + " team " + std::to_string(*w->team);
    if (w->snapshot_rate > 0) snapshot_interval_ = 1.0 / w->snapshot_rate;
    player_team_ = w->role == protocol::Role::player ? w->team : std::nullopt;
    // The countdown runs from the first welcome with the delay: a later one before the first
    // snapshot (a pause's) keeps it.
    if (w->delay != delay_ || have_current_) welcomed_at_ = now;
    delay_ = w->delay;
    team_colours_.clear();
    for (const auto& t : w->teams)
      if (const auto c = parse_hex_colour(t.colour)) team_colours_[t.team] = *c;
    if (!same_world) {
      have_previous_ = have_current_ = false;
      flashes_.clear();
      ghosts_.clear();
      explored_.reset();  // a new world's team has explored nothing yet
    }
    return;
  }
  const auto* s = std::get_if<protocol::Snapshot>(&msg);
  if (!s) return;
  if (s->map) map_ = s->map;
  if (s->map_cleared) map_.reset();
  if (s->obstacles) obstacles_ = *s->obstacles;  // absent: unchanged
  if (s->walls) walls_ = *s->walls;              // absent: unchanged
  previous_ = std::move(current_);
  have_previous_ = have_current_;
  current_ = *s;
  if (s->health) apply_health(*s->health);
  by_team_ = std::any_of(current_.agents.begin(), current_.agents.end(),
                         [](const AgentState& a) { return a.team.value_or(0) != 0; });
  ghosts_ = s->ghosts.value_or(std::vector<protocol::GhostState>{});
  if (s->explored) explored_ = s->explored;  // absent: as last told
  have_current_ = true;
  current_at_ = now;
  prune_selection();
  add_flashes(now);
}

void Viewer::add_flashes(Time now) {
  // Collisions are events, each in one snapshot only: kept for as long as their flash shows.
  const auto faded =
      std::chrono::duration_cast<Time::duration>(std::chrono::duration<double>(kFlashSeconds));
  std::erase_if(flashes_, [&](const Flash& f) { return now - f.at >= faded; });
  for (const auto& c : current_.collisions) flashes_.push_back({c.x, c.y, c.impulse, now});
  if (flashes_.size() > kMaxFlashes)
    flashes_.erase(flashes_.begin(),
                   flashes_.begin() + static_cast<std::ptrdiff_t>(flashes_.size() - kMaxFlashes));
}

void Viewer::apply_health(const std::vector<protocol::HealthState>& health) {
  // A binary frame's hurt agents, [id, hp, max_hp] each, onto its agents as JSON carries them;
  // the others are unhurt.
  auto& agents = current_.agents;
  for (const auto& h : health) {
    auto it = std::lower_bound(agents.begin(), agents.end(), h.id,
                               [](const AgentState& a, std::uint32_t v) { return a.id < v; });
    if (it == agents.end() || it->id != h.id) continue;
    it->hp = h.hp;
    it->max_hp = h.max_hp;
  }
}

Rgb Viewer::team_colour(unsigned team) const {
  if (auto it = team_colours_.find(team); it != team_colours_.end()) return it->second;
  return team_palette_colour(team);
}

Rgb Viewer::agent_colour(const AgentState& a) const {
  return colours_by_team() ? team_colour(a.team.value_or(0)) : group_colour(a.group);
}

bool Viewer::explored_at(double x, double y) const {
  if (!explored_ || explored_->cell <= 0) return false;
  const double cx = std::floor(x / explored_->cell), cy = std::floor(y / explored_->cell);
  if (cx < 0 || cy < 0 || cx >= explored_->cols || cy >= explored_->rows) return false;
  const auto i = static_cast<std::size_t>(cy) * explored_->cols + static_cast<std::size_t>(cx);
  if (i / 8 >= explored_->bits.size()) return false;
  return (explored_->bits[i / 8] >> (i % 8)) & 1;
}

std::string Viewer::delay_note(Time now) const {
  if (delay_ <= 0 || have_current_) return {};
  const double since = std::chrono::duration<double>(now - welcomed_at_).count();
  const long left = std::max(0L, static_cast<long>(std::ceil(delay_ - since)));
  return "THE WORLD AS IT WAS " + std::to_string(std::lround(delay_)) + " S AGO: FIRST VIEW IN " +
         std::to_string(left) + " S";
}

std::vector<AgentState> Viewer::agents_at(Time now) const {
  std::vector<AgentState> out = current_.agents;
  if (!have_previous_) return out;
  const double since = std::chrono::duration<double>(now - current_at_).count();
  const double t = std::clamp(since / snapshot_interval_, 0.0, 1.0);
  // Both lists are ordered by id: walk them together; an agent new in `current_` is drawn where
  // it is (nothing to come from).
  std::size_t j = 0;
  for (auto& a : out) {
    while (j < previous_.agents.size() && previous_.agents[j].id < a.id) ++j;
    if (j == previous_.agents.size() || previous_.agents[j].id != a.id) continue;
    const AgentState& p = previous_.agents[j];
    a.x = p.x + (a.x - p.x) * t;
    a.y = p.y + (a.y - p.y) * t;
  }
  return out;
}

Camera Viewer::camera(int win_w, int win_h) const {
  return fit_camera(world_.width, world_.height, win_w, win_h, zoom_, pan_x_, pan_y_);
}

void Viewer::zoom_at(double factor, double sx, double sy, int win_w, int win_h) {
  const Camera before = camera(win_w, win_h);
  const double wx = before.to_world_x(sx), wy = before.to_world_y(sy);
  zoom_ = std::clamp(zoom_ * factor, 0.1, 100.0);
  const Camera after = camera(win_w, win_h);
  pan_x_ += sx - after.to_screen_x(wx);
  pan_y_ += sy - after.to_screen_y(wy);
}

void Viewer::select_at(double wx, double wy, double pick_radius) {
  selection_.clear();
  double best = 0;
  std::optional<std::uint32_t> pick;
  for (const auto& a : current_.agents) {
    const double d2 = (a.x - wx) * (a.x - wx) + (a.y - wy) * (a.y - wy);
    const double reach = a.r + pick_radius;
    if (d2 <= reach * reach && (!pick || d2 < best)) {
      best = d2;
      pick = a.id;
    }
  }
  if (pick) selection_.push_back(*pick);
}

void Viewer::select_box(double x0, double y0, double x1, double y1) {
  selection_.clear();
  const double lx = std::min(x0, x1), hx = std::max(x0, x1), ly = std::min(y0, y1),
               hy = std::max(y0, y1);
  for (const auto& a : current_.agents)
    if (a.x >= lx && a.x <= hx && a.y >= ly && a.y <= hy) selection_.push_back(a.id);
}

void Viewer::prune_selection() {
  // Removed agents leave the selection, so a command never names an id the server lacks.
  const auto& agents = current_.agents;
  std::erase_if(selection_, [&](std::uint32_t id) {
    auto it = std::lower_bound(agents.begin(), agents.end(), id,
                               [](const AgentState& a, std::uint32_t v) { return a.id < v; });
    return it == agents.end() || it->id != id;
  });
}

sim::Vec2 Viewer::clamp_to_world(double wx, double wy) const {
  // A click in the margin round the world means "as far as you can go that way": still a valid
  // order, not an out_of_bounds error.
  return {std::clamp(wx, 0.0, world_.width), std::clamp(wy, 0.0, world_.height)};
}

sim::Selection Viewer::selection_or_all() const {
  if (selection_.empty()) return sim::Selection(true);
  return sim::Selection(false, selection_);
}

sim::SetTarget Viewer::order_to(sim::BehaviourKind kind, sim::Vec2 p, bool queue) const {
  sim::SetTarget t;
  t.agents = sim::Selection(false, selection_);
  t.target = p;
  t.behaviour = kind;
  // Several agents keep their shape, as a squad does in strategy games; said explicitly, whatever
  // the server's default.
  t.spread = sim::Spread::keep;
  t.queue = queue;
  return t;
}

std::optional<sim::Command> Viewer::target_command(double wx, double wy, bool queue) const {
  if (selection_.empty() || !has_world()) return std::nullopt;
  return order_to(sim::BehaviourKind::arrive, clamp_to_world(wx, wy), queue);
}

bool Viewer::arm(Armed kind) {
  disarm();
  if (selection_.empty()) return false;
  armed_ = kind;
  return true;
}

void Viewer::disarm() {
  armed_ = Armed::none;
  route_.clear();
  used_ = false;
}

std::optional<sim::Command> Viewer::order_command(double wx, double wy, bool shift) {
  if (selection_.empty() || !has_world()) {
    disarm();
    return std::nullopt;
  }
  const sim::Vec2 p = clamp_to_world(wx, wy);
  switch (armed_) {
    case Armed::none:
      return order_to(sim::BehaviourKind::arrive, p, shift);
    case Armed::attack_move: {
      sim::SetTarget t = order_to(sim::BehaviourKind::attack_move, p, shift);
      if (shift)
        used_ = true;
      else
        disarm();
      return t;
    }
    case Armed::patrol:
      route_.push_back(p);
      if (shift && route_.size() < kMaxRoutePoints) return std::nullopt;
      break;
  }
  // The patrol: through the route's points, the first the target.
  sim::SetTarget t = order_to(sim::BehaviourKind::patrol, route_.front(), false);
  t.points.assign(route_.begin() + 1, route_.end());
  disarm();
  return t;
}

std::optional<sim::Command> Viewer::shift_released() {
  if (armed_ == Armed::patrol && !route_.empty()) {
    std::optional<sim::Command> out;
    if (!selection_.empty()) {
      sim::SetTarget t = order_to(sim::BehaviourKind::patrol, route_.front(), false);
      t.points.assign(route_.begin() + 1, route_.end());
      out = t;
    }
    disarm();
    return out;
  }
  if (armed_ == Armed::attack_move && used_) disarm();
  return std::nullopt;
}

std::optional<sim::Command> Viewer::stop_command() {
  disarm();
  if (selection_.empty()) return std::nullopt;
  return sim::Stop{sim::Selection(false, selection_)};
}

std::optional<sim::Command> Viewer::demo_command(char key) {
  const sim::Vec2 centre{world_.width / 2, world_.height / 2};
  sim::FormationDef def;
  def.centre = centre;
  switch (key) {
    case 'R':
      last_shape_ = key;
      def.shape = sim::Shape::circle;
      def.assignment = sim::SlotAssignment::optimal;
      return sim::Form{selection_or_all(), def};
    case 'T':
      last_shape_ = key;
      return sim::Demo{selection_or_all(), sim::DemoMove::opposite, 3};
    case 'G':
      last_shape_ = key;
      def.shape = sim::Shape::block;
      def.count = 2;
      def.regroup = true;
      return sim::Form{selection_or_all(), def};
    case 'P':
      last_shape_ = key;
      def.shape = sim::Shape::lines;
      def.vertical = true;
      def.count = 2;
      def.regroup = true;
      def.assignment = sim::SlotAssignment::keep_order;
      return sim::Form{selection_or_all(), def};
    case 'B': {
      const auto move = last_shape_ == 'G'   ? sim::DemoMove::exchange
                        : last_shape_ == 'P' ? sim::DemoMove::invert
                                             : sim::DemoMove::swap_places;
      return sim::Demo{selection_or_all(), move, 3};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace herd::view
