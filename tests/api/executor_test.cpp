// Program, Method, MethodMeta and the memory classes an application hands to them, as upstream's
// runtime/executor/{program,method,method_meta,memory_manager}.h and runtime/core/{memory_allocator,
// hierarchical_allocator,device_memory_buffer}.h declare them.
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/platform_memory_allocator.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/executor/program_validation.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
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
using executorch::runtime::Tag;
using executorch::runtime::TensorInfo;
using executorch::runtime::etensor::Device;
using executorch::runtime::etensor::DeviceType;

namespace {

// A program and one method's planned memory, as an application sets them up; the tests load the method.
struct Loaded : api_test::LoadedMethod {
  explicit Loaded(const std::string& rel) : LoadedMethod(rel, program_only()) {}
  static api_test::LoadOptions program_only() {
    api_test::LoadOptions o;
    o.load_method = false;
    return o;
  }
};

}  // namespace

TEST(Program, HeaderCheck) {
  std::vector<uint8_t> pte = api_test::read_file(api_test::fixture("mlp/portable.pte"));
  EXPECT_EQ(Program::check_header(pte.data(), pte.size()), Program::HeaderStatus::CompatibleVersion);
  EXPECT_EQ(Program::check_header(pte.data(), Program::kMinHeadBytes - 1), Program::ShortData);
  pte[4] = 'E', pte[5] = 'T', pte[6] = '0', pte[7] = '9';
  EXPECT_EQ(Program::check_header(pte.data(), pte.size()), Program::IncompatibleVersion);
  pte[4] = 'X';
  EXPECT_EQ(Program::check_header(pte.data(), pte.size()), Program::NotPresent);
}

TEST(Program, MethodsAndMeta) {
  executorch::runtime::runtime_init();
  Loaded m("multi_method/portable.pte");
  ASSERT_EQ(m.program->num_methods(), 2u);
  std::vector<std::string> names;
  for (size_t i = 0; i < m.program->num_methods(); ++i) names.push_back(*m.program->get_method_name(i));
  EXPECT_NE(std::find(names.begin(), names.end(), "encode"), names.end());
  EXPECT_EQ(m.program->get_method_name(2).error(), Error::InvalidArgument);
  EXPECT_EQ(m.program->method_meta("nope").error(), Error::InvalidArgument);
  EXPECT_EQ(m.program->load_method("nope", m.memory.get()).error(), Error::InvalidArgument);
  // A program without named data of its own.
  EXPECT_EQ(m.program->get_named_data_map().error(), Error::NotFound);

  Loaded mlp("mlp/portable.pte");
  Result<MethodMeta> meta = mlp.program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_STREQ(meta->name(), "forward");
  ASSERT_EQ(meta->num_inputs(), 1u);
  EXPECT_EQ(*meta->input_tag(0), Tag::Tensor);
  Result<TensorInfo> in = meta->input_tensor_meta(0);
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->sizes().size(), 2u);
  EXPECT_EQ(in->sizes()[0], 2);
  EXPECT_EQ(in->sizes()[1], 8);
  EXPECT_EQ(in->scalar_type(), ScalarType::Float);
  EXPECT_EQ(in->nbytes(), 2u * 8u * 4u);
  EXPECT_TRUE(in->is_memory_planned());
  EXPECT_TRUE(in->name().empty());
  EXPECT_EQ(meta->input_tensor_meta(1).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->num_outputs(), 1u);
  EXPECT_EQ(meta->output_tensor_meta(0)->nbytes(), 2u * 4u * 4u);
  EXPECT_GE(meta->num_memory_planned_buffers(), 1u);
  EXPECT_GT(*meta->memory_planned_buffer_size(0), 0);
  Result<Device> device = meta->memory_planned_buffer_device(0);
  ASSERT_TRUE(device.ok());
  EXPECT_TRUE(device->is_cpu());
  EXPECT_EQ(meta->memory_planned_buffer_device(meta->num_memory_planned_buffers()).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->num_backends(), 0u);
  EXPECT_FALSE(meta->uses_backend("XnnpackBackend"));
  EXPECT_EQ(meta->num_attributes(), 0u);

  Loaded x("mlp/xnnpack.pte");
  Result<MethodMeta> xmeta = x.program->method_meta("forward");
  ASSERT_EQ(xmeta->num_backends(), 1u);
  EXPECT_STREQ(*xmeta->get_backend_name(0), "XnnpackBackend");
  EXPECT_TRUE(xmeta->uses_backend("XnnpackBackend"));
}

