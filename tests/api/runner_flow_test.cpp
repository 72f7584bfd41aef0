// Every call upstream's examples/portable/executor_runner/executor_runner.cpp makes, in its order, in all three of
// its configurations at once (thread pool, event tracer): load a .pte (and a .ptd with FlatTensorDataMap), size the
// planned buffers from MethodMeta (device-aware HierarchicalAllocator when a buffer is on a device), load the
// method with an ETDumpGen and the data map, fill the inputs with prepare_input_tensors from raw input files, time
// execute() with the platform clock, print the outputs with print_evalue, write the ETDump. Outputs are compared
// with the fixtures' references.
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/extension/threadpool/cpuinfo_utils.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

using executorch::aten::Tensor;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::DeviceMemoryBuffer;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::etensor::Device;

namespace {

uint8_t method_allocator_pool[4 * 1024U * 1024U];
uint8_t temp_allocator_pool[1024U * 1024U];

struct Case {
  std::string pte;                  // relative to tests/fixtures
  std::string ptd;                  // "" when the program holds its data
  std::vector<std::string> inputs;  // .npy files, relative to tests/fixtures
  std::string output;               // the reference of output 0
  float atol;
};

// Runs one case the way executor_runner does; returns the text print_evalue made of the outputs.
std::string run_like_executor_runner(const Case& c, int cpu_threads) {
  executorch::runtime::runtime_init();
  const uint32_t threads = cpu_threads == -1 ? executorch::extension::cpuinfo::get_num_performant_cores()
                                             : static_cast<uint32_t>(cpu_threads);
  EXPECT_GT(threads, 0u);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  executorch::extension::threadpool::get_threadpool()->_unsafe_reset_threadpool(threads);
#pragma GCC diagnostic pop
  std::optional<executorch::extension::threadpool::NoThreadPoolGuard> guard;
  if (cpu_threads == 1) guard.emplace();

  // The inputs: raw bytes, as executor_runner reads its --inputs files.
  std::vector<std::string> storage;
  std::vector<std::pair<char*, size_t>> input_buffers;
  for (const std::string& in : c.inputs) {
    api_test::Npy npy = api_test::load_npy(api_test::fixture(in));
    storage.emplace_back(reinterpret_cast<const char*>(npy.data.data()), npy.data.size());
  }
  for (std::string& s : storage) input_buffers.emplace_back(s.data(), s.size());

  std::unique_ptr<FileDataLoader> ptd_loader;
  std::unique_ptr<FlatTensorDataMap> ptd_data_map;
  if (!c.ptd.empty()) {
    Result<FileDataLoader> l = FileDataLoader::from(api_test::fixture(c.ptd).c_str());
    EXPECT_TRUE(l.ok());
    ptd_loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    Result<FlatTensorDataMap> m = FlatTensorDataMap::load(ptd_loader.get());
    EXPECT_TRUE(m.ok()) << executorch::runtime::last_error_message();
    ptd_data_map = std::make_unique<FlatTensorDataMap>(std::move(m.get()));
    EXPECT_GT(ptd_data_map->get_num_keys().get(), 0u);
  }
  Result<FileDataLoader> file_loader = FileDataLoader::from(api_test::fixture(c.pte).c_str());
  EXPECT_TRUE(file_loader.ok());
  std::unique_ptr<executorch::runtime::DataLoader> loader =
      std::make_unique<FileDataLoader>(std::move(file_loader.get()));

  const et_timestamp_t before_load = executorch::runtime::pal_current_ticks();
  Result<Program> program = Program::load(loader.get());
  EXPECT_TRUE(program.ok());
  const char* method_name = *program->get_method_name(0);
  Result<MethodMeta> method_meta = program->method_meta(method_name);
  EXPECT_TRUE(method_meta.ok());

  MemoryAllocator method_allocator{MemoryAllocator(sizeof(method_allocator_pool), method_allocator_pool)};
  MemoryAllocator temp_allocator{MemoryAllocator(sizeof(temp_allocator_pool), temp_allocator_pool)};
  std::vector<std::unique_ptr<uint8_t[]>> planned_buffers;
  std::vector<DeviceMemoryBuffer> planned_device_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  std::vector<Device> planned_devices;
  bool has_device_buffers = false;
  for (size_t id = 0; id < method_meta->num_memory_planned_buffers(); ++id) {
    const size_t buffer_size = static_cast<size_t>(method_meta->memory_planned_buffer_size(id).get());
    Result<Device> buffer_device = method_meta->memory_planned_buffer_device(id);
    EXPECT_TRUE(buffer_device.ok());
    planned_devices.push_back(buffer_device.get());
    if (buffer_device->is_cpu()) {
      planned_buffers.push_back(std::make_unique<uint8_t[]>(buffer_size));
      planned_spans.push_back({planned_buffers.back().get(), buffer_size});
    } else {
      has_device_buffers = true;
      Result<DeviceMemoryBuffer> device_buffer =
          DeviceMemoryBuffer::create(buffer_size, buffer_device->type(), buffer_device->index());
      EXPECT_TRUE(device_buffer.ok());
      planned_spans.push_back(device_buffer->as_span());
      planned_device_buffers.push_back(std::move(device_buffer.get()));
    }
  }
  std::optional<HierarchicalAllocator> planned_memory;
  if (has_device_buffers) {
    planned_memory.emplace(Span<Span<uint8_t>>(planned_spans.data(), planned_spans.size()),
                           Span<const Device>(planned_devices.data(), planned_devices.size()));
  } else {
    planned_memory.emplace(Span<Span<uint8_t>>(planned_spans.data(), planned_spans.size()));
  }
  MemoryManager memory_manager(&method_allocator, &planned_memory.value(), &temp_allocator);

  std::shared_ptr<executorch::runtime::EventTracer> tracer = std::make_shared<executorch::etdump::ETDumpGen>();
  Result<Method> method = program->load_method(method_name, &memory_manager, tracer.get(), ptd_data_map.get());
  const et_timestamp_t after_load = executorch::runtime::pal_current_ticks();
  EXPECT_TRUE(method.ok()) << c.pte << ": " << executorch::runtime::last_error_message();
  if (!method.ok()) return "";
  const auto ratio = et_pal_ticks_to_ns_multiplier();
  EXPECT_GE(static_cast<double>(after_load - before_load) * ratio.numerator / ratio.denominator, 0.0);
  ET_LOG(Info, "Model loaded.");

  for (int i = 0; i < 2; ++i) {  // --num_executions 2: the inputs are prepared again for each run
    auto inputs = executorch::extension::prepare_input_tensors(*method, {}, input_buffers);
    EXPECT_TRUE(inputs.ok()) << c.pte;
    const et_timestamp_t before_execute = executorch::runtime::pal_current_ticks();
    EXPECT_EQ(method->execute(), Error::Ok) << c.pte << ": " << executorch::runtime::last_error_message();
    EXPECT_GE(executorch::runtime::pal_current_ticks(), before_execute);
  }
  std::vector<EValue> outputs(method->outputs_size());
  EXPECT_EQ(method->get_outputs(outputs.data(), outputs.size()), Error::Ok);

  const api_test::Npy want = api_test::load_npy(api_test::fixture(c.output));
  const Tensor out = outputs[0].toTensor();
  EXPECT_EQ(static_cast<size_t>(out.numel()), want.numel());
  if (static_cast<size_t>(out.numel()) == want.numel()) {
    EXPECT_LE(api_test::max_abs_diff(out.const_data_ptr<float>(), want.as<float>(), want.numel()), c.atol) << c.pte;
  }

  std::ostringstream printed;
  printed << executorch::extension::evalue_edge_items(100);
  for (size_t i = 0; i < outputs.size(); ++i) printed << "OutputX " << i << ": " << outputs[i] << std::endl;

  auto* etdump = static_cast<executorch::etdump::ETDumpGen*>(tracer.get());
  executorch::etdump::ETDumpResult result = etdump->get_etdump_data();
  EXPECT_NE(result.buf, nullptr);
  EXPECT_GT(result.size, 0u);
  free(result.buf);
  return printed.str();
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"mlp/portable.pte", "", {"mlp/forward_case0_in0.npy"}, "mlp/forward_case0_out0.npy", 1e-5f},
      {"mlp/xnnpack.pte", "", {"mlp/forward_case0_in0.npy"}, "mlp/forward_case0_out0.npy", 1e-5f},
      {"cnn/xnnpack.pte", "", {"cnn/forward_case0_in0.npy"}, "cnn/forward_case0_out0.npy", 1e-4f},
      {"quantized/cnn/xnnpack_q8.pte",
       "",
       {"quantized/cnn/forward_case0_in0.npy"},
       "quantized/cnn/forward_case0_xnnpack_q8_out0.npy",
       0.0034f},
      {"ptd/portable_mlp/model.pte",
       "ptd/portable_mlp/model.ptd",
       {"ptd/portable_mlp/forward_case0_in0.npy"},
       "ptd/portable_mlp/forward_case0_out0.npy",
       1e-5f},
      {"ptd/xnnpack_cnn/model.pte",
       "ptd/xnnpack_cnn/model.ptd",
       {"ptd/xnnpack_cnn/forward_case0_in0.npy"},
       "ptd/xnnpack_cnn/forward_case0_out0.npy",
       1e-4f},
      {"ptd/xnnpack_mixed/model.pte",
       "ptd/xnnpack_mixed/model.ptd",
       {"ptd/xnnpack_mixed/forward_case0_in0.npy", "ptd/xnnpack_mixed/forward_case0_in1.npy"},
       "ptd/xnnpack_mixed/forward_case0_out0.npy",
       1e-4f},
      {"ptd/xnnpack_q8/model.pte",
       "ptd/xnnpack_q8/model.ptd",
       {"ptd/xnnpack_q8/forward_case0_in0.npy"},
       "ptd/xnnpack_q8/forward_case0_out0.npy",
       0.0016f},
  };
  return all;
}

}  // namespace

