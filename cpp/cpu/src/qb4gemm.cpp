// Blockwise 4-bit fully connected layers: see qb4gemm.h.
#include "qb4gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <executorch/extension/parallel/thread_parallel.h>

#include "float16.h"
#include "gemm.h"
#include "isa.h"
#include "qgemm.h"

#include "x86_intrinsics.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace etk {

bool qb4_dynamic_available() {
#if defined(__x86_64__) || defined(__aarch64__)
  return qgemm_available();  // AVX2 (or AVX-512 VNNI); dotprod (UDOT)
#else
  return false;
#endif
}

bool pack_qb4(int64_t K, int64_t N, const float* W, const float* scales, int64_t group, const float* bias,
              PackedQB4* out, bool panels) {
  // The int8 kernel's per-group int32 terms (8 * 255 * group, 255 * 15 * group) stay in range for groups up to
  // kMaxQB4Group; wider groups (a damaged program) stay on the float weights.
  if (K <= 0 || N <= 0 || group <= 0 || group > kMaxQB4Group || K % 32 != 0 || group % 32 != 0 || K % group != 0)
    return false;
  const int64_t G = K / group;
  // The 4-bit values (w + 8), checked against the scales.
  std::vector<uint8_t> nib(static_cast<size_t>(N * K));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) {
      const float s = scales[n * G + k / group];
      const float w = W[n * K + k];
      const float q = s != 0.f ? std::nearbyint(w / s) : 0.f;
      if (!(q >= -8.f && q <= 7.f) || q * s != w) return false;
      nib[static_cast<size_t>(n * K + k)] = static_cast<uint8_t>(static_cast<int>(q) + 8);
    }
  }
  PackedQB4 p;
  p.K = K;
  p.N = N;
  p.group = group;
  p.panels = panels;
  if (!panels) {
    p.q.assign(static_cast<size_t>(N * K / 2), 0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) {
        const uint8_t v = nib[static_cast<size_t>(n * K + k)];
        const int64_t blk = k / 32, i = k % 32;
        uint8_t& b = p.q[static_cast<size_t>(n * K / 2 + blk * 16 + (i % 16))];
        b = static_cast<uint8_t>(i < 16 ? (b & 0xF0) | v : (b & 0x0F) | (v << 4));
      }
    p.scales.assign(scales, scales + N * G);
    if (bias != nullptr) p.bias.assign(bias, bias + N);
  } else {
    const int64_t P = (N + 15) / 16;
    auto at = [&](int64_t n, int64_t k) -> uint8_t { return n < N ? nib[static_cast<size_t>(n * K + k)] : 8; };
    p.q.resize(static_cast<size_t>(P * (K / 8) * 64));
    const bool bf16 =
        std::all_of(scales, scales + N * G, [](float s) { return etkb::bf16_to_float(etkb::float_to_bf16(s)) == s; });
    if (bf16) {
      p.scales_bf16.assign(static_cast<size_t>(P * G * 16), 0);
    } else {
      p.scales.assign(static_cast<size_t>(P * G * 16), 0.f);
    }
    for (int64_t pn = 0; pn < P; ++pn) {
      for (int64_t b = 0; b < K / 8; ++b)
        for (int c = 0; c < 16; ++c)
          for (int r = 0; r < 4; ++r)
            p.q[static_cast<size_t>((pn * (K / 8) + b) * 64 + 4 * c + r)] =
                static_cast<uint8_t>(at(pn * 16 + c, 8 * b + r) | (at(pn * 16 + c, 8 * b + 4 + r) << 4));
      for (int64_t g = 0; g < G; ++g)
        for (int c = 0; c < 16; ++c) {
          const int64_t n = pn * 16 + c;
          if (n >= N) continue;
          const auto at_pg = static_cast<size_t>((pn * G + g) * 16 + c);
          if (bf16) {
            p.scales_bf16[at_pg] = etkb::float_to_bf16(scales[n * G + g]);
          } else {
            p.scales[at_pg] = scales[n * G + g];
          }
        }
    }
    if (bias != nullptr) {
      p.bias.assign(static_cast<size_t>(P * 16), 0.f);
      std::copy(bias, bias + N, p.bias.begin());
    }
  }
  *out = std::move(p);
  return true;
}

