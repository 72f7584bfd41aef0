// Unit tests of the runtime core and the thread pool: registries, tensors, errors, the pool, Module (GoogleTest).
// Usage: unit_tests [gtest flags] [FIXTURES_DIR]. Without FIXTURES_DIR (tests/fixtures) the Module tests skip.
// The tests of one run share the process-wide registries and pool, so each measures against what it finds.
#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/platform/components.h>

#include <gtest/gtest.h>

#include "npy.h"
#include "gtest_support.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::TensorShapeDynamism;
using executorch::extension::make_tensor_ptr;
using executorch::extension::Module;

namespace {

std::string g_fixtures;  // the FIXTURES_DIR argument, empty when none was given

void noop_kernel(KernelRuntimeContext&, Span<EValue*>) {}

class DummyBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override { return Error::Ok; }
};

TEST(Errors, CodesAndNames) {
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidProgram), 0x23u);
  EXPECT_EQ(static_cast<uint32_t>(Error::OperatorMissing), 0x14u);
  EXPECT_EQ(static_cast<uint32_t>(Error::DelegateInvalidHandle), 0x32u);
  EXPECT_STREQ(to_string(Error::NotFound), "NotFound");
}

TEST(KernelRegistry, RegistersRejectsDuplicatesAndOverflow) {
  const size_t before = get_num_registered_kernels();
  EXPECT_EQ(register_kernel(Kernel("test::op.out", noop_kernel)), Error::Ok);
  EXPECT_TRUE(registry_has_op_function("test::op.out"));
  // A duplicate is an error, never an abort, and adds nothing.
  EXPECT_EQ(register_kernel(Kernel("test::op.out", noop_kernel)), Error::RegistrationAlreadyRegistered);
  const Kernel batch[] = {Kernel("test::a.out", noop_kernel), Kernel("test::op.out", noop_kernel)};
  EXPECT_EQ(register_kernels(Span<const Kernel>(batch, 2)), Error::RegistrationAlreadyRegistered);
  EXPECT_FALSE(registry_has_op_function("test::a.out"));
  EXPECT_EQ(get_num_registered_kernels(), before + 1);
  EXPECT_FALSE(get_op_function_from_registry("test::missing.out").ok());
  EXPECT_EQ(get_op_function_from_registry("test::missing.out").error(), Error::OperatorMissing);
  // Prim ops come with the runtime itself.
  EXPECT_TRUE(registry_has_op_function("aten::sym_size.int"));
  // Capacity never overflows silently.
  static std::vector<std::string> names;  // the registry keeps the name pointers
  names.reserve(kMaxRegisteredKernels + 1);
  std::vector<Kernel> many;
  for (size_t i = 0; i <= kMaxRegisteredKernels; ++i) {
    names.push_back("test::many" + std::to_string(i) + ".out");
  }
  for (const auto& n : names) many.emplace_back(n.c_str(), noop_kernel);
  EXPECT_EQ(register_kernels(Span<const Kernel>(many.data(), many.size())), Error::RegistrationExceedingMaxKernels);
  EXPECT_EQ(get_num_registered_kernels(), before + 1);
}

// A typed kernel in upstream's style: out = x * alpha + beta, optionally negated, over the listed rows.
executorch::aten::Tensor& typed_axpb(KernelRuntimeContext& ctx, const executorch::aten::Tensor& x, double alpha,
                                     const executorch::aten::Scalar& beta, std::optional<bool> negate,
                                     executorch::aten::ArrayRef<int64_t> rows, std::string_view mode,
                                     executorch::aten::Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, mode == "rows", InvalidArgument, out, "mode %d", 1);
  const int64_t n = static_cast<int64_t>(rows.size());
  ET_KERNEL_CHECK(ctx, resize_tensor(out, executorch::aten::ArrayRef<int64_t>(&n, 1)) == Error::Ok, InvalidArgument,
                  out);
  ET_SWITCH_FLOAT_TYPES(x.scalar_type(), ctx, "typed_axpb", CTYPE, [&]() {
    for (size_t i = 0; i < rows.size(); ++i) {
      const double v = x.const_data_ptr<CTYPE>()[rows[i]] * alpha + beta.to<double>();
      out.mutable_data_ptr<CTYPE>()[i] = static_cast<CTYPE>(negate.value_or(false) ? -v : v);
    }
  });
  return out;
}

