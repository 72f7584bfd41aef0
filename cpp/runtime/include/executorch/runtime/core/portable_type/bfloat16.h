#pragma once
// BFloat16 (executorch::aten::BFloat16, upstream's c10::BFloat16 under the etensor name): the upper 16 bits of an
// IEEE float in `x`. Converting from float rounds to nearest even and turns every NaN into 0x7fc0, exactly as
// c10 does; arithmetic is done in float and rounded back, so results match upstream's kernels bit for bit.
// The bit-level conversions in executorch::runtime::float16 are also used directly by the CPU components.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

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
inline float bf16_to_float(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }
inline uint16_t float_to_bf16(float f) {
  if (f != f) return 0x7fc0u;
  const uint32_t u = f32_bits(f);
  // Adding 0x7fff plus the lowest kept bit rounds half-way cases to the even neighbour.
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// std::numeric_limits of a 16-bit float type T as c10 defines it: the members both types share, and T's own
// precision, exponent range and bit patterns (of min(), lowest(), ...) from Own.
template <typename T, typename Own>
class reduced_float_limits {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr auto has_denorm = std::numeric_limits<float>::has_denorm;
  static constexpr auto has_denorm_loss = std::numeric_limits<float>::has_denorm_loss;
  static constexpr auto round_style = std::numeric_limits<float>::round_style;
  static constexpr bool is_iec559 = Own::is_iec559;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = Own::digits;
  static constexpr int digits10 = Own::digits10;
  static constexpr int max_digits10 = Own::max_digits10;
  static constexpr int radix = 2;
  static constexpr int min_exponent = Own::min_exponent;
  static constexpr int min_exponent10 = Own::min_exponent10;
  static constexpr int max_exponent = Own::max_exponent;
  static constexpr int max_exponent10 = Own::max_exponent10;
  static constexpr auto traps = std::numeric_limits<float>::traps;
  static constexpr auto tinyness_before = std::numeric_limits<float>::tinyness_before;
  static constexpr T min() { return T(Own::min, T::from_bits()); }
  static constexpr T lowest() { return T(Own::lowest, T::from_bits()); }
  static constexpr T max() { return T(Own::max, T::from_bits()); }
  static constexpr T epsilon() { return T(Own::epsilon, T::from_bits()); }
  static constexpr T round_error() { return T(Own::round_error, T::from_bits()); }
  static constexpr T infinity() { return T(Own::infinity, T::from_bits()); }
  static constexpr T quiet_NaN() { return T(Own::quiet_NaN, T::from_bits()); }
  static constexpr T signaling_NaN() { return T(Own::signaling_NaN, T::from_bits()); }
  static constexpr T denorm_min() { return T(Own::denorm_min, T::from_bits()); }
};

// BFloat16's own numeric_limits values.
struct bf16_limits {
  static constexpr bool is_iec559 = false;
  static constexpr int digits = 8, digits10 = 2, max_digits10 = 4;
  static constexpr int min_exponent = -125, min_exponent10 = -37, max_exponent = 128, max_exponent10 = 38;
  static constexpr unsigned short min = 0x0080, lowest = 0xff7f, max = 0x7f7f, epsilon = 0x3c00, round_error = 0x3f00,
                                  infinity = 0x7f80, quiet_NaN = 0x7fc0, signaling_NaN = 0x7f80, denorm_min = 0x0001;
};

}  // namespace float16

