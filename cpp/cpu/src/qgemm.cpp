// The int8 GEMM (qgemm.h): activations converted to u8 per block of rows (dense rows or igemm-style segments),
// weights packed into 16-column panels of 4-byte K groups, and 4-row x 32-column (two panels) and x 16-column
// AVX-512 VNNI micro-kernels with the requantizing epilogue, or 6-row x 8-column AVX2 ones on 16-bit pairs where the
// CPU has no VNNI; on aarch64 with the dotprod extension, 4-row x 16-column SDOT micro-kernels over the same panels
// (activations as s8 = u8 - 128).
#include "qgemm.h"

#include "isa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>

#include "x86_intrinsics.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace etk {

namespace {

constexpr int64_t kNr = 16;    // columns per panel (one zmm of int32)
constexpr int64_t kRows = 64;  // rows converted to u8 at a time (kept in L1 while the panels stream by)

}  // namespace

void qd8_row_params(const float* row, int64_t len, float* mult, float* zero_point) {
  // 16 running minima and maxima in four 4-lane vectors (GCC's vector extensions, native at every x86-64 and
  // aarch64 ISA level): a scalar min / max is a chain of dependent compares that the compiler does not vectorize
  // without -ffast-math.
  typedef float V4 __attribute__((vector_size(16)));
  constexpr int64_t kLanes = 16;
  const V4 inf = {__builtin_inff(), __builtin_inff(), __builtin_inff(), __builtin_inff()};
  V4 vmn[4] = {inf, inf, inf, inf}, vmx[4] = {-inf, -inf, -inf, -inf};
  int64_t i = 0;
  for (; i + kLanes <= len; i += kLanes)
    for (int q = 0; q < 4; ++q) {
      V4 v;
      std::memcpy(&v, row + i + 4 * q, sizeof(v));
      vmn[q] = v < vmn[q] ? v : vmn[q];
      vmx[q] = v > vmx[q] ? v : vmx[q];
    }
  float mn = 0.f, mx = 0.f;  // the range always holds zero
  for (; i < len; ++i) mn = row[i] < mn ? row[i] : mn, mx = row[i] > mx ? row[i] : mx;
  for (int q = 0; q < 4; ++q)
    for (int j = 0; j < 4; ++j) mn = vmn[q][j] < mn ? vmn[q][j] : mn, mx = vmx[q][j] > mx ? vmx[q][j] : mx;
  const float m = mn == mx ? 1.f : 255.f / (mx - mn);
  const float dmin = mn * m, dmax = mx * m;
  float zp = (-128.f + dmin) + (127.f + dmax) > 0 ? -128.f - dmin : 127.f - dmax;
  zp = clamp_nan_low(zp, -128.f, 127.f);  // NaN (a row with an infinity) to -128
  *mult = m;
  *zero_point = std::nearbyint(zp);
}

bool qgemm_available() {
#if defined(__x86_64__)
  return isa_level() >= 1;  // AVX2 (vpmaddwd) or AVX-512 VNNI (vpdpbusd)
#elif defined(__aarch64__)
  return isa_level() >= 2;  // dotprod, unless EXECUTORCH_GEMM_ISA caps it
#else
  return false;
#endif
}

bool int8_dot_products_available() {
#if defined(__x86_64__)
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
  }();
  return ok && isa_level() >= 2;
#else
  return qgemm_available();
#endif
}

namespace {

template <typename T>
void pack_qb_from(int64_t K, int64_t N, const T* B, int64_t rsb, int64_t csb, const float* bias, const float* scale,
                  float a_offset, PackedQB* out) {
  out->K = K;
  out->Kp = (K + 3) / 4 * 4;
  out->N = N;
  out->Np = (N + kNr - 1) / kNr * kNr;
  out->a_offset = a_offset;
  out->data.assign(static_cast<size_t>(out->Np * out->Kp), 0);
  out->corr.assign(static_cast<size_t>(out->Np), 0);
  out->scale.assign(static_cast<size_t>(out->Np), 0.f);
  out->colsum.assign(static_cast<size_t>(out->Np), 0);
  const auto offset = static_cast<int32_t>(a_offset);
  // Panel by panel, in the order the panel is stored (k groups of 4, then its columns): the writes are sequential
  // and the kNr source columns' reads stay in L1 (a column at a time wrote across the whole panel per column). The
  // panels are independent: split over the pool (part of every int8 program's load).
  const int64_t panels = (N + kNr - 1) / kNr;
  auto pack_panels = [&](int64_t p0, int64_t p1) {
    for (int64_t j0 = p0 * kNr; j0 < std::min(N, p1 * kNr); j0 += kNr) {
      int8_t* panel = out->data.data() + (j0 / kNr) * out->Kp * kNr;
      const int64_t nc = std::min<int64_t>(kNr, N - j0);
      int32_t* sum = out->colsum.data() + j0;
      for (int64_t k = 0; k < K; ++k) {
        int8_t* dst = panel + (k / 4) * kNr * 4 + k % 4;
        const T* src = B + k * rsb + j0 * csb;
        for (int64_t c = 0; c < nc; ++c) {
          const auto w = static_cast<int8_t>(src[c * csb]);
          dst[c * 4] = w;
          sum[c] += w;
        }
      }
    }
  };
  ::executorch::extension::parallel_for(0, panels, std::max<int64_t>(1, (int64_t{1} << 16) / (K * kNr + 1)),
                                        pack_panels);
  for (int64_t j = 0; j < N; ++j) {
    const int32_t sum = out->colsum[static_cast<size_t>(j)];
    out->corr[static_cast<size_t>(j)] = (bias ? static_cast<int32_t>(bias[j]) : 0) - offset * sum;
    out->scale[static_cast<size_t>(j)] = scale ? scale[j] : 0.f;
  }
}

}  // namespace

void pack_qb(int64_t K, int64_t N, const float* B, int64_t rsb, int64_t csb, const float* bias, const float* scale,
             float a_offset, PackedQB* out) {
  pack_qb_from(K, N, B, rsb, csb, bias, scale, a_offset, out);
}

void pack_qb(int64_t K, int64_t N, const int8_t* B, int64_t rsb, int64_t csb, const float* bias, const float* scale,
             float a_offset, PackedQB* out) {
  pack_qb_from(K, N, B, rsb, csb, bias, scale, a_offset, out);
}

#if defined(__x86_64__) || defined(__aarch64__)

