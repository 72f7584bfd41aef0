#pragma once
#include <array>
#include <cstring>
#include <type_traits>
#include <variant>

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// What a backend gets while a method initialises one of its delegates.
class BackendInitContext final {
 public:
  explicit BackendInitContext(MemoryAllocator* runtime_allocator, EventTracer* event_tracer = nullptr,
                              const char* method_name = nullptr, const NamedDataMap* named_data_map = nullptr,
                              Span<const BackendOption> runtime_specs = {})
      : runtime_allocator_(runtime_allocator),
        event_tracer_(event_tracer),
        method_name_(method_name),
        named_data_map_(named_data_map),
        runtime_specs_(runtime_specs) {}

  // The method allocator given to load_method (may be null: this runtime keeps method metadata on the heap).
  MemoryAllocator* get_runtime_allocator() { return runtime_allocator_; }
  EventTracer* event_tracer() { return event_tracer_; }
  const char* get_method_name() const { return method_name_; }
  // The named data the delegate may read by key: the program's own, merged with the data files given to
  // load_method (null when there is none of either).
  const NamedDataMap* get_named_data_map() const { return named_data_map_; }
  // The options given for this backend in load_method's LoadBackendOptionsMap.
  Span<const BackendOption> runtime_specs() const { return runtime_specs_; }

  // The runtime spec `key` as T (bool, int or const char*): NotFound when absent, InvalidArgument for another type.
  template <typename T>
  Result<T> get_runtime_spec(const char* key) const {
    static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, const char*>,
                  "get_runtime_spec<T> takes bool, int or const char*");
    for (const BackendOption& opt : runtime_specs_) {
      if (std::strcmp(opt.key, key) != 0) continue;
      if constexpr (std::is_same_v<T, const char*>) {
        if (const auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&opt.value)) return text->data();
      } else if (const auto* v = std::get_if<T>(&opt.value)) {
        return *v;
      }
      return Error::InvalidArgument;
    }
    return Error::NotFound;
  }

 private:
  MemoryAllocator* runtime_allocator_ = nullptr;
  EventTracer* event_tracer_ = nullptr;
  const char* method_name_ = nullptr;
  const NamedDataMap* named_data_map_ = nullptr;
  Span<const BackendOption> runtime_specs_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::BackendInitContext;
}  // namespace executor
}  // namespace torch