namespace etensor {

struct alignas(2) BFloat16 {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  BFloat16() = default;
  constexpr BFloat16(unsigned short bits, from_bits_t) : x(bits) {}
  /* implicit */ BFloat16(float value) : x(float16::float_to_bf16(value)) {}
  /* implicit */ operator float() const { return float16::bf16_to_float(x); }
};

namespace internal {
// c10::detail's names: the float whose upper half is `src`, and float -> BFloat16 bits with rounding.
inline float f32_from_bits(uint16_t src) { return float16::bf16_to_float(src); }
inline uint16_t round_to_nearest_even(float src) { return float16::float_to_bf16(src); }
}  // namespace internal

// The operators c10 defines for a 16-bit float type T: T op T and T op int / int64_t give T (computed in float,
// rounded once); T op float gives float and T op double gives double, as the wider operand decides.
#define ET_INTERNAL_REDUCED_FLOAT_OPERATORS(T)                                                         \
  inline T operator+(const T& a, const T& b) { return static_cast<float>(a) + static_cast<float>(b); } \
  inline T operator-(const T& a, const T& b) { return static_cast<float>(a) - static_cast<float>(b); } \
  inline T operator*(const T& a, const T& b) { return static_cast<float>(a) * static_cast<float>(b); } \
  inline T operator/(const T& a, const T& b) { return static_cast<float>(a) / static_cast<float>(b); } \
  inline T operator-(const T& a) { return -static_cast<float>(a); }                                    \
  inline T& operator+=(T& a, const T& b) { return a = a + b; }                                         \
  inline T& operator-=(T& a, const T& b) { return a = a - b; }                                         \
  inline T& operator*=(T& a, const T& b) { return a = a * b; }                                         \
  inline T& operator/=(T& a, const T& b) { return a = a / b; }                                         \
  inline float operator+(T a, float b) { return static_cast<float>(a) + b; }                           \
  inline float operator-(T a, float b) { return static_cast<float>(a) - b; }                           \
  inline float operator*(T a, float b) { return static_cast<float>(a) * b; }                           \
  inline float operator/(T a, float b) { return static_cast<float>(a) / b; }                           \
  inline float operator+(float a, T b) { return a + static_cast<float>(b); }                           \
  inline float operator-(float a, T b) { return a - static_cast<float>(b); }                           \
  inline float operator*(float a, T b) { return a * static_cast<float>(b); }                           \
  inline float operator/(float a, T b) { return a / static_cast<float>(b); }                           \
  inline float& operator+=(float& a, const T& b) { return a += static_cast<float>(b); }                \
  inline float& operator-=(float& a, const T& b) { return a -= static_cast<float>(b); }                \
  inline float& operator*=(float& a, const T& b) { return a *= static_cast<float>(b); }                \
  inline float& operator/=(float& a, const T& b) { return a /= static_cast<float>(b); }                \
  inline double operator+(T a, double b) { return static_cast<double>(a) + b; }                        \
  inline double operator-(T a, double b) { return static_cast<double>(a) - b; }                        \
  inline double operator*(T a, double b) { return static_cast<double>(a) * b; }                        \
  inline double operator/(T a, double b) { return static_cast<double>(a) / b; }                        \
  inline double operator+(double a, T b) { return a + static_cast<double>(b); }                        \
  inline double operator-(double a, T b) { return a - static_cast<double>(b); }                        \
  inline double operator*(double a, T b) { return a * static_cast<double>(b); }                        \
  inline double operator/(double a, T b) { return a / static_cast<double>(b); }                        \
  inline T operator+(T a, int b) { return a + static_cast<T>(static_cast<float>(b)); }                 \
  inline T operator-(T a, int b) { return a - static_cast<T>(static_cast<float>(b)); }                 \
  inline T operator*(T a, int b) { return a * static_cast<T>(static_cast<float>(b)); }                 \
  inline T operator/(T a, int b) { return a / static_cast<T>(static_cast<float>(b)); }                 \
  inline T operator+(int a, T b) { return static_cast<T>(static_cast<float>(a)) + b; }                 \
  inline T operator-(int a, T b) { return static_cast<T>(static_cast<float>(a)) - b; }                 \
  inline T operator*(int a, T b) { return static_cast<T>(static_cast<float>(a)) * b; }                 \
  inline T operator/(int a, T b) { return static_cast<T>(static_cast<float>(a)) / b; }                 \
  inline T operator+(T a, int64_t b) { return a + static_cast<T>(static_cast<float>(b)); }             \
  inline T operator-(T a, int64_t b) { return a - static_cast<T>(static_cast<float>(b)); }             \
  inline T operator*(T a, int64_t b) { return a * static_cast<T>(static_cast<float>(b)); }             \
  inline T operator/(T a, int64_t b) { return a / static_cast<T>(static_cast<float>(b)); }             \
  inline T operator+(int64_t a, T b) { return static_cast<T>(static_cast<float>(a)) + b; }             \
  inline T operator-(int64_t a, T b) { return static_cast<T>(static_cast<float>(a)) - b; }             \
  inline T operator*(int64_t a, T b) { return static_cast<T>(static_cast<float>(a)) * b; }             \
  inline T operator/(int64_t a, T b) { return static_cast<T>(static_cast<float>(a)) / b; }             \
  inline std::ostream& operator<<(std::ostream& out, const T& value) { return out << static_cast<float>(value); }

ET_INTERNAL_REDUCED_FLOAT_OPERATORS(BFloat16)

// c10 also gives BFloat16 these: the bitwise ones combine the bit patterns into the left operand and return it.
inline BFloat16& operator|(BFloat16& a, const BFloat16& b) {
  a.x = static_cast<uint16_t>(a.x | b.x);
  return a;
}
inline BFloat16& operator^(BFloat16& a, const BFloat16& b) {
  a.x = static_cast<uint16_t>(a.x ^ b.x);
  return a;
}
inline BFloat16& operator&(BFloat16& a, const BFloat16& b) {
  a.x = static_cast<uint16_t>(a.x & b.x);
  return a;
}
inline bool operator>(BFloat16& lhs, BFloat16& rhs) { return static_cast<float>(lhs) > static_cast<float>(rhs); }
inline bool operator<(BFloat16& lhs, BFloat16& rhs) { return static_cast<float>(lhs) < static_cast<float>(rhs); }

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {
template <>
class numeric_limits<::executorch::runtime::etensor::BFloat16>
    : public ::executorch::runtime::float16::reduced_float_limits<::executorch::runtime::etensor::BFloat16,
                                                                  ::executorch::runtime::float16::bf16_limits> {};
}  // namespace std

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::BFloat16;
}  // namespace executor
}  // namespace torch
