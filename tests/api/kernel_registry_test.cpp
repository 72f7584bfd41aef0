// The kernel registry and custom operators, as upstream's runtime/kernel/{operator_registry,kernel_runtime_context,
// kernel_includes}.h and extension/kernel_util/{make_boxed_from_unboxed_functor,meta_programming,type_list}.h declare
// them: Kernel / KernelKey / TensorMeta, register_kernel(s), lookups with and without tensor metadata,
// get_registered_kernels, EXECUTORCH_LIBRARY, make_boxed_kernel / WrapUnboxedIntoFunctor / EXECUTORCH_FN, and the
// failure state of ET_KERNEL_CHECK(_MSG).
#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/extension/kernel_util/meta_programming.h>
#include <executorch/extension/kernel_util/type_list.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

using executorch::aten::ArrayRef;
using executorch::aten::DimOrderType;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::get_op_function_from_registry;
using executorch::runtime::get_registered_kernels;
using executorch::runtime::Kernel;
using executorch::runtime::KernelKey;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::OpFunction;
using executorch::runtime::register_kernel;
using executorch::runtime::register_kernels;
using executorch::runtime::registry_has_op_function;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::TensorMeta;

namespace {

// A 1-D float tensor over caller-owned storage.
struct FloatTensor {
  std::vector<float> data;
  TensorImpl::SizesType size;
  TensorImpl::DimOrderType dim_order = 0;
  TensorImpl impl;
  explicit FloatTensor(std::vector<float> values)
      : data(std::move(values)),
        size(static_cast<TensorImpl::SizesType>(data.size())),
        impl(ScalarType::Float, 1, &size, data.data(), &dim_order) {}
  Tensor tensor() { return Tensor(&impl); }
};

int g_calls = 0;

void first_kernel(KernelRuntimeContext&, Span<EValue*> args) {
  ++g_calls;
  if (args.size() > 0 && args[0]->isInt()) *args[0] = EValue(int64_t{1});
}
void second_kernel(KernelRuntimeContext&, Span<EValue*> args) {
  if (args.size() > 0 && args[0]->isInt()) *args[0] = EValue(int64_t{2});
}
void third_kernel(KernelRuntimeContext&, Span<EValue*> args) {
  if (args.size() > 0 && args[0]->isInt()) *args[0] = EValue(int64_t{3});
}

// Calls the registered kernel `name` on one Int value and returns what it wrote there.
int64_t call_marker(OpFunction fn) {
  EValue v(int64_t{0});
  EValue* stack[] = {&v};
  KernelRuntimeContext ctx;
  fn(ctx, Span<EValue*>(stack, 1));
  return v.toInt();
}

// out = x * alpha (upstream's typed-kernel style, with the context first).
Tensor& lib_scale_out(KernelRuntimeContext& ctx, const Tensor& x, double alpha, Tensor& out) {
  ET_KERNEL_CHECK(ctx, x.numel() == out.numel(), InvalidArgument, out);
  for (ssize_t i = 0; i < x.numel(); ++i) {
    out.mutable_data_ptr<float>()[i] = static_cast<float>(x.const_data_ptr<float>()[i] * alpha);
  }
  return out;
}
// The same name again, other behaviour: its registration must fail and leave the first in place.
Tensor& lib_scale_out_again(KernelRuntimeContext& ctx, const Tensor& x, double alpha, Tensor& out) {
  (void)x;
  (void)alpha;
  ctx.fail(Error::Internal);
  return out;
}

}  // namespace

EXECUTORCH_LIBRARY(infra_lib, "scale.out", lib_scale_out);
EXECUTORCH_LIBRARY(infra_lib, "scale.out", lib_scale_out_again);