namespace {

// Where the rows of A come from: dense rows (A[i * rsa + k]) or T segments of L floats per row (igemm's); with
// per-row offsets and scales for dynamically quantized rows (fp32 out, col_scale / bias per column).
struct Source {
  const float* A = nullptr;
  int64_t rsa = 0;
  RowSegments segments = nullptr;
  const void* ctx = nullptr;
  int64_t T = 1, L = 0;
  const float* row_offset = nullptr;  // dynamic rows
  const float* row_scale = nullptr;
  const float* col_scale = nullptr;   // Np entries (padded)
  const float* bias = nullptr;        // Np entries (padded) or null
  const QActivations* act = nullptr;  // segments pre-converted (qigemm)
  // fp32 rows quantized here (qgemm_dynamic_f32): each row's offset and scale are written as it is converted, and
  // row_offset / row_scale point at them.
  float* qd8_offset = nullptr;
  float* qd8_scale = nullptr;
};

// Row r of a qgemm_dynamic_f32 source: its qd8 parameters, recorded for the epilogue, as the conversion's
// round_even(clamp(x * mult, lo, hi)) + offset.
struct Qd8Row {
  float mult, lo, hi, offset;
};
inline Qd8Row qd8_row(const Source& src, int64_t r, int64_t K) {
  float mult = 1.f, zp = 0.f;
  qd8_row_params(src.A + r * src.rsa, K, &mult, &zp);
  src.qd8_scale[r] = 1.f / mult;
  src.qd8_offset[r] = zp + 128.f;
  return Qd8Row{mult, -128.f - zp, 127.f - zp, zp + 128.f};
}

// Segment pointers (into a.base, else padding) as pointers to their converted bytes (or the zero point's).
inline void translate(const QActivations& a, const float* const* seg, int64_t count, const uint8_t** out) {
  const auto lo = reinterpret_cast<uintptr_t>(a.base), hi = reinterpret_cast<uintptr_t>(a.base + a.n);
  for (int64_t k = 0; k < count; ++k) {
    const auto p = reinterpret_cast<uintptr_t>(seg[k]);
    out[k] = p >= lo && p < hi ? a.bytes.data() + (seg[k] - a.base) : a.zeros.data();
  }
}

constexpr int64_t kCopy = 16;  // bytes per copy of a pre-converted segment (QActivations::bytes is padded by it)

// Row i's segments from pre-converted bytes: L bytes each, consecutive segments that are consecutive in the tensor
// (a filter row's taps inside the image) as one run, copied kCopy at a time (the last copy may run past the run into
// the next one, the row's padding or the next row, which are written after it; the row buffer has kCopy bytes of
// slack); the zero point for segments outside the converted tensor.
inline void copy_segments(const QActivations& a, const float* const* seg, int64_t T, int64_t L, uint8_t* d) {
  const auto lo = reinterpret_cast<uintptr_t>(a.base), hi = reinterpret_cast<uintptr_t>(a.base + a.n);
  for (int64_t t = 0; t < T;) {
    const auto p = reinterpret_cast<uintptr_t>(seg[t]);
    if (p < lo || p >= hi) {
      std::memset(d, a.zero, static_cast<size_t>(L));
      d += L;
      ++t;
      continue;
    }
    int64_t run = 1;
    while (t + run < T && seg[t + run] == seg[t] + run * L) ++run;
    const uint8_t* src = a.bytes.data() + (seg[t] - a.base);
    const int64_t len = run * L;
    for (int64_t k = 0; k < len; k += kCopy) std::memcpy(d + k, src + k, kCopy);
    d += len;
    t += run;
  }
}

}  // namespace

#endif

#if defined(__x86_64__)

namespace {

#define ETK_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

// n floats (integers with a + offset in [0, 255]) as u8.
ETK_VNNI void to_u8(const float* a, int64_t n, float offset, uint8_t* d) {
  const __m512 off = _mm512_set1_ps(offset);
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512i v = _mm512_cvtps_epi32(_mm512_add_ps(_mm512_loadu_ps(a + k), off));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k), _mm512_cvtusepi32_epi8(v));
  }
  if (k < n) {  // the tail under a mask (short segments: a stem's few channels)
    const auto mask = static_cast<__mmask16>((1u << (n - k)) - 1u);
    const __m512i v = _mm512_cvtps_epi32(_mm512_add_ps(_mm512_maskz_loadu_ps(mask, a + k), off));
    _mm512_mask_cvtusepi32_storeu_epi8(d + k, mask, v);
  }
}

// 16 floats x as int32 round_even(clamp(x * mult, lo, hi)) + offset.
ETK_VNNI inline __m512i quantize16(__m512 x, __m512 mult, __m512 lo, __m512 hi, __m512i offset) {
  const __m512 c = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, mult), lo), hi);
  return _mm512_add_epi32(_mm512_cvtps_epi32(c), offset);  // rounds to nearest even
}

// n floats x as u8 = round_even(clamp(x * mult, lo, hi)) + offset (a row quantized on the fly; lo, hi, offset
// integers).
ETK_VNNI void quantize_u8(const float* a, int64_t n, float mult, float lo, float hi, float offset, uint8_t* d) {
  const __m512 mv = _mm512_set1_ps(mult), lov = _mm512_set1_ps(lo), hiv = _mm512_set1_ps(hi);
  const __m512i off = _mm512_set1_epi32(static_cast<int32_t>(offset));
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512i q = quantize16(_mm512_loadu_ps(a + k), mv, lov, hiv, off);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k), _mm512_cvtusepi32_epi8(q));
  }
  if (k < n) {
    const auto mask = static_cast<__mmask16>((1u << (n - k)) - 1u);
    _mm512_mask_cvtusepi32_storeu_epi8(d + k, mask, quantize16(_mm512_maskz_loadu_ps(mask, a + k), mv, lov, hiv, off));
  }
}

// Activations as the GEMM's bytes: integer-valued floats plus offset, or fp32 quantized on the way (B.in_mult).
ETK_VNNI void convert_u8(const PackedQB& B, const float* a, int64_t n, float offset, uint8_t* d) {
  if (B.in_mult != 0.f) {
    quantize_u8(a, n, B.in_mult, B.in_lo, B.in_hi, offset, d);
  } else {
    to_u8(a, n, offset, d);
  }
}

ETK_VNNI inline void store_row(__m512i acc, const PackedQB& B, int64_t j0, float lo, float hi, float* c,
                               __mmask16 mask) {
  const __m512i v = _mm512_add_epi32(acc, _mm512_loadu_si512(B.corr.data() + j0));
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), _mm512_loadu_ps(B.scale.data() + j0));
  f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
  f = _mm512_roundscale_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  if (B.out_scale != 0.f) f = _mm512_mul_ps(f, _mm512_set1_ps(B.out_scale));
  _mm512_mask_storeu_ps(c, mask, f);
}

// fp32 out for dynamic row r: (acc - offset(r) * colsum) * row_scale(r) * col_scale + bias, clamped.
ETK_VNNI inline void store_row_dynamic(__m512i acc, const Source& src, int64_t r, const PackedQB& B, int64_t j0,
                                       float lo, float hi, float* c, __mmask16 mask) {
  const __m512i off = _mm512_set1_epi32(static_cast<int32_t>(src.row_offset[r]));
  const __m512i v = _mm512_sub_epi32(acc, _mm512_mullo_epi32(off, _mm512_loadu_si512(B.colsum.data() + j0)));
  const __m512 s = _mm512_mul_ps(_mm512_set1_ps(src.row_scale[r]), _mm512_loadu_ps(src.col_scale + j0));
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), s);
  if (src.bias != nullptr) f = _mm512_add_ps(f, _mm512_loadu_ps(src.bias + j0));
  f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
  _mm512_mask_storeu_ps(c, mask, f);
}

// Row r (of the whole product) from its accumulator.
ETK_VNNI inline void store(__m512i acc, const Source& src, int64_t r, const PackedQB& B, int64_t j0, float lo, float hi,
                           float* c, __mmask16 mask) {
  if (src.row_offset != nullptr) {
    store_row_dynamic(acc, src, r, B, j0, lo, hi, c, mask);
  } else {
    store_row(acc, B, j0, lo, hi, c, mask);
  }
}

// 4 activation bytes broadcast to every 32-bit lane.
ETK_VNNI inline __m512i x4(const uint8_t* p) {
  int32_t x;
  std::memcpy(&x, p, 4);
  return _mm512_set1_epi32(x);
}

