// EValue as upstream ExecuTorch's evalue.h describes it: a constructor per kind, isX() / toX() / tryToX(),
// to<T>() and toOptional<T>(), copy and move semantics, BoxedEvalueList, and construction from smart pointers.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Result;
using executorch::runtime::Tag;

namespace {

const bool kInit = (executorch::runtime::runtime_init(), true);

// A float tensor of the given shape over its own storage.
struct OwnedTensor {
  TensorImpl::SizesType sizes[2];
  TensorImpl::DimOrderType order[2] = {0, 1};
  TensorImpl::StridesType strides[2] = {};
  float data[16] = {};
  TensorImpl impl;
  OwnedTensor(int32_t rows, int32_t cols)
      : sizes{rows, cols}, impl(ScalarType::Float, 2, sizes, data, order, strides) {}
  Tensor tensor() { return Tensor(&impl); }
};

// A wrapper that dereferences to a Tensor, as a smart pointer does (tested with its bool conversion).
class TensorWrapper {
 public:
  explicit TensorWrapper(Tensor t) : tensor_(std::make_unique<Tensor>(t)) {}
  TensorWrapper() = default;
  Tensor& operator*() { return *tensor_; }
  const Tensor& operator*() const { return *tensor_; }
  explicit operator bool() const { return static_cast<bool>(tensor_); }

 private:
  std::unique_ptr<Tensor> tensor_;
};

TEST(EValue, NoneIntDoubleBool) {
  EValue none;
  EXPECT_TRUE(none.isNone());
  EXPECT_EQ(none.tag, Tag::None);
  EXPECT_FALSE(none.isScalar());

  EValue i(int64_t{-5});
  EXPECT_TRUE(i.isInt());
  EXPECT_TRUE(i.isScalar());
  EXPECT_EQ(i.tag, Tag::Int);
  EXPECT_EQ(i.toInt(), -5);
  EXPECT_EQ(i.tryToInt().get(), -5);
  EXPECT_EQ(i.tryToDouble().error(), Error::InvalidType);
  EXPECT_EQ(EValue(7).toInt(), 7);  // an int literal is an Int

  EValue d(2.5);
  EXPECT_TRUE(d.isDouble());
  EXPECT_EQ(d.tag, Tag::Double);
  EXPECT_EQ(d.toDouble(), 2.5);
  EXPECT_EQ(d.tryToDouble().get(), 2.5);
  EXPECT_EQ(d.tryToInt().error(), Error::InvalidType);

  EValue b(true);
  EXPECT_TRUE(b.isBool());
  EXPECT_EQ(b.tag, Tag::Bool);
  EXPECT_TRUE(b.toBool());
  EXPECT_TRUE(b.tryToBool().get());
  EXPECT_EQ(b.tryToTensor().error(), Error::InvalidType);
  EXPECT_FALSE(b.isInt() || b.isDouble() || b.isTensor() || b.isString() || b.isIntList() || b.isBoolList() ||
               b.isDoubleList() || b.isTensorList() || b.isListOptionalTensor() || b.isNone());
}

TEST(EValue, Scalar) {
  using executorch::aten::Scalar;
  EValue from_int(Scalar(int64_t{3}));
  EXPECT_TRUE(from_int.isInt());
  EValue from_double(Scalar(1.5));
  EXPECT_TRUE(from_double.isDouble());
  EValue from_bool(Scalar(false));
  EXPECT_TRUE(from_bool.isBool());

  const Scalar s = from_double.toScalar();
  EXPECT_TRUE(s.isFloatingPoint());
  EXPECT_EQ(s.to<double>(), 1.5);
  EXPECT_TRUE(from_int.toScalar().isIntegral(false));
  EXPECT_TRUE(from_bool.toScalar().isBoolean());
  EXPECT_EQ(from_int.tryToScalar().get().to<int64_t>(), 3);
  EXPECT_EQ(EValue().tryToScalar().error(), Error::InvalidType);
  EXPECT_EQ(from_int.to<Scalar>().to<int64_t>(), 3);

  std::optional<Scalar> o = EValue(Scalar(3.141)).toOptional<Scalar>();
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->to<double>(), 3.141);
  EXPECT_FALSE(EValue().toOptional<Scalar>().has_value());
}