namespace {

// Row n of the weights as floats: (nibble - 8) * scale, 32 at a time.
template <typename F>
inline __attribute__((always_inline)) void expand_row_impl(const PackedQB4& B, int64_t n, float* w, F) {
  const int64_t K = B.K, G = K / B.group, per_group = B.group / 32;
  const uint8_t* q = B.q.data() + n * K / 2;
  const float* s = B.scales.data() + n * G;
  for (int64_t g = 0; g < G; ++g) {
    const float sc = s[g];
    for (int64_t blk = g * per_group; blk < (g + 1) * per_group; ++blk) {
      // Local copies: the byte loads cannot alias the float stores, so the 16 lanes vectorize.
      uint8_t b[16];
      std::memcpy(b, q + blk * 16, 16);
      float lo[16], hi[16];
      for (int i = 0; i < 16; ++i) {
        lo[i] = static_cast<float>(static_cast<int>(b[i] & 15) - 8) * sc;
        hi[i] = static_cast<float>(static_cast<int>(b[i] >> 4) - 8) * sc;
      }
      std::memcpy(w + blk * 32, lo, sizeof(lo));
      std::memcpy(w + blk * 32 + 16, hi, sizeof(hi));
    }
  }
}
ETK_ISA_DISPATCH(expand_row, (const PackedQB4& B, int64_t n, float* w, F f), (B, n, w, f))

// Rows of A (MR of them) times row n of the weights, straight from the nibbles: per group, the products with the
// integer weights (q - 8) accumulate in 16 lanes, then the group's scale multiplies them once.
template <int MR, typename F>
inline __attribute__((always_inline)) void dot_rows_impl(const PackedQB4& B, int64_t n, const float* A, int64_t rsa,
                                                         float* out, int64_t rsc, F) {
  const int64_t K = B.K, G = K / B.group, per_group = B.group / 32;
  const uint8_t* q = B.q.data() + n * K / 2;
  const float* s = B.scales.data() + n * G;
  float acc[MR][16] = {};
  for (int64_t g = 0; g < G; ++g) {
    float part[MR][16] = {};
    for (int64_t blk = g * per_group; blk < (g + 1) * per_group; ++blk) {
      uint8_t b[16];
      std::memcpy(b, q + blk * 16, 16);
      float lo[16], hi[16];
      for (int i = 0; i < 16; ++i) {
        lo[i] = static_cast<float>(static_cast<int>(b[i] & 15) - 8);
        hi[i] = static_cast<float>(static_cast<int>(b[i] >> 4) - 8);
      }
      for (int m = 0; m < MR; ++m) {
        const float* a = A + m * rsa + blk * 32;
        for (int i = 0; i < 16; ++i) part[m][i] += lo[i] * a[i] + hi[i] * a[16 + i];
      }
    }
    const float sc = s[g];
    for (int m = 0; m < MR; ++m)
      for (int i = 0; i < 16; ++i) acc[m][i] += part[m][i] * sc;
  }
  for (int m = 0; m < MR; ++m) {
    float t = 0.f;
    for (int i = 0; i < 16; ++i) t += acc[m][i];
    out[m * rsc] = t;
  }
}
template <typename F>
inline __attribute__((always_inline)) void dot_rows_any_portable_impl(int64_t M, const PackedQB4& B, int64_t n,
                                                                      const float* A, int64_t rsa, float* out,
                                                                      int64_t rsc, F f) {
  for (int64_t m = 0; m < M; m += 4) {
    switch (std::min<int64_t>(M - m, 4)) {
      case 1: dot_rows_impl<1>(B, n, A + m * rsa, rsa, out + m * rsc, rsc, f); break;
      case 2: dot_rows_impl<2>(B, n, A + m * rsa, rsa, out + m * rsc, rsc, f); break;
      case 3: dot_rows_impl<3>(B, n, A + m * rsa, rsa, out + m * rsc, rsc, f); break;
      default: dot_rows_impl<4>(B, n, A + m * rsa, rsa, out + m * rsc, rsc, f); break;
    }
  }
}
ETK_ISA_DISPATCH(dot_rows_any_portable,
                 (int64_t M, const PackedQB4& B, int64_t n, const float* A, int64_t rsa, float* out, int64_t rsc, F f),
                 (M, B, n, A, rsa, out, rsc, f))

#if defined(__x86_64__)
// The same on AVX-512 intrinsics (GCC does not keep the lanes of the portable version in registers).
// MR rows of A times NW rows of the weights (n, n + 1, ...). The 4-bit values enter as floats q (0..15): per group
// and row the lanes accumulate q * a, and the offset 8 comes off once, as 8 * (the group's sum of a), which is the
// same for every weight row.
template <int MR, int NW>
__attribute__((target("avx512f,avx2,fma"))) void dot_rows_avx512(const PackedQB4& B, int64_t n, const float* A,
                                                                 int64_t rsa, const float* asum, float* out,
                                                                 int64_t rsc) {
  const int64_t K = B.K, G = K / B.group, per_group = B.group / 32;
  const __m512i low4 = _mm512_set1_epi32(15);
  __m512 acc[NW][MR];
  float corr[NW][MR] = {};
  for (int r = 0; r < NW; ++r)
    for (int m = 0; m < MR; ++m) acc[r][m] = _mm512_setzero_ps();
  for (int64_t g = 0; g < G; ++g) {
    __m512 part[NW][MR];
    for (int r = 0; r < NW; ++r)
      for (int m = 0; m < MR; ++m) part[r][m] = _mm512_setzero_ps();
    for (int64_t blk = g * per_group; blk < (g + 1) * per_group; ++blk) {
      __m512 a0[MR], a1[MR];
      for (int m = 0; m < MR; ++m) {
        a0[m] = _mm512_loadu_ps(A + m * rsa + blk * 32);
        a1[m] = _mm512_loadu_ps(A + m * rsa + blk * 32 + 16);
      }
      for (int r = 0; r < NW; ++r) {
        const uint8_t* q = B.q.data() + (n + r) * K / 2 + blk * 16;
        const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
        const __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(b, low4));
        const __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(b, 4));
        for (int m = 0; m < MR; ++m) {
          part[r][m] = _mm512_fmadd_ps(lo, a0[m], part[r][m]);
          part[r][m] = _mm512_fmadd_ps(hi, a1[m], part[r][m]);
        }
      }
    }
    for (int r = 0; r < NW; ++r) {
      const float scv = B.scales[static_cast<size_t>((n + r) * G + g)];
      const __m512 sc = _mm512_set1_ps(scv);
      for (int m = 0; m < MR; ++m) {
        acc[r][m] = _mm512_fmadd_ps(part[r][m], sc, acc[r][m]);
        corr[r][m] += scv * asum[m * G + g];
      }
    }
  }
  for (int r = 0; r < NW; ++r)
    for (int m = 0; m < MR; ++m) {
      alignas(64) float lanes[16];  // (_mm512_reduce_add_ps trips GCC 12's -Wuninitialized inside immintrin.h)
      _mm512_store_ps(lanes, acc[r][m]);
      float t = 0.f;
      for (float v : lanes) t += v;
      out[m * rsc + r] = t - 8.f * corr[r][m];
    }
}

