#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <executorch/extension/memory_allocator/memory_allocator_utils.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

// A MemoryAllocator without a fixed buffer: every allocate() is its own malloc block (enlarged so that the
// requested alignment fits), and reset() or destruction frees them all. For temporary allocators and tests;
// base_address() is null and size() 0.
class MallocMemoryAllocator : public executorch::runtime::MemoryAllocator {
 public:
  MallocMemoryAllocator() : MemoryAllocator(0, nullptr) {}
  MallocMemoryAllocator(const MallocMemoryAllocator&) = delete;
  MallocMemoryAllocator& operator=(const MallocMemoryAllocator&) = delete;
  ~MallocMemoryAllocator() override { reset(); }

  // `size` bytes aligned to `alignment` (a power of 2), or null (logged) when it is not one or malloc fails.
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    auto adjusted = utils::get_aligned_size(size, alignment);
    if (!adjusted.ok()) return nullptr;
    void* block = std::malloc(adjusted.get());
    if (block == nullptr) {
      ET_LOG(Error, "Malloc failed to allocate %zu bytes", adjusted.get());
      return nullptr;
    }
    mem_ptrs_.push_back(block);
    return alignPointer(block, alignment);
  }

  // Frees every block allocated so far.
  void reset() override {
    for (void* block : mem_ptrs_) std::free(block);
    mem_ptrs_.clear();
  }

 private:
  std::vector<void*> mem_ptrs_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MallocMemoryAllocator;
}  // namespace util
}  // namespace executor
}  // namespace torch
