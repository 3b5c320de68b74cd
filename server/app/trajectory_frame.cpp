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
  frame.lines.clear();
  frame.areas.clear();
  // The world's measurement lines and areas (add_measurement) are written here: a LineRow per
  // line with its cumulative crossings each way, an AreaRow per area with its count, density and
  // mean speed, each in id order.
}

}  // namespace herd::app
