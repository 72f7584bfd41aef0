// Static int8 3x3 convolutions by Winograd F(2x2, 3x3) in integer arithmetic: see winograd.h.
#include "winograd.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <executorch/extension/parallel/thread_parallel.h>

#include "isa.h"
#include "qgemm.h"
#include "x86_intrinsics.h"

namespace etk {

namespace {

constexpr int64_t kNr = 16;  // output channels per panel (two ymm of int32)

// F(2, 3)'s filter transform at twice G, on 3 taps: 2 g0, g0 + g1 + g2, g0 - g1 + g2, 2 g2.
inline void g2(const int32_t* g, int64_t stride, int32_t* out, int64_t out_stride) {
  const int32_t a = g[0], b = g[stride], c = g[2 * stride];
  out[0] = 2 * a;
  out[out_stride] = a + b + c;
  out[2 * out_stride] = a - b + c;
  out[3 * out_stride] = 2 * c;
}

template <typename T>
void pack_from(int64_t IC, int64_t OC, const T* w, const float* bias, const float* scale, PackedWinogradQ8* out) {
  out->IC = IC;
  out->OC = OC;
  out->ICp = (IC + 1) / 2 * 2;
  out->OCp = (OC + kNr - 1) / kNr * kNr;
  const int64_t ICp = out->ICp, OCp = out->OCp, per_xi = ICp * OCp;
  out->u.assign(static_cast<size_t>(16 * per_xi), 0);
  out->bias.assign(static_cast<size_t>(OCp), 0);
  out->scale.assign(static_cast<size_t>(OCp), 0.f);
  // Panels of 16 output channels (whose 16 matrices' rows they alone write) split over the pool: part of the
  // program's load.
  auto pack_panels = [&](int64_t p0, int64_t p1) {
    for (int64_t oc = p0 * kNr; oc < std::min(OC, p1 * kNr); ++oc) {
      const T* f = w + oc * 9 * IC;  // [3][3][IC]
      int16_t* panel = out->u.data() + (oc / kNr) * ICp * kNr + (oc % kNr) * 2;
      for (int64_t ic = 0; ic < IC; ++ic) {
        int32_t g[9], t[12], u[16];
        for (int k = 0; k < 9; ++k) g[k] = static_cast<int32_t>(f[k * IC + ic]);
        for (int b = 0; b < 3; ++b) g2(g + b, 3, t + b, 3);          // rows: t[4][3]
        for (int i = 0; i < 4; ++i) g2(t + 3 * i, 1, u + 4 * i, 1);  // columns: u[4][4]
        int16_t* d = panel + (ic / 2) * kNr * 2 + ic % 2;
        for (int xi = 0; xi < 16; ++xi) d[xi * per_xi] = static_cast<int16_t>(u[xi]);
      }
      out->bias[static_cast<size_t>(oc)] = bias != nullptr ? static_cast<int32_t>(bias[oc]) : 0;
      out->scale[static_cast<size_t>(oc)] = scale[oc];
    }
  };
  ::executorch::extension::parallel_for(0, OCp / kNr, std::max<int64_t>(1, (int64_t{1} << 14) / (IC * kNr)),
                                        pack_panels);
}

#if defined(__x86_64__)

#define ETK_AVX2 __attribute__((target("avx2,fma")))

// One call's work, shared by its blocks of tiles.
struct Ctx {
  const WinogradParams& p;
  const float* x;
  const PackedWinogradQ8& w;
  float* y;
  int64_t ldy;
  const WinogradQ8Io& io;
  int64_t TH, TW;  // 2x2 tiles down and across one image
};

// The input value as the integer the GEMM multiplies: as stored, or quantized (round_even(clamp(x * mult, lo, hi)),
// NaN to lo: the int8 GEMM's conversion).
ETK_AVX2 inline __m256 input8(const float* p, const WinogradQ8Io& io) {
  if (p == nullptr) return _mm256_setzero_ps();
  const __m256 x = _mm256_loadu_ps(p);
  if (io.in_mult == 0.f) return x;
  const __m256 c = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(x, _mm256_set1_ps(io.in_mult)), _mm256_set1_ps(io.in_lo)),
                                 _mm256_set1_ps(io.in_hi));
  return _mm256_round_ps(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

inline float input1(const float* p, const WinogradQ8Io& io) {
  if (p == nullptr) return 0.f;
  if (io.in_mult == 0.f) return *p;
  return std::nearbyint(clamp_nan_low(*p * io.in_mult, io.in_lo, io.in_hi));
}

// B^T d B on one channel vector (T: __m256 or float), exact in fp32 (|d| <= 255, sums of 4).
template <typename T>
ETK_AVX2 inline void input_transform(const T (&d)[16], T (&v)[16]) {
  T t[16];
  for (int j = 0; j < 4; ++j) {
    t[j] = d[j] - d[8 + j];
    t[4 + j] = d[4 + j] + d[8 + j];
    t[8 + j] = d[8 + j] - d[4 + j];
    t[12 + j] = d[4 + j] - d[12 + j];
  }
  for (int i = 0; i < 4; ++i) {
    const T* e = t + 4 * i;
    v[4 * i] = e[0] - e[2];
    v[4 * i + 1] = e[1] + e[2];
    v[4 * i + 2] = e[2] - e[1];
    v[4 * i + 3] = e[1] - e[3];
  }
}

// MR rows of V (int16, rows ldv apart) times one 16-column panel of pairs: int32 into M (rows ldm apart).
template <int MR>
ETK_AVX2 __attribute__((always_inline)) inline void gemm_tile(const int16_t* v, int64_t ldv, const int16_t* u,
                                                              int64_t pairs, int32_t* m, int64_t ldm) {
  __m256i acc[MR][2];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t k = 0; k < pairs; ++k, u += 2 * kNr) {
    const __m256i u0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(u));
    const __m256i u1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(u + kNr));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      int32_t pair;
      std::memcpy(&pair, v + r * ldv + 2 * k, sizeof pair);
      const __m256i b = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(b, u0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(b, u1));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(m + r * ldm), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(m + r * ldm + 8), acc[r][1]);
  }
}

