#pragma once
// complex<T> (executorch::aten::complex, upstream's c10::complex under the etensor name): a pair of T laid out as
// std::complex<T> is (real, imag), aligned to its size. Arithmetic, comparisons, stream I/O and the <complex>
// math functions (std::exp(z), std::abs(z), ...) behave as c10's. complex<Half> and complex<BFloat16> only store
// and convert (to and from complex<float>) and add, subtract, multiply in float, as in c10.
#include <cmath>
#include <complex>
#include <istream>
#include <limits>
#include <ostream>
#include <type_traits>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {

template <typename T>
struct alignas(sizeof(T) * 2) complex {
  using value_type = T;

  T real_ = T(0);
  T imag_ = T(0);

  constexpr complex() = default;
  constexpr complex(const T& re, const T& im = T()) : real_(re), imag_(im) {}
  template <typename U>
  explicit constexpr complex(const std::complex<U>& other) : complex(other.real(), other.imag()) {}
  // complex<double> -> complex<float> narrows, so it is explicit; complex<float> -> complex<double> is not.
  template <typename U = T>
  explicit constexpr complex(const std::enable_if_t<std::is_same<U, float>::value, complex<double>>& other)
      : real_(other.real_), imag_(other.imag_) {}
  template <typename U = T>
  constexpr complex(const std::enable_if_t<std::is_same<U, double>::value, complex<float>>& other)
      : real_(other.real_), imag_(other.imag_) {}

  constexpr complex& operator=(T re) {
    real_ = re;
    imag_ = 0;
    return *this;
  }
  constexpr complex& operator+=(T re) {
    real_ += re;
    return *this;
  }
  constexpr complex& operator-=(T re) {
    real_ -= re;
    return *this;
  }
  constexpr complex& operator*=(T re) {
    real_ *= re;
    imag_ *= re;
    return *this;
  }
  constexpr complex& operator/=(T re) {
    real_ /= re;
    imag_ /= re;
    return *this;
  }
  template <typename U>
  constexpr complex& operator=(const complex<U>& rhs) {
    real_ = rhs.real();
    imag_ = rhs.imag();
    return *this;
  }
  template <typename U>
  constexpr complex& operator+=(const complex<U>& rhs) {
    real_ += rhs.real();
    imag_ += rhs.imag();
    return *this;
  }
  template <typename U>
  constexpr complex& operator-=(const complex<U>& rhs) {
    real_ -= rhs.real();
    imag_ -= rhs.imag();
    return *this;
  }
  template <typename U>
  constexpr complex& operator*=(const complex<U>& rhs) {
    const T a = real_, b = imag_;
    const U c = rhs.real(), d = rhs.imag();
    real_ = a * c - b * d;
    imag_ = a * d + b * c;
    return *this;
  }
  // Smith's algorithm: scale by the larger of |c| and |d| so the intermediate products do not overflow. Dividing
  // by zero gives infinities / NaN as float division does.
  template <typename U>
  constexpr complex& operator/=(const complex<U>& rhs) {
    const T a = real_, b = imag_;
    const U c = rhs.real(), d = rhs.imag();
    const U abs_c = c < 0 ? -c : c;
    const U abs_d = d < 0 ? -d : d;
    if (abs_c >= abs_d) {
      if (abs_c == U(0) && abs_d == U(0)) {
        real_ = a / abs_c;
        imag_ = b / abs_d;
      } else {
        const U rat = d / c;
        const U scl = U(1.0) / (c + d * rat);
        real_ = (a + b * rat) * scl;
        imag_ = (b - a * rat) * scl;
      }
    } else {
      const U rat = c / d;
      const U scl = U(1.0) / (d + c * rat);
      real_ = (a * rat + b) * scl;
      imag_ = (b * rat - a) * scl;
    }
    return *this;
  }
  template <typename U>
  constexpr complex& operator=(const std::complex<U>& rhs) {
    real_ = rhs.real();
    imag_ = rhs.imag();
    return *this;
  }

  template <typename U>
  explicit constexpr operator std::complex<U>() const {
    return std::complex<U>(std::complex<T>(real(), imag()));
  }
  explicit constexpr operator bool() const { return real() || imag(); }

  constexpr T real() const { return real_; }
  constexpr void real(T value) { real_ = value; }
  constexpr T imag() const { return imag_; }
  constexpr void imag(T value) { imag_ = value; }
};

