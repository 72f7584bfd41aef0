// Sigmoid and SiLU (activations.h).
#include "activations.h"

#include <algorithm>

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
  const __m512 lov = _mm512_set1_ps(lo), hiv = _mm512_set1_ps(hi);
  // min/max return their second operand when one is NaN: clamping as max(lo, v), min(hi, .) keeps a NaN.
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

// The same with AVX2: 2^n from the exponent bits (n in [-126, 0]), the reciprocal from rcp (12 bits) and a Newton
// step. GCC did not vectorize sigmoid_loop's fast_expf for AVX2: SiLU layers took several times their
// convolutions' time (full-size EfficientNet-B0 on 2 Zen 3 cores 27.8 -> 11.0 ms).
__attribute__((target("avx2,fma"))) inline __m256 sigmoid8(__m256 v, bool times_x) {
  const __m256 one = _mm256_set1_ps(1.f), zero = _mm256_setzero_ps();
  const __m256 zraw = _mm256_sub_ps(zero, _mm256_andnot_ps(_mm256_set1_ps(-0.f), v));
  const __m256 z = _mm256_max_ps(_mm256_set1_ps(-87.33f), zraw);
  const __m256 nf = _mm256_round_ps(_mm256_mul_ps(z, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r =
      _mm256_fmadd_ps(nf, _mm256_set1_ps(2.12194440e-4f), _mm256_fnmadd_ps(nf, _mm256_set1_ps(0.693359375f), z));
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r), one);
  // NaN lanes give garbage bits here (the blend below restores them); below the range exp(z) is 0.
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nf), _mm256_set1_epi32(127)), 23);
  const __m256 e = _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)),
                                 _mm256_cmp_ps(zraw, _mm256_set1_ps(-87.33f), _CMP_GE_OQ));
  const __m256 d = _mm256_add_ps(e, one);
  __m256 rc = _mm256_rcp_ps(d);  // 12 bits, then one Newton step (about 22)
  rc = _mm256_mul_ps(rc, _mm256_fnmadd_ps(d, rc, _mm256_set1_ps(2.f)));
  const __m256 s = _mm256_blendv_ps(rc, _mm256_mul_ps(rc, e), _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
  return times_x ? _mm256_mul_ps(v, s) : _mm256_blendv_ps(s, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

__attribute__((target("avx2,fma"))) void sigmoid_avx2(const float* x, float* y, int64_t n, float lo, float hi,
                                                      bool times_x) {
  const __m256 lov = _mm256_set1_ps(lo), hiv = _mm256_set1_ps(hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 s = sigmoid8(_mm256_loadu_ps(x + i), times_x);
    _mm256_storeu_ps(y + i, _mm256_min_ps(hiv, _mm256_max_ps(lov, s)));
  }
  if (i < n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)), idx);
    const __m256 s = sigmoid8(_mm256_maskload_ps(x + i, mask), times_x);
    _mm256_maskstore_ps(y + i, mask, _mm256_min_ps(hiv, _mm256_max_ps(lov, s)));
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
    sigmoid_avx2(x, y, n, lo, hi, times_x);
    return;
  }
#endif
  sigmoid_generic(x, y, n, lo, hi, times_x);
}

}  // namespace etk