TEST(EValue, Tensor) {
  OwnedTensor a(3, 2);
  EValue e(a.tensor());
  EXPECT_TRUE(e.isTensor());
  EXPECT_EQ(e.tag, Tag::Tensor);
  EXPECT_EQ(e.toTensor().dim(), 2);
  EXPECT_EQ(e.toTensor().unsafeGetTensorImpl(), &a.impl);
  EXPECT_EQ(e.tryToTensor().get().numel(), 6);
  EXPECT_EQ(e.tryToInt().error(), Error::InvalidType);

  // to<Tensor>() gives a reference on lvalues.
  static_assert(std::is_same<decltype(e.to<Tensor>()), Tensor&>::value);
  static_assert(std::is_same<decltype(std::as_const(e).to<Tensor>()), const Tensor&>::value);
  static_assert(std::is_same<decltype(std::move(e).to<Tensor>()), Tensor>::value);
  static_assert(std::is_same<decltype(e.to<int64_t>()), int64_t>::value);
  EXPECT_EQ(&e.to<Tensor>(), &e.toTensor());

  // toTensor() on an rvalue takes the Tensor out and leaves None.
  EValue moved_from(a.tensor());
  Tensor t = std::move(moved_from).toTensor();
  EXPECT_EQ(t.unsafeGetTensorImpl(), &a.impl);
  EXPECT_TRUE(moved_from.isNone());  // NOLINT(bugprone-use-after-move)

  std::optional<Tensor> ot = e.toOptional<Tensor>();
  ASSERT_TRUE(ot.has_value());
  EXPECT_EQ(ot->numel(), 6);
  EXPECT_FALSE(EValue().toOptional<Tensor>().has_value());
  EXPECT_FALSE(EValue().to<std::optional<Tensor>>().has_value());
  EXPECT_TRUE(e.to<std::optional<Tensor>>().has_value());
  Result<std::optional<Tensor>> rt = EValue().tryToOptional<Tensor>();
  ASSERT_TRUE(rt.ok());
  EXPECT_FALSE(rt->has_value());
  EXPECT_EQ(EValue(true).tryToOptional<Tensor>().error(), Error::InvalidType);
  EXPECT_EQ(EValue(true).tryTo<std::optional<Tensor>>().error(), Error::InvalidType);
}

TEST(EValue, FromPointerLikes) {
  OwnedTensor a(2, 3);
  auto shared = std::make_shared<Tensor>(a.tensor());
  EValue from_shared(shared);
  EXPECT_TRUE(from_shared.isTensor());
  EXPECT_EQ(from_shared.toTensor().numel(), 6);
  EXPECT_EQ(shared.use_count(), 1);  // the EValue holds the Tensor, not the pointer

  EValue from_unique(std::make_unique<Tensor>(a.tensor()));
  EXPECT_TRUE(from_unique.isTensor());
  auto unique = std::make_unique<Tensor>(a.tensor());
  EValue from_unique_lvalue(unique);
  EXPECT_EQ(from_unique_lvalue.toTensor().unsafeGetTensorImpl(), &a.impl);

  TensorWrapper wrapper(a.tensor());
  EValue from_wrapper(wrapper);
  EXPECT_EQ(from_wrapper.toTensor().dim(), 2);

  // A null one gives None (upstream aborts).
  std::shared_ptr<Tensor> null_shared;
  EXPECT_TRUE(EValue(null_shared).isNone());
  EXPECT_TRUE(EValue(TensorWrapper()).isNone());
  auto boxed = std::make_unique<EValue>(int64_t{4});
  EXPECT_EQ(EValue(std::move(boxed)).toInt(), 4);

  // Raw pointers are rejected at compile time (only the list / string pointer constructors exist).
  static_assert(!std::is_constructible<EValue, Tensor*>::value);
  static_assert(!std::is_constructible<EValue, const char*>::value);
}

