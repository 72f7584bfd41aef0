// Unit tests of the runtime core and the thread pool: registries, tensors, errors, the pool.
// Usage: unit_tests [FIXTURES_DIR]. Prints one line per failure and "N passed, M failed".
#include <executorch/extension/module/module.h>
#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/components.h>

#include "../../cpp/tools/npy.h"

#include <atomic>
#include <cmath>
#include <cstdio>
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
int g_passed = 0, g_failed = 0;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) {                                                            \
      ++g_passed;                                                          \
    } else {                                                               \
      ++g_failed;                                                          \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
    }                                                                      \
  } while (0)

void noop_kernel(KernelRuntimeContext&, Span<EValue*>) {}

class DummyBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override { return Error::Ok; }
};

void test_error_codes() {
  CHECK(static_cast<uint32_t>(Error::InvalidProgram) == 0x23);
  CHECK(static_cast<uint32_t>(Error::OperatorMissing) == 0x14);
  CHECK(static_cast<uint32_t>(Error::DelegateInvalidHandle) == 0x32);
  CHECK(std::strcmp(to_string(Error::NotFound), "NotFound") == 0);
}

void test_kernel_registry() {
  const size_t before = get_num_registered_kernels();
  CHECK(register_kernel(Kernel("test::op.out", noop_kernel)) == Error::Ok);
  CHECK(registry_has_op_function("test::op.out"));
  // A duplicate is an error, never an abort, and adds nothing.
  CHECK(register_kernel(Kernel("test::op.out", noop_kernel)) == Error::RegistrationAlreadyRegistered);
  const Kernel batch[] = {Kernel("test::a.out", noop_kernel), Kernel("test::op.out", noop_kernel)};
  CHECK(register_kernels(Span<const Kernel>(batch, 2)) == Error::RegistrationAlreadyRegistered);
  CHECK(!registry_has_op_function("test::a.out"));
  CHECK(get_num_registered_kernels() == before + 1);
  CHECK(!get_op_function_from_registry("test::missing.out").ok());
  CHECK(get_op_function_from_registry("test::missing.out").error() == Error::OperatorMissing);
  // Prim ops come with the runtime itself.
  CHECK(registry_has_op_function("aten::sym_size.int"));
  // Capacity never overflows silently.
  static std::vector<std::string> names;
  names.reserve(kMaxRegisteredKernels + 1);
  std::vector<Kernel> many;
  for (size_t i = 0; i <= kMaxRegisteredKernels; ++i) {
    names.push_back("test::many" + std::to_string(i) + ".out");
  }
  for (const auto& n : names) many.emplace_back(n.c_str(), noop_kernel);
  CHECK(register_kernels(Span<const Kernel>(many.data(), many.size())) == Error::RegistrationExceedingMaxKernels);
  CHECK(get_num_registered_kernels() == before + 1);
}

void test_backend_registry() {
  static DummyBackend backend;
  const size_t before = get_num_registered_backends();
  CHECK(register_backend(Backend{"TestBackend", &backend}) == Error::Ok);
  CHECK(get_backend_class("TestBackend") == &backend);
  CHECK(register_backend(Backend{"TestBackend", &backend}) == Error::RegistrationAlreadyRegistered);
  CHECK(get_num_registered_backends() == before + 1);
  CHECK(get_backend_class("NoSuchBackend") == nullptr);
  static std::vector<std::string> names;
  names.reserve(kMaxRegisteredBackends + 1);
  Error last = Error::Ok;
  for (size_t i = 0; i <= kMaxRegisteredBackends; ++i) {
    names.push_back("Fill" + std::to_string(i));
    last = register_backend(Backend{names.back().c_str(), &backend});
  }
  CHECK(last == Error::OutOfResources);
  CHECK(get_num_registered_backends() == kMaxRegisteredBackends);
}