TEST(KernelUtil, TypedKernelAdapterReadsAndChecksArguments) {
  const Kernel k = executorch::extension::make_boxed_kernel("test::typed_axpb.out", EXECUTORCH_FN(typed_axpb));
  auto x = make_tensor_ptr({4}, std::vector<float>{1, 2, 3, 4});
  auto out = make_tensor_ptr({2}, std::vector<float>{0, 0});
  int64_t row_values[] = {3, 1};
  EValue row_items[] = {EValue(row_values[0]), EValue(row_values[1])};
  EValue* row_ptrs[] = {&row_items[0], &row_items[1]};
  int64_t unwrapped[2];
  const char mode[] = "rows";
  EValue args[] = {EValue(*x),
                   EValue(0.5),
                   EValue(int64_t{2}),
                   EValue(true),
                   EValue(BoxedEvalueList<int64_t>(row_ptrs, unwrapped, 2)),
                   EValue(mode, 4),
                   EValue(*out),
                   EValue(*out)};
  EValue* stack[8];
  for (int i = 0; i < 8; ++i) stack[i] = &args[i];
  KernelRuntimeContext ok_ctx;
  k.op_(ok_ctx, Span<EValue*>(stack, 8));
  ASSERT_EQ(ok_ctx.failure_state(), Error::Ok) << ok_ctx.failure_message();
  EXPECT_FLOAT_EQ(out->const_data_ptr<float>()[0], -(4 * 0.5f + 2));
  EXPECT_FLOAT_EQ(out->const_data_ptr<float>()[1], -(2 * 0.5f + 2));
  // None for the optional argument; an Int where a float is taken converts.
  args[3] = EValue();
  args[1] = EValue(int64_t{1});
  KernelRuntimeContext none_ctx;
  k.op_(none_ctx, Span<EValue*>(stack, 8));
  ASSERT_EQ(none_ctx.failure_state(), Error::Ok) << none_ctx.failure_message();
  EXPECT_FLOAT_EQ(out->const_data_ptr<float>()[0], 6.f);
  // A value of the wrong kind fails the call naming the argument (no abort); so does a short stack.
  args[0] = EValue(1.5);
  KernelRuntimeContext bad_ctx;
  k.op_(bad_ctx, Span<EValue*>(stack, 8));
  EXPECT_EQ(bad_ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(bad_ctx.failure_message()).find("argument 0 is Double, the kernel takes a Tensor"),
            std::string::npos)
      << bad_ctx.failure_message();
  args[0] = EValue(*x);
  KernelRuntimeContext short_ctx;
  k.op_(short_ctx, Span<EValue*>(stack, 3));
  EXPECT_EQ(short_ctx.failure_state(), Error::InvalidArgument);
  // ET_KERNEL_CHECK_MSG and ET_SWITCH_* report through the context.
  const char other[] = "cols";
  args[5] = EValue(other, 4);
  KernelRuntimeContext check_ctx;
  k.op_(check_ctx, Span<EValue*>(stack, 8));
  EXPECT_EQ(check_ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(check_ctx.failure_message()).find("mode == \"rows\""), std::string::npos);
  args[5] = EValue(mode, 4);
  auto ints = make_tensor_ptr({4}, std::vector<int32_t>{1, 2, 3, 4});
  args[0] = EValue(*ints);
  KernelRuntimeContext dtype_ctx;
  k.op_(dtype_ctx, Span<EValue*>(stack, 8));
  EXPECT_EQ(dtype_ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(dtype_ctx.failure_message()).find("unsupported dtype Int"), std::string::npos);
}

TEST(BackendRegistry, RegistersRejectsDuplicatesAndOverflow) {
  static DummyBackend backend;
  const size_t before = get_num_registered_backends();
  EXPECT_EQ(register_backend(Backend{"TestBackend", &backend}), Error::Ok);
  EXPECT_EQ(get_backend_class("TestBackend"), &backend);
  EXPECT_EQ(register_backend(Backend{"TestBackend", &backend}), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_num_registered_backends(), before + 1);
  EXPECT_EQ(get_backend_class("NoSuchBackend"), nullptr);
  static std::vector<std::string> names;  // the registry keeps the name pointers
  names.reserve(kMaxRegisteredBackends + 1);
  Error last = Error::Ok;
  for (size_t i = 0; i <= kMaxRegisteredBackends; ++i) {
    names.push_back("Fill" + std::to_string(i));
    last = register_backend(Backend{names.back().c_str(), &backend});
  }
  EXPECT_EQ(last, Error::OutOfResources);
  EXPECT_EQ(get_num_registered_backends(), kMaxRegisteredBackends);
}

