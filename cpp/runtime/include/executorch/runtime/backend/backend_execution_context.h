#pragma once
#include <cstddef>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// What a backend gets with each execute() of a delegate.
class BackendExecutionContext final {
 public:
  BackendExecutionContext(EventTracer* event_tracer = nullptr, MemoryAllocator* temp_allocator = nullptr,
                          const char* method_name = nullptr)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator), method_name_(method_name) {}

  EventTracer* event_tracer() { return event_tracer_; }
  // Scratch memory valid during this execute() (from the method's temp allocator); null when there is none or it
  // is exhausted.
  void* allocate(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(size, alignment);
  }
  MemoryAllocator* get_temp_allocator() { return temp_allocator_; }
  const char* get_method_name() const { return method_name_; }

 private:
  EventTracer* event_tracer_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
  const char* method_name_ = nullptr;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::BackendExecutionContext;
}  // namespace executor
}  // namespace torch
