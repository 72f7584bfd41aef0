#pragma once
// <cmath> functions for Half and BFloat16, as c10's BFloat16-math.h gives them: std::exp(h), std::sqrt(b), ...
// compute in float and return the 16-bit type (std::isfinite returns bool).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {
namespace internal {
template <typename T>
struct is_reduced_floating_point
    : std::integral_constant<bool, std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value> {};
}  // namespace internal
}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {

// c10 exposes its trait in std as well.
template <typename T>
struct is_reduced_floating_point : ::executorch::runtime::etensor::internal::is_reduced_floating_point<T> {};
template <typename T>
constexpr bool is_reduced_floating_point_v = is_reduced_floating_point<T>::value;

#define ET_INTERNAL_REDUCED_FLOAT_UNARY(name, expr)                                                                  \
  template <typename T, typename std::enable_if_t<                                                                   \
                            ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0> \
  inline T name(T a) {                                                                                               \
    return expr;                                                                                                     \
  }
ET_INTERNAL_REDUCED_FLOAT_UNARY(acos, std::acos(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(asin, std::asin(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(atan, std::atan(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(atanh, std::atanh(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(erf, std::erf(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(erfc, std::erfc(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(exp, std::exp(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(expm1, std::expm1(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(log, std::log(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(log10, std::log10(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(log1p, std::log1p(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(log2, std::log2(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(ceil, std::ceil(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(cos, std::cos(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(floor, std::floor(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(nearbyint, std::nearbyint(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(sin, std::sin(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(tan, std::tan(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(sinh, std::sinh(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(cosh, std::cosh(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(tanh, std::tanh(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(trunc, std::trunc(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(lgamma, std::lgamma(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(sqrt, std::sqrt(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(rsqrt, 1.0f / std::sqrt(float(a)))
ET_INTERNAL_REDUCED_FLOAT_UNARY(abs, std::abs(float(a)))
#undef ET_INTERNAL_REDUCED_FLOAT_UNARY

template <typename T, typename std::enable_if_t<
                          ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0>
inline bool isfinite(T a) {
  return std::isfinite(float(a));
}
template <typename T, typename std::enable_if_t<
                          ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0>
inline T pow(T a, double b) {
  return std::pow(float(a), b);
}
template <typename T, typename std::enable_if_t<
                          ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0>
inline T pow(T a, T b) {
  return std::pow(float(a), float(b));
}
template <typename T, typename std::enable_if_t<
                          ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0>
inline T fmod(T a, T b) {
  return std::fmod(float(a), float(b));
}

// The next representable 16-bit value after `from` towards `to`, stepping the bit pattern as IEEE nextafter does.
template <typename T, typename std::enable_if_t<
                          ::executorch::runtime::etensor::internal::is_reduced_floating_point<T>::value, int> = 0>
inline T nextafter(T from, T to) {
  constexpr uint16_t kSign = 0x8000u;
  if (float(from) != float(from) || float(to) != float(to)) return float(from) + float(to);  // NaN in, NaN out
  uint16_t f = from.x;
  const uint16_t t = to.x;
  if (f == t) return from;
  const uint16_t abs_f = f & static_cast<uint16_t>(~kSign);
  const uint16_t abs_t = t & static_cast<uint16_t>(~kSign);
  if (abs_f == 0) {
    if (abs_t == 0) return to;  // +0 -> -0 and back: the target's sign
    return T(static_cast<unsigned short>((t & kSign) | 1u), T::from_bits());
  }
  // Away from zero when the target is farther out on the same side, towards zero otherwise.
  if (abs_f > abs_t || ((f ^ t) & kSign) != 0) {
    --f;
  } else {
    ++f;
  }
  return T(f, T::from_bits());
}

}  // namespace std
