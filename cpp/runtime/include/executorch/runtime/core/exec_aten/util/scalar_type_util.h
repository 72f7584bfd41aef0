#pragma once
// ScalarType utilities for kernel code, under upstream ExecuTorch's names:
//  - C++ type <-> ScalarType maps (CppTypeToScalarType, ScalarTypeToCppType) and ET_FORALL_* X-macro lists;
//  - dtype predicates and conversions (isIntegralType, isFloatingType, isRealHBBF16Type, toUnderlying, ...);
//  - PyTorch's casting and promotion rules (canCast, promoteTypes, promote_types);
//  - dtype dispatch:
//
//      ET_SWITCH_REALHBF16_TYPES(in.scalar_type(), ctx, "my_op.out", CTYPE, [&]() { ... CTYPE ... });
//
//    runs the lambda with CTYPE bound to the C++ type of the dtype and evaluates to what the lambda returns. Any
//    other dtype fails the kernel call on `ctx` with InvalidArgument, logs the operator and the dtype, does not run
//    the lambda, and evaluates to a value-initialised result (nothing for a void lambda).
#include <array>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace aten {
using ScalarType = ::executorch::runtime::etensor::ScalarType;
using string_view = std::string_view;
}  // namespace aten
}  // namespace executorch
namespace exec_aten = ::executorch::aten;

namespace executorch {
namespace runtime {

// std::is_floating_point extended to Half and BFloat16.
template <typename T>
struct is_floating_point
    : std::integral_constant<bool, std::is_floating_point<T>::value ||
                                       std::is_same_v<T, ::executorch::runtime::etensor::Half> ||
                                       std::is_same_v<T, ::executorch::runtime::etensor::BFloat16>> {};

// Half or BFloat16.
template <typename T>
struct is_reduced_floating_point
    : std::integral_constant<bool, std::is_same_v<T, ::executorch::runtime::etensor::Half> ||
                                       std::is_same_v<T, ::executorch::runtime::etensor::BFloat16>> {};

template <typename T>
constexpr bool is_reduced_floating_point_v = is_reduced_floating_point<T>::value;

// ScalarTypeToCppType<ScalarType::Float>::type is float.
template <::executorch::aten::ScalarType N>
struct ScalarTypeToCppType;

// CppTypeToScalarType<float>::value is ScalarType::Float.
template <typename T>
struct CppTypeToScalarType;

#define ET_INTERNAL_SPECIALIZE_TYPE_MAPS(cpp_type, scalar_type)             \
  template <>                                                               \
  struct ScalarTypeToCppType<::executorch::aten::ScalarType::scalar_type> { \
    using type = cpp_type;                                                  \
  };                                                                        \
  template <>                                                               \
  struct CppTypeToScalarType<cpp_type>                                      \
      : std::integral_constant<::executorch::aten::ScalarType, ::executorch::aten::ScalarType::scalar_type> {};
ET_FORALL_SCALAR_TYPES(ET_INTERNAL_SPECIALIZE_TYPE_MAPS)
#undef ET_INTERNAL_SPECIALIZE_TYPE_MAPS

}  // namespace runtime
}  // namespace executorch

//
// X-macro lists over subsets of the scalar types. `_` is a macro taking (C++ type, ScalarType enumerator name);
// the *_WITH forms pass one or two extra leading arguments through; the *_AND forms add named enumerators
// (unqualified names such as Half or Bool). Everything is fully qualified so that they expand in any namespace.
//

// INT: the integer C types (not Bool, not the quantized or unsigned 16/32/64-bit types).
#define ET_FORALL_INT_TYPES(_) \
  _(uint8_t, Byte)             \
  _(int8_t, Char)              \
  _(int16_t, Short)            \
  _(int32_t, Int)              \
  _(int64_t, Long)

#define ET_FORALL_INT_TYPES_WITH(ANOTHER_INPUT, _) \
  _(ANOTHER_INPUT, uint8_t, Byte)                  \
  _(ANOTHER_INPUT, int8_t, Char)                   \
  _(ANOTHER_INPUT, int16_t, Short)                 \
  _(ANOTHER_INPUT, int32_t, Int)                   \
  _(ANOTHER_INPUT, int64_t, Long)

#define ET_FORALL_INT_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, uint8_t, Byte)                   \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, int8_t, Char)                    \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, int16_t, Short)                  \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, int32_t, Int)                    \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, int64_t, Long)

#define ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE) \
  ::executorch::runtime::ScalarTypeToCppType<::executorch::aten::ScalarType::SCALARTYPE>::type

#define ET_FORALL_INT_TYPES_AND(SCALARTYPE, _) \
  ET_FORALL_INT_TYPES(_)                       \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE), SCALARTYPE)

// FLOAT: float and double (not Half, not BFloat16).
#define ET_FORALL_FLOAT_TYPES(_) \
  _(float, Float)                \
  _(double, Double)

