#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// A bump allocator over a caller-provided buffer.
class EXECUTORCH_API MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(void*);
  MemoryAllocator(uint32_t size, uint8_t* base_address)
      : begin_(base_address), end_(base_address + size), cur_(base_address) {}
  virtual ~MemoryAllocator();
  // Returns null when the buffer is exhausted or alignment is not a power of two.
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment);
  virtual void reset() { cur_ = begin_; }
  uint32_t size() const { return static_cast<uint32_t>(end_ - begin_); }
  uint8_t* base_address() const { return begin_; }

 private:
  uint8_t* begin_;
  uint8_t* end_;
  uint8_t* cur_;
};

// The memory-planned buffers of a method, in memory_id order (memory_id 1 is buffers[0]).
class EXECUTORCH_API HierarchicalAllocator {
 public:
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}
  size_t num_buffers() const { return buffers_.size(); }
  // Pointer to [offset, offset + size) inside buffer memory_id (0-based here); null when out of range.
  uint8_t* get_offset_address(uint32_t memory_id, size_t offset, size_t size) const;

 private:
  Span<Span<uint8_t>> buffers_;
};

// What a method uses while it loads and runs: its own allocator (unused by this runtime, kept for API
// compatibility; method metadata lives on the heap), the planned buffers, and a temporary allocator that kernels
// may use during one instruction.
class MemoryManager final {
 public:
  explicit MemoryManager(MemoryAllocator* method_allocator, HierarchicalAllocator* planned_memory = nullptr,
                         MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator), planned_memory_(planned_memory), temp_allocator_(temp_allocator) {}
  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace runtime
}  // namespace executorch