void test_tensors() {
  std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
  auto t = make_tensor_ptr({2, 4}, data.data());
  CHECK(t->dim() == 2 && t->size(0) == 2 && t->size(1) == 4 && t->numel() == 8);
  CHECK(t->scalar_type() == ScalarType::Float && t->const_data_ptr<float>()[5] == 6.0f);
  CHECK(t->strides()[0] == 4 && t->strides()[1] == 1);
  // Dynamic-bound tensors resize within their bound only.
  CHECK(executorch::extension::resize_tensor_ptr(t, {1, 4}) == Error::Ok && t->numel() == 4);
  CHECK(executorch::extension::resize_tensor_ptr(t, {3, 4}) != Error::Ok);
  CHECK(executorch::extension::resize_tensor_ptr(t, {2, 2, 2}) != Error::Ok);
  auto s = make_tensor_ptr({2, 2}, data.data(), ScalarType::Float, TensorShapeDynamism::STATIC);
  CHECK(executorch::extension::resize_tensor_ptr(s, {1, 4}) == Error::NotSupported);
  auto owned = make_tensor_ptr<int64_t>({3}, std::vector<int64_t>{7, 8, 9});
  CHECK(owned->scalar_type() == ScalarType::Long && owned->const_data_ptr<int64_t>()[2] == 9);
  auto cl = make_tensor_ptr({2, 1, 2}, data.data(), {0, 2, 1}, {});  // channels-last style dim order
  CHECK(cl->strides()[1] == 1 && cl->strides()[2] == 1 && cl->strides()[0] == 2);
  CHECK(make_tensor_ptr({2}, data.data(), {0, 0}, {}) == nullptr);
  EValue v(owned);
  CHECK(v.isTensor() && v.toTensor().numel() == 3);
  auto z = executorch::extension::ones({2, 3}, ScalarType::Long);
  CHECK(z->const_data_ptr<int64_t>()[5] == 1);
}

void test_threadpool() {
  using executorch::extension::threadpool::get_threadpool;
  auto* pool = get_threadpool();
  const char* env = std::getenv("EXECUTORCH_NUM_THREADS");
  if (env != nullptr) CHECK(pool->get_thread_count() == static_cast<size_t>(std::atoi(env)));
  CHECK(executorch::extension::threadpool::num_threadpools_created() == 1);
  CHECK(pool->_unsafe_reset_threadpool(3));
  CHECK(pool->get_thread_count() == 3);
  std::vector<int> hits(10000, 0);
  std::atomic<int> outer{0};
  CHECK(executorch::extension::parallel_for(0, 10000, 7, [&](int64_t b, int64_t e) {
    outer.fetch_add(1);
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)] += 1;
    // Nested parallel_for runs serially on the calling thread.
    executorch::extension::parallel_for(0, 4, 1, [](int64_t, int64_t) {});
  }));
  bool all_once = true;
  for (int h : hits) all_once = all_once && h == 1;
  CHECK(all_once);
  CHECK(outer.load() >= 2);
  CHECK(!executorch::extension::parallel_for(5, 1, 1, [](int64_t, int64_t) {}));
  CHECK(executorch::extension::threadpool::num_threadpools_created() == 1);
  CHECK(pool->_unsafe_reset_threadpool(2));
}

void test_components() {
  CHECK(load_component("nonexistent") == Error::InvalidArgument);
  const ComponentInfo* c = component_for_operator("aten::add.out");
  CHECK(c != nullptr && std::strcmp(c->package, "executorch-kernels") == 0);
  CHECK(component_for_backend("XnnpackBackend") != nullptr);
  CHECK(component_for_operator("my_ns::op.out") == nullptr);
  CHECK(load_library("/nonexistent/libfoo.so") == Error::NotFound);
}