#define ET_FORALL_FLOAT_TYPES_AND(SCALARTYPE, _) \
  ET_FORALL_FLOAT_TYPES(_)                       \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE), SCALARTYPE)

#define ET_FORALL_FLOAT_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, _) \
  ET_FORALL_FLOAT_TYPES(_)                                      \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE1), SCALARTYPE1)          \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE2), SCALARTYPE2)

#define ET_FORALL_FLOATH_TYPES(_) ET_FORALL_FLOAT_TYPES_AND(Half, _)

#define ET_FORALL_FLOATHBF16_TYPES(_) ET_FORALL_FLOAT_TYPES_AND2(Half, BFloat16, _)

#define ET_FORALL_FLOAT_TYPES_WITH(ANOTHER_INPUT, _) \
  _(ANOTHER_INPUT, float, Float)                     \
  _(ANOTHER_INPUT, double, Double)

#define ET_FORALL_FLOATH_TYPES_WITH(ANOTHER_INPUT, _) \
  ET_FORALL_FLOAT_TYPES_WITH(ANOTHER_INPUT, _)        \
  _(ANOTHER_INPUT, ::executorch::aten::Half, Half)

#define ET_FORALL_FLOAT_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, float, Float)                      \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, double, Double)

#define ET_FORALL_FLOATHBF16_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  ET_FORALL_FLOAT_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _)            \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, ::executorch::aten::Half, Half)         \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, ::executorch::aten::BFloat16, BFloat16)

// REAL: INT and FLOAT (not Half, BFloat16 or Bool).
#define ET_FORALL_REAL_TYPES(_) \
  ET_FORALL_INT_TYPES(_)        \
  ET_FORALL_FLOAT_TYPES(_)

#define ET_FORALL_REAL_TYPES_WITH(ANOTHER_INPUT, _) \
  ET_FORALL_INT_TYPES_WITH(ANOTHER_INPUT, _)        \
  ET_FORALL_FLOAT_TYPES_WITH(ANOTHER_INPUT, _)

#define ET_FORALL_REAL_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  ET_FORALL_INT_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _)        \
  ET_FORALL_FLOAT_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _)

#define ET_FORALL_REALHBF16_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  ET_FORALL_REAL_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _)            \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, ::executorch::aten::Half, Half)        \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, ::executorch::aten::BFloat16, BFloat16)

// (Upstream's copy passes ANOTHER_INPUT2 twice to the non-Bool entries; both inputs are passed through here.)
#define ET_FORALL_REALHBBF16_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _) \
  ET_FORALL_REALHBF16_TYPES_WITH2(ANOTHER_INPUT1, ANOTHER_INPUT2, _)        \
  _(ANOTHER_INPUT1, ANOTHER_INPUT2, bool, Bool)

#define ET_FORALL_REAL_TYPES_AND(SCALARTYPE, _) \
  ET_FORALL_REAL_TYPES(_)                       \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE), SCALARTYPE)

#define ET_FORALL_REAL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, _) \
  ET_FORALL_REAL_TYPES(_)                                      \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE1), SCALARTYPE1)         \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE2), SCALARTYPE2)

#define ET_FORALL_REAL_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, _) \
  ET_FORALL_REAL_TYPES(_)                                                   \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE1), SCALARTYPE1)                      \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE2), SCALARTYPE2)                      \
  _(ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE3), SCALARTYPE3)

#define ET_FORALL_REAL_TYPES_AND_WITH(SCALARTYPE, ANOTHER_INPUT, _) \
  ET_FORALL_REAL_TYPES_WITH(ANOTHER_INPUT, _)                       \
  _(ANOTHER_INPUT, ET_INTERNAL_CPP_TYPE_OF(SCALARTYPE), SCALARTYPE)

#define ET_FORALL_REALH_TYPES(_) ET_FORALL_REAL_TYPES_AND(Half, _)

#define ET_FORALL_REALHBF16_TYPES(_) ET_FORALL_REAL_TYPES_AND2(Half, BFloat16, _)

#define ET_FORALL_REALHBBF16_TYPES(_) ET_FORALL_REAL_TYPES_AND3(Bool, Half, BFloat16, _)

// The quantized and complex lists name the portable types' qint/complex classes (executorch::aten::qint8, ...).
#define ET_FORALL_QINT_TYPES(_)            \
  _(::torch::executor::qint8, QInt8)       \
  _(::torch::executor::quint8, QUInt8)     \
  _(::torch::executor::qint32, QInt32)     \
  _(::torch::executor::quint4x2, QUInt4x2) \
  _(::torch::executor::quint2x4, QUInt2x4)

// COMPLEX: complex<float> and complex<double> (not ComplexHalf).
#define ET_FORALL_COMPLEX_TYPES(_)                    \
  _(::executorch::aten::complex<float>, ComplexFloat) \
  _(::executorch::aten::complex<double>, ComplexDouble)

