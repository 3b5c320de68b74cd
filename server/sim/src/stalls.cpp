#include "stalls.hpp"

#include <algorithm>
#include <cmath>

namespace herd::sim {
namespace {

// Another agent this near touching (gap, in the stalled agent's radii) is in contact with it:
// what holds an agent back is what presses on it, not what is near.
constexpr double kContactGap = 0.5;
// Contacts looked at, at most (the nearest first once found; a dense crowd has about six).
constexpr std::size_t kMaxContacts = 32;
// Cosines: a contact is ahead within about 75 degrees of the way to the goal; another agent
// presses on it, or goes the same way, within 60 degrees; two contacts are on opposite sides
// beyond 120 degrees apart.
constexpr double kAhead = 0.25;
constexpr double kAlong = 0.5;
constexpr double kOpposite = -0.5;
// Heading reversals while slow that make it oscillate rather than merely stand blocked.
constexpr std::uint16_t kMinFlips = 2;

struct Contact {
  AgentId id = 0;
  double gap = 0;
  Vec2 dir;      // from the stalled agent to it (unit)
  Vec2 heading;  // the way it wants to go (unit; zero when it wants nowhere)
  bool standing = false;
};

// The way agent i wants to go: to its goal when it has one, else along its desire (unit or zero).
Vec2 wish(const StallService::Scene& sc, std::size_t i) {
  if (i >= sc.desires.size()) return {};
  const Desire& d = sc.desires[i];
  if (d.goal) return normalized_or_zero(*d.goal - sc.agents[i].position);
  return normalized_or_zero(d.velocity);
}

// Standing: not trying to get anywhere (idle, arrived, holding its place).
bool standing(const Agent& b) {
  return b.state == MoveState::idle || b.state == MoveState::arrived ||
         b.behaviour.kind == BehaviourKind::hold;
}

std::size_t contacts_of(const StallService::Scene& sc, std::size_t i,
                        std::array<Contact, kMaxContacts>& out) {
  const Agent& a = sc.agents[i];
  const double margin = kContactGap * a.def.radius;
  std::size_t n = 0;
  // The grid holds the positions it was built with: look as far again as any agent has moved,
  // and a radius more for the collisions' corrections.
  sc.grid.query(
      a.position, 2 * a.def.radius + sc.max_agent_radius + margin + sc.moved, [&](std::uint32_t j) {
        if (j == i || j >= sc.agents.size()) return;
        const Agent& b = sc.agents[j];
        const Vec2 d = b.position - a.position;
        const double gap = length(d) - a.def.radius - b.def.radius;
        if (gap > margin) return;
        Contact c{b.id, gap, normalized_or_zero(d), wish(sc, j), standing(b)};
        if (n < kMaxContacts) {
          out[n++] = c;
          return;
        }
        // Full: keep the nearer (ties by id, so the grid's order does not matter).
        auto far = std::max_element(out.begin(), out.end(), [](const Contact& x, const Contact& y) {
          return x.gap != y.gap ? x.gap < y.gap : x.id < y.id;
        });
        if (c.gap < far->gap || (c.gap == far->gap && c.id < far->id)) *far = c;
      });
  std::sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n),
            [](const Contact& x, const Contact& y) {
              return x.gap != y.gap ? x.gap < y.gap : x.id < y.id;
            });
  return n;
}

// Names the first StallRule::kMaxBy contacts that `pick` accepts (nearest first).
template <class Pick>
void name_by(const std::array<Contact, kMaxContacts>& c, std::size_t n, Stall& s, Pick&& pick) {
  s.by_count = 0;
  for (std::size_t k = 0; k < n && s.by_count < StallRule::kMaxBy; ++k)
    if (pick(c[k])) s.by[s.by_count++] = c[k].id;
}

}  // namespace

