#pragma once
// Helpers through which runtime code (and kernels / operator wrappers written against upstream ExecuTorch)
// reports to an EventTracer: each takes a tracer that may be null and does nothing then. As upstream's, they are
// compiled in only when ET_EVENT_TRACER_ENABLED is defined (the SDK's CMake package defines it for its targets,
// as upstream's does); without it every helper is an empty inline function and the scope objects are empty.
#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

// One profiling event from construction to destruction: what the two scopes below share. An operator-level scope
// records nothing at kProfileMethodOnly.
template <bool kOperatorLevel>
class EventTracerProfileScopeBase {
 protected:
  EventTracerProfileScopeBase(EventTracer* event_tracer, const char* name) {
#ifdef ET_EVENT_TRACER_ENABLED
    event_tracer_ = event_tracer;
    if (records()) event_entry_ = event_tracer_->start_profiling(name);
#else
    (void)event_tracer;
    (void)name;
#endif
  }

  ~EventTracerProfileScopeBase() {
#ifdef ET_EVENT_TRACER_ENABLED
    if (records()) event_tracer_->end_profiling(event_entry_);
#endif
  }

 private:
#ifdef ET_EVENT_TRACER_ENABLED
  bool records() const {
    return event_tracer_ != nullptr && (!kOperatorLevel || event_tracer_->event_tracer_profiling_level() >
                                                               EventTracerProfilingLevel::kProfileMethodOnly);
  }

  EventTracer* event_tracer_;
  EventTracerEntry event_entry_;
#endif
};

// Profiles the enclosing scope as one operator-level event; skipped at kProfileMethodOnly.
class EventTracerProfileOpScope final : private EventTracerProfileScopeBase<true> {
 public:
  EventTracerProfileOpScope(EventTracer* event_tracer, const char* name)
      : EventTracerProfileScopeBase(event_tracer, name) {}
};

using EventTracerProfileScope = EventTracerProfileOpScope;

// Profiles the enclosing scope as one method-level event, at every profiling level.
class EventTracerProfileMethodScope final : private EventTracerProfileScopeBase<false> {
 public:
  EventTracerProfileMethodScope(EventTracer* event_tracer, const char* name)
      : EventTracerProfileScopeBase(event_tracer, name) {}
};

// Marks the enclosing scope as running instruction `debug_handle` of chain `chain_idx`: events recorded in it
// (without a chain of their own) carry these; unset again on exit.
class EventTracerProfileInstructionScope final {
 public:
  EventTracerProfileInstructionScope(EventTracer* event_tracer, ChainID chain_idx, DebugHandle debug_handle) {
#ifdef ET_EVENT_TRACER_ENABLED
    event_tracer_ = event_tracer;
    if (event_tracer_ == nullptr) return;
    event_tracer_->set_chain_debug_handle(chain_idx, debug_handle);
#else
    (void)event_tracer;
    (void)chain_idx;
    (void)debug_handle;
#endif
  }

  ~EventTracerProfileInstructionScope() {
#ifdef ET_EVENT_TRACER_ENABLED
    if (event_tracer_ == nullptr) return;
    event_tracer_->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
#endif
  }

 private:
#ifdef ET_EVENT_TRACER_ENABLED
  EventTracer* event_tracer_;
#endif
};

inline bool event_tracer_enabled() {
#ifdef ET_EVENT_TRACER_ENABLED
  return true;
#else
  return false;
#endif
}

// The tracer the helpers below report to: `event_tracer` when tracing is compiled in, else none, so that each
// helper folds to nothing.
inline EventTracer* event_tracer_if_enabled(EventTracer* event_tracer) {
  return event_tracer_enabled() ? event_tracer : nullptr;
}

inline void event_tracer_create_event_block(EventTracer* event_tracer, char const* name) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) t->create_event_block(name);
}

// Returns a default EventTracerEntry when there is no tracer.
inline EventTracerEntry event_tracer_begin_profiling_event(EventTracer* event_tracer, char const* name) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) return t->start_profiling(name);
  return EventTracerEntry();
}

inline void event_tracer_end_profiling_event(EventTracer* event_tracer, EventTracerEntry event) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) t->end_profiling(event);
}

// Returns 0 when there is no tracer.
inline AllocatorID event_tracer_track_allocator(EventTracer* event_tracer, const char* name) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) return t->track_allocator(name);
  return 0;
}

inline void event_tracer_track_allocation(EventTracer* event_tracer, AllocatorID id, size_t size) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) t->track_allocation(id, size);
}

// Logs an intermediate value, only at EventTracerDebugLogLevel::kIntermediateOutputs.
inline void event_tracer_log_evalue(EventTracer* event_tracer, EValue& evalue) {
  EventTracer* t = event_tracer_if_enabled(event_tracer);
  if (t && t->event_tracer_debug_level() >= EventTracerDebugLogLevel::kIntermediateOutputs) {
    t->log_evalue(evalue, LoggedEValueType::kIntermediateOutput);
  }
}

// Logs a method output, at EventTracerDebugLogLevel::kProgramOutputs and above.
inline void event_tracer_log_evalue_output(EventTracer* event_tracer, const EValue& evalue) {
  EventTracer* t = event_tracer_if_enabled(event_tracer);
  if (t && t->event_tracer_debug_level() >= EventTracerDebugLogLevel::kProgramOutputs) {
    t->log_evalue(evalue, LoggedEValueType::kProgramOutput);
  }
}

inline void event_tracer_set_bundled_input_index(EventTracer* event_tracer, int bundled_input_index) {
  if (EventTracer* t = event_tracer_if_enabled(event_tracer)) t->set_bundled_input_index(bundled_input_index);
}

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
namespace internal {
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_begin_profiling_event;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_create_event_block;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_end_profiling_event;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_log_evalue;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_log_evalue_output;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_set_bundled_input_index;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_track_allocation;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_track_allocator;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileInstructionScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileMethodScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileOpScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileScope;
}  // namespace internal
}  // namespace executor
}  // namespace torch