template <int MR>
void dot_rows_avx512_range(const PackedQB4& B, int64_t n0, int64_t n1, const float* A, int64_t rsa, const float* asum,
                           float* C, int64_t rsc) {
  int64_t n = n0;
  for (; n + 4 <= n1; n += 4) dot_rows_avx512<MR, 4>(B, n, A, rsa, asum, C + n, rsc);
  for (; n < n1; ++n) dot_rows_avx512<MR, 1>(B, n, A, rsa, asum, C + n, rsc);
}
#endif

// Rows [n0, n1) of the weights against the M (<= kDotRows) rows of A; asum: M x G sums of A per group.
void dot_rows_any(int64_t M, const PackedQB4& B, int64_t n0, int64_t n1, const float* A, int64_t rsa, const float* asum,
                  float* C, int64_t rsc) {
#if defined(__x86_64__)
  if (isa_level() == 2) {
    switch (M) {
      case 1: dot_rows_avx512_range<1>(B, n0, n1, A, rsa, asum, C, rsc); return;
      case 2: dot_rows_avx512_range<2>(B, n0, n1, A, rsa, asum, C, rsc); return;
      case 3: dot_rows_avx512_range<3>(B, n0, n1, A, rsa, asum, C, rsc); return;
      default: dot_rows_avx512_range<4>(B, n0, n1, A, rsa, asum, C, rsc); return;
    }
  }
#endif
  (void)asum;
  for (int64_t n = n0; n < n1; ++n) dot_rows_any_portable(M, B, n, A, rsa, C + n, rsc, 0);
}

