#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

// A bump allocator over a caller-provided buffer, as upstream's: allocations are never freed one by one, reset()
// releases them all. Subclasses (MallocMemoryAllocator, PlatformMemoryAllocator) override allocate() and reset().
class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(void*);

  // `base_address` may be null only when `size` is 0 (an allocator that never succeeds, or a subclass's base).
  MemoryAllocator(uint32_t size, uint8_t* base_address)
      : begin_(base_address),
        end_(base_address != nullptr && UINTPTR_MAX - reinterpret_cast<uintptr_t>(base_address) >= size
                 ? base_address + size
                 : nullptr),
        cur_(base_address),
        size_(size) {
    ET_CHECK_MSG(base_address != nullptr || size == 0, "MemoryAllocator: null base address with size %u",
                 static_cast<unsigned>(size));
    ET_CHECK_MSG(base_address == nullptr || end_ != nullptr, "MemoryAllocator: buffer wraps the address space");
  }
  virtual ~MemoryAllocator() = default;

  // `size` bytes aligned to `alignment` (a power of 2), or null (logged) when the buffer is exhausted.
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment) {
    if (begin_ == nullptr || end_ == nullptr) {
      ET_LOG(Error, "allocate() on an allocator without memory");
      return nullptr;
    }
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    uint8_t* start = alignPointer(cur_, alignment);
    const size_t available = static_cast<size_t>(end_ - cur_);
    const size_t padding = static_cast<size_t>(start - cur_);
    if (padding > available || size > available - padding) {
      ET_LOG(Error, "memory allocation failed: %zu bytes requested (with alignment), %zu available", padding + size,
             available);
      return nullptr;
    }
    cur_ = start + size;
    return start;
  }

  template <typename T>
  T* allocateInstance(size_t alignment = alignof(T)) {
    return static_cast<T*>(allocate(sizeof(T), alignment));
  }

  template <typename T>
  T* allocateList(size_t size, size_t alignment = alignof(T)) {
    size_t bytes = 0;
    if (__builtin_mul_overflow(size, sizeof(T), &bytes)) {
      ET_LOG(Error, "allocateList: %zu elements of %zu bytes overflow", size, sizeof(T));
      return nullptr;
    }
    return static_cast<T*>(allocate(bytes, alignment));
  }

  virtual uint8_t* base_address() const { return begin_; }
  virtual uint32_t size() const { return size_; }
  virtual size_t used_size() const { return static_cast<size_t>(cur_ - begin_); }
  virtual size_t free_size() const { return static_cast<size_t>(end_ - cur_); }
  virtual void reset() { cur_ = begin_; }
  // Allocation profiling is not collected by this runtime; kept for source compatibility.
  void enable_profiling(ET_UNUSED const char* name) {}

 protected:
  int32_t prof_id() const { return -1; }
  static constexpr bool isPowerOf2(size_t value) { return value != 0 && (value & (value - 1)) == 0; }
  static inline uint8_t* alignPointer(void* ptr, size_t alignment) {
    const uintptr_t mask = static_cast<uintptr_t>(alignment - 1);
    return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(ptr) + mask) & ~mask);
  }

 private:
  uint8_t* const begin_;
  uint8_t* const end_;
  uint8_t* cur_;
  const uint32_t size_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MemoryAllocator;
}  // namespace executor
}  // namespace torch
