// executorch/runtime/core/exec_aten/util/scalar_type_util.h: type maps, X-macro lists, dtype predicates, PyTorch's
// casting and promotion rules, and every ET_SWITCH_* dispatch macro (accepted dtypes, returned values, and the
// failure of the kernel context on any other dtype).
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using executorch::aten::ScalarType;
using executorch::runtime::CppTypeToScalarType;
using executorch::runtime::Error;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::ScalarTypeToCppType;

namespace {

// Every element type (Undefined and NumOptions are not).
std::vector<ScalarType> all_types() {
  std::vector<ScalarType> v;
  for (int i = 0; i < static_cast<int>(ScalarType::Undefined); ++i) v.push_back(static_cast<ScalarType>(i));
  return v;
}

ScalarType named(const std::string& name) {
  for (ScalarType t : all_types()) {
    if (name == executorch::runtime::toString(t)) return t;
  }
  ADD_FAILURE() << "no ScalarType named " << name;
  return ScalarType::Undefined;
}

std::set<ScalarType> named_set(const std::vector<std::string>& names) {
  std::set<ScalarType> s;
  for (const auto& n : names) s.insert(named(n));
  return s;
}

}  // namespace

TEST(ScalarTypeUtil, TypeMapsRoundTripOverEveryScalarType) {
  int n = 0;
#define CHECK_MAPS(cpp_type, name)                                                                       \
  static_assert(CppTypeToScalarType<cpp_type>::value == ScalarType::name);                               \
  static_assert(std::is_same_v<ScalarTypeToCppType<ScalarType::name>::type, cpp_type>);                  \
  static_assert(std::is_same_v<torch::executor::ScalarTypeToCppType<ScalarType::name>::type, cpp_type>); \
  EXPECT_EQ(static_cast<int>(CppTypeToScalarType<cpp_type>::value), n++);
  ET_FORALL_SCALAR_TYPES(CHECK_MAPS)
#undef CHECK_MAPS
  EXPECT_EQ(n, static_cast<int>(ScalarType::Undefined));
  static_assert(CppTypeToScalarType<executorch::aten::Half>::value == ScalarType::Half);
  static_assert(CppTypeToScalarType<executorch::aten::BFloat16>::value == ScalarType::BFloat16);
  static_assert(std::is_same_v<ScalarTypeToCppType<ScalarType::Long>::type, int64_t>);
  // An integral_constant: usable as a value directly.
  constexpr ScalarType from_conversion = CppTypeToScalarType<double>();
  static_assert(from_conversion == ScalarType::Double);
}

// Collects the enumerator names a list macro produces, in order.
#define NAME_OF(cpp_type, name) names.push_back(#name);
#define NAME_OF_WITH(in, cpp_type, name) names.push_back(std::string(in) + #name);
#define NAME_OF_WITH2(in1, in2, cpp_type, name) names.push_back(std::string(in1) + in2 + #name);
#define SIZE_OF(cpp_type, name) sizes.push_back(sizeof(cpp_type) == executorch::runtime::elementSize(ScalarType::name));