void StallService::update(const Scene& sc) {
  const std::uint32_t mark = StallRule::mark(sc.dt);
  grow(sc.agents.size());
  counts_ = {};
  for (std::size_t i = 0; i < sc.agents.size(); ++i) {
    Stall& s = stalls_[i];
    const Agent& a = sc.agents[i];
    // The cheap part, for every agent: moving at speed (most of them) ends any slow spell.
    if (!StallRule::slow(a)) {
      if (s.slow_ticks != 0) s = Stall{};
      continue;
    }
    if (s.slow_ticks != UINT32_MAX) ++s.slow_ticks;
    // Heading reversals while slow: a turn of more than 120 degrees from the last heading.
    if (a.velocity != Vec2{}) {
      const Vec2 h = normalized_or_zero(a.velocity);
      const auto hx = static_cast<float>(h.x), hy = static_cast<float>(h.y);
      if ((s.heading_x != 0 || s.heading_y != 0) && hx * s.heading_x + hy * s.heading_y < -0.5F &&
          s.flips != UINT16_MAX)
        ++s.flips;
      s.heading_x = hx;
      s.heading_y = hy;
    }
    if (s.slow_ticks <= mark) continue;
    if ((s.slow_ticks - mark - 1) % StallRule::kReclassifyTicks == 0) classify(sc, i, s);
    ++counts_[static_cast<std::size_t>(s.reason)];
  }
  std::uint32_t stalled = 0;
  for (std::size_t k = 1; k < kStallReasonCount; ++k) stalled += counts_[k];
  counts_[0] = static_cast<std::uint32_t>(sc.agents.size()) - stalled;
}

void StallService::recount(double dt) {
  counts_ = {};
  const std::uint32_t mark = StallRule::mark(dt);
  for (const Stall& s : stalls_)
    ++counts_[static_cast<std::size_t>(s.slow_ticks > mark ? s.reason : StallReason::none)];
}

// The reasons, first that applies: its pathing gave up (unreachable); others press on it from
// opposite sides (pinned); those ahead of it stand (blocked_by_standing), go its way (queueing)
// or another (pinned: head on or across); its heading keeps reversing (oscillating); else
// nothing among the agents holds it (blocked).
void StallService::classify(const Scene& sc, std::size_t i, Stall& s) {
  const Agent& a = sc.agents[i];
  s.by = {};
  s.by_count = 0;
  if (a.state == MoveState::unreachable) {
    s.reason = StallReason::unreachable;
    return;
  }
  std::array<Contact, kMaxContacts> c;
  const std::size_t n = contacts_of(sc, i, c);
  const Vec2 way = wish(sc, i);
  auto presses = [](const Contact& k) {
    return !k.standing && dot(k.heading, k.dir * -1.0) > kAlong;
  };
  // Pinned: two that press on it from opposite sides.
  for (std::size_t p = 0; p < n; ++p) {
    if (!presses(c[p])) continue;
    for (std::size_t q = p + 1; q < n; ++q) {
      if (presses(c[q]) && dot(c[p].dir, c[q].dir) < kOpposite) {
        s.reason = StallReason::pinned;
        name_by(c, n, s, presses);
        return;
      }
    }
  }
  auto ahead = [&](const Contact& k) { return way != Vec2{} && dot(k.dir, way) > kAhead; };
  std::size_t standing_ahead = 0, moving_ahead = 0, same_way = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!ahead(c[k])) continue;
    if (c[k].standing) {
      ++standing_ahead;
    } else {
      ++moving_ahead;
      same_way += dot(c[k].heading, way) > kAlong ? 1 : 0;
    }
  }
  if (standing_ahead > 0 && standing_ahead >= moving_ahead) {
    s.reason = StallReason::blocked_by_standing;
    name_by(c, n, s, [&](const Contact& k) { return ahead(k) && k.standing; });
    return;
  }
  if (same_way > 0) {
    s.reason = StallReason::queueing;
    name_by(c, n, s, [&](const Contact& k) {
      return ahead(k) && !k.standing && dot(k.heading, way) > kAlong;
    });
    return;
  }
  if (moving_ahead > 0) {
    s.reason = StallReason::pinned;
    name_by(c, n, s, [&](const Contact& k) { return ahead(k) && !k.standing; });
    return;
  }
  s.reason = s.flips >= kMinFlips ? StallReason::oscillating : StallReason::blocked;
}

}  // namespace herd::sim
