#pragma once
// Scalar: a number argument of an operator (schema type `Scalar`): a bool, an integer or a floating-point value,
// as the program wrote it.
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>

namespace executorch {
namespace runtime {
namespace etensor {

class Scalar {
 public:
  // Extension of this SDK: which of the three the Scalar holds.
  enum class Kind : uint8_t { Bool, Int, Double };

  // Integer 0.
  Scalar() : Scalar(int64_t(0)) {}
  // Any integer type (stored as int64_t).
  template <typename T, typename std::enable_if<std::is_integral<T>::value, bool>::type = true>
  /* implicit */ Scalar(T val) : kind_(Kind::Int) {
    v_.as_int = static_cast<int64_t>(val);
  }
  /* implicit */ Scalar(bool val) : kind_(Kind::Bool) { v_.as_bool = val; }
  /* implicit */ Scalar(double val) : kind_(Kind::Double) { v_.as_double = val; }
  /* implicit */ Scalar(BFloat16 val) : Scalar(static_cast<double>(static_cast<float>(val))) {}
  /* implicit */ Scalar(Half val) : Scalar(static_cast<double>(static_cast<float>(val))) {}

  // to<double>(), to<int64_t>(), to<bool>() as upstream. Upstream aborts when the kind differs (except bool ->
  // int64_t); here every kind converts to every arithmetic type by C++ conversion rules.
  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::Bool: return static_cast<T>(v_.as_bool);
      case Kind::Int: return static_cast<T>(v_.as_int);
      case Kind::Double: break;
    }
    return static_cast<T>(v_.as_double);
  }

  // An integer; a bool counts too when includeBool is true.
  bool isIntegral(bool includeBool) const { return kind_ == Kind::Int || (includeBool && isBoolean()); }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  Kind kind() const { return kind_; }

 private:
  union {
    double as_double;
    int64_t as_int;
    bool as_bool;
  } v_;
  Kind kind_;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Scalar;
}  // namespace executor
}  // namespace torch