TEST(Tensors, MakeResizeAndDimOrder) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
  auto t = make_tensor_ptr({2, 4}, data.data());
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->dim() == 2 && t->size(0) == 2 && t->size(1) == 4 && t->numel() == 8);
  EXPECT_TRUE(t->scalar_type() == ScalarType::Float && t->const_data_ptr<float>()[5] == 6.0f);
  EXPECT_TRUE(t->strides()[0] == 4 && t->strides()[1] == 1);
  // Dynamic-bound tensors resize within their bound only.
  EXPECT_TRUE(executorch::extension::resize_tensor_ptr(t, {1, 4}) == Error::Ok && t->numel() == 4);
  EXPECT_NE(executorch::extension::resize_tensor_ptr(t, {3, 4}), Error::Ok);
  EXPECT_NE(executorch::extension::resize_tensor_ptr(t, {2, 2, 2}), Error::Ok);
  auto s = make_tensor_ptr({2, 2}, data.data(), ScalarType::Float, TensorShapeDynamism::STATIC);
  EXPECT_EQ(executorch::extension::resize_tensor_ptr(s, {1, 4}), Error::NotSupported);
  auto owned = make_tensor_ptr<int64_t>({3}, std::vector<int64_t>{7, 8, 9});
  ASSERT_NE(owned, nullptr);
  EXPECT_TRUE(owned->scalar_type() == ScalarType::Long && owned->const_data_ptr<int64_t>()[2] == 9);
  auto cl = make_tensor_ptr({2, 1, 2}, data.data(), {0, 2, 1}, {});  // channels-last style dim order
  ASSERT_NE(cl, nullptr);
  EXPECT_TRUE(cl->strides()[1] == 1 && cl->strides()[2] == 1 && cl->strides()[0] == 2);
  // An invalid dim order aborts, as upstream's ET_CHECK does.
  EXPECT_DEATH((void)make_tensor_ptr({2}, data.data(), {0, 0}, {}), "dim order");
  EValue v(owned);
  EXPECT_TRUE(v.isTensor() && v.toTensor().numel() == 3);
  auto z = executorch::extension::ones({2, 3}, ScalarType::Long);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->const_data_ptr<int64_t>()[5], 1);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // _unsafe_reset_threadpool, as upstream's
TEST(Threadpool, OnePoolParallelForAndNesting) {
  using executorch::extension::threadpool::get_threadpool;
  auto* pool = get_threadpool();
  const char* env = std::getenv("EXECUTORCH_NUM_THREADS");
  if (env != nullptr) {
    EXPECT_EQ(pool->get_thread_count(), static_cast<size_t>(std::atoi(env)));
  }
  EXPECT_EQ(executorch::extension::threadpool::num_threadpools_created(), 1u);
  EXPECT_TRUE(pool->_unsafe_reset_threadpool(3));
  EXPECT_EQ(pool->get_thread_count(), 3u);
  std::vector<int> hits(10000, 0);
  std::atomic<int> outer{0};
  EXPECT_TRUE(executorch::extension::parallel_for(0, 10000, 7, [&](int64_t b, int64_t e) {
    outer.fetch_add(1);
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)] += 1;
    // Nested parallel_for runs serially on the calling thread.
    executorch::extension::parallel_for(0, 4, 1, [](int64_t, int64_t) {});
  }));
  bool all_once = true;
  for (int h : hits) all_once = all_once && h == 1;
  EXPECT_TRUE(all_once) << "every index visited exactly once";
  EXPECT_GE(outer.load(), 2);
  EXPECT_FALSE(executorch::extension::parallel_for(5, 1, 1, [](int64_t, int64_t) {}));
  EXPECT_EQ(executorch::extension::threadpool::num_threadpools_created(), 1u);
  EXPECT_TRUE(pool->_unsafe_reset_threadpool(2));
}
#pragma GCC diagnostic pop

