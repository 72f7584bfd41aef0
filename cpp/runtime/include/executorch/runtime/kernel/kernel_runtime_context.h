#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {

// Passed to every kernel call. A kernel reports failure with fail(); the method stops and returns that error.
class KernelRuntimeContext {
 public:
  explicit KernelRuntimeContext(MemoryAllocator* temp_allocator = nullptr) : temp_allocator_(temp_allocator) {}
  void fail(Error error) { failure_state_ = error; }
  Error failure_state() const { return failure_state_; }
  // Scratch memory valid until the kernel returns. NotFound when the method has no temp allocator.
  Result<void*> allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    if (temp_allocator_ == nullptr) return Error::NotFound;
    void* p = temp_allocator_->allocate(size, alignment);
    if (p == nullptr) return Error::MemoryAllocationFailed;
    return p;
  }

 private:
  MemoryAllocator* temp_allocator_;
  Error failure_state_ = Error::Ok;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using KernelRuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace executor
}  // namespace torch