TEST(ScalarTypeUtil, ForallListsNameTheDocumentedTypes) {
  using V = std::vector<std::string>;
  const V ints = {"Byte", "Char", "Short", "Int", "Long"};
  const V floats = {"Float", "Double"};
  V real = ints;
  real.insert(real.end(), floats.begin(), floats.end());
  auto plus = [](V v, const V& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  auto prefixed = [](const V& v, const std::string& p) {
    V out;
    for (const auto& s : v) out.push_back(p + s);
    return out;
  };
  std::vector<std::string> names;
  auto take = [&names]() { return std::exchange(names, {}); };

  ET_FORALL_INT_TYPES(NAME_OF);
  EXPECT_EQ(take(), ints);
  ET_FORALL_INT_TYPES_WITH("x", NAME_OF_WITH);
  EXPECT_EQ(take(), prefixed(ints, "x"));
  ET_FORALL_INT_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(ints, "xy"));
  ET_FORALL_INT_TYPES_AND(Bool, NAME_OF);
  EXPECT_EQ(take(), plus(ints, {"Bool"}));
  ET_FORALL_FLOAT_TYPES(NAME_OF);
  EXPECT_EQ(take(), floats);
  ET_FORALL_FLOAT_TYPES_AND(Half, NAME_OF);
  EXPECT_EQ(take(), plus(floats, {"Half"}));
  ET_FORALL_FLOAT_TYPES_AND2(Half, BFloat16, NAME_OF);
  EXPECT_EQ(take(), plus(floats, {"Half", "BFloat16"}));
  ET_FORALL_FLOATH_TYPES(NAME_OF);
  EXPECT_EQ(take(), plus(floats, {"Half"}));
  ET_FORALL_FLOATHBF16_TYPES(NAME_OF);
  EXPECT_EQ(take(), plus(floats, {"Half", "BFloat16"}));
  ET_FORALL_FLOAT_TYPES_WITH("x", NAME_OF_WITH);
  EXPECT_EQ(take(), prefixed(floats, "x"));
  ET_FORALL_FLOATH_TYPES_WITH("x", NAME_OF_WITH);
  EXPECT_EQ(take(), prefixed(plus(floats, {"Half"}), "x"));
  ET_FORALL_FLOAT_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(floats, "xy"));
  ET_FORALL_FLOATHBF16_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(plus(floats, {"Half", "BFloat16"}), "xy"));
  ET_FORALL_REAL_TYPES(NAME_OF);
  EXPECT_EQ(take(), real);
  ET_FORALL_REAL_TYPES_WITH("x", NAME_OF_WITH);
  EXPECT_EQ(take(), prefixed(real, "x"));
  ET_FORALL_REAL_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(real, "xy"));
  ET_FORALL_REALHBF16_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(plus(real, {"Half", "BFloat16"}), "xy"));
  ET_FORALL_REALHBBF16_TYPES_WITH2("x", "y", NAME_OF_WITH2);
  EXPECT_EQ(take(), prefixed(plus(real, {"Half", "BFloat16", "Bool"}), "xy"));
  ET_FORALL_REAL_TYPES_AND(Bool, NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Bool"}));
  ET_FORALL_REAL_TYPES_AND2(Half, Bool, NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Half", "Bool"}));
  ET_FORALL_REAL_TYPES_AND3(Half, Bool, BFloat16, NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Half", "Bool", "BFloat16"}));
  ET_FORALL_REAL_TYPES_AND_WITH(Half, "x", NAME_OF_WITH);
  EXPECT_EQ(take(), prefixed(plus(real, {"Half"}), "x"));
  ET_FORALL_REALH_TYPES(NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Half"}));
  ET_FORALL_REALHBF16_TYPES(NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Half", "BFloat16"}));
  ET_FORALL_REALHBBF16_TYPES(NAME_OF);
  EXPECT_EQ(take(), plus(real, {"Bool", "Half", "BFloat16"}));
  ET_FORALL_QINT_TYPES(NAME_OF);
  EXPECT_EQ(take(), (V{"QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4"}));
  ET_FORALL_COMPLEX_TYPES(NAME_OF);
  EXPECT_EQ(take(), (V{"ComplexFloat", "ComplexDouble"}));
  ET_FORALL_COMPLEXH_TYPES(NAME_OF);
  EXPECT_EQ(take(), (V{"ComplexHalf", "ComplexFloat", "ComplexDouble"}));

  // The C++ types the lists give have the dtype's element size.
  std::vector<bool> sizes;
  ET_FORALL_SCALAR_TYPES(SIZE_OF);
  ET_FORALL_REALHBBF16_TYPES(SIZE_OF);
  ET_FORALL_QINT_TYPES(SIZE_OF);
  ET_FORALL_COMPLEXH_TYPES(SIZE_OF);
  EXPECT_EQ(sizes, std::vector<bool>(sizes.size(), true));
  EXPECT_EQ(sizes.size(), 30u + 10u + 5u + 3u);
}

TEST(ScalarTypeUtil, ToStringIsValidElementSize) {
  using executorch::runtime::elementSize;
  using executorch::runtime::isValid;
  using executorch::runtime::toString;
  EXPECT_STREQ(toString(ScalarType::Int), "Int");
  EXPECT_STREQ(toString(ScalarType::ComplexHalf), "ComplexHalf");
  EXPECT_STREQ(toString(ScalarType::Float8_e4m3fnuz), "Float8_e4m3fnuz");
  EXPECT_STREQ(toString(ScalarType::UInt64), "UInt64");
  EXPECT_STREQ(toString(ScalarType::Undefined), "Undefined");
  EXPECT_STREQ(toString(ScalarType::NumOptions), "UNKNOWN_SCALAR");
  EXPECT_STREQ(toString(static_cast<ScalarType>(127)), "UNKNOWN_SCALAR");
  EXPECT_STREQ(toString(static_cast<ScalarType>(-1)), "UNKNOWN_SCALAR");
  // Unqualified, as kernels in torch::executor call it.
  EXPECT_STREQ(torch::executor::toString(ScalarType::BFloat16), "BFloat16");

  for (ScalarType t : all_types()) {
    EXPECT_TRUE(isValid(t)) << toString(t);
    EXPECT_TRUE(torch::executor::isValid(t));
  }
  EXPECT_FALSE(isValid(ScalarType::Undefined));
  EXPECT_FALSE(isValid(ScalarType::NumOptions));
  EXPECT_FALSE(isValid(static_cast<ScalarType>(127)));
  EXPECT_FALSE(isValid(static_cast<ScalarType>(-1)));

  const std::map<std::string, size_t> sizes = {{"Byte", 1},
                                               {"Char", 1},
                                               {"Short", 2},
                                               {"Int", 4},
                                               {"Long", 8},
                                               {"Half", 2},
                                               {"Float", 4},
                                               {"Double", 8},
                                               {"ComplexHalf", 4},
                                               {"ComplexFloat", 8},
                                               {"ComplexDouble", 16},
                                               {"Bool", 1},
                                               {"QInt8", 1},
                                               {"QUInt8", 1},
                                               {"QInt32", 4},
                                               {"BFloat16", 2},
                                               {"QUInt4x2", 1},
                                               {"QUInt2x4", 1},
                                               {"Bits1x8", 1},
                                               {"Bits2x4", 1},
                                               {"Bits4x2", 1},
                                               {"Bits8", 1},
                                               {"Bits16", 2},
                                               {"Float8_e5m2", 1},
                                               {"Float8_e4m3fn", 1},
                                               {"Float8_e5m2fnuz", 1},
                                               {"Float8_e4m3fnuz", 1},
                                               {"UInt16", 2},
                                               {"UInt32", 4},
                                               {"UInt64", 8}};
  ASSERT_EQ(sizes.size(), all_types().size());
  for (const auto& [name, size] : sizes) {
    EXPECT_EQ(elementSize(named(name)), size) << name;
    EXPECT_EQ(executorch::aten::elementSize(named(name)), size) << name;
    EXPECT_EQ(torch::executor::elementSize(named(name)), size) << name;
  }
}

TEST(ScalarTypeUtilDeathTest, ElementSizeOfAnUnknownTypeAborts) {
  EXPECT_DEATH(executorch::runtime::elementSize(ScalarType::Undefined), "Unknown ScalarType");
  EXPECT_DEATH(executorch::runtime::elementSize(ScalarType::NumOptions), "Unknown ScalarType");
  EXPECT_DEATH(executorch::runtime::elementSize(static_cast<ScalarType>(-1)), "Unknown ScalarType");
}

TEST(ScalarTypeUtil, CategoryPredicatesOverEveryType) {
  using namespace executorch::runtime;
  const auto ints = named_set({"Byte", "Char", "Short", "Int", "Long"});
  const auto floating = named_set({"Float", "Double", "Half", "BFloat16"});
  const auto real = named_set({"Byte", "Char", "Short", "Int", "Long", "Float", "Double"});
  const auto complex = named_set({"ComplexHalf", "ComplexFloat", "ComplexDouble"});
  const auto qint = named_set({"QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4"});
  const auto bits = named_set({"Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16"});
  const auto float8 = named_set({"Float8_e5m2", "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz"});
  const auto uints = named_set({"UInt16", "UInt32", "UInt64"});
  auto in = [](const std::set<ScalarType>& s, ScalarType t) { return s.count(t) > 0; };
  for (ScalarType t : all_types()) {
    SCOPED_TRACE(toString(t));
    const bool is_bool = t == ScalarType::Bool;
    const bool is_half = t == ScalarType::Half;
    const bool is_bf16 = t == ScalarType::BFloat16;
    EXPECT_EQ(isIntegralType(t, false), in(ints, t));
    EXPECT_EQ(isIntegralType(t, true), in(ints, t) || is_bool);
    EXPECT_EQ(isFloatingType(t), in(floating, t));
    EXPECT_EQ(isRealType(t), in(real, t));
    EXPECT_EQ(isRealHType(t), in(real, t) || is_half);
    EXPECT_EQ(isRealHBType(t), in(real, t) || is_half || is_bool);
    EXPECT_EQ(isRealHBF16Type(t), in(real, t) || is_half || is_bf16);
    EXPECT_EQ(isRealHBBF16Type(t), in(real, t) || is_half || is_bf16 || is_bool);
    EXPECT_EQ(isComplexType(t), in(complex, t));
    EXPECT_EQ(isQIntType(t), in(qint, t));
    EXPECT_EQ(isBitsType(t), in(bits, t));
    EXPECT_EQ(isFloat8Type(t), in(float8, t));
    EXPECT_EQ(isBarebonesUnsignedType(t), in(uints, t));
    EXPECT_EQ(toRealValueType(t), t == ScalarType::ComplexHalf     ? ScalarType::Half
                                  : t == ScalarType::ComplexFloat  ? ScalarType::Float
                                  : t == ScalarType::ComplexDouble ? ScalarType::Double
                                                                   : t);
  }
  // The same through the torch::executor names, and at compile time where upstream's are constexpr.
  EXPECT_TRUE(torch::executor::isRealHBType(ScalarType::Bool));
  EXPECT_FALSE(torch::executor::isRealHType(ScalarType::BFloat16));
  EXPECT_TRUE(torch::executor::isRealType(ScalarType::Char));
  static_assert(isComplexType(ScalarType::ComplexFloat) && isQIntType(ScalarType::QUInt4x2) &&
                isBitsType(ScalarType::Bits16) && isFloat8Type(ScalarType::Float8_e5m2) &&
                isBarebonesUnsignedType(ScalarType::UInt32) && isFloatingType(ScalarType::Half) &&
                isIntegralType(ScalarType::Bool, true) && !isIntegralType(ScalarType::Bool, false));
}

TEST(ScalarTypeUtil, TypeTraits) {
  using namespace executorch::runtime;
  static_assert(is_integral_type<int16_t, false>::value && !is_integral_type<bool, false>::value &&
                is_integral_type<bool, true>::value && !is_integral_type<float, true>::value);
  static_assert(is_complex_type<executorch::aten::complex<float>>::value && !is_complex_type<float>::value);
  static_assert(is_bits_type<executorch::runtime::etensor::bits8>::value && !is_bits_type<uint8_t>::value);
  static_assert(is_qint_type<executorch::aten::quint4x2>::value && !is_qint_type<int8_t>::value);
  static_assert(is_float8_type<executorch::runtime::etensor::unused_dtype::Float8_e4m3fn>::value &&
                !is_float8_type<executorch::aten::Half>::value);
  static_assert(is_barebones_unsigned_type<uint64_t>::value && !is_barebones_unsigned_type<int64_t>::value);
  static_assert(is_floating_point<float>::value && is_floating_point<executorch::aten::Half>::value &&
                is_floating_point<executorch::aten::BFloat16>::value && !is_floating_point<int>::value);
  static_assert(is_reduced_floating_point<executorch::aten::BFloat16>::value &&
                is_reduced_floating_point_v<executorch::aten::Half> && !is_reduced_floating_point_v<float>);
  static_assert(can_cast<int32_t, float>::value && !can_cast<float, int32_t>::value &&
                !can_cast<uint8_t, bool>::value && can_cast<bool, uint8_t>::value);
  static_assert(torch::executor::is_floating_point<double>::value);
  static_assert(std::is_same_v<torch::executor::internal::F4, float> &&
                std::is_same_v<torch::executor::internal::I8, int64_t> &&
                std::is_same_v<torch::executor::internal::B1, bool> &&
                std::is_same_v<torch::executor::internal::F2, executorch::aten::Half> &&
                std::is_same_v<torch::executor::internal::C8, executorch::aten::complex<double>>);
}

TEST(ScalarTypeUtil, QuantizedAndComplexConversions) {
  using namespace executorch::runtime;
  EXPECT_EQ(toQIntType(ScalarType::Byte), ScalarType::QUInt8);
  EXPECT_EQ(toQIntType(ScalarType::Char), ScalarType::QInt8);
  EXPECT_EQ(toQIntType(ScalarType::Int), ScalarType::QInt32);
  EXPECT_EQ(toQIntType(ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(toUnderlying(ScalarType::QUInt8), ScalarType::Byte);
  EXPECT_EQ(toUnderlying(ScalarType::QInt8), ScalarType::Char);
  EXPECT_EQ(toUnderlying(ScalarType::QInt32), ScalarType::Int);
  EXPECT_EQ(toUnderlying(ScalarType::QUInt4x2), ScalarType::Byte);
  EXPECT_EQ(toUnderlying(ScalarType::QUInt2x4), ScalarType::Byte);
  EXPECT_EQ(toUnderlying(ScalarType::Long), ScalarType::Long);
  EXPECT_TRUE(isUnderlying(ScalarType::Byte, ScalarType::QUInt4x2));
  EXPECT_FALSE(isUnderlying(ScalarType::Char, ScalarType::QUInt8));

  EXPECT_TRUE(isSignedType(ScalarType::Char));
  EXPECT_TRUE(isSignedType(ScalarType::Half));
  EXPECT_TRUE(isSignedType(ScalarType::BFloat16));
  EXPECT_TRUE(isSignedType(ScalarType::ComplexFloat));
  EXPECT_FALSE(isSignedType(ScalarType::Byte));
  EXPECT_FALSE(isSignedType(ScalarType::Bool));

  EXPECT_EQ(toComplexType(ScalarType::Half), ScalarType::ComplexHalf);
  EXPECT_EQ(toComplexType(ScalarType::BFloat16), ScalarType::ComplexFloat);
  EXPECT_EQ(toComplexType(ScalarType::Float), ScalarType::ComplexFloat);
  EXPECT_EQ(toComplexType(ScalarType::Double), ScalarType::ComplexDouble);
  EXPECT_EQ(toComplexType(ScalarType::ComplexDouble), ScalarType::ComplexDouble);
  static_assert(toComplexType(ScalarType::Float) == ScalarType::ComplexFloat);
  static_assert(toRealValueType(ScalarType::ComplexHalf) == ScalarType::Half);
}

TEST(ScalarTypeUtilDeathTest, UnsupportedConversionsAbort) {
  EXPECT_DEATH(executorch::runtime::isSignedType(ScalarType::QInt8), "quantized");
  EXPECT_DEATH(executorch::runtime::isSignedType(ScalarType::Bits8), "Unknown ScalarType");
  EXPECT_DEATH(executorch::runtime::toComplexType(ScalarType::Int), "Unknown Complex ScalarType");
}

TEST(ScalarTypeUtil, CanCast) {
  using executorch::runtime::canCast;
  struct Case {
    const char* from;
    const char* to;
    bool ok;
  };
  const Case cases[] = {
      {"ComplexFloat", "Float", false},
      {"ComplexDouble", "Double", false},
      {"ComplexHalf", "Bool", false},
      {"Float", "ComplexFloat", true},
      {"Float", "ComplexDouble", true},
      {"Int", "ComplexDouble", true},
      {"Float", "Int", false},
      {"Double", "Long", false},
      {"Half", "Byte", false},
      {"BFloat16", "Char", false},
      {"Int", "Float", true},
      {"Long", "Half", true},
      {"Byte", "Bool", false},
      {"Int", "Bool", false},
      {"Float", "Bool", false},
      {"Bool", "Byte", true},
      {"Bool", "Int", true},
      {"Bool", "Float", true},
      {"Bool", "Bool", true},
      {"Long", "Char", true},
      {"Double", "Half", true},
      {"ComplexDouble", "ComplexHalf", true},
      {"Float", "QInt8", true},
      {"UInt16", "Int", true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(canCast(named(c.from), named(c.to)), c.ok) << c.from << " -> " << c.to;
    EXPECT_EQ(torch::executor::canCast(named(c.from), named(c.to)), c.ok);
  }
  static_assert(canCast(ScalarType::Int, ScalarType::Float) && !canCast(ScalarType::Float, ScalarType::Int));
}

TEST(ScalarTypeUtil, PromoteTypesGrid) {
  // PyTorch's promotion table over the 13 promotable types (rows: a, columns: b).
  const std::vector<std::string> order = {"u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "b1", "bf"};
  const std::map<std::string, std::string> name = {
      {"u1", "Byte"},          {"i1", "Char"},  {"i2", "Short"},   {"i4", "Int"},         {"i8", "Long"},
      {"f2", "Half"},          {"f4", "Float"}, {"f8", "Double"},  {"c2", "ComplexHalf"}, {"c4", "ComplexFloat"},
      {"c8", "ComplexDouble"}, {"b1", "Bool"},  {"bf", "BFloat16"}};
  const std::vector<std::vector<std::string>> table = {
      {"u1", "i2", "i2", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "u1", "bf"},
      {"i2", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "i1", "bf"},
      {"i2", "i2", "i2", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "i2", "bf"},
      {"i4", "i4", "i4", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "i4", "bf"},
      {"i8", "i8", "i8", "i8", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "i8", "bf"},
      {"f2", "f2", "f2", "f2", "f2", "f2", "f4", "f8", "c2", "c4", "c8", "f2", "f4"},
      {"f4", "f4", "f4", "f4", "f4", "f4", "f4", "f8", "c4", "c4", "c8", "f4", "f4"},
      {"f8", "f8", "f8", "f8", "f8", "f8", "f8", "f8", "c8", "c8", "c8", "f8", "f8"},
      {"c2", "c2", "c2", "c2", "c2", "c2", "c4", "c8", "c2", "c4", "c8", "c2", "c4"},
      {"c4", "c4", "c4", "c4", "c4", "c4", "c4", "c8", "c4", "c4", "c8", "c4", "c4"},
      {"c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8", "c8"},
      {"u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "c2", "c4", "c8", "b1", "bf"},
      {"bf", "bf", "bf", "bf", "bf", "f4", "f4", "f8", "c4", "c4", "c8", "bf", "bf"},
  };
  using executorch::runtime::promoteTypes;
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = 0; j < order.size(); ++j) {
      const ScalarType a = named(name.at(order[i]));
      const ScalarType b = named(name.at(order[j]));
      const ScalarType expected = named(name.at(table[i][j]));
      EXPECT_EQ(promoteTypes(a, b), expected) << order[i] << " + " << order[j];
      EXPECT_EQ(promoteTypes(a, b), promoteTypes(b, a));
      const ScalarType widened =
          (expected == ScalarType::Half || expected == ScalarType::BFloat16) ? ScalarType::Float : expected;
      EXPECT_EQ(promoteTypes(a, b, /*half_to_float=*/true), widened) << order[i] << " + " << order[j];
      EXPECT_EQ(torch::executor::promoteTypes(a, b), expected);
    }
  }
  // Types outside the table promote only with themselves.
  for (const char* t : {"QInt8", "QUInt4x2", "Bits8", "Bits16", "Float8_e5m2", "UInt16", "UInt64"}) {
    EXPECT_EQ(promoteTypes(named(t), named(t)), named(t)) << t;
    EXPECT_EQ(promoteTypes(named(t), named(t), true), named(t)) << t;
  }
  static_assert(promoteTypes(ScalarType::Byte, ScalarType::Char) == ScalarType::Short);
  static_assert(promoteTypes(ScalarType::BFloat16, ScalarType::Half) == ScalarType::Float);
}

TEST(ScalarTypeUtilDeathTest, PromoteTypesAbortsForMixedSpecialTypes) {
  using executorch::runtime::promoteTypes;
  EXPECT_DEATH(promoteTypes(ScalarType::QInt8, ScalarType::Int), "quantized");
  EXPECT_DEATH(promoteTypes(ScalarType::Float, ScalarType::QUInt8), "quantized");
  EXPECT_DEATH(promoteTypes(ScalarType::Bits8, ScalarType::Byte), "bits");
  EXPECT_DEATH(promoteTypes(ScalarType::Float8_e4m3fn, ScalarType::Float), "float8");
  EXPECT_DEATH(promoteTypes(ScalarType::UInt32, ScalarType::Long), "unsigned");
  EXPECT_DEATH(promoteTypes(ScalarType::Undefined, ScalarType::Long), "");
}

namespace {
template <typename T1, typename T2>
constexpr bool promotable() {
  using namespace executorch::runtime;
  return std::is_same_v<T1, T2> ||
         (!is_qint_type<T1>::value && !is_qint_type<T2>::value && !is_bits_type<T1>::value &&
          !is_bits_type<T2>::value && !is_float8_type<T1>::value && !is_float8_type<T2>::value &&
          !is_barebones_unsigned_type<T1>::value && !is_barebones_unsigned_type<T2>::value);
}

template <typename T1, bool half_to_float>
struct PromoteTypesAgainst {
  static int check_all() {
    int checked = 0;
#define CHECK_ONE(cpp_type, name) checked += check_one<cpp_type>();
    ET_FORALL_SCALAR_TYPES(CHECK_ONE)
#undef CHECK_ONE
    return checked;
  }
  template <typename T2>
  static int check_one() {
    if constexpr (promotable<T1, T2>()) {
      using P = typename executorch::runtime::promote_types<T1, T2, half_to_float>::type;
      EXPECT_EQ(CppTypeToScalarType<P>::value,
                executorch::runtime::promoteTypes(CppTypeToScalarType<T1>::value, CppTypeToScalarType<T2>::value,
                                                  half_to_float));
      return 1;
    } else {
      return 0;
    }
  }
};
}  // namespace

TEST(ScalarTypeUtil, PromoteTypesAtCompileTimeMatchesPromoteTypes) {
  int checked = 0;
#define CHECK_ROW(cpp_type, name)                               \
  checked += PromoteTypesAgainst<cpp_type, false>::check_all(); \
  checked += PromoteTypesAgainst<cpp_type, true>::check_all();
  ET_FORALL_SCALAR_TYPES(CHECK_ROW)
#undef CHECK_ROW
  // 13 x 13 promotable pairs plus the 17 other types with themselves, twice.
  EXPECT_EQ(checked, 2 * (13 * 13 + 17));
  static_assert(std::is_same_v<executorch::runtime::promote_types<int32_t, float>::type, float>);
  static_assert(std::is_same_v<executorch::runtime::promote_types<uint8_t, int8_t>::type, int16_t>);
  static_assert(std::is_same_v<executorch::runtime::promote_types<bool, bool>::type, bool>);
  static_assert(std::is_same_v<executorch::runtime::promote_types<executorch::aten::Half, int64_t>::type,
                               executorch::aten::Half>);
  static_assert(std::is_same_v<executorch::runtime::promote_types<executorch::aten::Half, int64_t, true>::type, float>);
  static_assert(std::is_same_v<torch::executor::promote_types<executorch::aten::BFloat16, double>::type, double>);
}

TEST(ScalarTypeUtil, Convert) {
  using executorch::runtime::convert;
  // Floating -> integral goes through int64_t: 300.7 -> 300 -> wraps to 44 in int8.
  EXPECT_EQ(convert<int8_t>(300.7f), static_cast<int8_t>(44));
  EXPECT_EQ(convert<int32_t>(-2.9), -2);
  EXPECT_EQ(convert<uint8_t>(-1.0), static_cast<uint8_t>(255));
  EXPECT_EQ(convert<float>(int64_t{3}), 3.0f);
  EXPECT_EQ(convert<int16_t>(int32_t{70000}), static_cast<int16_t>(70000));
  EXPECT_EQ(torch::executor::convert<double>(1.5f), 1.5);
}

//
// ET_SWITCH_* dispatch.
//
namespace {

// What a dispatched lambda returns: the dtype its CTYPE maps back to, offset so that 0 means "did not run".
template <typename CTYPE>
int tag() {
  return static_cast<int>(CppTypeToScalarType<CTYPE>::value) + 100;
}

// Runs `dispatch` on every dtype: the accepted ones must run the lambda with the matching CTYPE and leave the
// context Ok; every other one must fail the context with InvalidArgument and give the default value (0).
template <typename Dispatch>
void expect_switch(const char* what, const std::set<ScalarType>& accepted, Dispatch dispatch) {
  SCOPED_TRACE(what);
  for (ScalarType t : all_types()) {
    KernelRuntimeContext ctx;
    const int r = dispatch(t, ctx);
    if (accepted.count(t)) {
      EXPECT_EQ(r, static_cast<int>(t) + 100) << executorch::runtime::toString(t);
      EXPECT_EQ(ctx.failure_state(), Error::Ok) << executorch::runtime::toString(t);
    } else {
      EXPECT_EQ(r, 0) << executorch::runtime::toString(t);
      EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument) << executorch::runtime::toString(t);
    }
  }
}

#define DISPATCH(...) [](ScalarType t, KernelRuntimeContext& ctx) { return __VA_ARGS__; }

}  // namespace

TEST(ScalarTypeUtilSwitch, EveryMacroAcceptsItsDtypesAndFailsOthers) {
  const std::vector<std::string> real = {"Byte", "Char", "Short", "Int", "Long", "Float", "Double"};
  auto with = [&](std::vector<std::string> more, std::vector<std::string> base) {
    base.insert(base.end(), more.begin(), more.end());
    return named_set(base);
  };
  const std::vector<std::string> ints = {"Byte", "Char", "Short", "Int", "Long"};
  const std::vector<std::string> floats = {"Float", "Double"};
  const std::vector<std::string> complexh = {"ComplexHalf", "ComplexFloat", "ComplexDouble"};
  const std::vector<std::string> qints = {"QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4"};
  const std::vector<std::string> bits = {"Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16"};

  std::vector<std::string> all = real;
  for (const auto* group : {&complexh, &qints, &bits}) all.insert(all.end(), group->begin(), group->end());
  expect_switch("ALL", with({"Half", "BFloat16", "Bool"}, all),
                DISPATCH(ET_SWITCH_ALL_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REAL", named_set(real),
                DISPATCH(ET_SWITCH_REAL_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REAL_AND", with({"Bool"}, real),
                DISPATCH(ET_SWITCH_REAL_TYPES_AND(Bool, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REAL_AND2", with({"Half", "UInt16"}, real),
                DISPATCH(ET_SWITCH_REAL_TYPES_AND2(Half, UInt16, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REAL_AND3", with({"Half", "Bool", "ComplexFloat"}, real),
                DISPATCH(ET_SWITCH_REAL_TYPES_AND3(Half, Bool, ComplexFloat, t, ctx, "op", CTYPE,
                                                   [&]() { return tag<CTYPE>(); })));
  expect_switch("REALH", with({"Half"}, real),
                DISPATCH(ET_SWITCH_REALH_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REALHBF16", with({"Half", "BFloat16"}, real),
                DISPATCH(ET_SWITCH_REALHBF16_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REALB", with({"Bool"}, real),
                DISPATCH(ET_SWITCH_REALB_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REALHB", with({"Half", "Bool"}, real),
                DISPATCH(ET_SWITCH_REALHB_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REALHBBF16", with({"Half", "Bool", "BFloat16"}, real),
                DISPATCH(ET_SWITCH_REALHBBF16_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("REALHBBF16_AND_UINT", with({"Half", "Bool", "BFloat16", "UInt16", "UInt32", "UInt64"}, real),
                DISPATCH(ET_SWITCH_REALHBBF16_AND_UINT_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("INT", named_set(ints),
                DISPATCH(ET_SWITCH_INT_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("INT_AND", with({"Bool"}, ints),
                DISPATCH(ET_SWITCH_INT_TYPES_AND(Bool, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("FLOAT", named_set(floats),
                DISPATCH(ET_SWITCH_FLOAT_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("FLOAT_AND", with({"Half"}, floats),
                DISPATCH(ET_SWITCH_FLOAT_TYPES_AND(Half, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch(
      "FLOAT_AND2", with({"Half", "BFloat16"}, floats),
      DISPATCH(ET_SWITCH_FLOAT_TYPES_AND2(Half, BFloat16, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch(
      "FLOAT_AND3", with({"Half", "BFloat16", "Int"}, floats),
      DISPATCH(ET_SWITCH_FLOAT_TYPES_AND3(Half, BFloat16, Int, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("FLOATH", with({"Half"}, floats),
                DISPATCH(ET_SWITCH_FLOATH_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("FLOATHBF16", with({"Half", "BFloat16"}, floats),
                DISPATCH(ET_SWITCH_FLOATHBF16_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("FLOATHBF16_AND", with({"Half", "BFloat16", "Long"}, floats),
                DISPATCH(ET_SWITCH_FLOATHBF16_TYPES_AND(Long, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("QINT", named_set(qints),
                DISPATCH(ET_SWITCH_QINT_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("COMPLEX", named_set({"ComplexFloat", "ComplexDouble"}),
                DISPATCH(ET_SWITCH_COMPLEX_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("COMPLEXH", named_set(complexh),
                DISPATCH(ET_SWITCH_COMPLEXH_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("SCALAR_OBJ", named_set({"Bool", "Long", "Double"}),
                DISPATCH(ET_SWITCH_SCALAR_OBJ_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("SCALAR_OBJ_REAL", named_set({"Long", "Double"}),
                DISPATCH(ET_SWITCH_SCALAR_OBJ_REAL_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("SCALAR_OBJ_INTB", named_set({"Bool", "Long"}),
                DISPATCH(ET_SWITCH_SCALAR_OBJ_INTB_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("SCALAR_OBJ_FLOATB", named_set({"Bool", "Double"}),
                DISPATCH(ET_SWITCH_SCALAR_OBJ_FLOATB_TYPES(t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch("TWO", named_set({"Bool", "Byte"}),
                DISPATCH(ET_SWITCH_TWO_TYPES(Bool, Byte, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch(
      "THREE", named_set({"Float", "Half", "BFloat16"}),
      DISPATCH(ET_SWITCH_THREE_TYPES(Float, Half, BFloat16, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  expect_switch(
      "FOUR", named_set({"Char", "Int", "UInt32", "Bits8"}),
      DISPATCH(ET_SWITCH_FOUR_TYPES(Char, Int, UInt32, Bits8, t, ctx, "op", CTYPE, [&]() { return tag<CTYPE>(); })));
  // The building blocks directly.
  expect_switch("INTERNAL", named_set({"Float", "UInt64"}),
                DISPATCH(ET_INTERNAL_SWITCH(
                    t, ctx, "op", ET_INTERNAL_SWITCH_CASE(ScalarType::Float, CTYPE, [&]() {
                      return tag<CTYPE>();
                    }) ET_INTERNAL_SWITCH_CASE(ScalarType::UInt64, CTYPE, [&]() { return tag<CTYPE>(); }))));
}

TEST(ScalarTypeUtilSwitch, VoidLambdasRunOnceOrNotAtAll) {
  int runs = 0;
  size_t size = 0;
  KernelRuntimeContext ok;
  ET_SWITCH_REALHBF16_TYPES(ScalarType::BFloat16, ok, "my_op.out", CTYPE, [&]() {
    ++runs;
    size = sizeof(CTYPE);
  });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(ok.failure_state(), Error::Ok);

  KernelRuntimeContext bad;
  ET_SWITCH_REALHBF16_TYPES(ScalarType::Bool, bad, "my_op.out", CTYPE, [&]() {
    ++runs;
    size = sizeof(CTYPE);
  });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(bad.failure_state(), Error::InvalidArgument);

  // A lambda without a parameter list, and an op name held in a constexpr array (as upstream kernels declare it).
  static constexpr const char op_name[] = "my_op.out";
  KernelRuntimeContext plain;
  ET_SWITCH_FLOAT_TYPES(ScalarType::Double, plain, op_name, CTYPE, [&] { size = sizeof(CTYPE); });
  EXPECT_EQ(size, 8u);
}

TEST(ScalarTypeUtilSwitch, ReturnsWhatTheLambdaReturnsAndNests) {
  KernelRuntimeContext ctx;
  // A value computed with the dispatched type.
  const double half_max = ET_SWITCH_FLOATHBF16_TYPES(
      ScalarType::Half, ctx, "op", CTYPE, [&]() { return static_cast<double>(static_cast<float>(CTYPE(65504.0f))); });
  EXPECT_EQ(half_max, 65504.0);
  // A function pointer chosen per type, as upstream's dtype_util does.
  using Load = double (*)(const void*);
  const Load load = ET_SWITCH_REALHBBF16_TYPES(ScalarType::Short, ctx, "op", CTYPE, [&]() -> Load {
    return [](const void* p) { return static_cast<double>(*static_cast<const CTYPE*>(p)); };
  });
  const int16_t v = -1234;
  EXPECT_EQ(load(&v), -1234.0);
  // Nested dispatch over two dtypes.
  const size_t both = ET_SWITCH_INT_TYPES(ScalarType::Int, ctx, "outer", IN, [&]() {
    return ET_SWITCH_FLOAT_TYPES(ScalarType::Double, ctx, "inner", OUT,
                                 [&]() { return sizeof(IN) * 10 + sizeof(OUT); });
  });
  EXPECT_EQ(both, 48u);
  EXPECT_EQ(ctx.failure_state(), Error::Ok);

  // On an unhandled dtype: the value-initialised result (null pointer, 0, empty string).
  KernelRuntimeContext bad;
  EXPECT_EQ(ET_SWITCH_INT_TYPES(ScalarType::Float, bad, "op", CTYPE, [&]() -> Load { return nullptr; }), nullptr);
  EXPECT_EQ(ET_SWITCH_COMPLEX_TYPES(ScalarType::Float, bad, "op", CTYPE, [&]() { return std::string("ran"); }), "");
  EXPECT_EQ(bad.failure_state(), Error::InvalidArgument);
  // The inner switch fails the context while the outer one succeeds.
  KernelRuntimeContext inner_bad;
  const size_t partial = ET_SWITCH_INT_TYPES(ScalarType::Int, inner_bad, "outer", IN, [&]() {
    return ET_SWITCH_FLOAT_TYPES(ScalarType::Bool, inner_bad, "inner", OUT, [&]() { return sizeof(IN) + sizeof(OUT); });
  });
  EXPECT_EQ(partial, 0u);
  EXPECT_EQ(inner_bad.failure_state(), Error::InvalidArgument);
}

TEST(ScalarTypeUtilSwitch, ValuesOfTheDispatchedType) {
  // The lambda sees the real C++ type: arithmetic in it behaves per dtype.
  auto wraps = [](ScalarType t) {
    KernelRuntimeContext ctx;
    return ET_SWITCH_INT_TYPES(t, ctx, "wrap", CTYPE, [&]() {
      CTYPE x = static_cast<CTYPE>(127);
      x = static_cast<CTYPE>(x + 1);
      return static_cast<int64_t>(x);
    });
  };
  EXPECT_EQ(wraps(ScalarType::Char), -128);
  EXPECT_EQ(wraps(ScalarType::Byte), 128);
  EXPECT_EQ(wraps(ScalarType::Long), 128);
}
