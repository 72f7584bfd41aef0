#pragma once
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

// What a method uses while it loads and runs: the method allocator (this runtime keeps method metadata on the heap
// and does not need it; it may be null), the memory-planned buffers, and a temporary allocator that kernels and
// delegates may use during one instruction (reset after each).
class MemoryManager final {
 public:
  explicit MemoryManager(MemoryAllocator* method_allocator, HierarchicalAllocator* planned_memory = nullptr,
                         MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator), planned_memory_(planned_memory), temp_allocator_(temp_allocator) {
    ET_CHECK_MSG(method_allocator == nullptr || method_allocator != temp_allocator,
                 "the method allocator cannot be the temp allocator");
  }

  // The old four-allocator form; the constant allocator is unused.
  ET_DEPRECATED MemoryManager(MemoryAllocator* constant_allocator, HierarchicalAllocator* non_constant_allocator,
                              MemoryAllocator* runtime_allocator, MemoryAllocator* temporary_allocator)
      : MemoryManager(runtime_allocator, non_constant_allocator, temporary_allocator) {
    (void)constant_allocator;
  }

  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

  Span<const etensor::Device> planned_buffer_devices() const {
    return planned_memory_ == nullptr ? Span<const etensor::Device>() : planned_memory_->planned_buffer_devices();
  }
  bool has_device_memory() const { return planned_buffer_devices().size() > 0; }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MemoryManager;
}  // namespace executor
}  // namespace torch