// Rows of A up to which the decode pass (a dot product per output) beats expanding blocks for the fp32 GEMM.
constexpr int64_t kDotRows = 4;
constexpr int64_t kExpandFloats = int64_t{1} << 22;

}  // namespace

void qb4_gemm(int64_t M, const float* A, int64_t rsa, const PackedQB4& B, float* C, int64_t rsc, float lo, float hi) {
  const int64_t N = B.N, K = B.K;
  if (M <= 0 || N <= 0) return;
  auto epilogue = [&](int64_t n0, int64_t n1) {
    for (int64_t m = 0; m < M; ++m) {
      float* row = C + m * rsc;
      for (int64_t n = n0; n < n1; ++n) {
        const float v = row[n] + (B.bias.empty() ? 0.f : B.bias[static_cast<size_t>(n)]);
        row[n] = std::min(std::max(v, lo), hi);
      }
    }
  };
  if (M <= kDotRows) {
    const int64_t grain = std::max<int64_t>(1, 16384 / K);
    const int64_t G = K / B.group;
    std::vector<float> asum(static_cast<size_t>(M * G), 0.f);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) asum[static_cast<size_t>(m * G + k / B.group)] += A[m * rsa + k];
    ::executorch::extension::parallel_for(0, N, grain, [&](int64_t n0, int64_t n1) {
      dot_rows_any(M, B, n0, n1, A, rsa, asum.data(), C, rsc);
      epilogue(n0, n1);
    });
    return;
  }
  // More rows (a prefill): the weights expanded to fp32 once per call, then the fp32 GEMM; in column chunks of at
  // most kExpandFloats weights, so the reused scratch stays bounded (16 MB).
  thread_local std::vector<float> w;
  const int64_t chunk = std::max<int64_t>(16, kExpandFloats / K / 16 * 16);
  if (w.size() < static_cast<size_t>(std::min(N, chunk) * K)) w.resize(static_cast<size_t>(std::min(N, chunk) * K));
  float* wp = w.data();
  for (int64_t c0 = 0; c0 < N; c0 += chunk) {
    const int64_t nc = std::min(chunk, N - c0);
    ::executorch::extension::parallel_for(0, nc, std::max<int64_t>(1, 16384 / K), [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) expand_row(B, c0 + n, wp + n * K, 0);
    });
    // B(k, j) = w[j * K + k]: the expanded rows are the GEMM's columns.
    sgemm(M, nc, K, 1.f, A, rsa, 1, wp, 1, K, 0.f, C + c0, rsc, 1, /*parallel=*/true);
  }
  ::executorch::extension::parallel_for(0, N, std::max<int64_t>(1, 16384 / M), epilogue);
}

#if defined(__x86_64__) || defined(__aarch64__)
namespace {

struct DynRows {
  const uint8_t* u;   // M x K activations as u8 (A + row_offset)
  const int32_t* e;   // M x G: 8 * row_offset * group - 8 * (the group's sum of u)
  const int32_t* ro;  // M row offsets (integers)
  const float* rs;    // M row scales
};

}  // namespace
#endif

