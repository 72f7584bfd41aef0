#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {
namespace etensor {

// Element types. The numbering is the c10 / .pte numbering and is part of the file format.
enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits1x8 = 18,
  Bits2x4 = 19,
  Bits4x2 = 20,
  Bits8 = 21,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
  Undefined = 30,
  NumOptions = 31,
};

enum class TensorShapeDynamism : uint8_t {
  STATIC = 0,
  DYNAMIC_BOUND = 1,
  DYNAMIC_UNBOUND = 2,
};

// Size in bytes of one element, or 0 for an unknown/unsupported type.
EXECUTORCH_API size_t elementSize(ScalarType t);
// Name such as "Float"; "Unknown" for values outside the enum.
EXECUTORCH_API const char* toString(ScalarType t);
// True for every type the runtime can hold in a tensor (every type with a known element size).
inline bool isValid(ScalarType t) {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < static_cast<int>(ScalarType::Undefined) &&
         elementSize(t) != 0;
}

template <typename T>
struct CppTypeToScalarType;
#define ET_CPP_TO_SCALAR(cpp, st)                       \
  template <>                                           \
  struct CppTypeToScalarType<cpp> {                     \
    static constexpr ScalarType value = ScalarType::st; \
  };
ET_CPP_TO_SCALAR(uint8_t, Byte)
ET_CPP_TO_SCALAR(int8_t, Char)
ET_CPP_TO_SCALAR(int16_t, Short)
ET_CPP_TO_SCALAR(int32_t, Int)
ET_CPP_TO_SCALAR(int64_t, Long)
ET_CPP_TO_SCALAR(float, Float)
ET_CPP_TO_SCALAR(double, Double)
ET_CPP_TO_SCALAR(bool, Bool)
ET_CPP_TO_SCALAR(uint16_t, UInt16)
ET_CPP_TO_SCALAR(uint32_t, UInt32)
ET_CPP_TO_SCALAR(uint64_t, UInt64)
ET_CPP_TO_SCALAR(Half, Half)
ET_CPP_TO_SCALAR(BFloat16, BFloat16)
#undef ET_CPP_TO_SCALAR

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