// Rows [m, m + mr) times the panels of columns [j_begin, j_end) (j_begin a multiple of kNr), into C (rows from m).
// Row i's u8 activations: kTaps, T segments of G 4-byte groups, segment t at a[i * T + t] (a convolution's taps read
// in place, T * G = Kp / 4); else dense rows of Kp bytes from `dense` (G = Kp / 4).
template <bool kTaps>
ETK_VNNI void block(const Source& src, int64_t m, const uint8_t* dense, const uint8_t* const* a, int64_t taps,
                    int64_t G, int64_t mr, const PackedQB& B, float lo, float hi, float* C, int64_t rsc,
                    int64_t j_begin, int64_t j_end) {
  const int64_t Kp = B.Kp, T = kTaps ? taps : 1;  // dense rows: one segment, known when compiled
  auto seg = [&](int64_t i, int64_t t) { return kTaps ? a[i * T + t] : dense + i * Kp; };
  auto mask_of = [&](int64_t j) { return static_cast<__mmask16>((1u << std::min<int64_t>(kNr, B.N - j)) - 1u); };
  int64_t j0 = j_begin;
  // Two panels at a time: each broadcast of 4 activation bytes feeds two vpdpbusd (4 rows x 32 columns).
  for (; j0 + kNr < j_end; j0 += 2 * kNr) {
    const int8_t* p0 = B.data.data() + (j0 / kNr) * Kp * kNr;
    const int8_t* p1 = p0 + Kp * kNr;
    const __mmask16 m0 = mask_of(j0), m1 = mask_of(j0 + kNr);
    int64_t i = 0;
    for (; i + 4 <= mr; i += 4) {
      __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
      const int8_t *w0p = p0, *w1p = p1;
      for (int64_t t = 0; t < T; ++t) {
        const uint8_t *u0 = seg(i, t), *u1 = seg(i + 1, t), *u2 = seg(i + 2, t), *u3 = seg(i + 3, t);
        for (int64_t g = 0; g < G; ++g, w0p += kNr * 4, w1p += kNr * 4) {
          const __m512i w0 = _mm512_loadu_si512(w0p), w1 = _mm512_loadu_si512(w1p);
          const __m512i v0 = x4(u0 + g * 4), v1 = x4(u1 + g * 4), v2 = x4(u2 + g * 4), v3 = x4(u3 + g * 4);
          a0 = _mm512_dpbusd_epi32(a0, v0, w0);
          b0 = _mm512_dpbusd_epi32(b0, v0, w1);
          a1 = _mm512_dpbusd_epi32(a1, v1, w0);
          b1 = _mm512_dpbusd_epi32(b1, v1, w1);
          a2 = _mm512_dpbusd_epi32(a2, v2, w0);
          b2 = _mm512_dpbusd_epi32(b2, v2, w1);
          a3 = _mm512_dpbusd_epi32(a3, v3, w0);
          b3 = _mm512_dpbusd_epi32(b3, v3, w1);
        }
      }
      const __m512i acc0[4] = {a0, a1, a2, a3}, acc1[4] = {b0, b1, b2, b3};
      for (int r = 0; r < 4; ++r) {
        float* c = C + (i + r) * rsc + j0;
        store(acc0[r], src, m + i + r, B, j0, lo, hi, c, m0);
        store(acc1[r], src, m + i + r, B, j0 + kNr, lo, hi, c + kNr, m1);
      }
    }
    for (; i < mr; ++i) {
      __m512i x = _mm512_setzero_si512(), y = x;
      const int8_t *w0p = p0, *w1p = p1;
      for (int64_t t = 0; t < T; ++t) {
        const uint8_t* ui = seg(i, t);
        for (int64_t g = 0; g < G; ++g, w0p += kNr * 4, w1p += kNr * 4) {
          const __m512i v = x4(ui + g * 4);
          x = _mm512_dpbusd_epi32(x, v, _mm512_loadu_si512(w0p));
          y = _mm512_dpbusd_epi32(y, v, _mm512_loadu_si512(w1p));
        }
      }
      store(x, src, m + i, B, j0, lo, hi, C + i * rsc + j0, m0);
      store(y, src, m + i, B, j0 + kNr, lo, hi, C + i * rsc + j0 + kNr, m1);
    }
  }
  // The last panel alone.
  for (; j0 < j_end; j0 += kNr) {
    const int8_t* panel = B.data.data() + (j0 / kNr) * Kp * kNr;
    const __mmask16 mask = mask_of(j0);
    int64_t i = 0;
    for (; i + 4 <= mr; i += 4) {
      __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
      const int8_t* wp = panel;
      for (int64_t t = 0; t < T; ++t) {
        const uint8_t *u0 = seg(i, t), *u1 = seg(i + 1, t), *u2 = seg(i + 2, t), *u3 = seg(i + 3, t);
        for (int64_t g = 0; g < G; ++g, wp += kNr * 4) {
          const __m512i b = _mm512_loadu_si512(wp);
          a0 = _mm512_dpbusd_epi32(a0, x4(u0 + g * 4), b);
          a1 = _mm512_dpbusd_epi32(a1, x4(u1 + g * 4), b);
          a2 = _mm512_dpbusd_epi32(a2, x4(u2 + g * 4), b);
          a3 = _mm512_dpbusd_epi32(a3, x4(u3 + g * 4), b);
        }
      }
      store(a0, src, m + i, B, j0, lo, hi, C + i * rsc + j0, mask);
      store(a1, src, m + i + 1, B, j0, lo, hi, C + (i + 1) * rsc + j0, mask);
      store(a2, src, m + i + 2, B, j0, lo, hi, C + (i + 2) * rsc + j0, mask);
      store(a3, src, m + i + 3, B, j0, lo, hi, C + (i + 3) * rsc + j0, mask);
    }
    for (; i < mr; ++i) {
      __m512i x = _mm512_setzero_si512();
      const int8_t* wp = panel;
      for (int64_t t = 0; t < T; ++t) {
        const uint8_t* ui = seg(i, t);
        for (int64_t g = 0; g < G; ++g, wp += kNr * 4)
          x = _mm512_dpbusd_epi32(x, x4(ui + g * 4), _mm512_loadu_si512(wp));
      }
      store(x, src, m + i, B, j0, lo, hi, C + i * rsc + j0, mask);
    }
  }
}

// The AVX2 kernel (x86-64 without AVX-512 VNNI): no 8-bit dot product, so both operands are widened to 16 bits and
// multiplied in pairs by vpmaddwd (u8 x s8 pairs sum to at most 2 * 255 * 128 in int32: exact, unlike vpmaddubsw's
// saturating 16-bit sums), over the same packed panels: each 64-byte group of a panel is 4 k x 16 columns, of which
// 16 bytes (4 columns x 4 k) widen to one ymm of 16-bit pairs; a column's two pairs are added at the end.
#define ETK_AVX2 __attribute__((target("avx2,fma")))

namespace avx2 {

// 16 int32 (in [0, 255]) as 16 bytes.
ETK_AVX2 inline void store_u8x16(__m256i lo, __m256i hi, uint8_t* d) {
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);  // 16 int16 in order
  _mm_storeu_si128(reinterpret_cast<__m128i*>(d),
                   _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}

// 8 floats x as int32 round_even(clamp(x * mult, lo, hi)) + offset (NaN to lo, as AVX-512's quantize16).
ETK_AVX2 inline __m256i quantize8(__m256 x, __m256 mult, __m256 lo, __m256 hi, __m256i offset) {
  const __m256 c = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(x, mult), lo), hi);
  return _mm256_add_epi32(_mm256_cvtps_epi32(c), offset);
}