void test_module_errors(const std::string& fixtures) {
  if (fixtures.empty()) return;
  Module missing("/nonexistent/model.pte");
  CHECK(missing.load() == Error::AccessFailed);
  Module module(fixtures + "/add_mul/portable.pte");
  CHECK(module.load() == Error::Ok);
  auto names = module.method_names();
  CHECK(names.ok() && names->count("forward") == 1);
  auto unknown = module.execute("nope");
  CHECK(!unknown.ok() && unknown.error() == Error::InvalidArgument);
  CHECK(std::string(last_error_message()).find("has no method 'nope'") != std::string::npos);
  std::vector<int64_t> ints(8, 1);
  auto wrong_dtype = module.forward(make_tensor_ptr<int64_t>({2, 4}, ints));
  CHECK(!wrong_dtype.ok() && wrong_dtype.error() == Error::InvalidArgument);
  CHECK(std::string(last_error_message()).find("dtype") != std::string::npos);
  std::vector<float> f(12, 1.0f);
  auto wrong_shape = module.forward(make_tensor_ptr({3, 4}, f));
  CHECK(!wrong_shape.ok() && wrong_shape.error() == Error::InvalidArgument);
  std::vector<float> eight(8, 1.0f);
  auto too_many = module.forward({make_tensor_ptr({2, 4}, eight), make_tensor_ptr({2, 4}, eight)});
  CHECK(!too_many.ok() && too_many.error() == Error::InvalidArgument);
  // A tensor that could not be made (12 values for 8 elements) is a null TensorPtr: rejected, no crash.
  auto bad = make_tensor_ptr({2, 4}, f);
  CHECK(bad == nullptr);
  auto null_input = module.forward(bad);
  CHECK(!null_input.ok() && null_input.error() == Error::InvalidArgument);
  auto ok = module.forward(make_tensor_ptr({2, 4}, std::vector<float>(8, 1.0f)));
  CHECK(ok.ok() && ok->size() == 1);
  // Method metadata.
  auto meta = module.method_meta("forward");
  CHECK(meta.ok() && meta->num_inputs() == 1 && meta->input_tensor_meta(0)->sizes().size() == 2);
}

// Runs a method of a fixture on its committed case files and compares with the eager reference.
bool run_case(Module& module, const std::string& dir, const std::string& method, int case_index, float tol) {
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
  if (!out.ok()) return false;
  executorch_tools::NpyArray ref;
  if (!executorch_tools::read_npy(prefix + "_out0.npy", &ref).empty()) return false;
  const auto& t = out->at(0).toTensor();
  if (t.scalar_type() != ScalarType::Float || static_cast<size_t>(t.nbytes()) != ref.data.size()) return false;
  const float* got = t.const_data_ptr<float>();
  const float* want = reinterpret_cast<const float*>(ref.data.data());
  for (ssize_t i = 0; i < t.numel(); ++i) {
    if (std::fabs(got[i] - want[i]) > tol + tol * std::fabs(want[i])) return false;
  }
  return true;
}

// One loaded method runs batch sizes that shrink and grow within the bound; two methods share one Module.
void test_module_reuse(const std::string& fixtures) {
  if (fixtures.empty()) return;
  Module dynamic(fixtures + "/dynamic_batch/portable.pte");
  CHECK(run_case(dynamic, fixtures + "/dynamic_batch", "forward", 1, 1e-5f));
  CHECK(run_case(dynamic, fixtures + "/dynamic_batch", "forward", 0, 1e-5f));
  CHECK(run_case(dynamic, fixtures + "/dynamic_batch", "forward", 2, 1e-5f));
  CHECK(run_case(dynamic, fixtures + "/dynamic_batch", "forward", 0, 1e-5f));
  CHECK(dynamic.is_method_loaded("forward"));
  Module multi(fixtures + "/multi_method/portable.pte");
  CHECK(run_case(multi, fixtures + "/multi_method", "forward", 0, 1e-5f));
  CHECK(run_case(multi, fixtures + "/multi_method", "encode", 0, 1e-5f));
  CHECK(run_case(multi, fixtures + "/multi_method", "forward", 0, 1e-5f));
  CHECK(multi.method_names()->size() == 2);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string fixtures = argc > 1 ? argv[1] : "";
  test_error_codes();
  test_kernel_registry();
  test_backend_registry();
  test_tensors();
  test_threadpool();
  test_components();
  test_module_errors(fixtures);
  test_module_reuse(fixtures);
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