#if defined(__x86_64__)
namespace {

#define ETK_QB4_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

// MR rows x one 16-column panel: per group, int32 sums of u8 x (w + 8) (vpdpbusd) and of w + 8 alone (against
// ones; shared by the rows), the offsets off in int32 (sum(u (w + 8)) - row_offset * sum(w + 8) - 8 * sum(u) +
// 8 * row_offset * group = sum(A w), exact), then the group's scales multiply in float.
template <int MR, bool kBF16>
ETK_QB4_VNNI void qb4_vnni_block(const PackedQB4& B, const DynRows& d, int64_t i0, int64_t pn, float* C, int64_t rsc,
                                 float lo, float hi) {
  const int64_t K = B.K, G = K / B.group, steps = B.group / 8;
  const uint8_t* panel = B.q.data() + pn * (K / 8) * 64;
  const __m512i m0f = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  __m512 acc[MR];
  for (int m = 0; m < MR; ++m) acc[m] = _mm512_setzero_ps();
  for (int64_t g = 0; g < G; ++g) {
    __m512i di[MR];
    __m512i ws = _mm512_setzero_si512();
    for (int m = 0; m < MR; ++m) di[m] = _mm512_setzero_si512();
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t b = g * steps + s;
      const __m512i v = _mm512_loadu_si512(panel + b * 64);
      const __m512i wl = _mm512_and_si512(v, m0f);
      const __m512i wh = _mm512_and_si512(_mm512_srli_epi16(v, 4), m0f);
      ws = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(ws, ones, wl), ones, wh);
      for (int m = 0; m < MR; ++m) {
        int32_t xl, xh;
        std::memcpy(&xl, d.u + (i0 + m) * K + 8 * b, 4);
        std::memcpy(&xh, d.u + (i0 + m) * K + 8 * b + 4, 4);
        di[m] = _mm512_dpbusd_epi32(di[m], _mm512_set1_epi32(xl), wl);
        di[m] = _mm512_dpbusd_epi32(di[m], _mm512_set1_epi32(xh), wh);
      }
    }
    const size_t at = static_cast<size_t>((pn * G + g) * 16);
    __m512 sc;
    if constexpr (kBF16) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B.scales_bf16.data() + at));
      sc = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    } else {
      sc = _mm512_loadu_ps(B.scales.data() + at);
    }
    for (int m = 0; m < MR; ++m) {
      const __m512i t =
          _mm512_add_epi32(_mm512_sub_epi32(di[m], _mm512_mullo_epi32(_mm512_set1_epi32(d.ro[i0 + m]), ws)),
                           _mm512_set1_epi32(d.e[(i0 + m) * G + g]));
      acc[m] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(t), sc, acc[m]);
    }
  }
  const int64_t n0 = pn * 16, nc = std::min<int64_t>(16, B.N - n0);
  const __mmask16 mask = static_cast<__mmask16>((1u << nc) - 1u);
  const __m512 bias = B.bias.empty() ? _mm512_setzero_ps() : _mm512_loadu_ps(B.bias.data() + n0);
  for (int m = 0; m < MR; ++m) {
    __m512 y = _mm512_fmadd_ps(acc[m], _mm512_set1_ps(d.rs[i0 + m]), bias);
    y = _mm512_maskz_min_ps(0xFFFF, _mm512_maskz_max_ps(0xFFFF, y, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    _mm512_mask_storeu_ps(C + (i0 + m) * rsc + n0, mask, y);
  }
}

#define ETK_QB4_AVX2 __attribute__((target("avx2,fma")))

// The same without VNNI (AVX2): vpdpbusd's sum of 4 u8 x u8 products per int32 lane as vpmaddubsw's pairs (u8
// activations x the nibbles w + 8, at most 2 * 255 * 15: exact in int16; a block's low and high nibble pairs added,
// at most twice that) summed in pairs by vpmaddwd against ones: the same int32 sums, then the same fused float
// operations, so the results equal the VNNI kernel's. 8 columns (half the panel) at a time.
template <int MR, bool kBF16>
ETK_QB4_AVX2 void qb4_avx2_block(const PackedQB4& B, const DynRows& d, int64_t i0, int64_t pn, float* C, int64_t rsc,
                                 float lo, float hi) {
  const int64_t K = B.K, G = K / B.group, steps = B.group / 8;
  const __m256i m0f = _mm256_set1_epi8(0x0F), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
  for (int64_t h = 0; h < 2; ++h) {
    const uint8_t* panel = B.q.data() + pn * (K / 8) * 64 + h * 32;
    __m256 acc[MR];
    for (int m = 0; m < MR; ++m) acc[m] = _mm256_setzero_ps();
    for (int64_t g = 0; g < G; ++g) {
      __m256i di[MR];
      __m256i ws = _mm256_setzero_si256();
      for (int m = 0; m < MR; ++m) di[m] = _mm256_setzero_si256();
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t b = g * steps + s;
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + b * 64));
        const __m256i wl = _mm256_and_si256(v, m0f);
        const __m256i wh = _mm256_and_si256(_mm256_srli_epi16(v, 4), m0f);
        const __m256i wsum = _mm256_add_epi16(_mm256_maddubs_epi16(ones8, wl), _mm256_maddubs_epi16(ones8, wh));
        ws = _mm256_add_epi32(ws, _mm256_madd_epi16(wsum, ones16));
        for (int m = 0; m < MR; ++m) {
          int32_t xl, xh;
          std::memcpy(&xl, d.u + (i0 + m) * K + 8 * b, 4);
          std::memcpy(&xh, d.u + (i0 + m) * K + 8 * b + 4, 4);
          const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_set1_epi32(xl), wl),
                                             _mm256_maddubs_epi16(_mm256_set1_epi32(xh), wh));
          di[m] = _mm256_add_epi32(di[m], _mm256_madd_epi16(p, ones16));
        }
      }
      const size_t at = static_cast<size_t>((pn * G + g) * 16 + h * 8);
      __m256 sc;
      if constexpr (kBF16) {
        const __m128i bf = _mm_loadu_si128(reinterpret_cast<const __m128i*>(B.scales_bf16.data() + at));
        sc = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bf), 16));
      } else {
        sc = _mm256_loadu_ps(B.scales.data() + at);
      }
      for (int m = 0; m < MR; ++m) {
        const __m256i t =
            _mm256_add_epi32(_mm256_sub_epi32(di[m], _mm256_mullo_epi32(_mm256_set1_epi32(d.ro[i0 + m]), ws)),
                             _mm256_set1_epi32(d.e[(i0 + m) * G + g]));
        acc[m] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t), sc, acc[m]);
      }
    }
    const int64_t n0 = pn * 16 + h * 8, nc = std::min<int64_t>(8, B.N - n0);
    if (nc <= 0) break;
    const __m256 bias = B.bias.empty() ? _mm256_setzero_ps() : _mm256_loadu_ps(B.bias.data() + n0);
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(nc)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int m = 0; m < MR; ++m) {
      __m256 y = _mm256_fmadd_ps(acc[m], _mm256_set1_ps(d.rs[i0 + m]), bias);
      y = _mm256_min_ps(_mm256_max_ps(y, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
      _mm256_maskstore_ps(C + (i0 + m) * rsc + n0, mask, y);
    }
  }
}