// The conversions of the VNNI kernel's to_u8 (kQuantize false: a + offset) and quantize_u8, 16 floats at a time; a
// tail goes through a padded copy (the same arithmetic on every element).
struct Conversion {
  __m256 mult, lo, hi, offset;
  __m256i offset_i;
};

template <bool kQuantize>
ETK_AVX2 inline __m256i convert8(const Conversion& c, __m256 x) {
  if (kQuantize) return quantize8(x, c.mult, c.lo, c.hi, c.offset_i);
  return _mm256_cvtps_epi32(_mm256_add_ps(x, c.offset));
}

template <bool kQuantize>
ETK_AVX2 void convert16(const float* a, int64_t n, uint8_t* d, float mult, float lo, float hi, float offset) {
  const Conversion c{_mm256_set1_ps(mult), _mm256_set1_ps(lo), _mm256_set1_ps(hi), _mm256_set1_ps(offset),
                     _mm256_set1_epi32(static_cast<int32_t>(offset))};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    store_u8x16(convert8<kQuantize>(c, _mm256_loadu_ps(a + k)), convert8<kQuantize>(c, _mm256_loadu_ps(a + k + 8)),
                d + k);
  if (k < n) {
    alignas(32) float x[16] = {};
    alignas(16) uint8_t b[16];
    std::memcpy(x, a + k, static_cast<size_t>(n - k) * sizeof(float));
    store_u8x16(convert8<kQuantize>(c, _mm256_load_ps(x)), convert8<kQuantize>(c, _mm256_load_ps(x + 8)), b);
    std::memcpy(d + k, b, static_cast<size_t>(n - k));
  }
}

ETK_AVX2 void to_u8(const float* a, int64_t n, float offset, uint8_t* d) {
  convert16<false>(a, n, d, 0.f, 0.f, 0.f, offset);
}

ETK_AVX2 void quantize_u8(const float* a, int64_t n, float mult, float lo, float hi, float offset, uint8_t* d) {
  convert16<true>(a, n, d, mult, lo, hi, offset);
}

ETK_AVX2 void convert_u8(const PackedQB& B, const float* a, int64_t n, float offset, uint8_t* d) {
  if (B.in_mult != 0.f) {
    quantize_u8(a, n, B.in_mult, B.in_lo, B.in_hi, offset, d);
  } else {
    to_u8(a, n, offset, d);
  }
}

// Columns [j0, j0 + n) of row r (n <= 8) from their int32 sums, as the VNNI kernel's store_row / store_row_dynamic.
ETK_AVX2 inline void store8(__m256i acc, const Source& src, int64_t r, const PackedQB& B, int64_t j0, float lo,
                            float hi, float* c, int64_t n) {
  __m256 f;
  if (src.row_offset != nullptr) {
    const __m256i off = _mm256_set1_epi32(static_cast<int32_t>(src.row_offset[r]));
    const __m256i colsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B.colsum.data() + j0));
    const __m256i v = _mm256_sub_epi32(acc, _mm256_mullo_epi32(off, colsum));
    const __m256 s = _mm256_mul_ps(_mm256_set1_ps(src.row_scale[r]), _mm256_loadu_ps(src.col_scale + j0));
    f = _mm256_mul_ps(_mm256_cvtepi32_ps(v), s);
    if (src.bias != nullptr) f = _mm256_add_ps(f, _mm256_loadu_ps(src.bias + j0));
    f = _mm256_min_ps(_mm256_max_ps(f, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
  } else {
    const __m256i corr = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B.corr.data() + j0));
    f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(acc, corr)), _mm256_loadu_ps(B.scale.data() + j0));
    f = _mm256_min_ps(_mm256_max_ps(f, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    f = _mm256_round_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    if (B.out_scale != 0.f) f = _mm256_mul_ps(f, _mm256_set1_ps(B.out_scale));
  }
  if (n == 8) {
    _mm256_storeu_ps(c, f);
  } else {
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(c, mask, f);
  }
}

// MR rows of 16-bit activations (x, rows ld apart) times 8 columns of a panel (w: their first 4-byte group, groups
// kNr * 4 bytes apart) over G groups, stored as rows r0.. of the product (c: the first row's first column).
template <int MR>
ETK_AVX2 __attribute__((always_inline)) inline void tile(const Source& src, int64_t r0, const int16_t* x, int64_t ld,
                                                         const int8_t* w, int64_t G, const PackedQB& B, int64_t j0,
                                                         int64_t nc, float lo, float hi, float* c, int64_t rsc) {
  static_assert(MR >= 1 && MR <= 3, "3 rows at most");
  __m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
  const int16_t *x0 = x, *x1 = x + (MR > 1 ? ld : 0), *x2 = x + (MR > 2 ? 2 * ld : 0);
  for (int64_t g = 0; g < G; ++g, w += kNr * 4) {
    // Columns 0-3 and 4-7 of the group, each as [column][k pair] 16-bit pairs.
    const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
    const __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16)));
    int64_t q;  // a row's 4 activations of the group, broadcast as 2 pairs per 64 bits
    std::memcpy(&q, x0 + g * 4, sizeof q);
    __m256i v = _mm256_set1_epi64x(q);
    a00 = _mm256_add_epi32(a00, _mm256_madd_epi16(v, b0));
    a01 = _mm256_add_epi32(a01, _mm256_madd_epi16(v, b1));
    if (MR > 1) {
      std::memcpy(&q, x1 + g * 4, sizeof q);
      v = _mm256_set1_epi64x(q);
      a10 = _mm256_add_epi32(a10, _mm256_madd_epi16(v, b0));
      a11 = _mm256_add_epi32(a11, _mm256_madd_epi16(v, b1));
    }
    if (MR > 2) {
      std::memcpy(&q, x2 + g * 4, sizeof q);
      v = _mm256_set1_epi64x(q);
      a20 = _mm256_add_epi32(a20, _mm256_madd_epi16(v, b0));
      a21 = _mm256_add_epi32(a21, _mm256_madd_epi16(v, b1));
    }
  }
  // hadd gives columns [0 1 4 5 | 2 3 6 7]; the 64-bit permutation puts them in order.
  store8(_mm256_permute4x64_epi64(_mm256_hadd_epi32(a00, a01), 0xD8), src, r0, B, j0, lo, hi, c, nc);
  if (MR > 1)
    store8(_mm256_permute4x64_epi64(_mm256_hadd_epi32(a10, a11), 0xD8), src, r0 + 1, B, j0, lo, hi, c + rsc, nc);
  if (MR > 2)
    store8(_mm256_permute4x64_epi64(_mm256_hadd_epi32(a20, a21), 0xD8), src, r0 + 2, B, j0, lo, hi, c + 2 * rsc, nc);
}

// One row of tile6's group loop: its 4 activations (ADDR) broadcast, times columns 0-3 (ymm12) and 4-7 (ymm13),
// added to its two accumulators.
// clang-format off
#define ETK_TILE6_ROW(ADDR, A0, A1)               \
  "vpbroadcastq " ADDR ", %%ymm14\n\t"           \
  "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"       \
  "vpaddd %%ymm15, %%ymm" A0 ", %%ymm" A0 "\n\t" \
  "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"       \
  "vpaddd %%ymm14, %%ymm" A1 ", %%ymm" A1 "\n\t"