TEST(Components, TableAndLoaderErrors) {
  EXPECT_EQ(load_component("nonexistent"), Error::InvalidArgument);
  const ComponentInfo* c = component_for_operator("aten::add.out");
  EXPECT_NE(c, nullptr);
  if (c != nullptr) {
    EXPECT_STREQ(c->package, "executorch-kernels");
  }
  EXPECT_NE(component_for_backend("XnnpackBackend"), nullptr);
  EXPECT_EQ(component_for_operator("my_ns::op.out"), nullptr);
  EXPECT_EQ(load_library("/nonexistent/libfoo.so"), Error::NotFound);
}

// Discovery by file name and descriptor, in a directory holding only the two test components.
TEST(Components, DiscoveryAndApiVersion) {
  ASSERT_EQ(setenv("EXECUTORCH_COMPONENT_DIR", ET_TEST_COMPONENT_DIR, 1), 0);
  const ComponentInfo* c = component_for_operator("etest::noop.out");
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->name, "testgood");
  EXPECT_STREQ(c->package, "executorch-testgood");
  EXPECT_FALSE(component_loaded("testgood"));                         // described, not registered
  const std::vector<std::string> installed = installed_components();  // both files, loaded or not, by short name
  EXPECT_EQ(std::count(installed.begin(), installed.end(), "testgood"), 1);
  EXPECT_EQ(std::count(installed.begin(), installed.end(), "testbad"), 1);
  EXPECT_EQ(load_component("testgood"), Error::Ok) << last_error_message();
  EXPECT_TRUE(component_loaded("testgood"));
  EXPECT_TRUE(registry_has_op_function("etest::noop.out"));
  // Built for API version 99: refused with both versions and its package named, and nothing registered.
  EXPECT_EQ(component_for_operator("etestbad::noop.out"), nullptr);
  EXPECT_EQ(load_component("testbad"), Error::AccessFailed);
  const std::string why = last_error_message();
  EXPECT_NE(why.find("API version 99"), std::string::npos) << why;
  EXPECT_NE(why.find("API version " + std::to_string(EXECUTORCH_COMPONENT_API_VERSION)), std::string::npos) << why;
  EXPECT_NE(why.find("executorch-testbad 9.9.9"), std::string::npos) << why;
  EXPECT_FALSE(registry_has_op_function("etestbad::noop.out"));
  EXPECT_FALSE(component_loaded("testbad"));
  // The SDK's catalog still names the package of a component whose library is not in the directory (and was not
  // loaded from elsewhere before: a loaded component stays known).
  const ComponentInfo* x = component_for_backend("CudaBackend");
  ASSERT_NE(x, nullptr);
  EXPECT_STREQ(x->package, "executorch-cuda");
  EXPECT_EQ(load_component("cuda"), Error::NotFound);
  EXPECT_NE(std::string(last_error_message()).find("install the executorch-cuda package"), std::string::npos)
      << last_error_message();
  ASSERT_EQ(unsetenv("EXECUTORCH_COMPONENT_DIR"), 0);
}

TEST(Module, Errors) {
  if (g_fixtures.empty()) GTEST_SKIP() << "no FIXTURES_DIR argument";
  Module missing("/nonexistent/model.pte");
  EXPECT_EQ(missing.load(), Error::AccessFailed);
  Module module(g_fixtures + "/add_mul/portable.pte");
  EXPECT_EQ(module.load(), Error::Ok);
  auto names = module.method_names();
  EXPECT_TRUE(names.ok() && names->count("forward") == 1);
  auto unknown = module.execute("nope");
  EXPECT_TRUE(!unknown.ok() && unknown.error() == Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("has no method 'nope'"), std::string::npos) << last_error_message();
  std::vector<int64_t> ints(8, 1);
  auto wrong_dtype = module.forward(make_tensor_ptr<int64_t>({2, 4}, ints));
  EXPECT_TRUE(!wrong_dtype.ok() && wrong_dtype.error() == Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("dtype"), std::string::npos) << last_error_message();
  std::vector<float> f(12, 1.0f);
  auto wrong_shape = module.forward(make_tensor_ptr({3, 4}, f));
  EXPECT_TRUE(!wrong_shape.ok() && wrong_shape.error() == Error::InvalidArgument);
  std::vector<float> eight(8, 1.0f);
  auto too_many = module.forward({make_tensor_ptr({2, 4}, eight), make_tensor_ptr({2, 4}, eight)});
  EXPECT_TRUE(!too_many.ok() && too_many.error() == Error::InvalidArgument);
  // 12 values for 8 elements abort, as upstream's ET_CHECK does; a null TensorPtr input is rejected, no crash.
  EXPECT_DEATH((void)make_tensor_ptr({2, 4}, f), "12 values for a tensor of 8");
  executorch::extension::TensorPtr bad;
  auto null_input = module.forward(bad);
  EXPECT_TRUE(!null_input.ok() && null_input.error() == Error::InvalidArgument);
  auto ok = module.forward(make_tensor_ptr({2, 4}, std::vector<float>(8, 1.0f)));
  EXPECT_TRUE(ok.ok() && ok->size() == 1);
  // Method metadata.
  auto meta = module.method_meta("forward");
  EXPECT_TRUE(meta.ok() && meta->num_inputs() == 1 && meta->input_tensor_meta(0)->sizes().size() == 2);
}

