#pragma once
// Loads a program from bytes and runs every method on zero-filled inputs of the declared shapes. Shared by the
// robustness test and the fuzz target: whatever the bytes, this must return an Error, never crash.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/executor/program.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace et_test {

using executorch::runtime::Error;

// `data_map`: the program's data files (.ptd), when its weights live outside it.
inline Error run_program_bytes(const uint8_t* data, size_t size, size_t max_planned_bytes = size_t(256) << 20,
                               const executorch::runtime::NamedDataMap* data_map = nullptr) {
  using namespace executorch::runtime;
  // Programs must start 16-byte aligned; copy into fresh memory so ASan sees every out-of-bounds read.
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (size + 15) / 16 * 16 + 16)), std::free);
  if (size > 0) std::memcpy(copy.get(), data, size);
  executorch::extension::BufferDataLoader loader(copy.get(), size);
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) return program.error();
  Error first = Error::Ok;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    const char* name = *program->get_method_name(m);
    Result<MethodMeta> meta = program->method_meta(name);
    if (!meta.ok()) return meta.error();
    size_t total = 0;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t b = 0; b < meta->num_memory_planned_buffers(); ++b) {
      const size_t n = static_cast<size_t>(*meta->memory_planned_buffer_size(b));
      total += n;
      if (total > max_planned_bytes) return Error::MemoryAllocationFailed;
    }
    buffers.reserve(meta->num_memory_planned_buffers());
    for (size_t b = 0; b < meta->num_memory_planned_buffers(); ++b) {
      buffers.emplace_back(static_cast<size_t>(*meta->memory_planned_buffer_size(b)));
      spans.emplace_back(buffers.back().data(), buffers.back().size());
    }
    HierarchicalAllocator planned(Span<Span<uint8_t>>(spans.data(), spans.size()));
    std::vector<uint8_t> temp(1 << 20);
    MemoryAllocator temp_alloc(static_cast<uint32_t>(temp.size()), temp.data());
    MemoryManager mm(nullptr, &planned, &temp_alloc);
    Result<Method> method = program->load_method(name, &mm, nullptr, data_map);
    if (!method.ok()) {
      if (first == Error::Ok) first = method.error();
      continue;
    }
    std::vector<executorch::extension::TensorPtr> inputs;
    Error err = Error::Ok;
    for (size_t i = 0; i < meta->num_inputs() && err == Error::Ok; ++i) {
      Result<TensorInfo> info = meta->input_tensor_meta(i);
      if (!info.ok()) continue;  // scalar inputs keep their traced value
      std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
      std::vector<executorch::aten::DimOrderType> order(info->dim_order().begin(), info->dim_order().end());
      std::vector<uint8_t> bytes(info->nbytes());
      inputs.push_back(executorch::extension::make_tensor_ptr(sizes, std::move(bytes), order, {}, info->scalar_type()));
      if (inputs.back() == nullptr) {
        err = Error::InvalidArgument;
        break;
      }
      err = method->set_input(EValue(inputs.back()), i);
    }
    if (err == Error::Ok) err = method->execute();
    if (err != Error::Ok && first == Error::Ok) first = err;
  }
  return first;
}

}  // namespace et_test