// The kernel of this CPU.
template <int MR, bool kBF16>
void qb4_x86_block(const PackedQB4& B, const DynRows& d, int64_t i0, int64_t pn, float* C, int64_t rsc, float lo,
                   float hi) {
  if (int8_dot_products_available()) {
    qb4_vnni_block<MR, kBF16>(B, d, i0, pn, C, rsc, lo, hi);
  } else {
    qb4_avx2_block<MR, kBF16>(B, d, i0, pn, C, rsc, lo, hi);
  }
}

}  // namespace
#define ETK_QB4_BLOCK qb4_x86_block
#elif defined(__aarch64__)
namespace {

// The same on aarch64 with dotprod: the 64 bytes of a block are 4 vectors of 4 columns x 4 bytes, the layout UDOT
// reads (u8 x u8: the activations and the nibbles w + 8), the same int32 sums and the same fused float operations,
// so the results equal the VNNI kernel's.
template <int MR, bool kBF16>
__attribute__((target("arch=armv8.2-a+dotprod"))) void qb4_udot_block(const PackedQB4& B, const DynRows& d, int64_t i0,
                                                                      int64_t pn, float* C, int64_t rsc, float lo,
                                                                      float hi) {
  const int64_t K = B.K, G = K / B.group, steps = B.group / 8;
  const uint8_t* panel = B.q.data() + pn * (K / 8) * 64;
  const uint8x16_t m0f = vdupq_n_u8(0x0F), ones = vdupq_n_u8(1);
  float32x4_t acc[MR][4];
  for (int m = 0; m < MR; ++m)
    for (int q = 0; q < 4; ++q) acc[m][q] = vdupq_n_f32(0.f);
  for (int64_t g = 0; g < G; ++g) {
    uint32x4_t di[MR][4], ws[4];
    for (int q = 0; q < 4; ++q) ws[q] = vdupq_n_u32(0);
    for (int m = 0; m < MR; ++m)
      for (int q = 0; q < 4; ++q) di[m][q] = vdupq_n_u32(0);
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t b = g * steps + s;
      uint8x16_t wl[4], wh[4];
      for (int q = 0; q < 4; ++q) {
        const uint8x16_t v = vld1q_u8(panel + b * 64 + q * 16);
        wl[q] = vandq_u8(v, m0f);
        wh[q] = vshrq_n_u8(v, 4);
        ws[q] = vdotq_u32(vdotq_u32(ws[q], wl[q], ones), wh[q], ones);
      }
      for (int m = 0; m < MR; ++m) {
        uint32_t xl, xh;
        std::memcpy(&xl, d.u + (i0 + m) * K + 8 * b, 4);
        std::memcpy(&xh, d.u + (i0 + m) * K + 8 * b + 4, 4);
        const uint8x16_t al = vreinterpretq_u8_u32(vdupq_n_u32(xl)), ah = vreinterpretq_u8_u32(vdupq_n_u32(xh));
        for (int q = 0; q < 4; ++q) di[m][q] = vdotq_u32(vdotq_u32(di[m][q], wl[q], al), wh[q], ah);
      }
    }
    for (int q = 0; q < 4; ++q) {
      const size_t at = static_cast<size_t>((pn * G + g) * 16 + q * 4);
      const float32x4_t sc = kBF16 ? vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(B.scales_bf16.data() + at), 16))
                                   : vld1q_f32(B.scales.data() + at);
      const int32x4_t sw = vreinterpretq_s32_u32(ws[q]);
      for (int m = 0; m < MR; ++m) {
        const int32x4_t t = vaddq_s32(vmlsq_n_s32(vreinterpretq_s32_u32(di[m][q]), sw, d.ro[i0 + m]),
                                      vdupq_n_s32(d.e[(i0 + m) * G + g]));
        acc[m][q] = vfmaq_f32(acc[m][q], vcvtq_f32_s32(t), sc);
      }
    }
  }
  const int64_t n0 = pn * 16, nc = std::min<int64_t>(16, B.N - n0);
  for (int m = 0; m < MR; ++m) {
    alignas(16) float y[16];
    for (int q = 0; q < 4; ++q) {
      const float32x4_t bias = B.bias.empty() ? vdupq_n_f32(0.f) : vld1q_f32(B.bias.data() + n0 + q * 4);
      const float32x4_t v = vfmaq_f32(bias, acc[m][q], vdupq_n_f32(d.rs[i0 + m]));
      vst1q_f32(y + q * 4, vminq_f32(vmaxq_f32(v, vdupq_n_f32(lo)), vdupq_n_f32(hi)));
    }
    std::memcpy(C + (i0 + m) * rsc + n0, y, static_cast<size_t>(nc) * sizeof(float));
  }
}

}  // namespace
#define ETK_QB4_BLOCK qb4_udot_block
#endif

