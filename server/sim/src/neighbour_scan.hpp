// herd::sim::scan — the neighbour search's two inner loops, in plain C++ and in AVX-512.
//
// The avoidance stage finds each agent's neighbours by streaming through runs of grid slots
// (SpatialGrid::query_runs) and, with a cap, keeps the K nearest. Both loops only compare: the
// squared distance is computed the same way in every version (two products and a sum, no fused
// multiply-add), so every version returns the same candidates in the same order, bit for bit; the
// wide ones just compare eight at once and compact with the processor's compress instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace herd::sim::scan {

// Candidates in structure-of-arrays form: squared distance, grid slot and agent index. The
// arrays are kept kSlack entries longer than any count written into them: the wide filter stores
// whole vectors past the last candidate it keeps.
struct Candidates {
  static constexpr std::size_t kSlack = 8;
  std::vector<double> d2;
  std::vector<std::uint32_t> slot, index;
  // Room for n candidates (and the slack), keeping those there.
  void reserve(std::size_t n) {
    if (d2.size() >= n + kSlack) return;
    const std::size_t size = 2 * (n + kSlack);
    d2.resize(size);
    slot.resize(size);
    index.resize(size);
  }
  std::size_t memory_bytes() const {
    return d2.capacity() * sizeof(double) +
           (slot.capacity() + index.capacity()) * sizeof(std::uint32_t);
  }
};

struct Kernels {
  // Writes to d2[0..), slot[0..) and index[0..), in slot order, every slot s in [begin, end) whose
  // squared distance from (px, py), (xs[s]-px)^2 + (ys[s]-py)^2, is <= le and < lt and whose
  // point items[s] is neither `self` nor `skip`; returns how many. The outputs need room for
  // end - begin + Candidates::kSlack entries. Unless it is null, *nearest becomes the least of
  // itself and the d2 written.
  std::size_t (*filter)(const double* xs, const double* ys, const std::uint32_t* items,
                        std::uint32_t begin, std::uint32_t end, double px, double py, double le,
                        double lt, std::uint32_t self, std::uint32_t skip, double* d2,
                        std::uint32_t* slot, std::uint32_t* index, double* nearest);
  // Keeps, in their order, the k nearest of the n candidates (0 < k < n): smallest d2, equal
  // distances broken by the smaller index. Returns k. `limit` bounds every d2; `scratch` is
  // reused between calls.
  std::size_t (*keep_nearest)(Candidates& c, std::size_t n, std::size_t k, double limit,
                              std::vector<std::uint32_t>& scratch);
};

// The kernels by name: "base" (any processor) or "avx512" (nullptr where the processor or the
// compiler has none). The empty name: the widest there is.
const Kernels* kernels_named(std::string_view name);
// The kernels the step uses: the widest there is, unless use_kernels chose others.
const Kernels& kernels();
bool use_kernels(std::string_view name);

}  // namespace herd::sim::scan
