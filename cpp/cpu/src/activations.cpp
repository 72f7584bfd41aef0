// Sigmoid and SiLU (activations.h).
#include "activations.h"

#include <algorithm>
#include <limits>

#include "fast_math.h"
#include "isa.h"
#include "x86_intrinsics.h"

namespace etk {

namespace {

inline __attribute__((always_inline)) void sigmoid_loop(const float* x, float* y, int64_t n, float lo, float hi,
                                                        bool times_x) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float s = 1.f / (1.f + fast_expf(-v));
    const float r = times_x ? v * s : s;
    y[i] = std::min(std::max(r, lo), hi);
  }
}

void sigmoid_generic(const float* x, float* y, int64_t n, float lo, float hi, bool times_x) {
  sigmoid_loop(x, y, n, lo, hi, times_x);
}

#if defined(__x86_64__)
// e = exp(-|x|) (in (0, 1], never overflowing) with fast_expf's reduction and polynomial, 2^n applied by scalef;
// sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below; the reciprocal is rcp14 plus one Newton step.
__attribute__((target("avx512f"))) inline __m512 sigmoid16(__m512 v, bool times_x) {
  const __m512 zraw = _mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(v));
  const __m512 z = _mm512_max_ps(_mm512_set1_ps(-87.33f), zraw);
  const __m512 nf = _mm512_roundscale_ps(_mm512_mul_ps(z, _mm512_set1_ps(1.44269504088896341f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r =
      _mm512_fmadd_ps(nf, _mm512_set1_ps(2.12194440e-4f), _mm512_fnmadd_ps(nf, _mm512_set1_ps(0.693359375f), z));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.f));
  // Below the range exp(z) is 0 (not exp(-87.33)): SiLU of a huge negative x is -0, as x / (1 + exp(-x)).
  const __m512 e =
      _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(zraw, _mm512_set1_ps(-87.33f), _CMP_GE_OQ), _mm512_scalef_ps(p, nf));
  const __m512 d = _mm512_add_ps(e, _mm512_set1_ps(1.f));
  __m512 rc = _mm512_rcp14_ps(d);
  rc = _mm512_mul_ps(rc, _mm512_fnmadd_ps(d, rc, _mm512_set1_ps(2.f)));
  const __mmask16 negative = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 s = _mm512_mask_mul_ps(rc, negative, rc, e);
  // NaN in, NaN out (z and therefore s are not NaN: _mm512_max_ps returns its second operand for a NaN first).
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return times_x ? _mm512_mul_ps(v, s) : _mm512_mask_mov_ps(s, nan, v);
}

__attribute__((target("avx512f"))) void sigmoid_avx512(const float* x, float* y, int64_t n, float lo, float hi,
                                                       bool times_x) {
  const __m512 lov = _mm512_set1_ps(lo), hiv = _mm512_set1_ps(hi);  // NaN kept (see sigmoid_avx2)
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 s = sigmoid16(_mm512_loadu_ps(x + i), times_x);
    _mm512_storeu_ps(y + i, _mm512_min_ps(hiv, _mm512_max_ps(lov, s)));
  }
  if (i < n) {
    const auto mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 s = sigmoid16(_mm512_maskz_loadu_ps(mask, x + i), times_x);
    _mm512_mask_storeu_ps(y + i, mask, _mm512_min_ps(hiv, _mm512_max_ps(lov, s)));
  }
}

// With AVX2: f = sigmoid(-|x|) = e / (1 + e), e = exp(-|x|) = 2^n * exp(t) (n = round(-|x| / ln 2), t the remainder
// in two steps, exp(t) a degree-5 polynomial fitted for relative error on [-ln 2 / 2, ln 2 / 2]); sigmoid(x) = f for
// x < 0, 1 - f otherwise. n is rounded by adding 1.5 * 2^23 + 127 (its integer then sits in the float's low bits,
// 2^n's exponent field after a shift of 23). One division: on Zen 3 a rcp + Newton step + multiply took longer (and
// 3 ops of the 2 FMA pipes' budget), and is less exact. About 2.5e-7 relative error. GCC did not vectorize
// sigmoid_loop's fast_expf for AVX2: SiLU layers took several times their convolutions' time.
__attribute__((target("avx2,fma"))) inline __m256 sigmoid8(__m256 v, bool times_x) {
  const __m256 one = _mm256_set1_ps(1.f), round_bias = _mm256_set1_ps(12583039.f);
  const __m256 z = _mm256_or_ps(v, _mm256_set1_ps(-0.f));  // -|v|
  __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(1.44269504088896341f), round_bias);
  const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23));  // 2^n for n >= -126
  n = _mm256_sub_ps(n, round_bias);
  __m256 t = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), z);  // ln 2's leading bits: n * them exact
  t = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187e-06f), t);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(8.29031186512e-3f), t, _mm256_set1_ps(4.18979304587e-2f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.66676362082e-1f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(4.99991495218e-1f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(9.99999707199e-1f));
  const __m256 e = _mm256_fmadd_ps(_mm256_mul_ps(t, s), p, s);
  __m256 f = _mm256_div_ps(e, _mm256_add_ps(e, one));
  // Below -87.33 2^n is no normal float (and -inf makes the steps above NaN): exp is taken as 0 there, so SiLU of a
  // huge negative x is -0, as x / (1 + exp(-x)). A NaN input passes through every step (the comparison is false).
  f = _mm256_andnot_ps(_mm256_cmp_ps(z, _mm256_set1_ps(-87.33f), _CMP_LT_OQ), f);
  f = _mm256_blendv_ps(_mm256_sub_ps(one, f), f, v);  // v's sign bit picks
  return times_x ? _mm256_mul_ps(v, f) : f;
}

// clamp false: the bounds are -inf and inf (SiLU's usual case; the min / max would compete with the FMAs). min/max
// return their second operand when one is NaN: clamping as max(lo, v), min(hi, .) keeps a NaN.
template <bool clamp>
__attribute__((target("avx2,fma"))) void sigmoid_avx2(const float* x, float* y, int64_t n, float lo, float hi,
                                                      bool times_x) {
  const __m256 lov = _mm256_set1_ps(lo), hiv = _mm256_set1_ps(hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 s = sigmoid8(_mm256_loadu_ps(x + i), times_x);
    _mm256_storeu_ps(y + i, clamp ? _mm256_min_ps(hiv, _mm256_max_ps(lov, s)) : s);
  }
  if (i < n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)), idx);
    const __m256 s = sigmoid8(_mm256_maskload_ps(x + i, mask), times_x);
    _mm256_maskstore_ps(y + i, mask, clamp ? _mm256_min_ps(hiv, _mm256_max_ps(lov, s)) : s);
  }
}
#endif

}  // namespace

void sigmoid_activation(const float* x, float* y, int64_t n, float lo, float hi, bool times_x) {
#if defined(__x86_64__)
  if (isa_level() == 2) {
    sigmoid_avx512(x, y, n, lo, hi, times_x);
    return;
  }
  if (isa_level() == 1) {
    if (lo == -std::numeric_limits<float>::infinity() && hi == std::numeric_limits<float>::infinity()) {
      sigmoid_avx2<false>(x, y, n, lo, hi, times_x);
    } else {
      sigmoid_avx2<true>(x, y, n, lo, hi, times_x);
    }
    return;
  }
#endif
  sigmoid_generic(x, y, n, lo, hi, times_x);
}

}  // namespace etk
