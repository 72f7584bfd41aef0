#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {

// Passed to every kernel call. A kernel reports failure with fail(); the method stops and returns that error.
class KernelRuntimeContext {
 public:
  explicit KernelRuntimeContext(MemoryAllocator* temp_allocator = nullptr) : temp_allocator_(temp_allocator) {}
  void fail(Error error) { failure_state_ = error; }
  // fail() with the reason (printf-style, at most 255 bytes kept), which Method::execute puts into its error:
  // "method forward: operator aten::add.out failed at instruction 3: argument 1 has dtype Half, ...".
  EXECUTORCH_API void fail(Error error, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  Error failure_state() const { return failure_state_; }
  // The reason given to fail(); empty when none was.
  const char* failure_message() const { return failure_message_; }
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
  char failure_message_[256] = {};
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using KernelRuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace executor
}  // namespace torch
