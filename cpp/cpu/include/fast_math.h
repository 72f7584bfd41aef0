#pragma once
// Float math the compiler can vectorize (no libm calls), shared by libexecutorch_kernels and the XNNPACK delegate
// (header-only, part of executorch_cpu's interface).
#include <cstdint>
#include <cstring>
#include <limits>

namespace etk {

// exp for float that the compiler can vectorize (no libm call): Cody-Waite range reduction by ln 2 and a degree-6
// polynomial, about 2 ulp. Overflows to +inf above 88.72, flushes to 0 below -87.33, keeps NaN.
inline float fast_expf(float x) {
  const float c = x < -87.33f ? -87.33f : (x > 88.72f ? 88.72f : x);
  const float t = c * 1.44269504088896341f + 12582912.f;
  const float n = t - 12582912.f;
  const float r = (c - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  // n sits in the low mantissa bits of t (t = 1.5 * 2^23 + n); 2^n is built as 2^(n-1) * 2 so that n = 128 does
  // not overflow the exponent field (and no float->int conversion blocks vectorization).
  // Unsigned arithmetic: a NaN input gives garbage bits here (replaced below), never a signed overflow.
  uint32_t tb;
  std::memcpy(&tb, &t, sizeof(tb));
  const uint32_t bits = (tb - 0x4B400000u + 126u) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  float y = p * scale * 2.f;
  y = x > 88.72f ? std::numeric_limits<float>::infinity() : y;
  y = x < -87.33f ? 0.f : y;
  return x != x ? x : y;
}

// erf for float that the compiler can vectorize: Abramowitz & Stegun 7.1.26 on |x| (absolute error below 1.5e-7,
// odd symmetry restored by copying the sign), built on fast_expf. erf(+-inf) = +-1, keeps NaN.
inline float fast_erff(float x) {
  const float a = x < 0.f ? -x : x;
  const float t = 1.f / (1.f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const float e = 1.f - p * t * fast_expf(-a * a);
  const float r = x < 0.f ? -e : e;
  return x != x ? x : r;
}

}  // namespace etk