// Runs a method of a fixture on its committed case files and compares with the eager reference.
::testing::AssertionResult run_case(Module& module, const std::string& dir, const std::string& method, int case_index,
                                    float tol) {
  const std::string prefix = dir + "/" + method + "_case" + std::to_string(case_index);
  std::vector<executorch::extension::TensorPtr> inputs;
  std::vector<EValue> values;
  for (int i = 0;; ++i) {
    executorch_tools::NpyArray arr;
    if (!executorch_tools::read_npy(prefix + "_in" + std::to_string(i) + ".npy", &arr).empty()) break;
    inputs.push_back(make_tensor_ptr(arr.shape, std::move(arr.data), {}, {}, arr.dtype));
    values.emplace_back(inputs.back());
  }
  auto out = module.execute(method, values);
  if (!out.ok()) return ::testing::AssertionFailure() << prefix << ": " << to_string(out.error());
  executorch_tools::NpyArray ref;
  const std::string err = executorch_tools::read_npy(prefix + "_out0.npy", &ref);
  if (!err.empty()) return ::testing::AssertionFailure() << prefix << "_out0.npy: " << err;
  const auto& t = out->at(0).toTensor();
  if (t.scalar_type() != ScalarType::Float || static_cast<size_t>(t.nbytes()) != ref.data.size()) {
    return ::testing::AssertionFailure() << prefix << ": output dtype or size differs from the reference";
  }
  const float* got = t.const_data_ptr<float>();
  const float* want = reinterpret_cast<const float*>(ref.data.data());
  for (ssize_t i = 0; i < t.numel(); ++i) {
    if (std::fabs(got[i] - want[i]) > tol + tol * std::fabs(want[i])) {
      return ::testing::AssertionFailure() << prefix << ": element " << i << " is " << got[i] << ", want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// One loaded method runs batch sizes that shrink and grow within the bound; two methods share one Module.
TEST(Module, Reuse) {
  if (g_fixtures.empty()) GTEST_SKIP() << "no FIXTURES_DIR argument";
  Module dynamic(g_fixtures + "/dynamic_batch/portable.pte");
  EXPECT_TRUE(run_case(dynamic, g_fixtures + "/dynamic_batch", "forward", 1, 1e-5f));
  EXPECT_TRUE(run_case(dynamic, g_fixtures + "/dynamic_batch", "forward", 0, 1e-5f));
  EXPECT_TRUE(run_case(dynamic, g_fixtures + "/dynamic_batch", "forward", 2, 1e-5f));
  EXPECT_TRUE(run_case(dynamic, g_fixtures + "/dynamic_batch", "forward", 0, 1e-5f));
  EXPECT_TRUE(dynamic.is_method_loaded("forward"));
  Module multi(g_fixtures + "/multi_method/portable.pte");
  EXPECT_TRUE(run_case(multi, g_fixtures + "/multi_method", "forward", 0, 1e-5f));
  EXPECT_TRUE(run_case(multi, g_fixtures + "/multi_method", "encode", 0, 1e-5f));
  EXPECT_TRUE(run_case(multi, g_fixtures + "/multi_method", "forward", 0, 1e-5f));
  auto names = multi.method_names();
  EXPECT_TRUE(names.ok() && names->size() == 2);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // removes the --gtest_* flags
  if (argc > 1) g_fixtures = argv[1];
  return RUN_ALL_TESTS();
}