TEST(Method, ExecuteStepAndReset) {
  Loaded m("mlp/portable.pte");
  Result<Method> method = m.program->load_method("forward", m.memory.get());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  EXPECT_EQ(method->inputs_size(), 1u);
  EXPECT_EQ(method->outputs_size(), 1u);
  EXPECT_EQ(method->execute(), Error::InvalidArgument);  // input 0 never set
  api_test::run_mlp_case0(*method);
  std::vector<EValue> outs(3);
  ASSERT_EQ(method->get_outputs(outs.data(), outs.size()), Error::Ok);
  EXPECT_TRUE(outs[0].isTensor());
  EXPECT_TRUE(outs[1].isNone());
  EXPECT_EQ(method->get_outputs(outs.data(), 0), Error::InvalidArgument);
  EXPECT_STREQ(method->method_meta().name(), "forward");

  // Step by step: the same result, EndOfMethod at the end, then reset.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const float first = method->get_output(0).toTensor().const_data_ptr<float>()[0];
  std::memset(method->get_output(0).toTensor().mutable_data_ptr<float>(), 0, 4);
  EXPECT_FALSE(method->in_progress());
  EXPECT_EQ(method->reset_execution(), Error::InvalidState);
  size_t steps = 0;
  Error err = Error::Ok;
  while ((err = method->step()) == Error::Ok) ++steps;
  EXPECT_EQ(err, Error::EndOfMethod);
  EXPECT_EQ(steps, method->method_meta().num_instructions());
  EXPECT_EQ(method->get_output(0).toTensor().const_data_ptr<float>()[0], first);
  EXPECT_EQ(method->reset_execution(), Error::Ok);
  EXPECT_FALSE(method->in_progress());
  ASSERT_EQ(method->step(), Error::Ok);
  EXPECT_TRUE(method->in_progress());
  EXPECT_EQ(method->execute(), Error::InvalidState);  // a stepped run is in progress
#pragma GCC diagnostic pop
}

TEST(Method, PlannedMemoryMustFit) {
  Loaded m("mlp/portable.pte");
  // Too few planned buffers: loading fails rather than writing out of bounds.
  HierarchicalAllocator none(Span<Span<uint8_t>>(nullptr, size_t(0)));
  MemoryManager small(m.method_allocator.get(), &none, m.temp_allocator.get());
  EXPECT_NE(m.program->load_method("forward", &small).error(), Error::Ok);
  // A buffer one byte short.
  std::vector<uint8_t> short_buffer(m.planned.buffers[0].size() - 1);
  std::vector<Span<uint8_t>> spans = m.planned.spans;
  spans[0] = Span<uint8_t>(short_buffer.data(), short_buffer.size());
  HierarchicalAllocator shrunk(Span<Span<uint8_t>>(spans.data(), spans.size()));
  MemoryManager shrunk_mm(m.method_allocator.get(), &shrunk, m.temp_allocator.get());
  EXPECT_NE(m.program->load_method("forward", &shrunk_mm).error(), Error::Ok);
}

TEST(Method, XnnpackDelegateRuns) {
  Loaded m("mlp/xnnpack.pte");
  Result<Method> method = m.program->load_method("forward", m.memory.get());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  api_test::run_mlp_case0(*method);
}