#define ET_FORALL_COMPLEXH_TYPES(_)                                     \
  _(::executorch::aten::complex<::executorch::aten::Half>, ComplexHalf) \
  ET_FORALL_COMPLEX_TYPES(_)

namespace executorch {
namespace runtime {

//
// Metadata of a ScalarType.
//
// isValid, toString and elementSize are function templates that accept exactly ScalarType: a non-template function
// of the same name for ScalarType elsewhere (found by argument-dependent lookup) then wins overload resolution
// instead of making unqualified calls ambiguous.
//
template <typename T = ::executorch::aten::ScalarType,
          std::enable_if_t<std::is_same_v<T, ::executorch::aten::ScalarType>, int> = 0>
inline bool isValid(T type) {
  return static_cast<int8_t>(type) >= 0 && type < ::executorch::aten::ScalarType::NumOptions &&
         type != ::executorch::aten::ScalarType::Undefined;
}

namespace internal {
// Names and element sizes of the enumerators 0 .. NumOptions-1 (the file format's numbering).
inline constexpr const char* kScalarTypeNames[] = {"Byte",
                                                   "Char",
                                                   "Short",
                                                   "Int",
                                                   "Long",
                                                   "Half",
                                                   "Float",
                                                   "Double",
                                                   "ComplexHalf",
                                                   "ComplexFloat",
                                                   "ComplexDouble",
                                                   "Bool",
                                                   "QInt8",
                                                   "QUInt8",
                                                   "QInt32",
                                                   "BFloat16",
                                                   "QUInt4x2",
                                                   "QUInt2x4",
                                                   "Bits1x8",
                                                   "Bits2x4",
                                                   "Bits4x2",
                                                   "Bits8",
                                                   "Bits16",
                                                   "Float8_e5m2",
                                                   "Float8_e4m3fn",
                                                   "Float8_e5m2fnuz",
                                                   "Float8_e4m3fnuz",
                                                   "UInt16",
                                                   "UInt32",
                                                   "UInt64",
                                                   "Undefined"};
inline constexpr uint8_t kScalarTypeSizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                               2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,  1, 2, 4, 8};
static_assert(sizeof(kScalarTypeNames) / sizeof(kScalarTypeNames[0]) ==
              static_cast<size_t>(::executorch::aten::ScalarType::Undefined) + 1);
static_assert(sizeof(kScalarTypeSizes) == static_cast<size_t>(::executorch::aten::ScalarType::Undefined));
}  // namespace internal

// The enumerator's name ("Float"); "Undefined"; "UNKNOWN_SCALAR" for values outside the enum.
template <typename T = ::executorch::aten::ScalarType,
          std::enable_if_t<std::is_same_v<T, ::executorch::aten::ScalarType>, int> = 0>
inline const char* toString(T t) {
  const int v = static_cast<int>(t);
  if (v < 0 || v > static_cast<int>(::executorch::aten::ScalarType::Undefined)) return "UNKNOWN_SCALAR";
  return internal::kScalarTypeNames[v];
}

// Size in bytes of one element. Aborts (ET_CHECK) for Undefined and values outside the enum.
template <typename T = ::executorch::aten::ScalarType,
          std::enable_if_t<std::is_same_v<T, ::executorch::aten::ScalarType>, int> = 0>
inline size_t elementSize(T t) {
  const int v = static_cast<int>(t);
  ET_CHECK_MSG(v >= 0 && v < static_cast<int>(::executorch::aten::ScalarType::Undefined), "Unknown ScalarType %" PRId8,
               static_cast<int8_t>(t));
  return internal::kScalarTypeSizes[v];
}

//
// Dtype categories. Each constexpr predicate has a trait over C++ types (is_*_type<T>) where upstream has one.
//

// Byte, Char, Short, Int, Long; and Bool when includeBool.
inline constexpr bool isIntegralType(::executorch::aten::ScalarType t, bool includeBool) {
  using ST = ::executorch::aten::ScalarType;
  return (includeBool && t == ST::Bool) ||
         (t == ST::Byte || t == ST::Char || t == ST::Short || t == ST::Int || t == ST::Long);
}

template <typename T, bool includeBool>
struct is_integral_type
    : public std::integral_constant<bool, isIntegralType(CppTypeToScalarType<T>::value, includeBool)> {};

// Float, Double, Half, BFloat16 (not the float8 types).
inline constexpr bool isFloatingType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::Double || t == ST::Float || t == ST::Half || t == ST::BFloat16;
}

// The "REAL" set: integral (without Bool) plus Float and Double.
inline bool isRealType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return isIntegralType(t, false) || t == ST::Float || t == ST::Double;
}

