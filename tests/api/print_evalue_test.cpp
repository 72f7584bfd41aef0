// operator<<(std::ostream&, const EValue&) and evalue_edge_items, as upstream's
// extension/evalue_util/print_evalue.h declares them. The expected strings are upstream's own (its
// print_evalue_test.cpp): upstream's executor_runner prints outputs with this, and people compare that text.
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using executorch::aten::ArrayRef;
using executorch::aten::BFloat16;
using executorch::aten::Half;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

namespace {

// A tensor over owned memory (what upstream's tests get from TensorFactory).
class TestTensor {
 public:
  template <typename T>
  static std::unique_ptr<TestTensor> make(ScalarType type, std::vector<int32_t> sizes, std::initializer_list<T> data) {
    auto t = std::unique_ptr<TestTensor>(new TestTensor(type, std::move(sizes), data.size() * sizeof(T)));
    if (data.size() > 0) std::memcpy(t->bytes_.data(), data.begin(), data.size() * sizeof(T));
    return t;
  }
  // Every element 1.0, double or float.
  static std::unique_ptr<TestTensor> ones(std::vector<int32_t> sizes) {
    return filled<double>(ScalarType::Double, sizes);
  }
  static std::unique_ptr<TestTensor> float_ones(std::vector<int32_t> sizes) {
    return filled<float>(ScalarType::Float, sizes);
  }
  Tensor tensor() { return Tensor(impl_.get()); }