// One row of gemm_tile6's loop: its pair (ADDR) broadcast, times the panel's columns 0-7 (ymm12) and 8-15 (ymm13),
// added to its two accumulators.
// clang-format off
#define ETK_WQ8_ROW(ADDR, A0, A1)                 \
  "vpbroadcastd " ADDR ", %%ymm14\n\t"           \
  "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"       \
  "vpaddd %%ymm15, %%ymm" A0 ", %%ymm" A0 "\n\t" \
  "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"       \
  "vpaddd %%ymm14, %%ymm" A1 ", %%ymm" A1 "\n\t"
// clang-format on

// gemm_tile<6> (pairs >= 1), the loop in assembly: GCC spills 12 accumulators and their operands out of the 16 ymm
// registers (as for qgemm.cpp's tile6).
ETK_AVX2 __attribute__((always_inline)) inline void gemm_tile6(const int16_t* v, int64_t ldv, const int16_t* u,
                                                               int64_t pairs, int32_t* m, int64_t ldm) {
  alignas(32) int32_t acc[6][16];
  const int16_t* v3 = v + 3 * ldv;
  const int64_t ld_bytes = ldv * static_cast<int64_t>(sizeof(int16_t));
  __asm__ volatile(
      ETK_ASM_ZERO_YMM0_11
      "1:\n\t"
      "vmovdqa (%[u]), %%ymm12\n\t"
      "vmovdqa 32(%[u]), %%ymm13\n\t"
      ETK_WQ8_ROW("(%[v0])", "0", "1")
      ETK_WQ8_ROW("(%[v0], %[ld])", "2", "3")
      ETK_WQ8_ROW("(%[v0], %[ld], 2)", "4", "5")
      ETK_WQ8_ROW("(%[v3])", "6", "7")
      ETK_WQ8_ROW("(%[v3], %[ld])", "8", "9")
      ETK_WQ8_ROW("(%[v3], %[ld], 2)", "10", "11")
      "add $64, %[u]\n\t"
      "add $4, %[v0]\n\t"
      "add $4, %[v3]\n\t"
      "dec %[k]\n\t"
      "jnz 1b\n\t"
      ETK_ASM_STORE_YMM0_11
      : [u] "+r"(u), [v0] "+r"(v), [v3] "+r"(v3), [k] "+r"(pairs)
      : [ld] "r"(ld_bytes), [acc] "r"(&acc[0][0])
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15", "memory", "cc");
  for (int r = 0; r < 6; ++r) std::memcpy(m + r * ldm, acc[r], sizeof acc[r]);
}
#undef ETK_WQ8_ROW

// A^T m A (int32, wrapping: the result fits), / 4, then the int8 GEMM's epilogue, for 8 channels [c, c + n) of one
// tile: m[xi * ms] the 16 products, py[2 * r + k] output pixel (r, k) (null outside the output).
ETK_AVX2 inline void output_tile(const int32_t* m, int64_t ms, const Ctx& cx, float* const* py, int64_t c, int64_t n) {
  __m256i e[16];
  for (int xi = 0; xi < 16; ++xi) e[xi] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + xi * ms + c));
  __m256i t[2][4];
  for (int j = 0; j < 4; ++j) {
    t[0][j] = _mm256_add_epi32(_mm256_add_epi32(e[j], e[4 + j]), e[8 + j]);
    t[1][j] = _mm256_sub_epi32(_mm256_sub_epi32(e[4 + j], e[8 + j]), e[12 + j]);
  }
  const __m256i bias = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cx.w.bias.data() + c));
  const __m256 scale = _mm256_loadu_ps(cx.w.scale.data() + c);
  const __m256 lo = _mm256_set1_ps(cx.io.lo), hi = _mm256_set1_ps(cx.io.hi);
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int r = 0; r < 2; ++r) {
    const __m256i* a = t[r];
    const __m256i o[2] = {_mm256_add_epi32(_mm256_add_epi32(a[0], a[1]), a[2]),
                          _mm256_sub_epi32(_mm256_sub_epi32(a[1], a[2]), a[3])};
    for (int k = 0; k < 2; ++k) {
      float* dst = py[2 * r + k];
      if (dst == nullptr) continue;
      const __m256i s = _mm256_add_epi32(_mm256_srai_epi32(o[k], 2), bias);
      __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(s), scale);
      f = _mm256_min_ps(_mm256_max_ps(f, lo), hi);
      f = _mm256_round_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      if (cx.io.out_scale != 0.f) f = _mm256_mul_ps(f, _mm256_set1_ps(cx.io.out_scale));
      if (n == 8) {
        _mm256_storeu_ps(dst + c, f);
      } else {
        _mm256_maskstore_ps(dst + c, mask, f);
      }
    }
  }
}

