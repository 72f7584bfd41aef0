#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// Passed to every kernel call. A kernel reports failure with fail(); the method stops and returns that error.
class KernelRuntimeContext {
 public:
  // event_tracer: the method's tracer (null when not profiling); temp_allocator: scratch memory for the call.
  KernelRuntimeContext(EventTracer* event_tracer = nullptr, MemoryAllocator* temp_allocator = nullptr)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator) {}

  void fail(Error error) { failure_state_ = error; }
  // fail() with the reason (printf-style, at most 255 bytes kept), which Method::execute puts into its error:
  // "method forward: operator aten::add.out failed at instruction 3: argument 1 has dtype Half, ...". An extra of
  // this runtime.
  EXECUTORCH_API void fail(Error error, const char* fmt, ...) ET_PRINTFLIKE(3, 4);
  ET_NODISCARD Error failure_state() const { return failure_state_; }
  // The reason given to fail(); empty when none was. An extra of this runtime.
  const char* failure_message() const { return failure_message_; }

  // The event tracer of the running method, for kernels that log their own events; null when there is none.
  EventTracer* internal_event_tracer() { return event_tracer_; }

  // Scratch memory valid until the kernel returns: NotFound when the method has no temp allocator,
  // MemoryAllocationFailed when it is exhausted.
  Result<void*> allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    if (temp_allocator_ == nullptr) return Error::NotFound;
    void* p = temp_allocator_->allocate(size, alignment);
    if (p == nullptr) return Error::MemoryAllocationFailed;
    return p;
  }

 private:
  EventTracer* event_tracer_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
  Error failure_state_ = Error::Ok;
  char failure_message_[256] = {};
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
using RuntimeContext = ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
}  // namespace executor
}  // namespace torch

namespace executorch {
namespace aten {
using RuntimeContext = ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
}  // namespace aten
}  // namespace executorch

namespace exec_aten = ::executorch::aten;
