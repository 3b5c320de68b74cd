#include "app/trajectory_frame.hpp"

namespace herd::app {

void build_frame(const sim::World& world, TrajectoryFrame& frame) {
  frame.tick = world.tick();
  frame.time = world.time();
  const std::span<const sim::Agent> agents = world.agents();
  frame.agents.resize(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const sim::Agent& a = agents[i];
    AgentRow& row = frame.agents[i];
    row.id = a.id;
    row.state = static_cast<std::uint8_t>(a.state);
    row.group = a.group;
    row.x = a.position.x;
    row.y = a.position.y;
    row.vx = a.velocity.x;
    row.vy = a.velocity.y;
  }
  // The world's measurement lines and areas (add_measurement), in id order: a line's crossings
  // each way since it was added; an area as it is at this frame's tick (its once-a-second reports
  // are the same sums at whole seconds), one pass over the agents for every area.
  frame.lines.clear();
  frame.areas.clear();
  for (const sim::Measurement& m : world.measurements()) {
    if (m.kind == sim::MeasurementKind::line) {
      frame.lines.push_back({m.id, m.totals.forward, m.totals.backward});
      continue;
    }
    AreaRow row;
    row.id = m.id;
    double speed = 0;
    for (const sim::Agent& a : agents) {
      if (a.position.x < m.a.x || a.position.x > m.b.x || a.position.y < m.a.y ||
          a.position.y > m.b.y)
        continue;
      ++row.count;
      speed += length(a.velocity);
    }
    row.density = row.count / ((m.b.x - m.a.x) * (m.b.y - m.a.y));
    if (row.count > 0) row.mean_speed = speed / row.count;
    frame.areas.push_back(row);
  }
}

}  // namespace herd::app
