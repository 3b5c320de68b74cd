// The world's walls (walls.hpp): add_wall and remove_wall, and the hard boundary they are at the
// end of the walls stage, after the collision stage has moved everyone.
#include "command_failure.hpp"
#include "world_impl.hpp"

namespace herd::sim {

CommandOutcome WorldImpl::apply_add_wall(const AddWall& cmd) {
  bool is_limit = false;
  if (std::string why = WallService::problem(cmd.points, cmd.closed, def_.width, def_.height,
                                             walls_.size(), walls_.total_points(), is_limit);
      !why.empty())
    return failure(is_limit ? CommandError::limit_exceeded : CommandError::out_of_bounds,
                   std::move(why));
  CommandOutcome out;
  out.wall = walls_.add(cmd.points, cmd.closed, def_.width, def_.height);
  return out;
}

CommandOutcome WorldImpl::apply_remove_wall(const RemoveWall& cmd) {
  if (!walls_.remove(cmd.id, def_.width, def_.height))
    return failure(CommandError::unknown_wall,
                   "wall " + std::to_string(cmd.id) + " does not exist");
  CommandOutcome out;
  out.affected = 1;
  return out;
}

void WorldImpl::hold_at_walls() {
  if (walls_.empty()) return;
  // Each agent reads its own start and the walls and writes only itself: on the workers.
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch& scratch) {
    Agent& a = agents_[i];
    walls_.hold(a, walls_.start_of(a, i), def_.width, def_.height, scratch.walls);
  });
}

}  // namespace herd::sim