// REAL plus Half.
inline bool isRealHType(::executorch::aten::ScalarType t) {
  return isRealType(t) || t == ::executorch::aten::ScalarType::Half;
}

// REAL plus Half and Bool.
inline bool isRealHBType(::executorch::aten::ScalarType t) {
  return isRealHType(t) || t == ::executorch::aten::ScalarType::Bool;
}

// REAL plus Half and BFloat16.
inline bool isRealHBF16Type(::executorch::aten::ScalarType t) {
  return isRealHType(t) || t == ::executorch::aten::ScalarType::BFloat16;
}

// REAL plus Half, Bool and BFloat16.
inline bool isRealHBBF16Type(::executorch::aten::ScalarType t) {
  return isRealHBType(t) || t == ::executorch::aten::ScalarType::BFloat16;
}

inline constexpr bool isComplexType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::ComplexHalf || t == ST::ComplexFloat || t == ST::ComplexDouble;
}

template <typename T>
struct is_complex_type : std::integral_constant<bool, isComplexType(CppTypeToScalarType<T>::value)> {};

constexpr bool isBitsType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::Bits1x8 || t == ST::Bits2x4 || t == ST::Bits4x2 || t == ST::Bits8 || t == ST::Bits16;
}

template <typename T>
struct is_bits_type : std::integral_constant<bool, isBitsType(CppTypeToScalarType<T>::value)> {};

constexpr bool isQIntType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::QInt8 || t == ST::QUInt8 || t == ST::QInt32 || t == ST::QUInt4x2 || t == ST::QUInt2x4;
}

template <typename T>
struct is_qint_type : std::integral_constant<bool, isQIntType(CppTypeToScalarType<T>::value)> {};

constexpr bool isFloat8Type(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::Float8_e5m2 || t == ST::Float8_e4m3fn || t == ST::Float8_e5m2fnuz || t == ST::Float8_e4m3fnuz;
}

template <typename T>
struct is_float8_type : std::integral_constant<bool, isFloat8Type(CppTypeToScalarType<T>::value)> {};

// UInt16, UInt32, UInt64: unsigned types with storage only (no arithmetic kernels, no promotion).
constexpr bool isBarebonesUnsignedType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  return t == ST::UInt16 || t == ST::UInt32 || t == ST::UInt64;
}

template <typename T>
struct is_barebones_unsigned_type
    : std::integral_constant<bool, isBarebonesUnsignedType(CppTypeToScalarType<T>::value)> {};

// Byte -> QUInt8, Char -> QInt8, Int -> QInt32; any other type is returned unchanged.
inline ::executorch::aten::ScalarType toQIntType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  switch (t) {
    case ST::Byte: return ST::QUInt8;
    case ST::Char: return ST::QInt8;
    case ST::Int: return ST::QInt32;
    default: return t;
  }
}

// The storage type of a quantized type (QUInt8, QUInt4x2, QUInt2x4 -> Byte; QInt8 -> Char; QInt32 -> Int); any
// other type is returned unchanged.
inline ::executorch::aten::ScalarType toUnderlying(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  switch (t) {
    case ST::QUInt8:
    case ST::QUInt4x2:
    case ST::QUInt2x4: return ST::Byte;
    case ST::QInt8: return ST::Char;
    case ST::QInt32: return ST::Int;
    default: return t;
  }
}

// Whether the type's C++ type is signed (complex types: true; Byte and Bool: false). Aborts (ET_CHECK) for the
// quantized types and for the types outside REAL, Half, BFloat16, Bool and complex (bits, float8, UInt16/32/64).
inline bool isSignedType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  ET_CHECK_MSG(!isQIntType(t), "isSignedType not supported for quantized types like %" PRId8, static_cast<int8_t>(t));
  switch (t) {
    case ST::Char:
    case ST::Short:
    case ST::Int:
    case ST::Long:
    case ST::Half:
    case ST::Float:
    case ST::Double:
    case ST::BFloat16:
    case ST::ComplexHalf:
    case ST::ComplexFloat:
    case ST::ComplexDouble: return true;
    case ST::Byte:
    case ST::Bool: return false;
    default: break;
  }
  ET_CHECK_MSG(false, "Unknown ScalarType %" PRId8, static_cast<int8_t>(t));
  return false;
}

// True when `type` is the storage type of the quantized type `qtype`.
inline bool isUnderlying(::executorch::aten::ScalarType type, ::executorch::aten::ScalarType qtype) {
  return type == toUnderlying(qtype);
}

// The component type of a complex type (ComplexFloat -> Float, ...); any other type is returned unchanged.
inline constexpr ::executorch::aten::ScalarType toRealValueType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  switch (t) {
    case ST::ComplexHalf: return ST::Half;
    case ST::ComplexFloat: return ST::Float;
    case ST::ComplexDouble: return ST::Double;
    default: return t;
  }
}