// Tiles [t0, t1): their patches into V (16 x nt x ICp int16), the 16 GEMMs into M (16 x nt x OCp int32), the outputs.
ETK_AVX2 void tiles(const Ctx& cx, int64_t t0, int64_t t1, int16_t* V, int32_t* M) {
  const WinogradParams& p = cx.p;
  const int64_t IC = cx.w.IC, ICp = cx.w.ICp, OC = cx.w.OC, OCp = cx.w.OCp, nt = t1 - t0;
  const int64_t vs = nt * ICp, ms = nt * OCp, per_image = cx.TH * cx.TW;
  for (int64_t t = t0; t < t1; ++t) {
    const float* px[16];
    winograd_tile_pixels<2>(p, cx.x, cx.y, cx.ldy, t, cx.TW, per_image, px, nullptr);
    int16_t* v = V + (t - t0) * ICp;
    int64_t c = 0;
    for (; c + 8 <= IC; c += 8) {
      __m256 d[16], tv[16];
      for (int q = 0; q < 16; ++q) d[q] = input8(px[q] != nullptr ? px[q] + c : nullptr, cx.io);
      input_transform(d, tv);
      for (int xi = 0; xi < 16; ++xi) {
        const __m256i q = _mm256_cvtps_epi32(tv[xi]);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(v + xi * vs + c),
                         _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1)));
      }
    }
    for (; c < ICp; ++c) {  // the last channels, and a zero channel to fill the last pair
      float d[16], tv[16];
      for (int q = 0; q < 16; ++q) d[q] = c < IC ? input1(px[q] != nullptr ? px[q] + c : nullptr, cx.io) : 0.f;
      input_transform(d, tv);
      for (int xi = 0; xi < 16; ++xi) v[xi * vs + c] = static_cast<int16_t>(tv[xi]);
    }
  }
  const int64_t pairs = ICp / 2;
  for (int64_t xi = 0; xi < 16; ++xi) {
    const int16_t* vx = V + xi * vs;
    int32_t* mx = M + xi * ms;
    for (int64_t j0 = 0; j0 < OCp; j0 += kNr) {
      const int16_t* u = cx.w.u.data() + xi * ICp * OCp + j0 * ICp;
      int64_t i = 0;
      for (; i + 6 <= nt; i += 6) gemm_tile6(vx + i * ICp, ICp, u, pairs, mx + i * OCp + j0, OCp);
      if (nt - i >= 4) {
        gemm_tile<4>(vx + i * ICp, ICp, u, pairs, mx + i * OCp + j0, OCp);
        i += 4;
      }
      if (nt - i == 3) gemm_tile<3>(vx + i * ICp, ICp, u, pairs, mx + i * OCp + j0, OCp);
      if (nt - i == 2) gemm_tile<2>(vx + i * ICp, ICp, u, pairs, mx + i * OCp + j0, OCp);
      if (nt - i == 1) gemm_tile<1>(vx + i * ICp, ICp, u, pairs, mx + i * OCp + j0, OCp);
    }
  }
  for (int64_t t = t0; t < t1; ++t) {
    float* py[4];
    winograd_tile_pixels<2>(p, cx.x, cx.y, cx.ldy, t, cx.TW, per_image, nullptr, py);
    const int32_t* m = M + (t - t0) * OCp;
    for (int64_t c = 0; c < OC; c += 8) output_tile(m, ms, cx, py, c, std::min<int64_t>(8, OC - c));
  }
}

