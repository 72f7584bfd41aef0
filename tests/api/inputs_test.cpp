// prepare_input_tensors() and BufferCleanup (executorch/extension/runner_util/inputs.h), as upstream's
// executor_runner uses them: a method's inputs filled with ones, or with the bytes of the caller's buffers.
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::extension::BufferCleanup;
using executorch::extension::prepare_input_tensors;
using executorch::extension::PrepareInputTensorsOptions;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;

// Upstream's deprecated spellings.
static_assert(std::is_same_v<torch::executor::util::BufferCleanup, BufferCleanup>);

namespace {

// A program's forward loaded the way upstream's executor_runner loads it, with malloc-backed allocators.
struct Loaded : api_test::LoadedMethod {
  explicit Loaded(const std::string& rel) : LoadedMethod(rel, malloc_allocators()) {}
  static api_test::LoadOptions malloc_allocators() {
    api_test::LoadOptions o;
    o.method_pool = o.temp_pool = api_test::LoadOptions::kMalloc;
    return o;
  }
};

// The same program through Module with the given inputs: the reference for what prepare_input_tensors set.
std::vector<float> module_output(const std::string& rel, const std::vector<EValue>& inputs) {
  executorch::extension::Module module(api_test::fixture(rel));
  auto out = module.forward(inputs);
  EXPECT_TRUE(out.ok()) << executorch::runtime::last_error_message();
  if (!out.ok()) return {};
  const Tensor t = out->at(0).toTensor();
  return std::vector<float>(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
}

std::vector<float> output0(Method& method) {
  const Tensor t = method.get_output(0).toTensor();
  return std::vector<float>(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// The input as the method holds it (Method::get_input is deprecated upstream, but it is the way to look).
const Tensor input_tensor(Method& method, size_t i) { return method.get_input(i).toTensor(); }
#pragma GCC diagnostic pop

}  // namespace

TEST(PrepareInputTensors, FillsTensorInputsWithOnes) {
  for (const char* rel : {"mlp/portable.pte", "mlp/xnnpack.pte", "add_mul/portable.pte"}) {
    SCOPED_TRACE(rel);
    Loaded l(rel);
    ASSERT_NE(l.method, nullptr);
    Result<BufferCleanup> inputs = prepare_input_tensors(*l.method);
    ASSERT_TRUE(inputs.ok()) << executorch::runtime::last_error_message();
    const Tensor in = input_tensor(*l.method, 0);
    ASSERT_EQ(in.scalar_type(), ScalarType::Float);
    for (ssize_t k = 0; k < in.numel(); ++k) ASSERT_EQ(in.const_data_ptr<float>()[k], 1.0f);
    ASSERT_EQ(l.method->execute(), Error::Ok);
    std::vector<executorch::aten::SizesType> sizes(in.sizes().begin(), in.sizes().end());
    const auto want = module_output(rel, {executorch::extension::ones(sizes)});
    const auto got = output0(*l.method);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_LE(api_test::max_abs_diff(got.data(), want.data(), got.size()), 1e-5f);
  }
}

// int64 inputs (embedding ids) are filled with 1 too.
TEST(PrepareInputTensors, FillsIntegerInputsWithOnes) {
  Loaded l("int64_input/portable.pte");
  ASSERT_NE(l.method, nullptr);
  const MethodMeta meta = l.method->method_meta();
  ASSERT_EQ(meta.num_inputs(), 2u);
  auto inputs = prepare_input_tensors(*l.method);
  ASSERT_TRUE(inputs.ok()) << executorch::runtime::last_error_message();
  std::vector<EValue> same;
  std::vector<executorch::extension::TensorPtr> keep;
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    const Tensor in = input_tensor(*l.method, i);
    ASSERT_EQ(in.scalar_type(), ScalarType::Long);
    for (ssize_t k = 0; k < in.numel(); ++k) ASSERT_EQ(in.const_data_ptr<int64_t>()[k], 1);
    std::vector<executorch::aten::SizesType> sizes(in.sizes().begin(), in.sizes().end());
    keep.push_back(executorch::extension::ones(sizes, ScalarType::Long));
    same.emplace_back(keep.back());
  }
  ASSERT_EQ(l.method->execute(), Error::Ok);
  const auto want = module_output("int64_input/portable.pte", same);
  const auto got = output0(*l.method);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LE(api_test::max_abs_diff(got.data(), want.data(), got.size()), 1e-5f);
}

// With buffers: their bytes are the inputs, and the method computes the fixture's reference.
TEST(PrepareInputTensors, UsesTheCallersBuffers) {
  for (const char* dir : {"mlp", "no_constants", "int64_input"}) {
    SCOPED_TRACE(dir);
    Loaded l(std::string(dir) + "/portable.pte");
    ASSERT_NE(l.method, nullptr);
    const size_t n = l.method->method_meta().num_inputs();
    std::vector<api_test::Npy> arrays;
    std::vector<std::pair<char*, size_t>> buffers;
    for (size_t i = 0; i < n; ++i) {
      arrays.push_back(
          api_test::load_npy(api_test::fixture(std::string(dir) + "/forward_case0_in" + std::to_string(i) + ".npy")));
    }
    for (auto& a : arrays) buffers.emplace_back(reinterpret_cast<char*>(a.data.data()), a.data.size());
    auto inputs = prepare_input_tensors(*l.method, {}, buffers);
    ASSERT_TRUE(inputs.ok()) << executorch::runtime::last_error_message();
    for (size_t i = 0; i < n; ++i) {
      const Tensor in = input_tensor(*l.method, i);
      ASSERT_EQ(static_cast<size_t>(in.nbytes()), arrays[i].data.size());
      EXPECT_EQ(std::memcmp(in.const_data_ptr(), arrays[i].data.data(), arrays[i].data.size()), 0);
    }
    ASSERT_EQ(l.method->execute(), Error::Ok);
    const auto want = api_test::load_npy(api_test::fixture(std::string(dir) + "/forward_case0_out0.npy"));
    const auto got = output0(*l.method);
    ASSERT_EQ(got.size(), want.numel());
    EXPECT_LE(api_test::max_abs_diff(got.data(), want.as<float>(), got.size()), 1e-4f);
  }
}

TEST(PrepareInputTensors, BufferErrors) {
  Loaded l("no_constants/portable.pte");
  ASSERT_NE(l.method, nullptr);
  auto a = api_test::load_npy(api_test::fixture("no_constants/forward_case0_in0.npy"));
  auto b = api_test::load_npy(api_test::fixture("no_constants/forward_case0_in1.npy"));
  std::pair<char*, size_t> good_a{reinterpret_cast<char*>(a.data.data()), a.data.size()};
  std::pair<char*, size_t> good_b{reinterpret_cast<char*>(b.data.data()), b.data.size()};
  // One buffer for two inputs.
  EXPECT_EQ(prepare_input_tensors(*l.method, {}, {good_a}).error(), Error::InvalidArgument);
  // Three for two.
  EXPECT_EQ(prepare_input_tensors(*l.method, {}, {good_a, good_b, good_b}).error(), Error::InvalidArgument);
  // A buffer one byte short, and one byte long.
  EXPECT_EQ(prepare_input_tensors(*l.method, {}, {good_a, {good_b.first, good_b.second - 1}}).error(),
            Error::InvalidArgument);
  std::vector<char> longer(b.data.size() + 1);
  EXPECT_EQ(prepare_input_tensors(*l.method, {}, {{longer.data(), longer.size()}, good_b}).error(),
            Error::InvalidArgument);
  EXPECT_TRUE(prepare_input_tensors(*l.method, {}, {good_a, good_b}).ok());
}

TEST(PrepareInputTensors, AllocationLimits) {
  Loaded l("no_constants/portable.pte");
  ASSERT_NE(l.method, nullptr);
  const MethodMeta meta = l.method->method_meta();
  ASSERT_EQ(meta.num_inputs(), 2u);
  PrepareInputTensorsOptions defaults;
  EXPECT_EQ(defaults.max_total_allocation_size, size_t(1024) * 1024 * 1024);
  EXPECT_EQ(defaults.max_inputs, 1024u);

  PrepareInputTensorsOptions few;
  few.max_inputs = meta.num_inputs() - 1;
  EXPECT_EQ(prepare_input_tensors(*l.method, few).error(), Error::InvalidProgram);
  few.max_inputs = meta.num_inputs();
  EXPECT_TRUE(prepare_input_tensors(*l.method, few).ok());

  const size_t total = meta.input_tensor_meta(0)->nbytes() + meta.input_tensor_meta(1)->nbytes();
  PrepareInputTensorsOptions small;
  small.max_total_allocation_size = 1;
  EXPECT_EQ(prepare_input_tensors(*l.method, small).error(), Error::InvalidProgram);
  small.max_total_allocation_size = total - 1;
  EXPECT_EQ(prepare_input_tensors(*l.method, small).error(), Error::InvalidProgram);
  small.max_total_allocation_size = total;
  EXPECT_TRUE(prepare_input_tensors(*l.method, small).ok());
}

// Inputs that are not memory planned keep pointing at the prepared buffers: the method runs as long as the
// BufferCleanup lives, here for a dynamic-shape program at its upper bound.
TEST(PrepareInputTensors, DynamicShapeAtItsBound) {
  Loaded l("dynamic_batch/portable.pte");
  ASSERT_NE(l.method, nullptr);
  auto inputs = prepare_input_tensors(*l.method);
  ASSERT_TRUE(inputs.ok()) << executorch::runtime::last_error_message();
  ASSERT_EQ(l.method->execute(), Error::Ok) << executorch::runtime::last_error_message();
  const Tensor in = input_tensor(*l.method, 0);
  std::vector<executorch::aten::SizesType> sizes(in.sizes().begin(), in.sizes().end());
  const auto want = module_output("dynamic_batch/portable.pte", {executorch::extension::ones(sizes)});
  const auto got = output0(*l.method);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LE(api_test::max_abs_diff(got.data(), want.data(), got.size()), 1e-5f);
}

// Non-tensor inputs: skipped without buffers, set from their 8 / 8 / 1-byte buffer otherwise. Needs a program
// with an Int, Double or Bool input; the fixtures are searched for one.
TEST(PrepareInputTensors, ScalarInputs) {
  // tests/upstream_compat/scalar_inputs.pte: forward(x, alpha: float, n: int, flag: bool), the scalars fixed at
  // export (0.5, 3, true) and kept by the program as Double / Int / Bool inputs.
  const std::string found = "../upstream_compat/scalar_inputs.pte";
  Loaded l(found);
  ASSERT_NE(l.method, nullptr);
  const MethodMeta meta = l.method->method_meta();
  ASSERT_EQ(meta.num_inputs(), 4u);
  EXPECT_EQ(*meta.input_tag(1), Tag::Double);
  EXPECT_EQ(*meta.input_tag(2), Tag::Int);
  EXPECT_EQ(*meta.input_tag(3), Tag::Bool);
  // Without buffers the scalars are skipped (this runtime keeps their exported values): ones * 0.5 + 3.
  auto skipped = prepare_input_tensors(*l.method);
  ASSERT_TRUE(skipped.ok());
  ASSERT_EQ(l.method->execute(), Error::Ok);
  const float* out = l.method->get_output(0).toTensor().const_data_ptr<float>();
  EXPECT_FLOAT_EQ(out[0], 3.5f);
  // With buffers, a scalar's buffer must be exactly its size (8 bytes for Int and Double, 1 for Bool).
  const api_test::Npy x = api_test::load_npy(api_test::fixture("../upstream_compat/scalar_inputs_in0.npy"));
  double alpha = 0.5;
  int64_t n = 3;
  bool flag = true;
  std::vector<std::pair<char*, size_t>> buffers = {
      {const_cast<char*>(reinterpret_cast<const char*>(x.data.data())), x.data.size()},
      {reinterpret_cast<char*>(&alpha), sizeof(alpha)},
      {reinterpret_cast<char*>(&n), sizeof(n)},
      {reinterpret_cast<char*>(&flag), sizeof(flag)}};
  auto filled = prepare_input_tensors(*l.method, {}, buffers);
  ASSERT_TRUE(filled.ok());
  ASSERT_EQ(l.method->execute(), Error::Ok);
  const api_test::Npy want = api_test::load_npy(api_test::fixture("../upstream_compat/scalar_inputs_out0.npy"));
  EXPECT_LE(api_test::max_abs_diff(l.method->get_output(0).toTensor().const_data_ptr<float>(), want.as<float>(),
                                   want.numel()),
            1e-6f);
  int64_t wrong_size[2] = {3, 0};
  buffers[2] = {reinterpret_cast<char*>(wrong_size), sizeof(wrong_size)};
  EXPECT_EQ(prepare_input_tensors(*l.method, {}, buffers).error(), Error::InvalidArgument);
}

TEST(BufferCleanup, FreesWhatItOwnsOnceAfterAMove) {
  constexpr size_t kNumBuffers = 8;
  void** buffers = static_cast<void**>(std::malloc(kNumBuffers * sizeof(void*)));
  for (size_t i = 0; i < kNumBuffers; ++i) {
    buffers[i] = std::malloc(size_t(4096) << i);
    std::memset(buffers[i], 0, size_t(4096) << i);
  }
  std::unique_ptr<BufferCleanup> moved;
  {
    BufferCleanup first({buffers, kNumBuffers});
    moved = std::make_unique<BufferCleanup>(std::move(first));
  }  // `first` owns nothing now: the buffers are still alive
  for (size_t i = 0; i < kNumBuffers; ++i) std::memset(buffers[i], 0xff, size_t(4096) << i);
  moved.reset();  // frees them (the sanitizer builds catch a double free or a leak)
  BufferCleanup empty_one(Span<void*>(nullptr, size_t(0)));
}