// The 16-bit element types: storage plus conversion to / from complex<float>, and +=, -=, *= computed in float.
#define ET_INTERNAL_REDUCED_COMPLEX(T)                                                                \
  template <>                                                                                         \
  struct alignas(4) complex<T> {                                                                      \
    T real_;                                                                                          \
    T imag_;                                                                                          \
    complex() = default;                                                                              \
    explicit complex(const T& re, const T& im) : real_(re), imag_(im) {}                              \
    /* implicit */ complex(const complex<float>& value) : real_(value.real()), imag_(value.imag()) {} \
    /* implicit */ operator complex<float>() const { return {real_, imag_}; }                         \
    constexpr T real() const { return real_; }                                                        \
    constexpr T imag() const { return imag_; }                                                        \
    complex& operator+=(const complex& other) {                                                       \
      real_ = static_cast<float>(real_) + static_cast<float>(other.real_);                            \
      imag_ = static_cast<float>(imag_) + static_cast<float>(other.imag_);                            \
      return *this;                                                                                   \
    }                                                                                                 \
    complex& operator-=(const complex& other) {                                                       \
      real_ = static_cast<float>(real_) - static_cast<float>(other.real_);                            \
      imag_ = static_cast<float>(imag_) - static_cast<float>(other.imag_);                            \
      return *this;                                                                                   \
    }                                                                                                 \
    complex& operator*=(const complex& other) {                                                       \
      const float a = real_, b = imag_, c = other.real_, d = other.imag_;                             \
      real_ = a * c - b * d;                                                                          \
      imag_ = a * d + b * c;                                                                          \
      return *this;                                                                                   \
    }                                                                                                 \
  };
ET_INTERNAL_REDUCED_COMPLEX(Half)
ET_INTERNAL_REDUCED_COMPLEX(BFloat16)
#undef ET_INTERNAL_REDUCED_COMPLEX

namespace complex_literals {
constexpr complex<float> operator""_if(long double imag) { return complex<float>(0.0f, static_cast<float>(imag)); }
constexpr complex<double> operator""_id(long double imag) { return complex<double>(0.0, static_cast<double>(imag)); }
constexpr complex<float> operator""_if(unsigned long long imag) {
  return complex<float>(0.0f, static_cast<float>(imag));
}
constexpr complex<double> operator""_id(unsigned long long imag) {
  return complex<double>(0.0, static_cast<double>(imag));
}
}  // namespace complex_literals

template <typename T>
constexpr complex<T> operator+(const complex<T>& v) {
  return v;
}
template <typename T>
constexpr complex<T> operator-(const complex<T>& v) {
  return complex<T>(-v.real(), -v.imag());
}

template <typename T>
constexpr complex<T> operator+(const complex<T>& lhs, const complex<T>& rhs) {
  complex<T> result = lhs;
  return result += rhs;
}
template <typename T>
constexpr complex<T> operator+(const complex<T>& lhs, const T& rhs) {
  complex<T> result = lhs;
  return result += rhs;
}
template <typename T>
constexpr complex<T> operator+(const T& lhs, const complex<T>& rhs) {
  return complex<T>(lhs + rhs.real(), rhs.imag());
}
template <typename T>
constexpr complex<T> operator-(const complex<T>& lhs, const complex<T>& rhs) {
  complex<T> result = lhs;
  return result -= rhs;
}
template <typename T>
constexpr complex<T> operator-(const complex<T>& lhs, const T& rhs) {
  complex<T> result = lhs;
  return result -= rhs;
}
template <typename T>
constexpr complex<T> operator-(const T& lhs, const complex<T>& rhs) {
  complex<T> result = -rhs;
  return result += lhs;
}
template <typename T>
constexpr complex<T> operator*(const complex<T>& lhs, const complex<T>& rhs) {
  complex<T> result = lhs;
  return result *= rhs;
}
template <typename T>
constexpr complex<T> operator*(const complex<T>& lhs, const T& rhs) {
  complex<T> result = lhs;
  return result *= rhs;
}
template <typename T>
constexpr complex<T> operator*(const T& lhs, const complex<T>& rhs) {
  complex<T> result = rhs;
  return result *= lhs;
}
template <typename T>
constexpr complex<T> operator/(const complex<T>& lhs, const complex<T>& rhs) {
  complex<T> result = lhs;
  return result /= rhs;
}
template <typename T>
constexpr complex<T> operator/(const complex<T>& lhs, const T& rhs) {
  complex<T> result = lhs;
  return result /= rhs;
}
template <typename T>
constexpr complex<T> operator/(const T& lhs, const complex<T>& rhs) {
  complex<T> result(lhs, T());
  return result /= rhs;
}

