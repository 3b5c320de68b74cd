// herd::sim::World: the public face, each call handed to the state behind the pointer.
#include "herd/sim/world.hpp"

#include "visibility.hpp"
#include "world_access.hpp"
#include "world_impl.hpp"

namespace herd::sim {

World::World(const WorldDef& def) : impl_(std::make_unique<WorldImpl>(def)) {}
World::World(std::unique_ptr<WorldImpl> impl) : impl_(std::move(impl)) {}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

CommandOutcome World::apply(const Command& command, CommandOrigin origin) {
  return impl_->apply(command, origin);
}
CommandOutcome World::authorize(Command& command, std::uint8_t team, const TeamRules& rules) const {
  return impl_->authorize(command, team, rules);
}
void World::seen_by(std::vector<std::uint64_t>& out) const { impl_->seen_by(out); }
void World::points_seen(std::uint8_t team, std::span<const Vec2> points,
                        std::vector<std::uint8_t>& out) const {
  impl_->points_seen(team, points, out);
}
void World::step() { impl_->step(); }
void World::set_executor(Executor* executor) { impl_->set_executor(executor); }
void World::set_clock(StepClock clock) { impl_->set_clock(clock); }
const StepProfile& World::profile() const { return impl_->profile(); }
const std::vector<CollisionEvent>& World::collisions() const { return impl_->collisions(); }
const std::vector<GameEvent>& World::events() const { return impl_->events(); }
void World::set_inspected(std::vector<AgentId> ids) { impl_->set_inspected(std::move(ids)); }
const std::vector<AgentId>& World::inspected() const { return impl_->inspected(); }
const AvoidanceTrace* World::trace(AgentId id) const { return impl_->trace(id); }
const WorldDef& World::def() const { return impl_->def(); }
std::uint64_t World::tick() const { return impl_->tick(); }
double World::time() const { return impl_->time(); }
std::span<const Agent> World::agents() const { return impl_->agents(); }
std::span<const Obstacle> World::obstacles() const { return impl_->obstacles(); }
const Agent* World::find(AgentId id) const { return impl_->find(id); }
std::span<const Desire> World::desires() const { return impl_->desires(); }
std::span<const Stall> World::stalls() const { return impl_->stalls(); }
const std::array<std::uint32_t, kStallReasonCount>& World::stalled_by_reason() const {
  return impl_->stalled_by_reason();
}
std::uint64_t World::obstacles_version() const { return impl_->obstacles_version(); }
const TileMap* World::map() const { return impl_->map(); }
std::uint64_t World::map_version() const { return impl_->map_version(); }
std::vector<FormationView> World::formations() const {
  std::vector<FormationView> out;
  out.reserve(impl_->formations().size());
  for (const FormationRecord& f : impl_->formations())
    out.push_back({f.id, f.agents, f.members, f.arrived, f.complete, f.unreachable});
  return out;
}
std::uint64_t World::assignment_work_pending() const { return impl_->assignment_work_pending(); }
std::size_t World::assignments_pending() const { return impl_->assignments_pending(); }
std::vector<Vec2> World::upcoming(AgentId id) const { return impl_->upcoming(id); }
bool World::has_orders() const { return impl_->has_orders(); }
PathView World::path(std::size_t index) const {
  const auto paths = impl_->paths();
  if (index >= paths.size()) return {};
  const PathState& p = paths[index];
  return {p.walker.history, p.pending, p.unreachable};
}

std::span<const FormationRecord> formation_records(const World& world) {
  return WorldAccess::impl(world).formations();
}
std::span<const PathState> path_states(const World& world) {
  return WorldAccess::impl(world).paths();
}
std::string checkpoint_in_format(const World& world, std::uint32_t version) {
  return WorldAccess::impl(world).save_checkpoint(version);
}
PathQueueStats World::path_queue_stats() const { return impl_->path_queue_stats(); }
std::span<const Measurement> World::measurements() const { return impl_->measurements(); }
std::uint64_t World::measurements_version() const { return impl_->measurements_version(); }
std::span<const Source> World::sources() const { return impl_->sources(); }
std::span<const Exit> World::exits() const { return impl_->exits(); }
std::uint64_t World::sources_version() const { return impl_->sources_version(); }
std::span<const Wall> World::walls() const { return impl_->walls(); }
std::uint64_t World::walls_version() const { return impl_->walls_version(); }
std::size_t World::agent_memory_bytes() const { return impl_->agent_memory_bytes(); }
std::uint64_t World::state_hash() const { return impl_->state_hash(); }
std::string World::save_checkpoint() const { return impl_->save_checkpoint(); }

std::variant<World, std::string> World::load_checkpoint(std::string_view data) {
  auto loaded = WorldImpl::load_checkpoint(data);
  if (auto* why = std::get_if<std::string>(&loaded)) return std::move(*why);
  return World(std::make_unique<WorldImpl>(std::move(std::get<WorldImpl>(loaded))));
}

}  // namespace herd::sim
