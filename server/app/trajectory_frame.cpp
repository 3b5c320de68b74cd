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
    const sim::AreaSample now = sim::sample_area(m, agents);
    frame.areas.push_back({m.id, now.count, now.density, now.mean_speed});
  }
}

}  // namespace herd::app
