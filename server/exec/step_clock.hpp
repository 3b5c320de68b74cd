// herd::exec::steady_ns — the clock a host lends a World for its step profile (World::set_clock):
// the sim reads no clock of its own. Monotonic nanoseconds from an arbitrary start.
#pragma once

#include <chrono>
#include <cstdint>

namespace herd::exec {

inline std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace herd::exec