// An integer operand is first converted to the complex's floating-point type.
#define ET_INTERNAL_COMPLEX_INTEGER_OP(op)                                                               \
  template <typename fT, typename iT,                                                                    \
            std::enable_if_t<std::is_floating_point<fT>::value && std::is_integral<iT>::value, int> = 0> \
  constexpr complex<fT> operator op(const complex<fT>& a, const iT & b) {                                \
    return a op static_cast<fT>(b);                                                                      \
  }                                                                                                      \
  template <typename fT, typename iT,                                                                    \
            std::enable_if_t<std::is_floating_point<fT>::value && std::is_integral<iT>::value, int> = 0> \
  constexpr complex<fT> operator op(const iT & a, const complex<fT>& b) {                                \
    return static_cast<fT>(a) op b;                                                                      \
  }
ET_INTERNAL_COMPLEX_INTEGER_OP(+)
ET_INTERNAL_COMPLEX_INTEGER_OP(-)
ET_INTERNAL_COMPLEX_INTEGER_OP(*)
ET_INTERNAL_COMPLEX_INTEGER_OP(/)
#undef ET_INTERNAL_COMPLEX_INTEGER_OP

template <typename T>
constexpr bool operator==(const complex<T>& lhs, const complex<T>& rhs) {
  return lhs.real() == rhs.real() && lhs.imag() == rhs.imag();
}
template <typename T>
constexpr bool operator==(const complex<T>& lhs, const T& rhs) {
  return lhs.real() == rhs && lhs.imag() == T();
}
template <typename T>
constexpr bool operator==(const T& lhs, const complex<T>& rhs) {
  return lhs == rhs.real() && T() == rhs.imag();
}
template <typename T>
constexpr bool operator!=(const complex<T>& lhs, const complex<T>& rhs) {
  return !(lhs == rhs);
}
template <typename T>
constexpr bool operator!=(const complex<T>& lhs, const T& rhs) {
  return !(lhs == rhs);
}
template <typename T>
constexpr bool operator!=(const T& lhs, const complex<T>& rhs) {
  return !(lhs == rhs);
}

template <typename T, typename CharT, typename Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const complex<T>& x) {
  return os << static_cast<std::complex<T>>(x);
}
template <typename T, typename CharT, typename Traits>
std::basic_istream<CharT, Traits>& operator>>(std::basic_istream<CharT, Traits>& is, complex<T>& x) {
  std::complex<T> tmp;
  is >> tmp;
  x = tmp;
  return is;
}

template <typename T>
complex<T> polar(const T& r, const T& theta = T()) {
  return complex<T>(r * std::cos(theta), r * std::sin(theta));
}

// Math functions: computed by <complex> on std::complex<T>. Found by argument-dependent lookup, and also
// reachable as std::exp(z) etc. (declared into std below, as c10 does).
namespace complex_math {
#define ET_INTERNAL_COMPLEX_UNARY(name)                                         \
  template <typename T>                                                         \
  inline complex<T> name(const complex<T>& x) {                                 \
    return static_cast<complex<T>>(std::name(static_cast<std::complex<T>>(x))); \
  }
ET_INTERNAL_COMPLEX_UNARY(exp)
ET_INTERNAL_COMPLEX_UNARY(log)
ET_INTERNAL_COMPLEX_UNARY(log10)
ET_INTERNAL_COMPLEX_UNARY(sqrt)
ET_INTERNAL_COMPLEX_UNARY(sin)
ET_INTERNAL_COMPLEX_UNARY(cos)
ET_INTERNAL_COMPLEX_UNARY(tan)
ET_INTERNAL_COMPLEX_UNARY(asin)
ET_INTERNAL_COMPLEX_UNARY(acos)
ET_INTERNAL_COMPLEX_UNARY(atan)
ET_INTERNAL_COMPLEX_UNARY(sinh)
ET_INTERNAL_COMPLEX_UNARY(cosh)
ET_INTERNAL_COMPLEX_UNARY(tanh)
ET_INTERNAL_COMPLEX_UNARY(asinh)
ET_INTERNAL_COMPLEX_UNARY(acosh)
ET_INTERNAL_COMPLEX_UNARY(atanh)
#undef ET_INTERNAL_COMPLEX_UNARY

template <typename T>
inline complex<T> log2(const complex<T>& x) {
  const std::complex<T> l = std::log(static_cast<std::complex<T>>(x));
  return static_cast<complex<T>>(l / std::log(T(2)));
}
template <typename T>
inline complex<T> pow(const complex<T>& x, const complex<T>& y) {
  return static_cast<complex<T>>(std::pow(static_cast<std::complex<T>>(x), static_cast<std::complex<T>>(y)));
}
template <typename T>
inline complex<T> pow(const complex<T>& x, const T& y) {
  return static_cast<complex<T>>(std::pow(static_cast<std::complex<T>>(x), y));
}
template <typename T>
inline complex<T> pow(const T& x, const complex<T>& y) {
  return static_cast<complex<T>>(std::pow(x, static_cast<std::complex<T>>(y)));
}
template <typename T, typename U>
inline complex<decltype(T() * U())> pow(const complex<T>& x, const complex<U>& y) {
  using R = decltype(T() * U());
  return static_cast<complex<R>>(std::pow(static_cast<std::complex<R>>(x), static_cast<std::complex<R>>(y)));
}
template <typename T, typename U>
inline complex<decltype(T() * U())> pow(const complex<T>& x, const U& y) {
  using R = decltype(T() * U());
  return static_cast<complex<R>>(std::pow(static_cast<std::complex<R>>(x), static_cast<R>(y)));
}
template <typename T, typename U>
inline complex<decltype(T() * U())> pow(const T& x, const complex<U>& y) {
  using R = decltype(T() * U());
  return static_cast<complex<R>>(std::pow(static_cast<R>(x), static_cast<std::complex<R>>(y)));
}
// log(1 + z) and exp(z) - 1 without losing the small parts of z.
template <typename T>
inline complex<T> log1p(const complex<T>& z) {
  const complex<T> u = z + T(1);
  if (u == T(1)) return z;
  const complex<T> log_u = log(u);
  if (u - T(1) == z) return log_u;
  return log_u * (z / (u - T(1)));
}
template <typename T>
inline complex<T> expm1(const complex<T>& z) {
  const T x = z.real(), y = z.imag();
  const T a = std::sin(y / 2);
  return {std::expm1(x) * std::cos(y) - T(2) * a * a, std::exp(x) * std::sin(y)};
}
}  // namespace complex_math