TEST(EValue, String) {
  ArrayRef<char> chars("foobar", 3);
  const EValue e(&chars);
  EXPECT_TRUE(e.isString());
  EXPECT_EQ(e.tag, Tag::String);
  EXPECT_EQ(e.toString(), "foo");
  EXPECT_EQ(e.tryToString().get(), std::string_view("foo"));
  EXPECT_EQ(e.to<std::string_view>(), "foo");
  EXPECT_EQ(EValue(int64_t{1}).tryToString().error(), Error::InvalidType);
  const EValue n("hello", 5);  // extension: chars and length
  EXPECT_EQ(n.toString(), "hello");
}

TEST(EValue, BoolAndDoubleLists) {
  bool bools[3] = {true, false, true};
  ArrayRef<bool> bool_ref(bools, 3);
  EValue bl(&bool_ref);
  EXPECT_TRUE(bl.isBoolList());
  EXPECT_EQ(bl.tag, Tag::ListBool);
  EXPECT_EQ(bl.toBoolList().size(), 3u);
  EXPECT_FALSE(bl.toBoolList()[1]);
  EXPECT_EQ(bl.tryToBoolList().get().data(), bools);
  EXPECT_EQ(bl.to<ArrayRef<bool>>().data(), bools);
  EXPECT_TRUE(bl.toOptional<ArrayRef<bool>>().has_value());
  EXPECT_EQ(EValue(bool_ref).toBoolList().data(), bools);  // by value (extension)

  double doubles[2] = {0.5, -1.0};
  ArrayRef<double> double_ref(doubles, 2);
  EValue dl(&double_ref);
  EXPECT_TRUE(dl.isDoubleList());
  EXPECT_EQ(dl.tag, Tag::ListDouble);
  EXPECT_EQ(dl.toDoubleList()[1], -1.0);
  EXPECT_EQ(dl.tryToDoubleList().get().size(), 2u);
  EXPECT_EQ(dl.to<ArrayRef<double>>()[0], 0.5);
  EXPECT_EQ(dl.tryToBoolList().error(), Error::InvalidType);
  EXPECT_FALSE(EValue().to<std::optional<ArrayRef<double>>>().has_value());
  EXPECT_EQ(EValue(double_ref).toDoubleList().size(), 2u);
}

TEST(EValue, IntList) {
  EValue values[3] = {EValue(int64_t{1}), EValue(int64_t{2}), EValue(int64_t{3})};
  EValue* wrapped[3] = {&values[0], &values[1], &values[2]};
  int64_t storage[3] = {};
  BoxedEvalueList<int64_t> list(wrapped, storage, 3);
  ArrayRef<int64_t> unwrapped = list.get();
  ASSERT_EQ(unwrapped.size(), 3u);
  EXPECT_EQ(unwrapped.data(), storage);
  EXPECT_EQ(unwrapped[2], 3);
  EXPECT_EQ(list.size(), 3u);

  EValue e(&list);
  EXPECT_TRUE(e.isIntList());
  EXPECT_EQ(e.tag, Tag::ListInt);
  // The list shows values written into its items later (a kernel's output feeding a later op).
  values[1] = EValue(int64_t{20});
  EXPECT_EQ(e.toIntList()[1], 20);
  EXPECT_EQ(e.to<ArrayRef<int64_t>>()[1], 20);
  EXPECT_EQ(e.tryToIntList().get()[0], 1);
  EXPECT_TRUE(e.toOptional<ArrayRef<int64_t>>().has_value());
  EXPECT_EQ(EValue(list).toIntList().size(), 3u);  // by value (extension)

  // tryGet reports a wrong item kind or a missing item instead of aborting.
  values[2] = EValue(3.5);
  EXPECT_EQ(e.tryToIntList().error(), Error::InvalidType);
  EXPECT_EQ(list.tryGet().error(), Error::InvalidType);
  EValue* with_null[2] = {&values[0], nullptr};
  BoxedEvalueList<int64_t> missing(with_null, storage, 2);
  EXPECT_EQ(missing.tryGet().error(), Error::InvalidState);
}

