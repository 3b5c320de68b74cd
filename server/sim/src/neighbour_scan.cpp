#include "neighbour_scan.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HERD_SCAN_AVX512 1
#endif

namespace herd::sim::scan {
namespace {

std::size_t filter_base(const double* xs, const double* ys, const std::uint32_t* items,
                        std::uint32_t begin, std::uint32_t end, double px, double py, double le,
                        double lt, std::uint32_t self, std::uint32_t skip, double* d2,
                        std::uint32_t* slot, std::uint32_t* index, double* nearest) {
  std::size_t n = 0;
  double least = HUGE_VAL;
  for (std::uint32_t s = begin; s < end; ++s) {  // a compaction without a branch
    const double dx = xs[s] - px, dy = ys[s] - py;
    const double d = dx * dx + dy * dy;
    const std::uint32_t j = items[s];
    d2[n] = d;
    slot[n] = s;
    index[n] = j;
    const bool keep = (d <= le) & (d < lt) & (j != self) & (j != skip);
    // Without a branch: a candidate left out counts as infinitely far (NaN is never kept, and
    // NaN + infinity is never the least).
    constexpr double kLeftOut[2] = {HUGE_VAL, 0.0};
    least = std::min(least, d + kLeftOut[keep]);
    n += static_cast<std::size_t>(keep);
  }
  if (nearest) *nearest = std::min(*nearest, least);
  return n;
}

// The k-th nearest (1 <= k <= n): its position. A histogram of d2 over [0, limit] first: the
// bucket holding the k-th is found by counting, without a branch per candidate, and only that
// bucket's few candidates are ordered (floor(d2 * s) never decreases as d2 grows, so every
// candidate of a lower bucket is nearer). nth_element over all of them would cost a mispredicted
// branch per comparison.
std::size_t kth_nearest(const Candidates& c, std::size_t n, std::size_t k, double limit,
                        std::vector<std::uint32_t>& scratch) {
  constexpr int kBuckets = 64;
  std::array<std::uint32_t, kBuckets> count{};
  double s = limit > 0 ? kBuckets / limit : 0.0;
  if (!std::isfinite(s)) s = 0;  // an infinite or vanishing limit: one bucket
  auto bucket = [s](double d2) {
    return static_cast<std::size_t>(std::min(d2 * s, kBuckets - 1.0));
  };
  for (std::size_t m = 0; m < n; ++m) ++count[bucket(c.d2[m])];
  std::size_t b = 0, below = 0;
  while (below + count[b] < k) below += count[b++];
  scratch.resize(n);
  std::size_t in_bucket = 0;
  for (std::size_t m = 0; m < n; ++m) {  // that bucket's candidates, without a branch
    scratch[in_bucket] = static_cast<std::uint32_t>(m);
    in_bucket += static_cast<std::size_t>(bucket(c.d2[m]) == b);
  }
  const auto nth = scratch.begin() + static_cast<std::ptrdiff_t>(k - below - 1);
  std::nth_element(scratch.begin(), nth, scratch.begin() + static_cast<std::ptrdiff_t>(in_bucket),
                   [&c](std::uint32_t x, std::uint32_t y) {
                     return c.d2[x] < c.d2[y] || (c.d2[x] == c.d2[y] && c.index[x] < c.index[y]);
                   });
  return *nth;
}

// Keeps, in order, the candidates no farther than the one at `last` (ties: index no larger).
std::size_t keep_upto(Candidates& c, std::size_t n, std::size_t last) {
  const double last_d2 = c.d2[last];
  const std::uint32_t last_index = c.index[last];
  std::size_t kept = 0;
  for (std::size_t m = 0; m < n; ++m) {  // a compaction without a branch
    const double d = c.d2[m];
    const std::uint32_t i = c.index[m];
    c.d2[kept] = d;
    c.slot[kept] = c.slot[m];
    c.index[kept] = i;
    kept += static_cast<std::size_t>((d < last_d2) | ((d == last_d2) & (i <= last_index)));
  }
  return kept;
}

std::size_t keep_nearest_base(Candidates& c, std::size_t n, std::size_t k, double limit,
                              std::vector<std::uint32_t>& scratch) {
  return keep_upto(c, n, kth_nearest(c, n, k, limit, scratch));
}

#ifdef HERD_SCAN_AVX512
#define HERD_AVX512 [[gnu::target("avx512f,avx512vl,popcnt")]]

HERD_AVX512 __mmask8 live_lanes(std::size_t left) {
  return left >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << left) - 1);
}

