#pragma once
#include <cinttypes>
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

// The memory-planned buffers of a method, indexed by memory id (the program's memory_id N is buffer N - 1), and,
// when some of them live on an accelerator, the device of each.
class HierarchicalAllocator final {
 public:
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}

  // `planned_buffer_devices` has one entry per buffer.
  HierarchicalAllocator(Span<Span<uint8_t>> buffers, Span<const etensor::Device> planned_buffer_devices)
      : buffers_(buffers), planned_buffer_devices_(planned_buffer_devices) {
    ET_CHECK_MSG(planned_buffer_devices.size() == buffers.size(), "HierarchicalAllocator: %zu devices for %zu buffers",
                 planned_buffer_devices.size(), buffers.size());
  }

  // The old form: one MemoryAllocator per buffer (at most 16).
  ET_DEPRECATED HierarchicalAllocator(uint32_t n_allocators, MemoryAllocator* allocators)
      : buffers_(to_spans(n_allocators, allocators)) {}

  // The address of [offset_bytes, offset_bytes + size_bytes) in buffer `memory_id`: InvalidArgument for an
  // unknown id or an overflowing range, MemoryAllocationFailed when the range does not fit the buffer.
  ET_NODISCARD Result<void*> get_offset_address(uint32_t memory_id, size_t offset_bytes, size_t size_bytes) {
    size_t end = 0;
    if (__builtin_add_overflow(offset_bytes, size_bytes, &end)) {
      ET_LOG(Error, "offset %zu + size %zu overflows", offset_bytes, size_bytes);
      return Error::InvalidArgument;
    }
    if (memory_id >= buffers_.size()) {
      ET_LOG(Error, "memory id %" PRIu32 " >= %zu buffers", memory_id, buffers_.size());
      return Error::InvalidArgument;
    }
    const Span<uint8_t> buffer = buffers_[memory_id];
    if (end > buffer.size()) {
      ET_LOG(Error, "offset %zu + size %zu exceeds buffer %" PRIu32 " of %zu bytes", offset_bytes, size_bytes,
             memory_id, buffer.size());
      return Error::MemoryAllocationFailed;
    }
    return static_cast<void*>(buffer.data() + offset_bytes);
  }

  // Number of buffers (an extension of this SDK).
  size_t num_buffers() const { return buffers_.size(); }

  // One device per buffer, or empty when every buffer is host memory.
  Span<const etensor::Device> planned_buffer_devices() const { return planned_buffer_devices_; }

 private:
  static constexpr size_t kSpanArraySize = 16;
  Span<Span<uint8_t>> to_spans(uint32_t n_allocators, MemoryAllocator* allocators) {
    ET_CHECK_MSG(n_allocators <= kSpanArraySize, "HierarchicalAllocator: %u allocators > %zu",
                 static_cast<unsigned>(n_allocators), kSpanArraySize);
    for (uint32_t i = 0; i < n_allocators; ++i) {
      span_array_[i] = Span<uint8_t>(allocators[i].base_address(), allocators[i].size());
    }
    return {span_array_, n_allocators};
  }

  Span<uint8_t> span_array_[kSpanArraySize];
  Span<Span<uint8_t>> buffers_;
  Span<const etensor::Device> planned_buffer_devices_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::HierarchicalAllocator;
}  // namespace executor
}  // namespace torch
