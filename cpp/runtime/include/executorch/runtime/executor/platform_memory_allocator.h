#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

// A MemoryAllocator over the platform layer's allocator (pal_allocate / pal_free): every allocation is its own
// block, all of them released by reset() or the destructor. Upstream's runtime uses it as a method's temporary
// allocator when the MemoryManager has none.
class PlatformMemoryAllocator final : public MemoryAllocator {
 public:
  PlatformMemoryAllocator() : MemoryAllocator(0, nullptr) {}
  PlatformMemoryAllocator(const PlatformMemoryAllocator&) = delete;
  PlatformMemoryAllocator& operator=(const PlatformMemoryAllocator&) = delete;
  PlatformMemoryAllocator(PlatformMemoryAllocator&&) = delete;
  PlatformMemoryAllocator& operator=(PlatformMemoryAllocator&&) = delete;
  ~PlatformMemoryAllocator() override { reset(); }

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    size_t total = 0;
    if (__builtin_add_overflow(sizeof(Node), size, &total) || __builtin_add_overflow(total, alignment - 1, &total)) {
      ET_LOG(Error, "allocation of %zu bytes (alignment %zu) overflows", size, alignment);
      return nullptr;
    }
    void* block = runtime::pal_allocate(total);
    if (block == nullptr) {
      ET_LOG(Error, "failed to allocate %zu bytes", total);
      return nullptr;
    }
    Node* node = static_cast<Node*>(block);
    node->data = alignPointer(static_cast<uint8_t*>(block) + sizeof(Node), alignment);
    node->next = head_;
    head_ = node;
    return node->data;
  }

  void reset() override {
    while (head_ != nullptr) {
      Node* next = head_->next;
      runtime::pal_free(head_);
      head_ = next;
    }
  }

 private:
  struct Node {
    void* data;
    Node* next;
  };
  Node* head_ = nullptr;
};

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