// clang-format on

// 6 rows (G >= 1 groups) as tile<6> would be, the group loop in assembly: GCC holds 12 accumulators and the operands
// in the 16 ymm registers only by spilling and copying them (4 rows x 8 columns already spilled), here they stay in
// ymm0-11 and are stored once at the end. 48 multiply-adds of 16 pairs per 37 instructions against tile<3>'s 24 per
// about 25: 5-7 % on compute-bound layers on Zen 3.
ETK_AVX2 __attribute__((always_inline)) inline void tile6(const Source& src, int64_t r0, const int16_t* x, int64_t ld,
                                                          const int8_t* w, int64_t G, const PackedQB& B, int64_t j0,
                                                          int64_t nc, float lo, float hi, float* c, int64_t rsc) {
  alignas(32) __m256i acc[6][2];
  const int16_t* x3 = x + 3 * ld;
  const int64_t ld_bytes = ld * static_cast<int64_t>(sizeof(int16_t));
  __asm__ volatile(
      ETK_ASM_ZERO_YMM0_11
      "1:\n\t"
      "vpmovsxbw (%[w]), %%ymm12\n\t"
      "vpmovsxbw 16(%[w]), %%ymm13\n\t"
      ETK_TILE6_ROW("(%[x0])", "0", "1")
      ETK_TILE6_ROW("(%[x0], %[ld])", "2", "3")
      ETK_TILE6_ROW("(%[x0], %[ld], 2)", "4", "5")
      ETK_TILE6_ROW("(%[x3])", "6", "7")
      ETK_TILE6_ROW("(%[x3], %[ld])", "8", "9")
      ETK_TILE6_ROW("(%[x3], %[ld], 2)", "10", "11")
      "add $64, %[w]\n\t"
      "add $8, %[x0]\n\t"
      "add $8, %[x3]\n\t"
      "dec %[g]\n\t"
      "jnz 1b\n\t"
      ETK_ASM_STORE_YMM0_11
      : [w] "+r"(w), [x0] "+r"(x), [x3] "+r"(x3), [g] "+r"(G)
      : [ld] "r"(ld_bytes), [acc] "r"(&acc[0][0])
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15", "memory", "cc");
  for (int r = 0; r < 6; ++r)
    store8(_mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[r][0], acc[r][1]), 0xD8), src, r0 + r, B, j0, lo, hi,
           c + r * rsc, nc);
}
#undef ETK_TILE6_ROW

// Rows [m, m + mr) as dense u8 rows of Kp bytes times the panels of columns [j_begin, j_end) (j_begin a multiple of
// kNr), into C (rows from m): the rows widened to 16 bits once, then row chunks that stay in L2 while each
// half-panel's weights (which stay in L1) meet their 6-row tiles (the rest in tiles of 3, 2, 1).
ETK_AVX2 void block(const Source& src, int64_t m, const uint8_t* dense, int64_t mr, const PackedQB& B, float lo,
                    float hi, float* C, int64_t rsc, int64_t j_begin, int64_t j_end) {
  const int64_t Kp = B.Kp, G = Kp / 4;
  thread_local aligned_vector<int16_t> wide_tls;
  aligned_vector<int16_t>& wide = wide_tls;
  if (wide.size() < static_cast<size_t>(mr * Kp)) wide.resize(static_cast<size_t>(mr * Kp));
  int16_t* x = wide.data();
  const int64_t n = mr * Kp;
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    _mm256_store_si256(reinterpret_cast<__m256i*>(x + k),
                       _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dense + k))));
  for (; k < n; ++k) x[k] = dense[k];
  const int64_t chunk = std::max<int64_t>(6, (int64_t{96} << 10) / (Kp * 2) / 6 * 6);
  for (int64_t i0 = 0; i0 < mr; i0 += chunk) {
    const int64_t i1 = std::min(mr, i0 + chunk);
    for (int64_t j0 = j_begin; j0 < j_end; j0 += 8) {
      const int8_t* w = B.data.data() + (j0 / kNr) * Kp * kNr + (j0 % kNr) * 4;
      const int64_t nc = std::min<int64_t>(8, B.N - j0);
      float* c = C + j0;
      int64_t i = i0;
      for (; i + 6 <= i1; i += 6) tile6(src, m + i, x + i * Kp, Kp, w, G, B, j0, nc, lo, hi, c + i * rsc, rsc);
      for (; i + 3 <= i1; i += 3) tile<3>(src, m + i, x + i * Kp, Kp, w, G, B, j0, nc, lo, hi, c + i * rsc, rsc);
      if (i1 - i == 2) tile<2>(src, m + i, x + i * Kp, Kp, w, G, B, j0, nc, lo, hi, c + i * rsc, rsc);
      if (i1 - i == 1) tile<1>(src, m + i, x + i * Kp, Kp, w, G, B, j0, nc, lo, hi, c + i * rsc, rsc);
    }
  }
}

}  // namespace avx2

// The drivers below over either kernel.
struct VnniKernel {
  static constexpr bool kTapsInPlace = true;  // reads a convolution's pre-converted taps where they are
  static constexpr auto to_u8 = &etk::to_u8;
  static constexpr auto quantize_u8 = &etk::quantize_u8;
  static constexpr auto convert_u8 = &etk::convert_u8;
  static void dense(const Source& src, int64_t m, const uint8_t* u, int64_t mr, const PackedQB& B, float lo, float hi,
                    float* C, int64_t rsc, int64_t j_begin, int64_t j_end) {
    block<false>(src, m, u, nullptr, 1, B.Kp / 4, mr, B, lo, hi, C, rsc, j_begin, j_end);
  }
  static void taps(const Source& src, int64_t m, const uint8_t* const* a, int64_t T, int64_t G, int64_t mr,
                   const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
    block<true>(src, m, nullptr, a, T, G, mr, B, lo, hi, C, rsc, 0, B.N);
  }
};

struct Avx2Kernel {
  static constexpr bool kTapsInPlace = false;  // rows are widened anyway: taps are copied into them
  static constexpr auto to_u8 = &avx2::to_u8;
  static constexpr auto quantize_u8 = &avx2::quantize_u8;
  static constexpr auto convert_u8 = &avx2::convert_u8;
  static constexpr auto dense = &avx2::block;
};

// f(VnniKernel{}) or f(Avx2Kernel{}), the kernel of this CPU.
template <typename F>
void with_kernel(F f) {
  if (int8_dot_products_available()) {
    f(VnniKernel{});
  } else {
    f(Avx2Kernel{});
  }
}

// Dense row r of the source as Kp u8 bytes (the padding zero).
template <class Kernel>
void dense_row(const Source& src, int64_t r, const PackedQB& B, uint8_t* d) {
  if (src.qd8_offset != nullptr) {
    const Qd8Row q = qd8_row(src, r, B.K);
    Kernel::quantize_u8(src.A + r * src.rsa, B.K, q.mult, q.lo, q.hi, q.offset, d);
  } else {
    Kernel::convert_u8(B, src.A + r * src.rsa, B.K, src.row_offset ? src.row_offset[r] : B.a_offset, d);
  }
  if (B.Kp > B.K) std::memset(d + B.K, 0, static_cast<size_t>(B.Kp - B.K));
}