TEST(Memory, MemoryAllocator) {
  alignas(64) uint8_t pool[256];
  MemoryAllocator a(sizeof(pool), pool);
  EXPECT_EQ(a.size(), sizeof(pool));
  EXPECT_EQ(a.base_address(), pool);
  void* p = a.allocate(3);
  EXPECT_EQ(p, pool);
  void* q = a.allocate(8, 16);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 16, 0u);
  EXPECT_EQ(a.allocate(8, 3), nullptr);  // not a power of two
  EXPECT_EQ(a.allocate(1000), nullptr);  // exhausted
  int32_t* list = a.allocateList<int32_t>(4);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(list) % alignof(int32_t), 0u);
  EXPECT_NE(a.allocateInstance<double>(), nullptr);
  EXPECT_EQ(a.allocateList<uint64_t>(SIZE_MAX / 4), nullptr);  // overflow
  EXPECT_GT(a.used_size(), 0u);
  a.reset();
  EXPECT_EQ(a.used_size(), 0u);
  EXPECT_EQ(a.free_size(), sizeof(pool));
  EXPECT_EQ(a.allocate(1), pool);
  MemoryAllocator empty(0, nullptr);
  EXPECT_EQ(empty.allocate(1), nullptr);
}

TEST(Memory, HierarchicalAllocatorAndManager) {
  uint8_t b0[32], b1[64];
  Span<uint8_t> spans[] = {{b0, sizeof(b0)}, {b1, sizeof(b1)}};
  HierarchicalAllocator h({spans, 2});
  Result<void*> p = h.get_offset_address(1, 16, 48);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, b1 + 16);
  EXPECT_EQ(h.get_offset_address(1, 16, 49).error(), Error::MemoryAllocationFailed);
  EXPECT_EQ(h.get_offset_address(2, 0, 1).error(), Error::InvalidArgument);
  EXPECT_EQ(h.get_offset_address(0, SIZE_MAX, 2).error(), Error::InvalidArgument);
  EXPECT_EQ(h.planned_buffer_devices().size(), 0u);

  const Device devices[] = {Device(DeviceType::CPU), Device(DeviceType::CUDA, 1)};
  HierarchicalAllocator hd({spans, 2}, {devices, 2});
  ASSERT_EQ(hd.planned_buffer_devices().size(), 2u);
  EXPECT_EQ(hd.planned_buffer_devices()[1].index(), 1);
  EXPECT_FALSE(hd.planned_buffer_devices()[1].is_cpu());

  uint8_t pool[64], temp[64];
  MemoryAllocator method_alloc(sizeof(pool), pool), temp_alloc(sizeof(temp), temp);
  MemoryManager mm(&method_alloc, &hd, &temp_alloc);
  EXPECT_EQ(mm.method_allocator(), &method_alloc);
  EXPECT_EQ(mm.planned_memory(), &hd);
  EXPECT_EQ(mm.temp_allocator(), &temp_alloc);
  EXPECT_TRUE(mm.has_device_memory());
  MemoryManager cpu_only(&method_alloc, &h);
  EXPECT_FALSE(cpu_only.has_device_memory());
  EXPECT_EQ(cpu_only.temp_allocator(), nullptr);
}

TEST(Memory, DeviceMemoryWithoutADeviceAllocator) {
  // CPU buffers need no device allocator; without the CUDA component there is none for CUDA.
  Result<DeviceMemoryBuffer> cpu = DeviceMemoryBuffer::create(64, DeviceType::CPU);
  EXPECT_EQ(cpu.error(), Error::NotFound);
  DeviceMemoryBuffer empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.as_span().size(), 0u);
}

namespace {

// A device allocator over host memory, registered for CUDA, to exercise DeviceMemoryBuffer's ownership.
struct FakeDevice : executorch::runtime::DeviceAllocator {
  int live = 0;
  Result<void*> allocate(size_t nbytes, executorch::runtime::etensor::DeviceIndex, size_t) override {
    ++live;
    return std::malloc(nbytes);
  }
  void deallocate(void* ptr, executorch::runtime::etensor::DeviceIndex) override {
    --live;
    std::free(ptr);
  }
  Error copy_host_to_device(void* dst, const void* src, size_t n, executorch::runtime::etensor::DeviceIndex) override {
    std::memcpy(dst, src, n);
    return Error::Ok;
  }
  Error copy_device_to_host(void* dst, const void* src, size_t n, executorch::runtime::etensor::DeviceIndex) override {
    std::memcpy(dst, src, n);
    return Error::Ok;
  }
  DeviceType device_type() const override { return DeviceType::CUDA; }
};

}  // namespace