TEST(ExecutorRunnerFlow, EveryFixtureWithThePoolAndWithout) {
  for (const Case& c : cases()) {
    for (int threads : {-1, 1, 2}) {
      const std::string printed = run_like_executor_runner(c, threads);
      EXPECT_EQ(printed.rfind("OutputX 0: tensor(sizes=[", 0), 0u) << c.pte << ": " << printed;
    }
  }
}

TEST(ExecutorRunnerFlow, PrepareInputTensorsRejectsWrongSizes) {
  Result<FileDataLoader> loader = FileDataLoader::from(api_test::fixture("mlp/portable.pte").c_str());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  Result<MethodMeta> meta = program->method_meta("forward");
  std::vector<uint8_t> planned(static_cast<size_t>(*meta->memory_planned_buffer_size(0)));
  Span<uint8_t> spans[] = {{planned.data(), planned.size()}};
  HierarchicalAllocator h({spans, 1});
  MemoryAllocator method_allocator(sizeof(method_allocator_pool), method_allocator_pool);
  MemoryManager mm(&method_allocator, &h);
  Result<Method> method = program->load_method("forward", &mm);
  ASSERT_TRUE(method.ok());
  char too_small[8] = {};
  std::vector<std::pair<char*, size_t>> buffers = {{too_small, sizeof(too_small)}};
  EXPECT_FALSE(executorch::extension::prepare_input_tensors(*method, {}, buffers).ok());
  // Without buffers every input is ones.
  auto ones = executorch::extension::prepare_input_tensors(*method);
  ASSERT_TRUE(ones.ok());
  EXPECT_EQ(method->execute(), Error::Ok);
}