// A few dense rows (a decode step): converted once, then pairs of panels split over the pool.
template <class Kernel>
void few_rows_with(const Source& src, int64_t M, const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
  std::vector<uint8_t> u(static_cast<size_t>(M * B.Kp + kCopy));
  for (int64_t i = 0; i < M; ++i) dense_row<Kernel>(src, i, B, u.data() + i * B.Kp);
  ::executorch::extension::parallel_for(0, (B.N + 2 * kNr - 1) / (2 * kNr), 1, [&](int64_t b, int64_t e) {
    Kernel::dense(src, 0, u.data(), M, B, lo, hi, C, rsc, b * 2 * kNr, std::min(B.N, e * 2 * kNr));
  });
}

template <class Kernel>
void rows_with(const Source& src, int64_t m0, int64_t m1, const PackedQB& B, float lo, float hi, float* C,
               int64_t rsc) {
  thread_local std::vector<uint8_t> u_tls;
  thread_local std::vector<const float*> scratch_tls;
  thread_local std::vector<const uint8_t*> taps_tls;
  std::vector<uint8_t>& u = u_tls;  // one thread-local lookup (a call in a shared library), not one per use
  std::vector<const float*>& scratch = scratch_tls;
  if (u.size() < static_cast<size_t>(kRows * B.Kp + kCopy)) u.resize(static_cast<size_t>(kRows * B.Kp + kCopy));
  if (src.segments != nullptr && scratch.size() < static_cast<size_t>(kRows * src.T))
    scratch.resize(static_cast<size_t>(kRows * src.T));
  // Pre-converted taps of whole 4-byte groups are read in place: no row copy.
  const bool in_place = Kernel::kTapsInPlace && src.segments != nullptr && src.act != nullptr && src.L % 4 == 0;
  const int64_t T = in_place ? src.T : 1, G = in_place ? src.L / 4 : B.Kp / 4;
  std::vector<const uint8_t*>& taps = taps_tls;
  if (in_place && taps.size() < static_cast<size_t>(kRows * T)) taps.resize(static_cast<size_t>(kRows * T));
  for (int64_t m = m0; m < m1; m += kRows) {
    const int64_t mr = std::min(kRows, m1 - m);
    const float* const* seg = src.segments ? src.segments(src.ctx, m, mr, scratch.data()) : nullptr;
    if constexpr (Kernel::kTapsInPlace) {
      if (in_place) {
        const QActivations& a = *src.act;
        const uint8_t* const* ta = nullptr;
        if (a.taps_bytes == a.bytes.data() && static_cast<int64_t>(a.taps.size()) >= (m + mr) * T) {
          ta = a.taps.data() + m * T;  // translated once for the whole table
        } else {
          translate(a, seg, mr * T, taps.data());
          ta = taps.data();
        }
        Kernel::taps(src, m, ta, T, G, mr, B, lo, hi, C + m * rsc, rsc);
        continue;
      }
    }
    if (seg == nullptr && src.row_offset == nullptr && src.rsa == B.K && B.Kp == B.K) {
      // Contiguous rows of whole 4-byte groups (a 1x1 convolution's pixels): one conversion for all of them.
      Kernel::convert_u8(B, src.A + m * src.rsa, mr * B.K, B.a_offset, u.data());
      Kernel::dense(src, m, u.data(), mr, B, lo, hi, C + m * rsc, rsc, 0, B.N);
      continue;
    }
    for (int64_t i = 0; i < mr; ++i) {
      uint8_t* d = u.data() + i * B.Kp;
      if (seg == nullptr) {
        dense_row<Kernel>(src, m + i, B, d);
        continue;
      }
      if (src.act != nullptr) {
        copy_segments(*src.act, seg + i * src.T, src.T, src.L, d);
      } else {
        const float offset = src.row_offset ? src.row_offset[m + i] : B.a_offset;
        for (int64_t t = 0; t < src.T; ++t) Kernel::convert_u8(B, seg[i * src.T + t], src.L, offset, d + t * src.L);
      }
      if (B.Kp > B.K) std::memset(d + B.K, 0, static_cast<size_t>(B.Kp - B.K));
    }
    Kernel::dense(src, m, u.data(), mr, B, lo, hi, C + m * rsc, rsc, 0, B.N);
  }
}

void few_rows(const Source& src, int64_t M, const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
  with_kernel([&](auto k) { few_rows_with<decltype(k)>(src, M, B, lo, hi, C, rsc); });
}

void rows(const Source& src, int64_t m0, int64_t m1, const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
  with_kernel([&](auto k) { rows_with<decltype(k)>(src, m0, m1, B, lo, hi, C, rsc); });
}

}  // namespace

#elif defined(__aarch64__)

namespace {

#define ETK_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))

// n floats (integers with a + offset in [0, 255]) as s8 = u8 - 128: SDOT multiplies signed bytes, and
// sum_k u(k) w(k) = sum_k s(k) w(k) + 128 * colsum, which the epilogue adds back.
void to_s8(const float* a, int64_t n, float offset, int8_t* d) {
  const float32x4_t off = vdupq_n_f32(offset - 128.f);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const int32x4_t v0 = vcvtnq_s32_f32(vaddq_f32(vld1q_f32(a + k), off));
    const int32x4_t v1 = vcvtnq_s32_f32(vaddq_f32(vld1q_f32(a + k + 4), off));
    vst1_s8(d + k, vqmovn_s16(vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1))));
  }
  for (; k < n; ++k) {
    const float v = std::min(std::max(a[k] + (offset - 128.f), -128.f), 127.f);
    d[k] = static_cast<int8_t>(vcvtns_s32_f32(v));
  }
}

// n floats x as s8 = round_even(clamp(x * mult, lo, hi)) + offset - 128 (a row quantized on the fly; u8 - 128 as
// to_s8).
void quantize_s8(const float* a, int64_t n, float mult, float lo, float hi, float offset, int8_t* d) {
  const float32x4_t mv = vdupq_n_f32(mult), lov = vdupq_n_f32(lo), hiv = vdupq_n_f32(hi);
  const int32x4_t off = vdupq_n_s32(static_cast<int32_t>(offset) - 128);
  auto one = [&](float32x4_t x) {
    return vaddq_s32(vcvtnq_s32_f32(vminq_f32(vmaxq_f32(vmulq_f32(x, mv), lov), hiv)), off);
  };
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const int32x4_t v0 = one(vld1q_f32(a + k)), v1 = one(vld1q_f32(a + k + 4));
    vst1_s8(d + k, vqmovn_s16(vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1))));
  }
  for (; k < n; ++k) {
    const float v = std::min(std::max(a[k] * mult, lo), hi);
    d[k] = static_cast<int8_t>(vcvtns_s32_f32(v) + static_cast<int32_t>(offset) - 128);
  }
}

// Activations as the GEMM's s8 bytes: integer-valued floats plus offset, or fp32 quantized on the way (B.in_mult).
inline void convert_s8(const PackedQB& B, const float* a, int64_t n, float offset, int8_t* d) {
  if (B.in_mult != 0.f) {
    quantize_s8(a, n, B.in_mult, B.in_lo, B.in_hi, offset, d);
  } else {
    to_s8(a, n, offset, d);
  }
}