// The complex type with components of type t (BFloat16 maps to ComplexFloat: there is no complex bfloat16).
// Complex types map to themselves; anything else aborts (ET_CHECK).
inline constexpr ::executorch::aten::ScalarType toComplexType(::executorch::aten::ScalarType t) {
  using ST = ::executorch::aten::ScalarType;
  switch (t) {
    case ST::Half:
    case ST::ComplexHalf: return ST::ComplexHalf;
    case ST::BFloat16:
    case ST::Float:
    case ST::ComplexFloat: return ST::ComplexFloat;
    case ST::Double:
    case ST::ComplexDouble: return ST::ComplexDouble;
    default: break;
  }
  ET_CHECK_MSG(false, "Unknown Complex ScalarType for %" PRId8, static_cast<int8_t>(t));
  return t;
}

// PyTorch's implicit casting rule (what an out= argument may receive): everything except complex -> non-complex,
// floating -> integral, and non-Bool -> Bool.
inline constexpr bool canCast(const ::executorch::aten::ScalarType from, const ::executorch::aten::ScalarType to) {
  if (isComplexType(from) && !isComplexType(to)) return false;
  if (isFloatingType(from) && isIntegralType(to, /*includeBool=*/false)) return false;
  return from == ::executorch::aten::ScalarType::Bool || to != ::executorch::aten::ScalarType::Bool;
}

template <typename T1, typename T2>
struct can_cast
    : std::integral_constant<bool, canCast(CppTypeToScalarType<T1>::value, CppTypeToScalarType<T2>::value)> {};

// static_cast, except that floating -> integral goes through int64_t first, so that out-of-range values of the
// narrow type wrap instead of being undefined behaviour (and do not trip UBSan).
template <typename To, typename From,
          std::enable_if_t<(std::is_floating_point<From>::value && std::is_integral<To>::value), int> = 0>
To convert(From val) {
  return static_cast<To>(static_cast<int64_t>(val));
}

template <typename To, typename From,
          std::enable_if_t<!(std::is_floating_point<From>::value && std::is_integral<To>::value), int> = 0>
To convert(From val) {
  return static_cast<To>(val);
}

namespace internal {
// Short names of the 13 types that take part in promotion, and their C++ types.
inline constexpr auto u1 = ::executorch::aten::ScalarType::Byte;
inline constexpr auto i1 = ::executorch::aten::ScalarType::Char;
inline constexpr auto i2 = ::executorch::aten::ScalarType::Short;
inline constexpr auto i4 = ::executorch::aten::ScalarType::Int;
inline constexpr auto i8 = ::executorch::aten::ScalarType::Long;
inline constexpr auto f2 = ::executorch::aten::ScalarType::Half;
inline constexpr auto f4 = ::executorch::aten::ScalarType::Float;
inline constexpr auto f8 = ::executorch::aten::ScalarType::Double;
inline constexpr auto c2 = ::executorch::aten::ScalarType::ComplexHalf;
inline constexpr auto c4 = ::executorch::aten::ScalarType::ComplexFloat;
inline constexpr auto c8 = ::executorch::aten::ScalarType::ComplexDouble;
inline constexpr auto b1 = ::executorch::aten::ScalarType::Bool;
inline constexpr auto bf = ::executorch::aten::ScalarType::BFloat16;

using U1 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Byte>::type;
using I1 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Char>::type;
using I2 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Short>::type;
using I4 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Int>::type;
using I8 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Long>::type;
using F2 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Half>::type;
using F4 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Float>::type;
using F8 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Double>::type;
using C2 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::ComplexHalf>::type;
using C4 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::ComplexFloat>::type;
using C8 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::ComplexDouble>::type;
using B1 = typename ScalarTypeToCppType<::executorch::aten::ScalarType::Bool>::type;
using BF = typename ScalarTypeToCppType<::executorch::aten::ScalarType::BFloat16>::type;

inline constexpr int NUM_PROMOTE_TYPES = 13;
// Row / column order of promoteTypesLookup.
inline constexpr std::array<::executorch::aten::ScalarType, NUM_PROMOTE_TYPES> index2dtype = {
    {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf}};

// ScalarType value -> its index in index2dtype, or -1 for types that do not promote.
constexpr std::array<int64_t, static_cast<size_t>(::executorch::aten::ScalarType::NumOptions)> calculate_dtype2index() {
  std::array<int64_t, static_cast<size_t>(::executorch::aten::ScalarType::NumOptions)> inverse = {};
  for (size_t i = 0; i < inverse.size(); ++i) inverse[i] = -1;
  for (size_t i = 0; i < index2dtype.size(); ++i)
    inverse[static_cast<size_t>(index2dtype[i])] = static_cast<int64_t>(i);
  return inverse;
}
inline constexpr auto dtype2index = calculate_dtype2index();

// PyTorch's promotion lattice (c10's _promoteTypesLookup) over the 13 types above.
inline constexpr ::executorch::aten::ScalarType promoteTypesLookup[NUM_PROMOTE_TYPES][NUM_PROMOTE_TYPES] = {
    //        u1  i1  i2  i4  i8  f2  f4  f8  c2  c4  c8  b1  bf
    /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, u1, bf},
    /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, i1, bf},
    /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, i2, bf},
    /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c2, c4, c8, i4, bf},
    /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c2, c4, c8, i8, bf},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c2, c4, c8, f2, f4},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8, f8, f8},
    /* c2 */ {c2, c2, c2, c2, c2, c2, c4, c8, c2, c4, c8, c2, c4},
    /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8, c4, c4},
    /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
    /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf},
    /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c4, c8, bf, bf},
};
}  // namespace internal