TEST(Memory, DeviceMemoryBufferOwnsItsBlock) {
  if (executorch::runtime::get_device_allocator(DeviceType::CUDA) != nullptr) {
    GTEST_SKIP() << "a real CUDA allocator is registered";
  }
  static FakeDevice fake;
  executorch::runtime::register_device_allocator(&fake);
  EXPECT_EQ(executorch::runtime::get_device_allocator(DeviceType::CUDA), &fake);
  {
    Result<DeviceMemoryBuffer> buf = DeviceMemoryBuffer::create(128, DeviceType::CUDA, 0);
    ASSERT_TRUE(buf.ok());
    EXPECT_EQ(fake.live, 1);
    EXPECT_EQ(buf->size(), 128u);
    DeviceMemoryBuffer moved = std::move(*buf);
    EXPECT_EQ(buf->data(), nullptr);
    EXPECT_EQ(moved.as_span().size(), 128u);
    EXPECT_EQ(fake.live, 1);
  }
  EXPECT_EQ(fake.live, 0);
}

TEST(Backend, OptionsAndRegistry) {
  executorch::runtime::BackendOptions<4> opts;
  EXPECT_EQ(opts.set_option("threads", 4), Error::Ok);
  EXPECT_EQ(opts.set_option("fast", true), Error::Ok);
  EXPECT_EQ(opts.set_option("mode", "low_latency"), Error::Ok);
  EXPECT_EQ(opts.set_option("threads", 2), Error::Ok);  // replaces
  EXPECT_EQ(opts.view().size(), 3u);
  int threads = 0;
  bool fast = false;
  const char* mode = nullptr;
  EXPECT_EQ(opts.get_option("threads", threads), Error::Ok);
  EXPECT_EQ(threads, 2);
  EXPECT_EQ(opts.get_option("fast", fast), Error::Ok);
  EXPECT_TRUE(fast);
  EXPECT_EQ(opts.get_option("mode", mode), Error::Ok);
  EXPECT_STREQ(mode, "low_latency");
  EXPECT_EQ(opts.get_option("fast", threads), Error::InvalidArgument);
  EXPECT_EQ(opts.get_option("missing", threads), Error::NotFound);

  executorch::runtime::LoadBackendOptionsMap map;
  EXPECT_EQ(map.set_options("XnnpackBackend", opts.view()), Error::Ok);
  EXPECT_TRUE(map.has_options("XnnpackBackend"));
  EXPECT_EQ(map.get_options("XnnpackBackend").size(), 3u);
  EXPECT_EQ(map.get_options("Other").size(), 0u);
  EXPECT_EQ(map.set_options("", opts.view()), Error::InvalidArgument);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_STREQ(map.entry_at(0).backend_id, "XnnpackBackend");

  // Loading with options: the XNNPACK program still runs.
  Loaded m("mlp/xnnpack.pte");
  Result<Method> method = m.program->load_method("forward", m.memory.get(), nullptr, nullptr, &map);
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  api_test::run_mlp_case0(*method);
  // The XNNPACK component is now registered: options reach it, an unknown backend is NotFound.
  EXPECT_NE(executorch::runtime::get_backend_class("XnnpackBackend"), nullptr);
  EXPECT_EQ(executorch::runtime::set_option("NoSuchBackend", opts.view()), Error::NotFound);
}