// Row r (of the whole product) from its 4 accumulators (columns j0 .. j0 + 15), n of them stored at c.
inline void store(const int32x4_t (&acc)[4], const Source& src, int64_t r, const PackedQB& B, int64_t j0, float lo,
                  float hi, float* c, int64_t n) {
  alignas(16) float out[kNr];
  const float32x4_t lov = vdupq_n_f32(lo), hiv = vdupq_n_f32(hi);
  if (src.row_offset != nullptr) {
    // fp32 out: (acc_u8 - offset(r) * colsum) * row_scale(r) * col_scale + bias, clamped.
    const int32x4_t off = vdupq_n_s32(128 - static_cast<int32_t>(src.row_offset[r]));
    const float32x4_t rs = vdupq_n_f32(src.row_scale[r]);
    for (int q = 0; q < 4; ++q) {
      const int64_t j = j0 + 4 * q;
      const int32x4_t v = vmlaq_s32(acc[q], off, vld1q_s32(B.colsum.data() + j));
      float32x4_t f = vmulq_f32(vcvtq_f32_s32(v), vmulq_f32(rs, vld1q_f32(src.col_scale + j)));
      if (src.bias != nullptr) f = vaddq_f32(f, vld1q_f32(src.bias + j));
      vst1q_f32(out + 4 * q, vminq_f32(vmaxq_f32(f, lov), hiv));
    }
  } else {
    // Requantized: round_even(clamp((acc_u8 + corr) * scale, lo, hi)).
    const int32x4_t k128 = vdupq_n_s32(128);
    for (int q = 0; q < 4; ++q) {
      const int64_t j = j0 + 4 * q;
      const int32x4_t v =
          vaddq_s32(vmlaq_s32(acc[q], k128, vld1q_s32(B.colsum.data() + j)), vld1q_s32(B.corr.data() + j));
      const float32x4_t f = vmulq_f32(vcvtq_f32_s32(v), vld1q_f32(B.scale.data() + j));
      const float32x4_t r = vrndnq_f32(vminq_f32(vmaxq_f32(f, lov), hiv));
      vst1q_f32(out + 4 * q, B.out_scale != 0.f ? vmulq_n_f32(r, B.out_scale) : r);
    }
  }
  std::memcpy(c, out, static_cast<size_t>(n) * sizeof(float));
}

// Rows [m, m + mr) (s8 activations, Kp bytes each) times the panels of columns [j_begin, j_end), into C (rows from
// m): 4 rows x 16 columns per pass (16 accumulators), each 4-byte group of a row broadcast to the 4 SDOTs of the
// panel's columns.
ETK_DOTPROD void block(const Source& src, int64_t m, const int8_t* u, int64_t mr, const PackedQB& B, float lo, float hi,
                       float* C, int64_t rsc, int64_t j_begin, int64_t j_end) {
  const int64_t Kp = B.Kp, groups = Kp / 4;
  for (int64_t j0 = j_begin; j0 < j_end; j0 += kNr) {
    const int8_t* panel = B.data.data() + (j0 / kNr) * Kp * kNr;
    const int64_t n = std::min<int64_t>(kNr, B.N - j0);
    int64_t i = 0;
    for (; i + 4 <= mr; i += 4) {
      const int8_t* u0 = u + i * Kp;
      int32x4_t acc[4][4];
      for (auto& row : acc)
        for (auto& a : row) a = vdupq_n_s32(0);
      for (int64_t g = 0; g < groups; ++g) {
        const int8_t* w = panel + g * kNr * 4;
        const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16), w2 = vld1q_s8(w + 32), w3 = vld1q_s8(w + 48);
        for (int r = 0; r < 4; ++r) {
          int32_t x;
          std::memcpy(&x, u0 + r * Kp + g * 4, 4);
          const int8x16_t a = vreinterpretq_s8_s32(vdupq_n_s32(x));
          acc[r][0] = vdotq_s32(acc[r][0], w0, a);
          acc[r][1] = vdotq_s32(acc[r][1], w1, a);
          acc[r][2] = vdotq_s32(acc[r][2], w2, a);
          acc[r][3] = vdotq_s32(acc[r][3], w3, a);
        }
      }
      for (int r = 0; r < 4; ++r) store(acc[r], src, m + i + r, B, j0, lo, hi, C + (i + r) * rsc + j0, n);
    }
    for (; i < mr; ++i) {
      const int8_t* ui = u + i * Kp;
      int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
      for (int64_t g = 0; g < groups; ++g) {
        const int8_t* w = panel + g * kNr * 4;
        int32_t x;
        std::memcpy(&x, ui + g * 4, 4);
        const int8x16_t a = vreinterpretq_s8_s32(vdupq_n_s32(x));
        acc[0] = vdotq_s32(acc[0], vld1q_s8(w), a);
        acc[1] = vdotq_s32(acc[1], vld1q_s8(w + 16), a);
        acc[2] = vdotq_s32(acc[2], vld1q_s8(w + 32), a);
        acc[3] = vdotq_s32(acc[3], vld1q_s8(w + 48), a);
      }
      store(acc, src, m + i, B, j0, lo, hi, C + i * rsc + j0, n);
    }
  }
}

// Dense row r of the source as Kp s8 bytes (the padding zero).
void dense_row(const Source& src, int64_t r, const PackedQB& B, int8_t* d) {
  if (src.qd8_offset != nullptr) {
    const Qd8Row q = qd8_row(src, r, B.K);
    quantize_s8(src.A + r * src.rsa, B.K, q.mult, q.lo, q.hi, q.offset, d);
  } else {
    convert_s8(B, src.A + r * src.rsa, B.K, src.row_offset ? src.row_offset[r] : B.a_offset, d);
  }
  if (B.Kp > B.K) std::memset(d + B.K, 0, static_cast<size_t>(B.Kp - B.K));  // padding: zero weights too
}

// A few dense rows (a decode step): converted once, then pairs of panels split over the pool.
void few_rows(const Source& src, int64_t M, const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
  std::vector<int8_t> u(static_cast<size_t>(M * B.Kp + kCopy));
  for (int64_t i = 0; i < M; ++i) dense_row(src, i, B, u.data() + i * B.Kp);
  ::executorch::extension::parallel_for(0, (B.N + 2 * kNr - 1) / (2 * kNr), 1, [&](int64_t b, int64_t e) {
    block(src, 0, u.data(), M, B, lo, hi, C, rsc, b * 2 * kNr, std::min(B.N, e * 2 * kNr));
  });
}

void rows(const Source& src, int64_t m0, int64_t m1, const PackedQB& B, float lo, float hi, float* C, int64_t rsc) {
  thread_local std::vector<int8_t> u_tls;
  thread_local std::vector<const float*> scratch_tls;
  std::vector<int8_t>& u = u_tls;  // one thread-local lookup (a call in a shared library), not one per use
  std::vector<const float*>& scratch = scratch_tls;
  if (u.size() < static_cast<size_t>(kRows * B.Kp + kCopy)) u.resize(static_cast<size_t>(kRows * B.Kp + kCopy));
  if (src.segments != nullptr && scratch.size() < static_cast<size_t>(kRows * src.T))
    scratch.resize(static_cast<size_t>(kRows * src.T));
  for (int64_t m = m0; m < m1; m += kRows) {
    const int64_t mr = std::min(kRows, m1 - m);
    const float* const* seg = src.segments ? src.segments(src.ctx, m, mr, scratch.data()) : nullptr;
    for (int64_t i = 0; i < mr; ++i) {
      int8_t* d = u.data() + i * B.Kp;
      if (seg == nullptr) {
        dense_row(src, m + i, B, d);
        continue;
      }
      if (src.act != nullptr) {
        copy_segments(*src.act, seg + i * src.T, src.T, src.L, reinterpret_cast<uint8_t*>(d));
      } else {
        const float offset = src.row_offset ? src.row_offset[m + i] : B.a_offset;
        for (int64_t t = 0; t < src.T; ++t) convert_s8(B, seg[i * src.T + t], src.L, offset, d + t * src.L);
      }
      if (B.Kp > B.K) std::memset(d + B.K, 0, static_cast<size_t>(B.Kp - B.K));  // padding: zero weights too
    }
    block(src, m, u.data(), mr, B, lo, hi, C + m * rsc, rsc, 0, B.N);
  }
}

}  // namespace

