#pragma once
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/portable_type/half.h>

namespace executorch {
namespace runtime {
namespace etensor {

// A number argument of an operator (schema type `Scalar`): a bool, an integer or a floating-point value, as the
// program wrote it. to<T>() converts (C++ conversion rules).
class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t{0}) {}
  /* implicit */ Scalar(bool b) : kind_(Kind::Bool) { v_.as_bool = b; }
  template <typename T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  /* implicit */ Scalar(T i) : kind_(Kind::Int) {
    v_.as_int = static_cast<int64_t>(i);
  }
  template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  /* implicit */ Scalar(T d) : kind_(Kind::Double) {
    v_.as_double = static_cast<double>(d);
  }

  /* implicit */ Scalar(Half h) : Scalar(static_cast<double>(static_cast<float>(h))) {}
  /* implicit */ Scalar(BFloat16 b) : Scalar(static_cast<double>(static_cast<float>(b))) {}

  Kind kind() const { return kind_; }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  // Upstream's meaning: an integer, and also a bool when includeBool is true.
  bool isIntegral(bool includeBool) const { return kind_ == Kind::Int || (includeBool && kind_ == Kind::Bool); }
  bool isFloatingPoint() const { return kind_ == Kind::Double; }

  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::Bool: return static_cast<T>(v_.as_bool);
      case Kind::Int: return static_cast<T>(v_.as_int);
      case Kind::Double: break;
    }
    return static_cast<T>(v_.as_double);
  }

 private:
  union {
    bool as_bool;
    int64_t as_int;
    double as_double;
  } v_;
  Kind kind_;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