TEST(Kernel, MethodScopedRegistry) {
  // A method-scoped kernel list is searched before the process-wide registry.
  static int calls = 0;
  static executorch::runtime::OpFunction real = nullptr;
  Loaded m("add_mul/portable.pte");
  {
    Result<Method> method = m.program->load_method("forward", m.memory.get());  // loads the kernels component
    ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  }
  Result<executorch::runtime::OpFunction> relu = executorch::runtime::get_op_function_from_registry("aten::relu.out");
  ASSERT_TRUE(relu.ok());
  real = *relu;
  const executorch::runtime::Kernel scoped[] = {executorch::runtime::Kernel(
      "aten::relu.out", [](executorch::runtime::KernelRuntimeContext& ctx, Span<EValue*> args) {
        ++calls;
        real(ctx, args);
      })};
  Result<Method> method = m.program->load_method("forward", m.memory.get(), nullptr, nullptr, nullptr, {scoped, 1});
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  api_test::HostTensor t(ScalarType::Float, {2, 4}, x);
  ASSERT_EQ(method->set_input(EValue(t.tensor()), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(calls, 1);
}

TEST(Kernel, KernelKeysChooseByArgumentTypes) {
  // A kernel registered for float, contiguous rank-2 arguments is chosen over the fallback for the same operator;
  // one for int arguments is not.
  static int float_calls = 0, int_calls = 0;
  static executorch::runtime::OpFunction real = nullptr;
  Loaded m("add_mul/portable.pte");
  {
    Result<Method> warm = m.program->load_method("forward", m.memory.get());  // loads the kernels component
    ASSERT_TRUE(warm.ok()) << executorch::runtime::last_error_message();
  }
  real = *executorch::runtime::get_op_function_from_registry("aten::relu.out");
  executorch::aten::DimOrderType order[] = {0, 1};
  auto key_of = [&](ScalarType type, char* buf) {
    const executorch::runtime::TensorMeta meta[] = {{type, {order, 2}}, {type, {order, 2}}, {type, {order, 2}}};
    EXPECT_EQ(executorch::runtime::internal::make_kernel_key_string({meta, 3}, buf,
                                                                    executorch::runtime::internal::kKernelKeyBufSize),
              Error::Ok);
  };
  static char float_key[executorch::runtime::internal::kKernelKeyBufSize];
  static char int_key[executorch::runtime::internal::kKernelKeyBufSize];
  key_of(ScalarType::Float, float_key);
  key_of(ScalarType::Int, int_key);
  const executorch::runtime::Kernel scoped[] = {
      executorch::runtime::Kernel("aten::relu.out", executorch::runtime::KernelKey(int_key),
                                  [](executorch::runtime::KernelRuntimeContext& ctx, Span<EValue*> args) {
                                    ++int_calls;
                                    real(ctx, args);
                                  }),
      executorch::runtime::Kernel("aten::relu.out", executorch::runtime::KernelKey(float_key),
                                  [](executorch::runtime::KernelRuntimeContext& ctx, Span<EValue*> args) {
                                    ++float_calls;
                                    real(ctx, args);
                                  }),
  };
  Result<Method> method = m.program->load_method("forward", m.memory.get(), nullptr, nullptr, nullptr, {scoped, 2});
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  float x[8] = {0, -1, 2, -3, 4, -5, 6, -7};
  api_test::HostTensor t(ScalarType::Float, {2, 4}, x);
  ASSERT_EQ(method->set_input(EValue(t.tensor()), 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(float_calls, 1);
  EXPECT_EQ(int_calls, 0);
}

TEST(Memory, PlatformMemoryAllocator) {
  executorch::runtime::internal::PlatformMemoryAllocator a;
  void* p = a.allocate(100, 64);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 100);
  void* q = a.allocate(1 << 20);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  EXPECT_EQ(a.allocate(8, 3), nullptr);
  a.reset();  // frees both (the sanitizer builds see a leak or double free)
  EXPECT_NE(a.allocate(16), nullptr);
}

TEST(Program, ValidateProgramAndTensor) {
  const std::vector<uint8_t> pte = api_test::read_file(api_test::fixture("mlp/portable.pte"));
  uint32_t root = 0;
  std::memcpy(&root, pte.data(), sizeof(root));  // a flatbuffer starts with the offset of its root table
  const auto* program = reinterpret_cast<const executorch_flatbuffer::Program*>(pte.data() + root);
  EXPECT_EQ(executorch::runtime::validate_program(program), Error::Ok);
  EXPECT_EQ(executorch::runtime::validate_program(nullptr), Error::InvalidProgram);
  EXPECT_EQ(executorch::runtime::validate_tensor(nullptr), Error::InvalidProgram);
}

TEST(Method, NoTempAllocatorGetsThePlatformOne) {
  // Without a temp allocator in the MemoryManager the method still runs (kernels get platform memory).
  Loaded m("mlp/portable.pte");
  MemoryManager no_temp(m.method_allocator.get(), m.planned.allocator.get());
  Result<Method> method = m.program->load_method("forward", &no_temp);
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  api_test::run_mlp_case0(*method);
}