using complex_math::acos;
using complex_math::acosh;
using complex_math::asin;
using complex_math::asinh;
using complex_math::atan;
using complex_math::atanh;
using complex_math::cos;
using complex_math::cosh;
using complex_math::exp;
using complex_math::expm1;
using complex_math::log;
using complex_math::log10;
using complex_math::log1p;
using complex_math::log2;
using complex_math::pow;
using complex_math::sin;
using complex_math::sinh;
using complex_math::sqrt;
using complex_math::tan;
using complex_math::tanh;

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace std {
template <typename T>
constexpr T real(const ::executorch::runtime::etensor::complex<T>& z) {
  return z.real();
}
template <typename T>
constexpr T imag(const ::executorch::runtime::etensor::complex<T>& z) {
  return z.imag();
}
template <typename T>
T abs(const ::executorch::runtime::etensor::complex<T>& z) {
  return std::abs(static_cast<std::complex<T>>(z));
}
template <typename T>
T arg(const ::executorch::runtime::etensor::complex<T>& z) {
  return std::atan2(std::imag(z), std::real(z));
}
template <typename T>
constexpr T norm(const ::executorch::runtime::etensor::complex<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <typename T>
constexpr ::executorch::runtime::etensor::complex<T> conj(const ::executorch::runtime::etensor::complex<T>& z) {
  return ::executorch::runtime::etensor::complex<T>(z.real(), -z.imag());
}
template <typename T>
bool isnan(const ::executorch::runtime::etensor::complex<T>& v) {
  return std::isnan(v.real()) || std::isnan(v.imag());
}
template <typename T>
class numeric_limits<::executorch::runtime::etensor::complex<T>> : public numeric_limits<T> {};

using ::executorch::runtime::etensor::complex_math::acos;
using ::executorch::runtime::etensor::complex_math::acosh;
using ::executorch::runtime::etensor::complex_math::asin;
using ::executorch::runtime::etensor::complex_math::asinh;
using ::executorch::runtime::etensor::complex_math::atan;
using ::executorch::runtime::etensor::complex_math::atanh;
using ::executorch::runtime::etensor::complex_math::cos;
using ::executorch::runtime::etensor::complex_math::cosh;
using ::executorch::runtime::etensor::complex_math::exp;
using ::executorch::runtime::etensor::complex_math::expm1;
using ::executorch::runtime::etensor::complex_math::log;
using ::executorch::runtime::etensor::complex_math::log10;
using ::executorch::runtime::etensor::complex_math::log1p;
using ::executorch::runtime::etensor::complex_math::log2;
using ::executorch::runtime::etensor::complex_math::pow;
using ::executorch::runtime::etensor::complex_math::sin;
using ::executorch::runtime::etensor::complex_math::sinh;
using ::executorch::runtime::etensor::complex_math::sqrt;
using ::executorch::runtime::etensor::complex_math::tan;
using ::executorch::runtime::etensor::complex_math::tanh;
}  // namespace std

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::complex;
}  // namespace executor
}  // namespace torch