TEST(EValue, TensorLists) {
  OwnedTensor a(1, 2), b(2, 2);
  EValue items[2] = {EValue(a.tensor()), EValue(b.tensor())};
  EValue* wrapped[2] = {&items[0], &items[1]};
  Tensor storage[2];
  BoxedEvalueList<Tensor> list(wrapped, storage, 2);
  EValue e(&list);
  EXPECT_TRUE(e.isTensorList());
  EXPECT_EQ(e.tag, Tag::ListTensor);
  ArrayRef<Tensor> tensors = e.toTensorList();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[1].numel(), 4);
  EXPECT_EQ(e.tryToTensorList().get()[0].numel(), 2);
  EXPECT_EQ(e.to<ArrayRef<Tensor>>().size(), 2u);
  EXPECT_FALSE(EValue().toOptional<ArrayRef<Tensor>>().has_value());

  // Optional tensors: None items and null item pointers are nullopt.
  EValue none;
  EValue* owrapped[3] = {&items[0], &none, nullptr};
  std::optional<Tensor> ostorage[3];
  BoxedEvalueList<std::optional<Tensor>> olist(owrapped, ostorage, 3);
  EValue oe(&olist);
  EXPECT_TRUE(oe.isListOptionalTensor());
  EXPECT_EQ(oe.tag, Tag::ListOptionalTensor);
  auto opt = oe.toListOptionalTensor();
  ASSERT_EQ(opt.size(), 3u);
  EXPECT_TRUE(opt[0].has_value());
  EXPECT_EQ(opt[0]->numel(), 2);
  EXPECT_FALSE(opt[1].has_value());
  EXPECT_FALSE(opt[2].has_value());
  auto tried = oe.tryToListOptionalTensor();
  ASSERT_TRUE(tried.ok());
  EXPECT_FALSE((*tried)[2].has_value());
  EXPECT_EQ(oe.to<ArrayRef<std::optional<Tensor>>>().size(), 3u);
  EValue bad(int64_t{1});
  EValue* bad_wrapped[1] = {&bad};
  BoxedEvalueList<std::optional<Tensor>> bad_list(bad_wrapped, ostorage, 1);
  EXPECT_EQ(bad_list.tryGet().error(), Error::InvalidType);
  EXPECT_EQ(EValue(olist).toListOptionalTensor().size(), 3u);  // by value (extension)
}

TEST(EValue, EnumArguments) {
  const EValue e(int64_t{6});
  EXPECT_EQ(e.toScalarType(), ScalarType::Float);
  EXPECT_EQ(e.to<ScalarType>(), ScalarType::Float);
  EXPECT_EQ(e.tryToScalarType().get(), ScalarType::Float);
  EXPECT_EQ(e.toOptional<ScalarType>().value(), ScalarType::Float);
  EXPECT_EQ(EValue(2.0).tryToScalarType().error(), Error::InvalidType);

  const EValue zero(int64_t{0});
  EXPECT_EQ(zero.toMemoryFormat(), executorch::aten::MemoryFormat::Contiguous);
  EXPECT_EQ(zero.to<executorch::aten::MemoryFormat>(), executorch::aten::MemoryFormat::Contiguous);
  EXPECT_EQ(EValue(int64_t{1}).tryToMemoryFormat().get(), executorch::aten::MemoryFormat::Preserve);
  EXPECT_EQ(zero.toLayout(), executorch::aten::Layout::Strided);
  EXPECT_EQ(zero.tryToLayout().get(), executorch::aten::Layout::Strided);
  EXPECT_EQ(EValue(true).tryToLayout().error(), Error::InvalidType);

  const executorch::aten::Device cpu = zero.toDevice();
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_EQ(cpu.index(), -1);  // unspecified
  const executorch::aten::Device cuda = EValue(int64_t{1}).to<executorch::aten::Device>();
  EXPECT_EQ(cuda.type(), executorch::aten::DeviceType::CUDA);
  EXPECT_EQ(EValue().tryToDevice().error(), Error::InvalidType);
}