#endif

#if defined(__x86_64__) || defined(__aarch64__)

namespace {

void run(const Source& src, int64_t M, const PackedQB& B, float lo, float hi, float* C, int64_t rsc, bool parallel) {
  // Split by blocks of 16 rows once the work is worth it: the fp32 GEMM's rule (gemm.h, parallel_min_flops) with
  // as many more multiply-adds as the int8 kernel runs faster (dot products about 4 times, AVX2's 16-bit pairs 1.5).
  // A few dense rows (a decode step, which streams the weights once) split by columns instead.
  const double work = static_cast<double>(M) * static_cast<double>(B.Kp * B.Np);
  const double speed = int8_dot_products_available() ? 4 : 1.5;
  if (parallel && M <= 4 && src.segments == nullptr && work >= speed * parallel_min_flops()) {
    few_rows(src, M, B, lo, hi, C, rsc);
    return;
  }
  const double min_work = speed * parallel_min_flops() * (M < 256 ? 5 : 1);
  if (!parallel || work < min_work) {
    rows(src, 0, M, B, lo, hi, C, rsc);
    return;
  }
  ::executorch::extension::parallel_for(
      0, (M + 15) / 16, 1, [&](int64_t b, int64_t e) { rows(src, b * 16, std::min(M, e * 16), B, lo, hi, C, rsc); });
}

}  // namespace

void qgemm(int64_t M, const float* A, int64_t rsa, const PackedQB& B, float lo, float hi, float* C, int64_t rsc,
           bool parallel) {
  Source src;
  src.A = A;
  src.rsa = rsa;
  run(src, M, B, lo, hi, C, rsc, parallel);
}

namespace {

// Dynamic rows (fp32 out): with row_offset / row_scale null, A is fp32 and quantized here.
void dynamic(int64_t M, const float* A, int64_t rsa, const float* row_offset, const float* row_scale, const PackedQB& B,
             const float* col_scale, const float* bias, float lo, float hi, float* C, int64_t rsc, bool parallel) {
  // The epilogue loads 16 columns at a time: pad the per-column vectors to the panels' width.
  thread_local std::vector<float> cs, bs, ro, rs;
  cs.assign(col_scale, col_scale + B.N);
  cs.resize(static_cast<size_t>(B.Np), 0.f);
  if (bias != nullptr) {
    bs.assign(bias, bias + B.N);
    bs.resize(static_cast<size_t>(B.Np), 0.f);
  }
  Source src;
  src.A = A;
  src.rsa = rsa;
  if (row_offset == nullptr) {
    ro.resize(static_cast<size_t>(M));
    rs.resize(static_cast<size_t>(M));
    src.qd8_offset = ro.data();
    src.qd8_scale = rs.data();
    row_offset = ro.data();
    row_scale = rs.data();
  }
  src.row_offset = row_offset;
  src.row_scale = row_scale;
  src.col_scale = cs.data();
  src.bias = bias ? bs.data() : nullptr;
  run(src, M, B, lo, hi, C, rsc, parallel);
}

}  // namespace

void qgemm_dynamic(int64_t M, const float* A, int64_t rsa, const float* row_offset, const float* row_scale,
                   const PackedQB& B, const float* col_scale, const float* bias, float lo, float hi, float* C,
                   int64_t rsc, bool parallel) {
  dynamic(M, A, rsa, row_offset, row_scale, B, col_scale, bias, lo, hi, C, rsc, parallel);
}

void qgemm_dynamic_f32(int64_t M, const float* A, int64_t rsa, const PackedQB& B, const float* col_scale,
                       const float* bias, float lo, float hi, float* C, int64_t rsc, bool parallel) {
  dynamic(M, A, rsa, nullptr, nullptr, B, col_scale, bias, lo, hi, C, rsc, parallel);
}

void qigemm(int64_t M, int64_t T, int64_t L, RowSegments segments, const void* ctx, const PackedQB& B, float lo,
            float hi, float* C, int64_t rsc, bool parallel, const QActivations* act) {
  Source src;
  src.segments = segments;
  src.ctx = ctx;
  src.T = T;
  src.L = L;
  src.act = act;
  run(src, M, B, lo, hi, C, rsc, parallel);
}

void translate_taps(const float* const* table, int64_t count, QActivations* out) {
  out->taps.resize(static_cast<size_t>(count));
  translate(*out, table, count, out->taps.data());
  out->taps_bytes = out->bytes.data();
}

void convert_activations(const float* x, int64_t n, const PackedQB& B, QActivations* out) {
  out->base = x;
  out->n = n;
  if (out->bytes.size() < static_cast<size_t>(n + kCopy)) out->bytes.resize(static_cast<size_t>(n + kCopy));
#if defined(__x86_64__)
  const float zero = 0.f;
  with_kernel([&](auto k) { decltype(k)::to_u8(&zero, 1, B.a_offset, &out->zero); });
  auto convert = [&](int64_t b, int64_t e) {
    with_kernel([&](auto k) { decltype(k)::convert_u8(B, x + b, e - b, B.a_offset, out->bytes.data() + b); });
  };
  out->zeros.assign(static_cast<size_t>(B.K), out->zero);
#else
  const float zero = 0.f;
  to_s8(&zero, 1, B.a_offset, reinterpret_cast<int8_t*>(&out->zero));
  auto convert = [&](int64_t b, int64_t e) {
    convert_s8(B, x + b, e - b, B.a_offset, reinterpret_cast<int8_t*>(out->bytes.data() + b));
  };
#endif
  if (n < (int64_t{1} << 16)) {
    convert(0, n);
  } else {
    ::executorch::extension::parallel_for(0, n, int64_t{1} << 14, convert);
  }
}

#else

// No int8 kernel on this architecture: qgemm_available() is false and the callers keep their fp32 paths.
void qgemm(int64_t, const float*, int64_t, const PackedQB&, float, float, float*, int64_t, bool) {}
void qgemm_dynamic(int64_t, const float*, int64_t, const float*, const float*, const PackedQB&, const float*,
                   const float*, float, float, float*, int64_t, bool) {}
void qgemm_dynamic_f32(int64_t, const float*, int64_t, const PackedQB&, const float*, const float*, float, float,
                       float*, int64_t, bool) {}
void qigemm(int64_t, int64_t, int64_t, RowSegments, const void*, const PackedQB&, float, float, float*, int64_t, bool,
            const QActivations*) {}
void convert_activations(const float*, int64_t, const PackedQB&, QActivations*) {}
void translate_taps(const float* const*, int64_t, QActivations*) {}

#endif

}  // namespace etk
