#pragma once
// Element types of tensors. The enumerators and their numbers are c10's and the .pte format's (they are written
// into program files); ET_FORALL_SCALAR_TYPES lists every one with its C++ type, in enum order.
//
// elementSize / toString / isValid / CppTypeToScalarType here are this SDK's (in etensor, found by argument-
// dependent lookup); executorch/runtime/core/exec_aten/util/scalar_type_util.h has upstream's versions in
// executorch::runtime, which defer to these for ScalarType arguments.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/bits_types.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {
namespace etensor {

// The float8 types have an enumerator but no arithmetic here: these only give them a size and a C++ type.
namespace unused_dtype {
struct alignas(1) Float8_e5m2 {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e5m2() = default;
  explicit Float8_e5m2(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e4m3fn {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e4m3fn() = default;
  explicit Float8_e4m3fn(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e5m2fnuz {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e5m2fnuz() = default;
  explicit Float8_e5m2fnuz(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e4m3fnuz {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e4m3fnuz() = default;
  explicit Float8_e4m3fnuz(uint8_t val) : x(val) {}
};
}  // namespace unused_dtype

// `_(cpp_type, Name)` for each enumerator 0 .. 29, in order.
#define ET_FORALL_SCALAR_TYPES(_)                                                               \
  _(uint8_t, Byte)                                                                              \
  _(int8_t, Char)                                                                               \
  _(int16_t, Short)                                                                             \
  _(int32_t, Int)                                                                               \
  _(int64_t, Long)                                                                              \
  _(::executorch::runtime::etensor::Half, Half)                                                 \
  _(float, Float)                                                                               \
  _(double, Double)                                                                             \
  _(::executorch::runtime::etensor::complex<::executorch::runtime::etensor::Half>, ComplexHalf) \
  _(::executorch::runtime::etensor::complex<float>, ComplexFloat)                               \
  _(::executorch::runtime::etensor::complex<double>, ComplexDouble)                             \
  _(bool, Bool)                                                                                 \
  _(::executorch::runtime::etensor::qint8, QInt8)                                               \
  _(::executorch::runtime::etensor::quint8, QUInt8)                                             \
  _(::executorch::runtime::etensor::qint32, QInt32)                                             \
  _(::executorch::runtime::etensor::BFloat16, BFloat16)                                         \
  _(::executorch::runtime::etensor::quint4x2, QUInt4x2)                                         \
  _(::executorch::runtime::etensor::quint2x4, QUInt2x4)                                         \
  _(::executorch::runtime::etensor::bits1x8, Bits1x8)                                           \
  _(::executorch::runtime::etensor::bits2x4, Bits2x4)                                           \
  _(::executorch::runtime::etensor::bits4x2, Bits4x2)                                           \
  _(::executorch::runtime::etensor::bits8, Bits8)                                               \
  _(::executorch::runtime::etensor::bits16, Bits16)                                             \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e5m2, Float8_e5m2)                     \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e4m3fn, Float8_e4m3fn)                 \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e5m2fnuz, Float8_e5m2fnuz)             \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e4m3fnuz, Float8_e4m3fnuz)             \
  _(uint16_t, UInt16)                                                                           \
  _(uint32_t, UInt32)                                                                           \
  _(uint64_t, UInt64)

enum class ScalarType : int8_t {
#define ET_INTERNAL_DEFINE_ENUM(unused, name) name,
  ET_FORALL_SCALAR_TYPES(ET_INTERNAL_DEFINE_ENUM)
#undef ET_INTERNAL_DEFINE_ENUM
  // Not an element type: "no dtype given".
  Undefined,
  // The number of enumerators above.
  NumOptions,
};

// Size in bytes of one element; 0 for Undefined and values outside the enum (which the loader rejects).
EXECUTORCH_API size_t elementSize(ScalarType t);
// The enumerator's name ("Float"); "Undefined"; "UNKNOWN_SCALAR" for values outside the enum.
EXECUTORCH_API const char* toString(ScalarType t);
// True for every element type (not Undefined, NumOptions or values outside the enum).
inline bool isValid(ScalarType t) {
  return static_cast<int8_t>(t) >= 0 && t < ScalarType::NumOptions && t != ScalarType::Undefined;
}

// CppTypeToScalarType<float>::value is ScalarType::Float, for every type of ET_FORALL_SCALAR_TYPES.
template <typename T>
struct CppTypeToScalarType;
#define ET_INTERNAL_CPP_TO_SCALAR(cpp, name) \
  template <>                                \
  struct CppTypeToScalarType<cpp> : std::integral_constant<ScalarType, ScalarType::name> {};
ET_FORALL_SCALAR_TYPES(ET_INTERNAL_CPP_TO_SCALAR)
#undef ET_INTERNAL_CPP_TO_SCALAR

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::ScalarType;
}  // namespace executor
}  // namespace torch