TEST(EValue, CopyAndMove) {
  EValue a;
  EValue b(true);
  a = b;
  EXPECT_TRUE(a.isBool());
  EXPECT_TRUE(b.isBool());

  OwnedTensor t1(3, 2), t2(1, 1);
  EValue x(t1.tensor());
  EValue y(t2.tensor());
  x = y;
  EXPECT_EQ(x.toTensor().dim(), 2);
  EXPECT_EQ(x.toTensor().numel(), 1);
  EXPECT_TRUE(y.isTensor());

  EValue copy(x);
  EXPECT_EQ(copy.toTensor().unsafeGetTensorImpl(), &t2.impl);

  // Moving leaves the source None.
  EValue moved(std::move(copy));
  EXPECT_TRUE(moved.isTensor());
  EXPECT_TRUE(copy.isNone());  // NOLINT(bugprone-use-after-move)
  EValue target(int64_t{1});
  target = std::move(moved);
  EXPECT_TRUE(target.isTensor());
  EXPECT_TRUE(moved.isNone());  // NOLINT(bugprone-use-after-move)
  target = EValue(2.0);
  EXPECT_TRUE(target.isDouble());
  EValue& same = target;
  target = same;  // self-assignment keeps the value
  EXPECT_EQ(target.toDouble(), 2.0);

  static_assert(std::is_nothrow_move_constructible<EValue>::value);
  static_assert(std::is_copy_constructible<EValue>::value);
  static_assert(std::is_same<torch::executor::EValue, EValue>::value);
  static_assert(std::is_same<torch::executor::BoxedEvalueList<int64_t>, BoxedEvalueList<int64_t>>::value);
}

TEST(EValue, ToOptionalOfValues) {
  EValue e(int64_t{5});
  std::optional<int64_t> o = e.toOptional<int64_t>();
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(*o, 5);
  EXPECT_FALSE(EValue().toOptional<int64_t>().has_value());
  EXPECT_FALSE(EValue().toOptional<double>().has_value());
  EXPECT_EQ(EValue(1.0).toOptional<double>().value(), 1.0);
  EXPECT_EQ(EValue(true).toOptional<bool>().value(), true);
  Result<std::optional<int64_t>> r = e.tryToOptional<int64_t>();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value(), 5);
  EXPECT_EQ(EValue(2.0).tryToOptional<int64_t>().error(), Error::InvalidType);
  EXPECT_EQ(e.tryTo<int64_t>().get(), 5);
  EXPECT_EQ(e.tryTo<double>().error(), Error::InvalidType);
  EXPECT_EQ(std::move(e).to<int64_t>(), 5);
}

TEST(EValueDeathTest, WrongKindAborts) {
  EXPECT_DEATH((void)EValue(true).toInt(), "EValue is not an int");
  EXPECT_DEATH((void)EValue(int64_t{1}).toDouble(), "EValue is not a Double");
  EXPECT_DEATH((void)EValue().toTensor(), "EValue is not a Tensor");
  EXPECT_DEATH((void)EValue(int64_t{42}).toListOptionalTensor(), "EValue is not a");
  EXPECT_DEATH((void)EValue().toScalar(), "EValue is not a Scalar");
  EXPECT_DEATH((void)EValue(1.0).toScalarType(), "EValue is not a ScalarType");
}

TEST(EValueDeathTest, NullPointersAbort) {
  ArrayRef<char>* null_string = nullptr;
  EXPECT_DEATH(EValue{null_string}, "pointer cannot be null");
  BoxedEvalueList<int64_t>* null_ints = nullptr;
  EXPECT_DEATH(EValue{null_ints}, "pointer cannot be null");
  ArrayRef<double>* null_doubles = nullptr;
  EXPECT_DEATH(EValue{null_doubles}, "pointer cannot be null");
  int64_t storage[2];
  EXPECT_DEATH((BoxedEvalueList<int64_t>(nullptr, storage, 2)), "wrapped_vals cannot be null");
  EValue v(int64_t{1});
  EValue* wrapped[1] = {&v};
  EXPECT_DEATH((BoxedEvalueList<int64_t>(wrapped, nullptr, 1)), "unwrapped_vals cannot be null");
  EXPECT_DEATH((BoxedEvalueList<int64_t>(wrapped, storage, -1)), "size cannot be negative");
  // get() aborts on a missing item where tryGet() reports it.
  EValue* with_null[1] = {nullptr};
  BoxedEvalueList<int64_t> missing(with_null, storage, 1);
  EXPECT_DEATH((void)missing.get(), "");
}

}  // namespace