// Bytes of transformed patches and products one block of tiles keeps in flight (per thread): half of a 512 KB L2,
// the rest for the weights' panels streaming by.
constexpr double kBlockBytes = 256 * 1024;

#endif  // __x86_64__

}  // namespace

bool winograd_q8_available() {
#if defined(__x86_64__)
  return isa_level() >= 1;
#else
  return false;
#endif
}

void pack_winograd_q8(int64_t IC, int64_t OC, const float* w, const float* bias, const float* scale,
                      PackedWinogradQ8* out) {
  pack_from(IC, OC, w, bias, scale, out);
}

void pack_winograd_q8(int64_t IC, int64_t OC, const int8_t* w, const float* bias, const float* scale,
                      PackedWinogradQ8* out) {
  pack_from(IC, OC, w, bias, scale, out);
}

void winograd_conv3x3_q8(const WinogradParams& p, const float* x, const PackedWinogradQ8& w, float* y, int64_t ldy,
                         const WinogradQ8Io& io, bool parallel) {
#if defined(__x86_64__)
  const int64_t TH = (p.OH + 1) / 2, TW = (p.OW + 1) / 2, T = p.N * TH * TW;
  if (T <= 0 || w.OC <= 0) return;
  const Ctx cx{p, x, w, y, ldy, io, TH, TW};
  const int64_t threads = parallel ? std::max<int64_t>(1, ::executorch::extension::get_thread_count()) : 1;
  const int64_t tb = winograd_block_tiles(T, threads, 16.0 * static_cast<double>(2 * w.ICp + 4 * w.OCp), kBlockBytes);
  const int64_t blocks = (T + tb - 1) / tb;
  auto run = [&](int64_t b0, int64_t b1) {
    thread_local aligned_vector<int16_t> V;
    thread_local aligned_vector<int32_t> M;
    const size_t need_v = static_cast<size_t>(16 * tb * w.ICp), need_m = static_cast<size_t>(16 * tb * w.OCp);
    if (V.size() < need_v) V.resize(need_v);
    if (M.size() < need_m) M.resize(need_m);
    for (int64_t b = b0; b < b1; ++b) tiles(cx, b * tb, std::min(T, (b + 1) * tb), V.data(), M.data());
  };
  if (threads <= 1 || blocks <= 1) {
    run(0, blocks);
  } else {
    ::executorch::extension::parallel_for(0, blocks, 1, run);
  }
#else
  (void)p, (void)x, (void)w, (void)y, (void)ldy, (void)io, (void)parallel;
#endif
}

}  // namespace etk