// The common type of a and b under PyTorch's rules (NumPy's promote_types, plus Bool/Half/BFloat16/complex). With
// half_to_float, a Half or BFloat16 result becomes Float. Quantized, bits, float8 and UInt16/32/64 types promote
// only with themselves; mixing them with another type, or passing Undefined, aborts (ET_CHECK).
inline constexpr ::executorch::aten::ScalarType promoteTypes(::executorch::aten::ScalarType a,
                                                             ::executorch::aten::ScalarType b,
                                                             bool half_to_float = false) {
  if (isQIntType(a) || isQIntType(b)) {
    ET_CHECK_MSG(a == b, "promoteTypes not valid for quantized dtypes");
    return a;
  }
  if (isBitsType(a) || isBitsType(b)) {
    ET_CHECK_MSG(a == b, "promoteTypes not valid for bits dtypes");
    return a;
  }
  if (isFloat8Type(a) || isFloat8Type(b)) {
    ET_CHECK_MSG(a == b, "promoteTypes not valid for float8 dtypes");
    return a;
  }
  if (isBarebonesUnsignedType(a) || isBarebonesUnsignedType(b)) {
    ET_CHECK_MSG(a == b, "promoteTypes not valid for barebone unsigned dtypes");
    return a;
  }
  const auto in_range = [](::executorch::aten::ScalarType t) {
    return static_cast<int8_t>(t) >= 0 && t < ::executorch::aten::ScalarType::NumOptions;
  };
  const int64_t ix_a = in_range(a) ? internal::dtype2index[static_cast<size_t>(a)] : -1;
  const int64_t ix_b = in_range(b) ? internal::dtype2index[static_cast<size_t>(b)] : -1;
  ET_CHECK(ix_a != -1 && ix_b != -1);
  if (ix_a == -1 || ix_b == -1) return a;  // not reached: ET_CHECK aborts
  ::executorch::aten::ScalarType promoted = internal::promoteTypesLookup[ix_a][ix_b];
  if (half_to_float &&
      (promoted == ::executorch::aten::ScalarType::Half || promoted == ::executorch::aten::ScalarType::BFloat16)) {
    promoted = ::executorch::aten::ScalarType::Float;
  }
  return promoted;
}

// promoteTypes at compile time over C++ types: promote_types<int32_t, float>::type is float.
template <typename T1, typename T2, bool half_to_float = false>
struct promote_types {
 private:
  static_assert(std::is_same_v<T1, T2> || (!is_qint_type<T1>::value && !is_qint_type<T2>::value),
                "promote_types not valid for quantized dtypes");
  static_assert(std::is_same_v<T1, T2> || (!is_bits_type<T1>::value && !is_bits_type<T2>::value),
                "promote_types not valid for bits dtypes");
  static_assert(std::is_same_v<T1, T2> || (!is_float8_type<T1>::value && !is_float8_type<T2>::value),
                "promote_types not valid for float8 dtypes");
  static_assert(std::is_same_v<T1, T2> ||
                    (!is_barebones_unsigned_type<T1>::value && !is_barebones_unsigned_type<T2>::value),
                "promote_types not valid for barebones unsigned dtypes");

  static constexpr ::executorch::aten::ScalarType kPromoted =
      promoteTypes(CppTypeToScalarType<T1>::value, CppTypeToScalarType<T2>::value, half_to_float);

 public:
  using type = typename ScalarTypeToCppType<kPromoted>::type;
};