#if defined(ETK_QB4_BLOCK)
namespace {

// Rows i0 .. i0 + rows (at most 4) of the activations times panel pn.
template <bool kBF16>
void qb4_block_rows(int64_t rows, const PackedQB4& B, const DynRows& d, int64_t i0, int64_t pn, float* C, int64_t rsc,
                    float lo, float hi) {
  switch (rows) {
    case 1: ETK_QB4_BLOCK<1, kBF16>(B, d, i0, pn, C, rsc, lo, hi); break;
    case 2: ETK_QB4_BLOCK<2, kBF16>(B, d, i0, pn, C, rsc, lo, hi); break;
    case 3: ETK_QB4_BLOCK<3, kBF16>(B, d, i0, pn, C, rsc, lo, hi); break;
    default: ETK_QB4_BLOCK<4, kBF16>(B, d, i0, pn, C, rsc, lo, hi); break;
  }
}

}  // namespace
#endif

void qb4_gemm_dynamic(int64_t M, const float* A, int64_t rsa, const float* row_offset, const float* row_scale,
                      const PackedQB4& B, float* C, int64_t rsc, float lo, float hi) {
#if defined(ETK_QB4_BLOCK)
  const int64_t N = B.N, K = B.K, G = K / B.group;
  if (M <= 0 || N <= 0 || !B.panels) return;
  std::vector<uint8_t> u(static_cast<size_t>(M * K));
  std::vector<int32_t> e(static_cast<size_t>(M * G)), ro_int(static_cast<size_t>(M));
  for (int64_t i = 0; i < M; ++i) {
    // An integer (qd8 rows: 128 - zero point ... see quant.cpp's qd8_row); NaN (a damaged program's rows) as 0.
    const float ro = row_offset[i];
    ro_int[static_cast<size_t>(i)] = static_cast<int32_t>(std::lrint(clamp_nan_low(ro, 0.f, 255.f)));
    for (int64_t g = 0; g < G; ++g) {
      int32_t sum = 0;
      for (int64_t k = g * B.group; k < (g + 1) * B.group; ++k) {
        // In [0, 255] for finite rows; NaN / inf inputs (a damaged program) must not make the cast undefined.
        const float f = A[i * rsa + k] + ro;
        const auto v = static_cast<int32_t>(clamp_nan_low(f, 0.f, 255.f));
        u[static_cast<size_t>(i * K + k)] = static_cast<uint8_t>(v);
        sum += v;
      }
      e[static_cast<size_t>(i * G + g)] = 8 * ro_int[static_cast<size_t>(i)] * static_cast<int32_t>(B.group) - 8 * sum;
    }
  }
  const DynRows d{u.data(), e.data(), ro_int.data(), row_scale};
  const int64_t P = (N + 15) / 16, mb = (M + 3) / 4;
  const double macs = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  auto run = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t pn = t % P, i0 = (t / P) * 4;
      const int64_t rows = std::min<int64_t>(4, M - i0);
      if (B.scales_bf16.empty()) {
        qb4_block_rows<false>(rows, B, d, i0, pn, C, rsc, lo, hi);
      } else {
        qb4_block_rows<true>(rows, B, d, i0, pn, C, rsc, lo, hi);
      }
    }
  };
  if (macs < 2e5) {
    run(0, P * mb);
  } else {
    ::executorch::extension::parallel_for(0, P * mb, std::max<int64_t>(1, 4096 / K), run);
  }
#else
  (void)M, (void)A, (void)rsa, (void)row_offset, (void)row_scale, (void)B, (void)C, (void)rsc, (void)lo, (void)hi;
#endif
}

}  // namespace etk