TEST(KernelRegistry, RegisterLookUpAndDuplicates) {
  executorch::runtime::runtime_init();
  const size_t before = get_registered_kernels().size();
  EXPECT_FALSE(registry_has_op_function("infra_test::marker.out"));
  EXPECT_EQ(get_op_function_from_registry("infra_test::marker.out").error(), Error::OperatorMissing);

  const Kernel k("infra_test::marker.out", first_kernel);
  EXPECT_EQ(register_kernel(k), Error::Ok);
  EXPECT_TRUE(registry_has_op_function("infra_test::marker.out"));
  Result<OpFunction> fn = get_op_function_from_registry("infra_test::marker.out");
  ASSERT_TRUE(fn.ok());
  EXPECT_EQ(*fn, &first_kernel);
  g_calls = 0;
  EXPECT_EQ(call_marker(*fn), 1);
  EXPECT_EQ(g_calls, 1);

  // The same name and key again: refused with upstream's error code, and the first kernel stays.
  EXPECT_EQ(register_kernel(Kernel("infra_test::marker.out", second_kernel)), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(*get_op_function_from_registry("infra_test::marker.out"), &first_kernel);

  // A batch through the Span form; one duplicate rejects the whole batch.
  const Kernel batch[] = {Kernel("infra_test::batch_a.out", second_kernel),
                          Kernel("infra_test::marker.out", third_kernel)};
  EXPECT_EQ(register_kernels(Span<const Kernel>(batch, 2)), Error::RegistrationAlreadyRegistered);
  EXPECT_FALSE(registry_has_op_function("infra_test::batch_a.out"));
  const Kernel good[] = {Kernel("infra_test::batch_a.out", second_kernel),
                         Kernel("infra_test::batch_b.out", third_kernel)};
  EXPECT_EQ(register_kernels({good, 2}), Error::Ok);
  EXPECT_EQ(call_marker(*get_op_function_from_registry("infra_test::batch_a.out")), 2);
  EXPECT_EQ(call_marker(*get_op_function_from_registry("infra_test::batch_b.out")), 3);

  // get_registered_kernels lists them, in registration order, with their functions and fallback keys.
  Span<const Kernel> all = get_registered_kernels();
  ASSERT_EQ(all.size(), before + 3);
  EXPECT_STREQ(all[before].name_, "infra_test::marker.out");
  EXPECT_EQ(all[before].op_, &first_kernel);
  EXPECT_TRUE(all[before].kernel_key_.is_fallback());
  EXPECT_STREQ(all[before + 2].name_, "infra_test::batch_b.out");
  EXPECT_EQ(all[before + 2].op_, &third_kernel);

  // torch::executor's forms.
  EXPECT_TRUE(torch::executor::hasOpsFn("infra_test::batch_b.out"));
  EXPECT_EQ(torch::executor::getOpsFn("infra_test::batch_b.out"), &third_kernel);
  EXPECT_EQ(torch::executor::get_kernels().size(), get_registered_kernels().size());
  const Kernel legacy[] = {Kernel("infra_test::legacy.out", first_kernel)};
  EXPECT_EQ(torch::executor::register_kernels(ArrayRef<Kernel>(legacy, 1)), Error::Ok);
  EXPECT_TRUE(registry_has_op_function("infra_test::legacy.out"));
}

TEST(KernelRegistry, RegistryKeepsItsOwnCopyOfNames) {
  {
    std::string name = "infra_test::";
    name += "temporary_name.out";
    EXPECT_EQ(register_kernel(Kernel(name.c_str(), first_kernel)), Error::Ok);
    name.assign(name.size(), 'x');  // the caller's string changes and goes away
  }
  EXPECT_TRUE(registry_has_op_function("infra_test::temporary_name.out"));
  Span<const Kernel> all = get_registered_kernels();
  EXPECT_STREQ(all[all.size() - 1].name_, "infra_test::temporary_name.out");
}

TEST(KernelRegistry, KernelKeyString) {
  using executorch::runtime::internal::kKernelKeyBufSize;
  using executorch::runtime::internal::make_kernel_key_string;
  DimOrderType nchw[] = {0, 1, 2, 3};
  DimOrderType nhwc[] = {0, 2, 3, 1};
  DimOrderType one[] = {0};
  const TensorMeta metas[] = {TensorMeta(ScalarType::Float, Span<DimOrderType>(nchw, 4)),
                              TensorMeta(ScalarType::Long, Span<DimOrderType>(one, 1)),
                              TensorMeta(ScalarType::Float, Span<DimOrderType>(nhwc, 4))};
  char buf[kKernelKeyBufSize];
  ASSERT_EQ(make_kernel_key_string(Span<const TensorMeta>(metas, 3), buf, sizeof(buf)), Error::Ok);
  EXPECT_STREQ(buf, "v1/6;0,1,2,3|4;0|6;0,2,3,1");
  ASSERT_EQ(make_kernel_key_string(Span<const TensorMeta>(metas, 1), buf, sizeof(buf)), Error::Ok);
  EXPECT_STREQ(buf, "v1/6;0,1,2,3");
  buf[0] = 'z';
  ASSERT_EQ(make_kernel_key_string({}, buf, sizeof(buf)), Error::Ok);
  EXPECT_STREQ(buf, "");
  // "v1/6;0,1,2,3" needs 13 bytes with its terminator.
  EXPECT_EQ(make_kernel_key_string(Span<const TensorMeta>(metas, 1), buf, 12), Error::InvalidArgument);
  EXPECT_EQ(make_kernel_key_string(Span<const TensorMeta>(metas, 1), buf, 13), Error::Ok);
  EXPECT_EQ(kKernelKeyBufSize, 659u);

  // TensorMeta / KernelKey comparisons.
  EXPECT_EQ(metas[0], TensorMeta(ScalarType::Float, Span<DimOrderType>(nchw, 4)));
  EXPECT_NE(metas[0], metas[2]);
  EXPECT_NE(metas[0], metas[1]);
  EXPECT_TRUE(KernelKey().is_fallback());
  EXPECT_FALSE(KernelKey("v1/6;0").is_fallback());
  EXPECT_EQ(KernelKey("v1/6;0"), KernelKey("v1/6;0"));
  EXPECT_NE(KernelKey("v1/6;0"), KernelKey());
  EXPECT_NE(KernelKey("v1/6;0"), KernelKey("v1/4;0"));
  EXPECT_EQ(KernelKey(), KernelKey());
}

TEST(KernelRegistry, KeyedKernelsAndFallback) {
  DimOrderType two[] = {0, 1};
  const TensorMeta float_meta[] = {TensorMeta(ScalarType::Float, Span<DimOrderType>(two, 2))};
  const TensorMeta long_meta[] = {TensorMeta(ScalarType::Long, Span<DimOrderType>(two, 2))};
  const Kernel kernels[] = {
      Kernel("infra_test::keyed.out", second_kernel),                        // fallback
      Kernel("infra_test::keyed.out", KernelKey("v1/6;0,1"), third_kernel),  // float, contiguous
  };
  ASSERT_EQ(register_kernels({kernels, 2}), Error::Ok);
  EXPECT_EQ(*get_op_function_from_registry("infra_test::keyed.out", {float_meta, 1}), &third_kernel);
  EXPECT_EQ(*get_op_function_from_registry("infra_test::keyed.out", {long_meta, 1}), &second_kernel);
  EXPECT_EQ(*get_op_function_from_registry("infra_test::keyed.out"), &second_kernel);
  EXPECT_TRUE(registry_has_op_function("infra_test::keyed.out", {long_meta, 1}));
  // Same name and same key: a duplicate; same name, new key: fine.
  EXPECT_EQ(register_kernel(Kernel("infra_test::keyed.out", KernelKey("v1/6;0,1"), first_kernel)),
            Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(register_kernel(Kernel("infra_test::keyed.out", KernelKey("v1/4;0,1"), first_kernel)), Error::Ok);
  EXPECT_EQ(*get_op_function_from_registry("infra_test::keyed.out", {long_meta, 1}), &first_kernel);

  // Only a keyed kernel, no fallback: found for its key only.
  ASSERT_EQ(register_kernel(Kernel("infra_test::only_keyed.out", KernelKey("v1/6;0,1"), third_kernel)), Error::Ok);
  EXPECT_TRUE(registry_has_op_function("infra_test::only_keyed.out", {float_meta, 1}));
  EXPECT_FALSE(registry_has_op_function("infra_test::only_keyed.out", {long_meta, 1}));
  EXPECT_EQ(get_op_function_from_registry("infra_test::only_keyed.out").error(), Error::OperatorMissing);

  // The same lookup over a caller's kernel list.
  const Kernel list[] = {Kernel("x::y.out", first_kernel), Kernel("x::y.out", KernelKey("v1/4;0,1"), third_kernel)};
  EXPECT_EQ(*get_op_function_from_registry("x::y.out", {long_meta, 1}, {list, 2}), &third_kernel);
  EXPECT_EQ(*get_op_function_from_registry("x::y.out", {float_meta, 1}, {list, 2}), &first_kernel);
  EXPECT_EQ(get_op_function_from_registry("x::z.out", {}, {list, 2}).error(), Error::OperatorMissing);
}

TEST(KernelRegistry, ExecutorchLibraryRegistersAndKeepsTheFirst) {
  Result<OpFunction> fn = get_op_function_from_registry("infra_lib::scale.out");
  ASSERT_TRUE(fn.ok());
  FloatTensor x({1.f, -2.f, 3.f}), out({0.f, 0.f, 0.f});
  EValue values[] = {EValue(x.tensor()), EValue(2.5), EValue(out.tensor()), EValue(out.tensor())};
  EValue* stack[] = {&values[0], &values[1], &values[2], &values[3]};
  KernelRuntimeContext ctx;
  (*fn)(ctx, Span<EValue*>(stack, 4));
  EXPECT_EQ(ctx.failure_state(), Error::Ok);
  EXPECT_EQ(out.data, (std::vector<float>{2.5f, -5.f, 7.5f}));
  // ET_KERNEL_CHECK inside the typed kernel: a size mismatch fails the call with InvalidArgument.
  FloatTensor small({0.f});
  values[2] = EValue(small.tensor());
  KernelRuntimeContext bad;
  (*fn)(bad, Span<EValue*>(stack, 4));
  EXPECT_EQ(bad.failure_state(), Error::InvalidArgument);
}

// One kernel taking every parameter type the adapter supports (upstream's set); it records what it received.
struct Seen {
  float x0 = 0, tensor_list_sum = 0;
  double d = 0;
  int64_t i = 0, int_list_sum = 0, opt_int = -1;
  bool b = false, bool_list_and = false, opt_double_none = false, opt_tensor_none = false;
  double scalar = 0, double_list_sum = 0;
  ScalarType dtype = ScalarType::Undefined;
  std::optional<ScalarType> opt_dtype;
  std::string str;
  size_t opt_tensor_list_present = 0;
};
Seen g_seen;

Tensor& every_type_out(KernelRuntimeContext& ctx, const Tensor& x, double d, int64_t i, bool b, const Scalar& s,
                       ScalarType dtype, std::optional<int64_t> opt_int, std::optional<double> opt_double,
                       const std::optional<Tensor>& opt_tensor, std::optional<ScalarType> opt_dtype,
                       ArrayRef<int64_t> ints, ArrayRef<double> doubles, ArrayRef<bool> bools, ArrayRef<Tensor> tensors,
                       ArrayRef<std::optional<Tensor>> opt_tensors, std::string_view str, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, str != "fail", InvalidArgument, out, "asked to fail (%d)", 7);
  g_seen.x0 = x.const_data_ptr<float>()[0];
  g_seen.d = d;
  g_seen.i = i;
  g_seen.b = b;
  g_seen.scalar = s.to<double>();
  g_seen.dtype = dtype;
  g_seen.opt_int = opt_int.value_or(-1);
  g_seen.opt_double_none = !opt_double.has_value();
  g_seen.opt_tensor_none = !opt_tensor.has_value();
  g_seen.opt_dtype = opt_dtype;
  g_seen.int_list_sum = 0;
  for (int64_t v : ints) g_seen.int_list_sum += v;
  g_seen.double_list_sum = 0;
  for (double v : doubles) g_seen.double_list_sum += v;
  g_seen.bool_list_and = true;
  for (bool v : bools) g_seen.bool_list_and = g_seen.bool_list_and && v;
  g_seen.tensor_list_sum = 0;
  for (const Tensor& t : tensors) g_seen.tensor_list_sum += t.const_data_ptr<float>()[0];
  g_seen.opt_tensor_list_present = 0;
  for (const auto& t : opt_tensors) g_seen.opt_tensor_list_present += t.has_value() ? 1 : 0;
  g_seen.str.assign(str.data(), str.size());
  out.mutable_data_ptr<float>()[0] = static_cast<float>(d * 2);
  return out;
}

// Without the context parameter (allowed here; upstream needs it first).
Tensor& no_context_out(const Tensor& x, Tensor& out) {
  out.mutable_data_ptr<float>()[0] = x.const_data_ptr<float>()[0] + 1;
  return out;
}

TEST(MakeBoxedKernel, EveryParameterType) {
  using Wrapped = executorch::extension::WrapUnboxedIntoFunctor<decltype(EXECUTORCH_FN(every_type_out))>;
  static_assert(Wrapped::first_arg_is_context, "the context comes first");
  static_assert(std::is_same<Wrapped::ReturnType, Tensor&>::value, "returns the out tensor");
  static_assert(executorch::extension::kernel_util_internal::size<Wrapped::ContextRemovedArgsType>::value == 17,
                "17 arguments besides the context");
  const Kernel k =
      executorch::extension::make_boxed_kernel("infra_test::every_type.out", EXECUTORCH_FN(every_type_out));
  EXPECT_STREQ(k.name_, "infra_test::every_type.out");
  EXPECT_TRUE(k.kernel_key_.is_fallback());
  ASSERT_EQ(register_kernel(k), Error::Ok);
  OpFunction fn = *get_op_function_from_registry("infra_test::every_type.out");

  FloatTensor x({4.f}), out({0.f}), t1({1.f}), t2({2.f});
  // int[] and Tensor[] / Tensor?[] lists are boxed: EValues plus room for the unboxed values.
  EValue i0(int64_t{3}), i1(int64_t{4}), i2(int64_t{5});
  EValue* int_wrapped[] = {&i0, &i1, &i2};
  int64_t int_unwrapped[3] = {};
  const double doubles[] = {0.5, 0.25};
  const bool bools[] = {true, true, false};
  EValue e1(t1.tensor()), e2(t2.tensor()), none;
  EValue* tensor_wrapped[] = {&e1, &e2};
  Tensor tensor_unwrapped[] = {t1.tensor(), t2.tensor()};
  EValue* opt_wrapped[] = {&e1, &none, &e2};
  std::optional<Tensor> opt_unwrapped[3];
  const char str[] = "mode";
  std::vector<EValue> values = {
      EValue(x.tensor()),
      EValue(1.5),
      EValue(int64_t{-7}),
      EValue(true),
      EValue(Scalar(2.25)),
      EValue(static_cast<int64_t>(ScalarType::Double)),  // a ScalarType argument is an int in programs
      EValue(int64_t{42}),                               // optional<int64_t> with a value
      EValue(),                                          // optional<double>: None
      EValue(),                                          // optional<Tensor>: None
      EValue(static_cast<int64_t>(ScalarType::Long)),    // optional<ScalarType> with a value
      EValue(BoxedEvalueList<int64_t>(int_wrapped, int_unwrapped, 3)),
      EValue(ArrayRef<double>(doubles, 2)),
      EValue(ArrayRef<bool>(bools, 3)),
      EValue(BoxedEvalueList<Tensor>(tensor_wrapped, tensor_unwrapped, 2)),
      EValue(BoxedEvalueList<std::optional<Tensor>>(opt_wrapped, opt_unwrapped, 3)),
      EValue(str, 4),
      EValue(out.tensor()),
      EValue(out.tensor()),  // the return slot
  };
  std::vector<EValue*> stack;
  for (auto& v : values) stack.push_back(&v);
  KernelRuntimeContext ctx;
  fn(ctx, Span<EValue*>(stack.data(), stack.size()));
  ASSERT_EQ(ctx.failure_state(), Error::Ok);
  EXPECT_EQ(g_seen.x0, 4.f);
  EXPECT_EQ(g_seen.d, 1.5);
  EXPECT_EQ(g_seen.i, -7);
  EXPECT_TRUE(g_seen.b);
  EXPECT_EQ(g_seen.scalar, 2.25);
  EXPECT_EQ(g_seen.dtype, ScalarType::Double);
  EXPECT_EQ(g_seen.opt_int, 42);
  EXPECT_TRUE(g_seen.opt_double_none);
  EXPECT_TRUE(g_seen.opt_tensor_none);
  ASSERT_TRUE(g_seen.opt_dtype.has_value());
  EXPECT_EQ(*g_seen.opt_dtype, ScalarType::Long);
  EXPECT_EQ(g_seen.int_list_sum, 12);
  EXPECT_EQ(g_seen.double_list_sum, 0.75);
  EXPECT_FALSE(g_seen.bool_list_and);
  EXPECT_EQ(g_seen.tensor_list_sum, 3.f);
  EXPECT_EQ(g_seen.opt_tensor_list_present, 2u);
  EXPECT_EQ(g_seen.str, "mode");
  EXPECT_EQ(out.data[0], 3.f);

  // ET_KERNEL_CHECK_MSG: the kernel fails with the given error and returns early.
  const char fail[] = "fail";
  values[15] = EValue(fail, 4);
  out.data[0] = -1.f;
  KernelRuntimeContext failing;
  fn(failing, Span<EValue*>(stack.data(), stack.size()));
  EXPECT_EQ(failing.failure_state(), Error::InvalidArgument);
  EXPECT_EQ(out.data[0], -1.f);

  // A kernel without the context parameter.
  const Kernel plain =
      executorch::extension::make_boxed_kernel("infra_test::no_context.out", EXECUTORCH_FN(no_context_out));
  EValue a(x.tensor()), o(out.tensor()), r(out.tensor());
  EValue* small[] = {&a, &o, &r};
  KernelRuntimeContext ok;
  plain.op_(ok, Span<EValue*>(small, 3));
  EXPECT_EQ(ok.failure_state(), Error::Ok);
  EXPECT_EQ(out.data[0], 5.f);
}

// Upstream's two-argument EXECUTORCH_FN carries the operator name; the name is a constant with linkage.
static constexpr const char kNamed[] = "infra_test::named.out";
TEST(MakeBoxedKernel, ExecutorchFnWithName) {
  using Fn = decltype(EXECUTORCH_FN(no_context_out, kNamed));
  static_assert(executorch::extension::kernel_util_internal::is_compile_time_function_pointer<Fn>::value, "");
  EXPECT_STREQ(Fn::func_name_, "infra_test::named.out");
  EXPECT_EQ(Fn::func_ptr(), &no_context_out);
  using Traits = executorch::extension::kernel_util_internal::infer_function_traits_t<Fn::FuncType>;
  static_assert(Traits::number_of_parameters == 2, "");
  static_assert(std::is_same<Traits::parameter_types,
                             executorch::extension::kernel_util_internal::typelist<const Tensor&, Tensor&>>::value,
                "");
  using executorch::extension::kernel_util_internal::drop_if_nonempty_t;
  using executorch::extension::kernel_util_internal::element_t;
  using executorch::extension::kernel_util_internal::head_with_default_t;
  using executorch::extension::kernel_util_internal::typelist;
  static_assert(std::is_same<element_t<1, typelist<int, char, bool>>, char>::value, "");
  static_assert(std::is_same<head_with_default_t<void, typelist<>>, void>::value, "");
  static_assert(std::is_same<drop_if_nonempty_t<typelist<int, char>, 1>, typelist<char>>::value, "");
  static_assert(std::is_same<drop_if_nonempty_t<typelist<int>, 3>, typelist<>>::value, "");
}

TEST(KernelRuntimeContext, FailAndTempMemory) {
  KernelRuntimeContext none;
  EXPECT_EQ(none.failure_state(), Error::Ok);
  EXPECT_EQ(none.internal_event_tracer(), nullptr);
  EXPECT_EQ(none.allocate_temp(16).error(), Error::NotFound);
  none.fail(Error::InvalidArgument);
  EXPECT_EQ(none.failure_state(), Error::InvalidArgument);

  alignas(64) uint8_t pool[256];
  MemoryAllocator temp(sizeof(pool), pool);
  KernelRuntimeContext ctx(nullptr, &temp);
  Result<void*> a = ctx.allocate_temp(100, 64);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 64, 0u);
  EXPECT_GE(static_cast<uint8_t*>(*a), pool);
  EXPECT_EQ(ctx.allocate_temp(1000).error(), Error::MemoryAllocationFailed);
  // torch::executor's and executorch::aten's names for the context.
  static_assert(std::is_same<torch::executor::RuntimeContext, KernelRuntimeContext>::value, "");
  static_assert(std::is_same<executorch::aten::RuntimeContext, KernelRuntimeContext>::value, "");
}

// ET_DEFINE_OPERATOR_NAME gives a name usable as a template argument.
ET_DEFINE_OPERATOR_NAME(kDefinedName, "infra_test::defined.out");
template <ET_OPERATOR_NAME_TYPE name>
const char* operator_name() {
  return name;
}
TEST(KernelIncludes, OperatorName) {
  EXPECT_STREQ(operator_name<kDefinedName>(), "infra_test::defined.out");
  EXPECT_EQ(ET_USE_STRUCTURAL_OPERATOR_NAME, 0);
}