//
// Dtype dispatch (ET_SWITCH_*). The expansion is a call of a generic lambda on itself: after the cases' `return
// lambda();` statements have fixed its return type, the fallback after the switch names that type through
// decltype(self(self)) and returns a value-initialised one.
//
namespace internal {

template <typename R>
struct SwitchFallback {
  static R value() { return R(); }
};
template <>
struct SwitchFallback<void> {
  static void value() {}
};

template <typename F>
inline decltype(auto) run_switch(F&& body) {
  return body(body);
}

// Whether the context takes a printf-style reason with the error (this SDK's KernelRuntimeContext does).
template <typename Context, typename = void>
struct context_takes_message : std::false_type {};
template <typename Context>
struct context_takes_message<
    Context, std::void_t<decltype(std::declval<Context&>().fail(::executorch::runtime::Error::Ok, "%s", ""))>>
    : std::true_type {};

// Logs the reason and marks the kernel call failed with `error` (with the reason when the context keeps one).
template <typename Context, typename... Args>
void fail_kernel(Context&& context, ::executorch::runtime::Error error, const char* format, Args... args) {
  ET_LOG(Error, format, args...);
  ((void)args, ...);  // used only by ET_LOG when logging is compiled out
  if constexpr (context_takes_message<std::remove_reference_t<Context>>::value) {
    context.fail(error, format, args...);
  } else {
    context.fail(error);
  }
}

// Compile-time check of a printf-style message and its arguments; never called.
ET_PRINTFLIKE(1, 2) inline void check_format(const char*, ...) {}

template <typename Context>
void fail_unhandled_dtype(Context&& context, const char* name, ::executorch::aten::ScalarType type) {
  fail_kernel(context, ::executorch::runtime::Error::InvalidArgument, "%s: unsupported dtype %s",
              name != nullptr ? name : "?", ::executorch::runtime::toString(type));
}

}  // namespace internal

#ifdef ET_INTERNAL_CHECK_SELECTIVE_BUILD
#define ET_INTERNAL_SELECTIVE_BUILD_HOOK(enum_type) ET_INTERNAL_CHECK_SELECTIVE_BUILD(enum_type);
#else
#define ET_INTERNAL_SELECTIVE_BUILD_HOOK(enum_type)
#endif

// One case: `enum_type` is a fully qualified enumerator (::executorch::aten::ScalarType::Float).
#define ET_INTERNAL_SWITCH_CASE(enum_type, CTYPE_ALIAS, ...)                                          \
  case enum_type: {                                                                                   \
    ET_INTERNAL_SELECTIVE_BUILD_HOOK(enum_type)                                                       \
    using CTYPE_ALIAS [[maybe_unused]] = ::executorch::runtime::ScalarTypeToCppType<enum_type>::type; \
    return __VA_ARGS__();                                                                             \
  }

// A switch over TYPE with the given cases; an expression whose value is that of the lambda that ran.
#define ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ...)                                                             \
  ::executorch::runtime::internal::run_switch([&](auto& et_switch_self_) {                                       \
    const ::executorch::aten::ScalarType et_switch_type_ = (TYPE);                                               \
    /* upstream's name: selective-build hooks (ET_INTERNAL_CHECK_SELECTIVE_BUILD) read it */                     \
    const char* et_switch_name = (NAME);                                                                         \
    (void)et_switch_name;                                                                                        \
    switch (et_switch_type_) {                                                                                   \
      __VA_ARGS__                                                                                                \
      default: break;                                                                                            \
    }                                                                                                            \
    ::executorch::runtime::internal::fail_unhandled_dtype(CONTEXT, et_switch_name, et_switch_type_);             \
    return ::executorch::runtime::internal::SwitchFallback<decltype(et_switch_self_(et_switch_self_))>::value(); \
  })

#define ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, ...)                                \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Byte, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Char, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Short, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Int, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Long, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_UINT_TYPES(CTYPE_ALIAS, ...)                                \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::UInt16, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::UInt32, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::UInt64, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, ...)                              \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Float, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Double, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, ...)                                   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ComplexFloat, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ComplexDouble, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ComplexHalf, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, ...)                                  \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::QInt8, CTYPE_ALIAS, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::QUInt8, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::QInt32, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::QUInt4x2, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::QUInt2x4, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_BITS_TYPES(CTYPE_ALIAS, ...)                                 \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bits1x8, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bits2x4, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bits4x2, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bits8, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bits16, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_ALL_TYPES(CTYPE_ALIAS, ...)                                   \
  ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)                                \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Half, CTYPE_ALIAS, __VA_ARGS__)     \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::BFloat16, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bool, CTYPE_ALIAS, __VA_ARGS__)     \
  ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, __VA_ARGS__)                            \
  ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, __VA_ARGS__)                                \
  ET_INTERNAL_SWITCH_CASE_BITS_TYPES(CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)               \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND(ADDITIONAL1, CTYPE_ALIAS, __VA_ARGS__)             \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__)            \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL3, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_INT_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__)               \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__)               \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND(ADDITIONAL1, CTYPE_ALIAS, __VA_ARGS__)             \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__)            \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::ADDITIONAL3, CTYPE_ALIAS, __VA_ARGS__)

// The dtypes a Scalar argument can hold: Bool, Long (integers) and Double (floating-point numbers).
#define ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_TYPES(CTYPE_ALIAS, ...)                        \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bool, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_REAL_TYPES(CTYPE_ALIAS, ...)                   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Long, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Double, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_INTB_TYPES(CTYPE_ALIAS, ...)                   \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bool, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Long, CTYPE_ALIAS, __VA_ARGS__)