 private:
  template <typename T>
  static std::unique_ptr<TestTensor> filled(ScalarType type, std::vector<int32_t> sizes) {
    size_t n = 1;
    for (int32_t s : sizes) n *= static_cast<size_t>(s);
    auto t = std::unique_ptr<TestTensor>(new TestTensor(type, std::move(sizes), n * sizeof(T)));
    std::vector<T> one(n, T(1));
    std::memcpy(t->bytes_.data(), one.data(), n * sizeof(T));
    return t;
  }
  TestTensor(ScalarType type, std::vector<int32_t> sizes, size_t nbytes)
      : sizes_(std::move(sizes)), dim_order_(sizes_.size()), bytes_(nbytes == 0 ? 1 : nbytes) {
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
    impl_ = std::make_unique<TensorImpl>(type, static_cast<ssize_t>(sizes_.size()), sizes_.data(), bytes_.data(),
                                         dim_order_.data());
  }
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<uint8_t> bytes_;
  std::unique_ptr<TensorImpl> impl_;
};

std::string print(const EValue& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

#define EXPECT_PRINTS(value, expected) EXPECT_EQ(print(value), std::string(expected))

// Upstream's constant (the cpp file's items per line), repeated as its test does.
constexpr size_t kItemsPerLine = 10;

}  // namespace

TEST(PrintEvalue, None) { EXPECT_PRINTS(EValue(), "None"); }

TEST(PrintEvalue, Bool) {
  EXPECT_PRINTS(EValue(Scalar(true)), "True");
  EXPECT_PRINTS(EValue(Scalar(false)), "False");
}

TEST(PrintEvalue, Int) {
  EXPECT_PRINTS(EValue(Scalar(0)), "0");
  EXPECT_PRINTS(EValue(Scalar(10)), "10");
  EXPECT_PRINTS(EValue(Scalar(-10)), "-10");
  constexpr int64_t big = 1152921504606846976;
  EXPECT_PRINTS(EValue(Scalar(big)), "1152921504606846976");
  EXPECT_PRINTS(EValue(Scalar(-big)), "-1152921504606846976");
}

TEST(PrintEvalue, Double) {
  EXPECT_PRINTS(EValue(Scalar(0.0)), "0.");
  EXPECT_PRINTS(EValue(Scalar(+0.0)), "0.");
  EXPECT_PRINTS(EValue(Scalar(-0.0)), "-0.");
  EXPECT_PRINTS(EValue(Scalar(10.0)), "10.");
  EXPECT_PRINTS(EValue(Scalar(10.1)), "10.1");
  EXPECT_PRINTS(EValue(Scalar(-10.0)), "-10.");
  EXPECT_PRINTS(EValue(Scalar(-10.1)), "-10.1");
  EXPECT_PRINTS(EValue(Scalar(static_cast<double>(INFINITY))), "inf");
  EXPECT_PRINTS(EValue(Scalar(static_cast<double>(-INFINITY))), "-inf");
  EXPECT_PRINTS(EValue(Scalar(static_cast<double>(NAN))), "nan");
}

TEST(PrintEvalue, String) {
  std::string empty;
  ArrayRef<char> empty_ref(const_cast<char*>(empty.c_str()), empty.size());
  EXPECT_PRINTS(EValue(&empty_ref), "\"\"");
  std::string basic = "Test Data";
  ArrayRef<char> basic_ref(const_cast<char*>(basic.c_str()), basic.size());
  EXPECT_PRINTS(EValue(&basic_ref), "\"Test Data\"");
  std::string escaped = "double quote: \" backslash: \\";
  ArrayRef<char> escaped_ref(const_cast<char*>(escaped.c_str()), escaped.size());
  EXPECT_PRINTS(EValue(&escaped_ref), "\"double quote: \\\" backslash: \\\\\"");
}

TEST(PrintEvalue, BoolTensor) {
  auto a = TestTensor::make<bool>(ScalarType::Bool, {2, 2}, {true, false, true, false});
  EXPECT_PRINTS(EValue(a->tensor()), "tensor(sizes=[2, 2], [True, False, True, False])");
  auto b = TestTensor::make<bool>(ScalarType::Bool, {5, 2},
                                  {true, false, true, false, true, false, true, false, true, false});
  EXPECT_PRINTS(EValue(b->tensor()), "tensor(sizes=[5, 2], [True, False, True, ..., False, True, False])");
}

template <typename T>
void expect_integer_tensor(ScalarType type) {
  auto a = TestTensor::make<T>(type, {2, 2}, {1, 2, 3, 4});
  EXPECT_PRINTS(EValue(a->tensor()), "tensor(sizes=[2, 2], [1, 2, 3, 4])") << static_cast<int>(type);
  auto b = TestTensor::make<T>(type, {5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_PRINTS(EValue(b->tensor()), "tensor(sizes=[5, 2], [1, 2, 3, ..., 8, 9, 10])") << static_cast<int>(type);
}

TEST(PrintEvalue, IntegerTensors) {
  expect_integer_tensor<uint8_t>(ScalarType::Byte);
  expect_integer_tensor<int8_t>(ScalarType::Char);
  expect_integer_tensor<int16_t>(ScalarType::Short);
  expect_integer_tensor<int32_t>(ScalarType::Int);
  expect_integer_tensor<int64_t>(ScalarType::Long);
}

template <typename T>
void expect_float_tensor(ScalarType type) {
  auto a = TestTensor::make<T>(type, {2, 2}, {T(1.0), T(2.2), T(3.3), T(4.0)});
  EXPECT_PRINTS(EValue(a->tensor()), "tensor(sizes=[2, 2], [1., 2.2, 3.3, 4.])");
  auto b = TestTensor::make<T>(type, {5, 2},
                               {T(1.0), T(2.2), T(3.3), T(4.0), T(5.5), T(6.6), T(7.0), T(8.8), T(9.0), T(10.1)});
  EXPECT_PRINTS(EValue(b->tensor()), "tensor(sizes=[5, 2], [1., 2.2, 3.3, ..., 8.8, 9., 10.1])");
}

TEST(PrintEvalue, FloatTensors) {
  expect_float_tensor<float>(ScalarType::Float);
  expect_float_tensor<double>(ScalarType::Double);
}

// Half and BFloat16 print as the float they hold, widened to double (what Scalar(Half) does): exactly
// representable values print as above; others show their rounded value.
TEST(PrintEvalue, HalfAndBFloat16Tensors) {
  auto h = TestTensor::make<Half>(ScalarType::Half, {2, 2}, {Half(1.0f), Half(2.5f), Half(-0.0f), Half(-4.0f)});
  EXPECT_PRINTS(EValue(h->tensor()), "tensor(sizes=[2, 2], [1., 2.5, -0., -4.])");
  auto b = TestTensor::make<BFloat16>(ScalarType::BFloat16, {3}, {BFloat16(1.0f), BFloat16(0.5f), BFloat16(-3.0f)});
  EXPECT_PRINTS(EValue(b->tensor()), "tensor(sizes=[3], [1., 0.5, -3.])");
  // 0.1 is not representable: Half holds 0.0999755859375, which prints with 6 significant digits.
  auto r = TestTensor::make<Half>(ScalarType::Half, {1}, {Half(0.1f)});
  EXPECT_PRINTS(EValue(r->tensor()), "tensor(sizes=[1], [0.0999756])");
}

TEST(PrintEvalue, EmptyAndScalarTensors) {
  auto empty = TestTensor::make<float>(ScalarType::Float, {0, 3}, {});
  EXPECT_PRINTS(EValue(empty->tensor()), "tensor(sizes=[0, 3], [])");
  auto scalar = TestTensor::make<float>(ScalarType::Float, {}, {7.0f});
  EXPECT_PRINTS(EValue(scalar->tensor()), "tensor(sizes=[], [7.])");
}

TEST(PrintEvalue, UnhandledTensorDtype) {
  auto t = TestTensor::make<uint16_t>(ScalarType::UInt16, {2}, {1, 2});
  EXPECT_PRINTS(EValue(t->tensor()), "tensor(sizes=[2], [<unhandled scalar type " +
                                         std::to_string(static_cast<int>(ScalarType::UInt16)) + ">])");
}

TEST(PrintEvalue, BoolLists) {
  std::array<bool, 10> list = {true, false, true, false, true, false, true, false, true, false};
  const char* expected[] = {
      "(len=0)[]",
      "(len=1)[True]",
      "(len=2)[True, False]",
      "(len=3)[True, False, True]",
      "(len=4)[True, False, True, False]",
      "(len=5)[True, False, True, False, True]",
      "(len=6)[True, False, True, False, True, False]",
      "(len=7)[True, False, True, ..., True, False, True]",
      "(len=8)[True, False, True, ..., False, True, False]",
  };
  for (size_t n = 0; n <= 8; ++n) {
    ArrayRef<bool> ref(list.data(), n);
    EXPECT_PRINTS(EValue(&ref), expected[n]);
  }
  ArrayRef<bool> ten(list.data(), 10);
  EXPECT_PRINTS(EValue(&ten), "(len=10)[True, False, True, ..., False, True, False]");
}

TEST(PrintEvalue, IntLists) {
  std::array<EValue, 10> values = {Scalar(-4), Scalar(-3), Scalar(-2), Scalar(-1), Scalar(0),
                                   Scalar(1),  Scalar(2),  Scalar(3),  Scalar(4),  Scalar(5)};
  std::array<EValue*, 10> wrapped;
  for (size_t i = 0; i < 10; ++i) wrapped[i] = &values[i];
  std::array<int64_t, 10> unwrapped{};
  auto expect = [&](size_t first, size_t n, const char* want) {
    BoxedEvalueList<int64_t> list(wrapped.data() + first, unwrapped.data(), n);
    EXPECT_PRINTS(EValue(&list), want);
  };
  expect(2, 0, "(len=0)[]");
  expect(2, 3, "(len=3)[-2, -1, 0]");
  expect(2, 6, "(len=6)[-2, -1, 0, 1, 2, 3]");
  expect(0, 7, "(len=7)[-4, -3, -2, ..., 0, 1, 2]");
  expect(0, 8, "(len=8)[-4, -3, -2, ..., 1, 2, 3]");
  expect(0, 10, "(len=10)[-4, -3, -2, ..., 3, 4, 5]");
}

TEST(PrintEvalue, DoubleLists) {
  std::array<double, 6> short_list = {-2.2, -1, 0, INFINITY, NAN, 3.3};
  ArrayRef<double> none(short_list.data(), static_cast<size_t>(0));
  EXPECT_PRINTS(EValue(&none), "(len=0)[]");
  ArrayRef<double> three(short_list.data(), 3);
  EXPECT_PRINTS(EValue(&three), "(len=3)[-2.2, -1., 0.]");
  ArrayRef<double> six(short_list.data(), 6);
  EXPECT_PRINTS(EValue(&six), "(len=6)[-2.2, -1., 0., inf, nan, 3.3]");

  std::array<double, 10> list = {-4.4, -3.0, -2.2, -1, 0, INFINITY, NAN, 3.3, 4.0, 5.5};
  ArrayRef<double> seven(list.data(), 7);
  EXPECT_PRINTS(EValue(&seven), "(len=7)[-4.4, -3., -2.2, ..., 0., inf, nan]");
  ArrayRef<double> eight(list.data(), 8);
  EXPECT_PRINTS(EValue(&eight), "(len=8)[-4.4, -3., -2.2, ..., inf, nan, 3.3]");
  ArrayRef<double> ten(list.data(), 10);
  EXPECT_PRINTS(EValue(&ten), "(len=10)[-4.4, -3., -2.2, ..., 3.3, 4., 5.5]");
}

namespace {

std::string print_tensor_list(size_t n) {
  std::vector<std::unique_ptr<TestTensor>> tensors;
  std::vector<EValue> values;
  values.reserve(10);
  for (int i = 0; i < 10; ++i) {
    const float v = static_cast<float>(i);
    tensors.push_back(TestTensor::make<float>(ScalarType::Float, {2, 2}, {v, v, v, v}));
    values.emplace_back(tensors.back()->tensor());
  }
  std::vector<EValue*> wrapped;
  for (auto& v : values) wrapped.push_back(&v);
  // Raw storage: BoxedEvalueList assigns into it (Tensor has no default constructor).
  auto storage = std::make_unique<uint8_t[]>(sizeof(Tensor) * wrapped.size());
  BoxedEvalueList<Tensor> list(wrapped.data(), reinterpret_cast<Tensor*>(storage.get()), n);
  return print(EValue(&list));
}

std::string print_optional_tensor_list(size_t n) {
  std::vector<std::unique_ptr<TestTensor>> tensors;
  std::vector<EValue> values;
  values.reserve(5);
  for (int i = 0; i < 5; ++i) {
    const float v = static_cast<float>(2 * i);
    tensors.push_back(TestTensor::make<float>(ScalarType::Float, {2, 2}, {v, v, v, v}));
    values.emplace_back(tensors.back()->tensor());
  }
  // A null entry is None.
  std::array<EValue*, 10> wrapped = {nullptr,    &values[0], nullptr,    &values[1], nullptr,
                                     &values[2], nullptr,    &values[3], nullptr,    &values[4]};
  std::array<std::optional<Tensor>, 10> unwrapped;
  BoxedEvalueList<std::optional<Tensor>> list(wrapped.data(), unwrapped.data(), n);
  return print(EValue(&list));
}

}  // namespace

TEST(PrintEvalue, TensorLists) {
  EXPECT_EQ(print_tensor_list(0), "(len=0)[]");
  EXPECT_EQ(print_tensor_list(1), "(len=1)[tensor(sizes=[2, 2], [0., 0., 0., 0.])]");
  EXPECT_EQ(print_tensor_list(10),
            "(len=10)[\n"
            "  [0]: tensor(sizes=[2, 2], [0., 0., 0., 0.]),\n"
            "  [1]: tensor(sizes=[2, 2], [1., 1., 1., 1.]),\n"
            "  [2]: tensor(sizes=[2, 2], [2., 2., 2., 2.]),\n"
            "  [3]: tensor(sizes=[2, 2], [3., 3., 3., 3.]),\n"
            "  [4]: tensor(sizes=[2, 2], [4., 4., 4., 4.]),\n"
            "  [5]: tensor(sizes=[2, 2], [5., 5., 5., 5.]),\n"
            "  [6]: tensor(sizes=[2, 2], [6., 6., 6., 6.]),\n"
            "  [7]: tensor(sizes=[2, 2], [7., 7., 7., 7.]),\n"
            "  [8]: tensor(sizes=[2, 2], [8., 8., 8., 8.]),\n"
            "  [9]: tensor(sizes=[2, 2], [9., 9., 9., 9.]),\n"
            "]");
}

TEST(PrintEvalue, OptionalTensorLists) {
  EXPECT_EQ(print_optional_tensor_list(0), "(len=0)[]");
  EXPECT_EQ(print_optional_tensor_list(1), "(len=1)[None]");
  EXPECT_EQ(print_optional_tensor_list(10),
            "(len=10)[\n"
            "  [0]: None,\n"
            "  [1]: tensor(sizes=[2, 2], [0., 0., 0., 0.]),\n"
            "  [2]: None,\n"
            "  [3]: tensor(sizes=[2, 2], [2., 2., 2., 2.]),\n"
            "  [4]: None,\n"
            "  [5]: tensor(sizes=[2, 2], [4., 4., 4., 4.]),\n"
            "  [6]: None,\n"
            "  [7]: tensor(sizes=[2, 2], [6., 6., 6., 6.]),\n"
            "  [8]: None,\n"
            "  [9]: tensor(sizes=[2, 2], [8., 8., 8., 8.]),\n"
            "]");
}

TEST(PrintEvalue, UnknownTag) {
  EValue value;
  value.tag = static_cast<Tag>(5555);
  EXPECT_PRINTS(value, "<Unknown EValue tag 5555>");
  value.tag = Tag::None;  // a tag the destructor knows
}

TEST(PrintEvalue, EdgeItems) {
  std::array<double, 7> list = {-3.0, -2.2, -1, 0, 3.3, 4.0, 5.5};
  ArrayRef<double> ref(list.data(), 7);
  EValue value(&ref);
  const std::string elided = "(len=7)[-3., -2.2, -1., ..., 3.3, 4., 5.5]";
  EXPECT_PRINTS(value, elided);
  auto with = [&](long n) {
    std::ostringstream os;
    os << executorch::extension::evalue_edge_items(n) << value;
    return os.str();
  };
  EXPECT_EQ(with(1), "(len=7)[-3., ..., 5.5]");
  EXPECT_EQ(with(20), "(len=7)[-3., -2.2, -1., 0., 3.3, 4., 5.5]");
  EXPECT_EQ(with(0), elided);   // zero: the default
  EXPECT_EQ(with(-5), elided);  // negative: the default
  // Upstream's deprecated spelling.
  std::ostringstream old;
  old << torch::executor::util::evalue_edge_items(1) << value;
  EXPECT_EQ(old.str(), "(len=7)[-3., ..., 5.5]");
}

TEST(PrintEvalue, EdgeItemsAreStickyPerStream) {
  std::array<double, 7> list = {-3.0, -2.2, -1, 0, 3.3, 4.0, 5.5};
  ArrayRef<double> ref(list.data(), 7);
  EValue value(&ref);
  using executorch::extension::evalue_edge_items;
  std::ostringstream before;
  std::ostringstream os;
  os << "default: " << value << "\n";
  os << "      1: " << evalue_edge_items(1) << value << "\n";
  os << "still 1: " << value << "\n";
  os << "default: " << evalue_edge_items(0) << value << "\n";
  os << "     20: " << evalue_edge_items(20) << value << "\n";
  EXPECT_EQ(os.str(),
            "default: (len=7)[-3., -2.2, -1., ..., 3.3, 4., 5.5]\n"
            "      1: (len=7)[-3., ..., 5.5]\n"
            "still 1: (len=7)[-3., ..., 5.5]\n"
            "default: (len=7)[-3., -2.2, -1., ..., 3.3, 4., 5.5]\n"
            "     20: (len=7)[-3., -2.2, -1., 0., 3.3, 4., 5.5]\n");
  before << value;
  EXPECT_EQ(before.str(), "(len=7)[-3., -2.2, -1., ..., 3.3, 4., 5.5]");
  std::ostringstream after;
  after << value;
  EXPECT_EQ(after.str(), "(len=7)[-3., -2.2, -1., ..., 3.3, 4., 5.5]");
}

TEST(PrintEvalue, EdgeItemsApplyToTensorDataNotSizes) {
  auto t =
      TestTensor::make<double>(ScalarType::Double, {5, 1, 1, 2}, {1.0, 2.2, 3.3, 4.0, 5.5, 6.6, 7.0, 8.8, 9.0, 10.1});
  EValue value(t->tensor());
  std::ostringstream os;
  os << value << "\n";
  os << executorch::extension::evalue_edge_items(1) << value << "\n";
  EXPECT_EQ(os.str(),
            "tensor(sizes=[5, 1, 1, 2], [1., 2.2, 3.3, ..., 8.8, 9., 10.1])\n"
            "tensor(sizes=[5, 1, 1, 2], [1., ..., 10.1])\n");
}

TEST(PrintEvalue, ListWrapping) {
  std::array<double, 100> list;
  for (size_t i = 0; i < list.size(); ++i) list[i] = static_cast<double>(i);
  auto with = [&](size_t n, long edge) {
    ArrayRef<double> ref(list.data(), n);
    EValue value(&ref);
    std::ostringstream os;
    if (edge != 0) os << executorch::extension::evalue_edge_items(edge);
    os << value;
    return os.str();
  };
  EXPECT_EQ(with(100, 0), "(len=100)[0., 1., 2., ..., 97., 98., 99.]");
  EXPECT_EQ(with(kItemsPerLine, 1000), "(len=10)[0., 1., 2., 3., 4., 5., 6., 7., 8., 9.]");
  EXPECT_EQ(with(kItemsPerLine + 1, 1000),
            "(len=11)[\n"
            "  0., 1., 2., 3., 4., 5., 6., 7., 8., 9., \n"
            "  10., \n"
            "]");
  EXPECT_EQ(with(kItemsPerLine * 2, 1000),
            "(len=20)[\n"
            "  0., 1., 2., 3., 4., 5., 6., 7., 8., 9., \n"
            "  10., 11., 12., 13., 14., 15., 16., 17., 18., 19., \n"
            "]");
  EXPECT_EQ(with(kItemsPerLine * 3, kItemsPerLine),
            "(len=30)[\n"
            "  0., 1., 2., 3., 4., 5., 6., 7., 8., 9., \n"
            "  ...,\n"
            "  20., 21., 22., 23., 24., 25., 26., 27., 28., 29., \n"
            "]");
  EXPECT_EQ(with(kItemsPerLine * 3, kItemsPerLine + 1),
            "(len=30)[\n"
            "  0., 1., 2., 3., 4., 5., 6., 7., 8., 9., \n"
            "  10., \n"
            "  ...,\n"
            "  19., \n"
            "  20., 21., 22., 23., 24., 25., 26., 27., 28., 29., \n"
            "]");
  EXPECT_EQ(with(100, 33),
            "(len=100)[\n"
            "  0., 1., 2., 3., 4., 5., 6., 7., 8., 9., \n"
            "  10., 11., 12., 13., 14., 15., 16., 17., 18., 19., \n"
            "  20., 21., 22., 23., 24., 25., 26., 27., 28., 29., \n"
            "  30., 31., 32., \n"
            "  ...,\n"
            "  67., 68., 69., \n"
            "  70., 71., 72., 73., 74., 75., 76., 77., 78., 79., \n"
            "  80., 81., 82., 83., 84., 85., 86., 87., 88., 89., \n"
            "  90., 91., 92., 93., 94., 95., 96., 97., 98., 99., \n"
            "]");
}

TEST(PrintEvalue, WrappedTensorDataAndSizes) {
  auto t = TestTensor::ones({10, 10});
  std::ostringstream os;
  os << executorch::extension::evalue_edge_items(33) << EValue(t->tensor());
  EXPECT_EQ(os.str(),
            "tensor(sizes=[10, 10], [\n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., \n"
            "  ...,\n"
            "  1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "])");

  std::vector<int32_t> sizes(kItemsPerLine + 1, 1);
  sizes[0] = 5;
  auto wide = TestTensor::ones(sizes);
  EXPECT_PRINTS(EValue(wide->tensor()),
                "tensor(sizes=[\n"
                "  5, 1, 1, 1, 1, 1, 1, 1, 1, 1, \n"
                "  1, \n"
                "], [1., 1., 1., 1., 1.])");

  sizes[0] = 100;
  auto both = TestTensor::ones(sizes);
  std::ostringstream os2;
  os2 << executorch::extension::evalue_edge_items(15) << EValue(both->tensor());
  EXPECT_EQ(os2.str(),
            "tensor(sizes=[\n"
            "  100, 1, 1, 1, 1, 1, 1, 1, 1, 1, \n"
            "  1, \n"
            "], [\n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., \n"
            "  ...,\n"
            "  1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "])");
}

TEST(PrintEvalue, WrappedTensorLists) {
  auto a = TestTensor::float_ones({10, 10});
  auto b = TestTensor::float_ones({11, 11});
  std::array<EValue, 2> values = {EValue(a->tensor()), EValue(b->tensor())};
  std::array<EValue*, 2> wrapped = {&values[0], &values[1]};
  auto storage = std::make_unique<uint8_t[]>(sizeof(Tensor) * 2);
  BoxedEvalueList<Tensor> list(wrapped.data(), reinterpret_cast<Tensor*>(storage.get()), 2);
  std::ostringstream os;
  os << executorch::extension::evalue_edge_items(15) << EValue(&list);
  EXPECT_EQ(os.str(),
            "(len=2)[\n"
            "  [0]: tensor(sizes=[10, 10], [\n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., \n"
            "  ...,\n"
            "  1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "]),\n"
            "  [1]: tensor(sizes=[11, 11], [\n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., \n"
            "  ...,\n"
            "  1., 1., 1., 1., 1., \n"
            "  1., 1., 1., 1., 1., 1., 1., 1., 1., 1., \n"
            "]),\n"
            "]");
}

// Found by argument-dependent lookup, so `os << value` works with no using-declaration (as upstream's
// executor_runner writes it), and the stream's own formatting state is kept.
TEST(PrintEvalue, AdlAndStreamState) {
  std::ostringstream os;
  os << std::hex << 255 << " " << EValue(Scalar(int64_t(255)));
  EXPECT_EQ(os.str(), "ff ff");  // the stream's flags apply, as upstream's operator<< uses the stream as is
}