// Eight slots at a time: masked loads past the run's end read nothing; the kept lanes are
// compressed to the front of a register and stored whole (the slack takes the rest), which is
// much faster than a compressing store on some processors.
HERD_AVX512 std::size_t filter_avx512(const double* xs, const double* ys,
                                      const std::uint32_t* items, std::uint32_t begin,
                                      std::uint32_t end, double px, double py, double le, double lt,
                                      std::uint32_t self, std::uint32_t skip, double* d2,
                                      std::uint32_t* slot, std::uint32_t* index, double* nearest) {
  const __m512d vpx = _mm512_set1_pd(px), vpy = _mm512_set1_pd(py);
  const __m512d vle = _mm512_set1_pd(le), vlt = _mm512_set1_pd(lt);
  const __m256i vself = _mm256_set1_epi32(static_cast<int>(self)),
                vskip = _mm256_set1_epi32(static_cast<int>(skip));
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m512d least = _mm512_set1_pd(HUGE_VAL);
  std::size_t n = 0;
  for (std::uint32_t s = begin; s < end; s += 8) {
    const __mmask8 live = live_lanes(end - s);
    const __m512d dx = _mm512_sub_pd(_mm512_maskz_loadu_pd(live, xs + s), vpx);
    const __m512d dy = _mm512_sub_pd(_mm512_maskz_loadu_pd(live, ys + s), vpy);
    const __m512d d = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
    const __m256i j = _mm256_maskz_loadu_epi32(live, items + s);
    __mmask8 keep = _mm512_mask_cmp_pd_mask(live, d, vle, _CMP_LE_OQ);
    keep = _mm512_mask_cmp_pd_mask(keep, d, vlt, _CMP_LT_OQ);
    keep = _mm256_mask_cmpneq_epu32_mask(keep, j, vself);
    keep = _mm256_mask_cmpneq_epu32_mask(keep, j, vskip);
    least = _mm512_mask_min_pd(least, keep, least, d);
    _mm512_storeu_pd(d2 + n, _mm512_maskz_compress_pd(keep, d));
    const __m256i slots = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(s)), iota);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + n),
                        _mm256_maskz_compress_epi32(keep, slots));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(index + n),
                        _mm256_maskz_compress_epi32(keep, j));
    n += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(keep)));
  }
  if (nearest) *nearest = std::min(*nearest, _mm512_reduce_min_pd(least));
  return n;
}

// Up to this many candidates, each one's rank (how many come before it) is counted against all
// the others, eight at a time, and those ranked below k are kept: no branch on the data. Beyond
// it the n^2 comparisons cost more than the histogram (measured with the cap of 16: with 64 here
// a crowd of 25 square units per agent, 40 to 64 candidates each, stepped 4% slower; with 16, one
// of 100 square units per agent, 17 to 24 candidates, 5% slower).
constexpr std::size_t kRankMax = 32;