#define ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_FLOATB_TYPES(CTYPE_ALIAS, ...)                 \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Bool, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::Double, CTYPE_ALIAS, __VA_ARGS__)

//
// The dispatch macros. TYPE: the ScalarType to dispatch on; CONTEXT: the KernelRuntimeContext (failed on an
// unhandled dtype); NAME: the operator name for the message (a C string); CTYPE_ALIAS: the name the lambda uses for
// the C++ type; then the lambda. ADDITIONAL* / T1..T4: unqualified enumerator names (Half, Bool, ...).
//

#define ET_SWITCH_ALL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_ALL_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND(ADDITIONAL, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                          \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REAL_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                                                           \
      TYPE, CONTEXT, NAME,                                                                                      \
      ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_REALH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(Half, Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND3(Half, Bool, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_REALHBBF16_AND_UINT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                           \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                                    \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES_AND3(Half, Bool, BFloat16, CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_CASE_UINT_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_INT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_INT_TYPES_AND(ADDITIONAL, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_INT_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES_AND(ADDITIONAL, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND(ADDITIONAL, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                           \
                     ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND2(ADDITIONAL1, ADDITIONAL2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOAT_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(                                                                                            \
      TYPE, CONTEXT, NAME,                                                                                       \
      ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES_AND3(ADDITIONAL1, ADDITIONAL2, ADDITIONAL3, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FLOATH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_FLOATHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND2(Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_FLOATHBF16_TYPES_AND(ADDITIONAL, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND3(Half, BFloat16, ADDITIONAL, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)

#define ET_SWITCH_QINT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_COMPLEX_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_COMPLEXH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_INTB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_INTB_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_SCALAR_OBJ_FLOATB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_FLOATB_TYPES(CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_TWO_TYPES(T1, T2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                                 \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                                  \
                     ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T1, CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T2, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_THREE_TYPES(T1, T2, T3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                               \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                                      \
                     ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T1, CTYPE_ALIAS, __VA_ARGS__)     \
                         ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T2, CTYPE_ALIAS, __VA_ARGS__) \
                             ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T3, CTYPE_ALIAS, __VA_ARGS__))

#define ET_SWITCH_FOUR_TYPES(T1, T2, T3, T4, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                 \
  ET_INTERNAL_SWITCH(                                                                               \
      TYPE, CONTEXT, NAME,                                                                          \
      ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T1, CTYPE_ALIAS, __VA_ARGS__)         \
          ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T2, CTYPE_ALIAS, __VA_ARGS__)     \
              ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T3, CTYPE_ALIAS, __VA_ARGS__) \
                  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T4, CTYPE_ALIAS, __VA_ARGS__))

}  // namespace runtime
}  // namespace executorch

namespace executorch {
namespace aten {
using ::executorch::runtime::elementSize;
}  // namespace aten
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::can_cast;
using ::executorch::runtime::canCast;
using ::executorch::runtime::convert;
using ::executorch::runtime::CppTypeToScalarType;
using ::executorch::runtime::elementSize;
using ::executorch::runtime::is_barebones_unsigned_type;
using ::executorch::runtime::is_bits_type;
using ::executorch::runtime::is_complex_type;
using ::executorch::runtime::is_float8_type;
using ::executorch::runtime::is_floating_point;
using ::executorch::runtime::is_integral_type;
using ::executorch::runtime::is_qint_type;
using ::executorch::runtime::is_reduced_floating_point;
using ::executorch::runtime::isBitsType;
using ::executorch::runtime::isComplexType;
using ::executorch::runtime::isFloatingType;
using ::executorch::runtime::isIntegralType;
using ::executorch::runtime::isQIntType;
using ::executorch::runtime::isRealHBType;
using ::executorch::runtime::isRealHType;
using ::executorch::runtime::isRealType;
using ::executorch::runtime::isValid;
using ::executorch::runtime::promote_types;
using ::executorch::runtime::promoteTypes;
using ::executorch::runtime::ScalarTypeToCppType;
using ::executorch::runtime::toString;
namespace internal {
using ::executorch::runtime::internal::B1;
using ::executorch::runtime::internal::C2;
using ::executorch::runtime::internal::C4;
using ::executorch::runtime::internal::C8;
using ::executorch::runtime::internal::F2;
using ::executorch::runtime::internal::F4;
using ::executorch::runtime::internal::F8;
using ::executorch::runtime::internal::I1;
using ::executorch::runtime::internal::I2;
using ::executorch::runtime::internal::I4;
using ::executorch::runtime::internal::I8;
using ::executorch::runtime::internal::U1;
}  // namespace internal
}  // namespace executor
}  // namespace torch
