// herd::sim::Rng — the world's one seeded generator.
//
// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and fully specified here, so the same seed
// gives the same numbers with every compiler and standard library. std distributions are avoided on
// purpose: their output differs between implementations, which would break determinism.
#pragma once

#include <cstdint>

namespace herd::sim {

class Rng {
 public:
  explicit constexpr Rng(std::uint64_t seed = 0) : state_(seed) {}

  constexpr std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1): the top 53 bits scaled exactly, so the result is the same everywhere.
  constexpr double next_unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi).
  constexpr double uniform(double lo, double hi) { return lo + (hi - lo) * next_unit(); }

  constexpr std::uint64_t state() const { return state_; }
  constexpr void set_state(std::uint64_t s) { state_ = s; }

 private:
  std::uint64_t state_;
};

}  // namespace herd::sim