// The ranks' comparisons with the candidates held in C registers of each kind, loaded once: the
// lanes past n hold an infinite distance, which never comes before a candidate's.
template <std::size_t C>
HERD_AVX512 std::uint64_t ranked_below(const Candidates& c, std::size_t n, std::size_t k) {
  __m512d d[C];
  __m256i x[C];
  const __m512d inf = _mm512_set1_pd(HUGE_VAL);
  for (std::size_t j = 0; j < C; ++j) {
    const __mmask8 live = live_lanes(n - 8 * j);
    d[j] = _mm512_mask_loadu_pd(inf, live, c.d2.data() + 8 * j);
    x[j] = _mm256_maskz_loadu_epi32(live, c.index.data() + 8 * j);
  }
  std::uint64_t keep = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const __m512d di = _mm512_set1_pd(c.d2[i]);
    const __m256i xi = _mm256_set1_epi32(static_cast<int>(c.index[i]));
    std::size_t before = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const __mmask8 nearer = _mm512_cmp_pd_mask(d[j], di, _CMP_LT_OQ);
      const __mmask8 tie = _mm512_cmp_pd_mask(d[j], di, _CMP_EQ_OQ);
      const __mmask8 tie_before = _mm256_mask_cmplt_epu32_mask(tie, x[j], xi);
      before += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(nearer | tie_before)));
    }
    keep |= static_cast<std::uint64_t>(before < k) << i;
  }
  return keep;
}

HERD_AVX512 std::size_t keep_nearest_avx512(Candidates& c, std::size_t n, std::size_t k,
                                            double limit, std::vector<std::uint32_t>& scratch) {
  if (n > kRankMax) return keep_upto(c, n, kth_nearest(c, n, k, limit, scratch));
  std::uint64_t keep = 0;
  switch ((n + 7) / 8) {
    case 1:
      keep = ranked_below<1>(c, n, k);
      break;
    case 2:
      keep = ranked_below<2>(c, n, k);
      break;
    case 3:
      keep = ranked_below<3>(c, n, k);
      break;
    case 4:
      keep = ranked_below<4>(c, n, k);
      break;
    case 5:
      keep = ranked_below<5>(c, n, k);
      break;
    case 6:
      keep = ranked_below<6>(c, n, k);
      break;
    case 7:
      keep = ranked_below<7>(c, n, k);
      break;
    default:
      keep = ranked_below<8>(c, n, k);
      break;
  }
  // Compacted in place, eight at a time: a store at `kept` <= j reaches no further than the
  // lanes just loaded.
  std::size_t kept = 0;
  for (std::size_t j = 0; j < n; j += 8) {
    const __mmask8 live = live_lanes(n - j);
    const __mmask8 m = static_cast<__mmask8>(keep >> j) & live;
    const __m512d d = _mm512_maskz_loadu_pd(live, c.d2.data() + j);
    const __m256i s = _mm256_maskz_loadu_epi32(live, c.slot.data() + j);
    const __m256i x = _mm256_maskz_loadu_epi32(live, c.index.data() + j);
    _mm512_storeu_pd(c.d2.data() + kept, _mm512_maskz_compress_pd(m, d));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c.slot.data() + kept),
                        _mm256_maskz_compress_epi32(m, s));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c.index.data() + kept),
                        _mm256_maskz_compress_epi32(m, x));
    kept += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(m)));
  }
  return kept;
}
#undef HERD_AVX512
#endif

constexpr Kernels kBase{&filter_base, &keep_nearest_base};
#ifdef HERD_SCAN_AVX512
constexpr Kernels kAvx512{&filter_avx512, &keep_nearest_avx512};
#endif

const Kernels* chosen = kernels_named("");

}  // namespace

const Kernels* kernels_named(std::string_view name) {
  if (name == "base") return &kBase;
#ifdef HERD_SCAN_AVX512
  if (name == "avx512" || name.empty()) {
    __builtin_cpu_init();  // this may run in a static initialiser, before libgcc's own
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return &kAvx512;
  }
#endif
  return name.empty() ? &kBase : nullptr;
}

const Kernels& kernels() { return *chosen; }

bool use_kernels(std::string_view name) {
  const Kernels* k = kernels_named(name);
  if (!k) return false;
  chosen = k;
  return true;
}

}  // namespace herd::sim::scan
