#pragma once
// Half and BFloat16 element types (executorch::aten::Half / BFloat16, upstream's names): 16-bit patterns in `x`,
// converted to and from float exactly as c10::Half / c10::BFloat16 do (round to nearest even; NaN stays NaN).
// The conversion functions are also used directly by the runtime and the CPU components.
#include <cstdint>
#include <cstring>

namespace executorch {
namespace runtime {
namespace float16 {

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  // Subnormals (and zero): m * 2^-24, exact in float.
  const float sub = static_cast<float>(m) * 0x1p-24f;
  const uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const uint32_t special = 0x7f800000u | (m << 13);
  const uint32_t mag = e == 0 ? f32_bits(sub) : e == 31 ? special : normal;
  return f32_from_bits(sign | mag);
}
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
inline float bf16_to_float(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }
inline uint16_t float_to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  if (f != f) return 0x7fc0u;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace float16

namespace etensor {

struct alignas(2) Half {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  /* implicit */ Half(float value) : x(float16::float_to_half(value)) {}
  operator float() const { return float16::half_to_float(x); }
};

struct alignas(2) BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  /* implicit */ BFloat16(float value) : x(float16::float_to_bf16(value)) {}
  operator float() const { return float16::bf16_to_float(x); }
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
