#include "publish/density.hpp"

namespace herd::publish {

protocol::DensityLayer density_layer(const sim::World& world) {
  protocol::DensityBuilder b(world.def().width, world.def().height);
  for (const sim::Agent& a : world.agents())
    b.add(a.position.x, a.position.y, a.velocity.x, a.velocity.y);
  return b.finish();
}

}  // namespace herd::publish
