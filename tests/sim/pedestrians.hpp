// A world at pedestrian scale for the cfsm tests: metres and seconds, people of radius 0.2 m
// walking at up to 1.34 m/s (as the pedestrian scenarios' agent defaults), in cfsm mode.
#pragma once

#include "herd/sim/world_def.hpp"

namespace herd::sim {

inline WorldDef pedestrian_world(double width, double height) {
  WorldDef def;
  def.width = width;
  def.height = height;
  def.agent_defaults.radius = 0.2;
  def.agent_defaults.max_speed = 1.34;
  def.agent_defaults.max_force = 2.7;
  def.agent_defaults.slow_radius = 1;
  def.avoidance.mode = AvoidanceMode::cfsm;
  return def;
}

}  // namespace herd::sim
