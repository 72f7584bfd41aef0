#pragma once
// Half (executorch::aten::Half, upstream's c10::Half under the etensor name): an IEEE binary16 bit pattern in `x`.
// Conversions to and from float are exactly c10's (round to nearest even, overflow to infinity, NaN stays NaN);
// arithmetic is done in float and rounded back, so results match upstream's kernels bit for bit.
// The bit-level conversions in executorch::runtime::float16 are also used directly by the CPU components.
// (This header also brings BFloat16, which code written against this SDK's earlier headers found here.)
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

#include <executorch/runtime/core/portable_type/bfloat16.h>

namespace executorch {
namespace runtime {
namespace float16 {

// binary16 bits -> the float32 bits of the same value (exact; NaNs keep their payload, quieted).
inline uint32_t half_to_float_bits(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  // Subnormals (and zero): m * 2^-24, exact in float.
  const uint32_t sub = f32_bits(static_cast<float>(m) * 0x1p-24f);
  const uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const uint32_t special = 0x7f800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u);
  return sign | (e == 0 ? sub : e == 31 ? special : normal);
}
inline float half_to_float(uint16_t h) { return f32_from_bits(half_to_float_bits(h)); }
inline uint16_t float_to_half(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  // Normal range: drop 13 mantissa bits with round-half-even; a carry moves into the exponent, up to infinity.
  uint32_t normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  normal = normal > 0x7c00u ? 0x7c00u : normal;
  // Below 2^-14: the subnormal mantissa is round-half-even(|f| * 2^24), done by adding 2^23 in float.
  const uint32_t sub = f32_bits(f32_from_bits(a) * 0x1p24f + 0x1p23f) - 0x4b000000u;
  const uint32_t mag = a > 0x7f800000u ? 0x7e00u : a == 0x7f800000u ? 0x7c00u : a < 0x38800000u ? sub : normal;
  return static_cast<uint16_t>(sign | mag);
}

// Half's own numeric_limits values (see reduced_float_limits).
struct half_limits {
  static constexpr bool is_iec559 = true;
  static constexpr int digits = 11, digits10 = 3, max_digits10 = 5;
  static constexpr int min_exponent = -13, min_exponent10 = -4, max_exponent = 16, max_exponent10 = 4;
  static constexpr unsigned short min = 0x0400, lowest = 0xfbff, max = 0x7bff, epsilon = 0x1400, round_error = 0x3800,
                                  infinity = 0x7c00, quiet_NaN = 0x7e00, signaling_NaN = 0x7d00, denorm_min = 0x0001;
};

}  // namespace float16

namespace etensor {

struct alignas(2) Half {
  unsigned short x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  Half() = default;
  constexpr Half(unsigned short bits, from_bits_t) : x(bits) {}
  /* implicit */ Half(float value) : x(float16::float_to_half(value)) {}
  /* implicit */ operator float() const { return float16::half_to_float(x); }
};

namespace internal {
// c10::detail's names for the conversions and the float bit casts.
inline float fp32_from_bits(uint32_t w) { return float16::f32_from_bits(w); }
inline uint32_t fp32_to_bits(float f) { return float16::f32_bits(f); }
inline float fp16_ieee_to_fp32_value(uint16_t h) { return float16::half_to_float(h); }
inline uint32_t fp16_ieee_to_fp32_bits(uint16_t h) { return float16::half_to_float_bits(h); }
inline uint16_t fp16_ieee_from_fp32_value(float f) { return float16::float_to_half(f); }
}  // namespace internal

ET_INTERNAL_REDUCED_FLOAT_OPERATORS(Half)

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {
template <>
class numeric_limits<::executorch::runtime::etensor::Half>
    : public ::executorch::runtime::float16::reduced_float_limits<::executorch::runtime::etensor::Half,
                                                                  ::executorch::runtime::float16::half_limits> {};
}  // namespace std

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Half;
}  // namespace executor
}  // namespace torch
