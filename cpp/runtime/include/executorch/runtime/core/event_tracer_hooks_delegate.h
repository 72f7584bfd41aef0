#pragma once
// Helpers for backends (delegates) to report their own events to the method's EventTracer
// (BackendExecutionContext::event_tracer()); each accepts a null tracer. A delegate event is identified either by
// a name or by an integer id (the "delegate debug identifier" of the backend's debug-handle map): pass exactly one
// of them, the other as nullptr / kUnsetDelegateDebugIntId. As upstream's, the helpers do something only when
// ET_EVENT_TRACER_ENABLED is defined.
#include <type_traits>

#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace runtime {

// Starts a delegate profiling event; end it with event_tracer_end_profiling_delegate().
inline EventTracerEntry event_tracer_start_profiling_delegate(EventTracer* event_tracer, const char* name,
                                                              DebugHandle delegate_debug_id) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer) return event_tracer->start_profiling_delegate(name, delegate_debug_id);
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
#endif
  return EventTracerEntry();
}

// Ends a delegate profiling event, with optional backend-specific metadata bytes stored beside it.
inline void event_tracer_end_profiling_delegate(EventTracer* event_tracer, EventTracerEntry event_tracer_entry,
                                                const void* metadata = nullptr, size_t metadata_len = 0) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer) event_tracer->end_profiling_delegate(event_tracer_entry, metadata, metadata_len);
#else
  (void)event_tracer;
  (void)event_tracer_entry;
  (void)metadata;
  (void)metadata_len;
#endif
}

// Records a delegate event whose start and end times the backend measured itself.
inline void event_tracer_log_profiling_delegate(EventTracer* event_tracer, const char* name,
                                                DebugHandle delegate_debug_id, et_timestamp_t start_time,
                                                et_timestamp_t end_time, const void* metadata = nullptr,
                                                size_t metadata_len = 0) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer) {
    event_tracer->log_profiling_delegate(name, delegate_debug_id, start_time, end_time, metadata, metadata_len);
  }
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
  (void)start_time;
  (void)end_time;
  (void)metadata;
  (void)metadata_len;
#endif
}

// Logs an intermediate output of a delegate: a Tensor, an ArrayRef<Tensor>, an int, a bool or a double.
template <typename T>
inline void event_tracer_log_output_delegate(EventTracer* event_tracer, const char* name, DebugHandle delegate_debug_id,
                                             const T& output) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer) {
    static_assert(std::is_same<T, int>::value || std::is_same<T, bool>::value || std::is_same<T, double>::value ||
                      std::is_same<T, executorch::aten::Tensor>::value ||
                      std::is_same<T, ArrayRef<executorch::aten::Tensor>>::value,
                  "Unsupported type for intermediate output");
    event_tracer->log_intermediate_output_delegate(name, delegate_debug_id, output);
  }
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
  (void)output;
#endif
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::event_tracer_end_profiling_delegate;
using ::executorch::runtime::event_tracer_log_output_delegate;
using ::executorch::runtime::event_tracer_log_profiling_delegate;
using ::executorch::runtime::event_tracer_start_profiling_delegate;
}  // namespace executor
}  // namespace torch
