#pragma once
// The event-tracer interface of the runtime, under upstream ExecuTorch's names. Pass an EventTracer to
// Program::load_method() (or to Module's constructor): Method::execute() then reports one event block per run
// ("Execute"), a "Method::execute" event around it and one profiling event per instruction (with chain and
// instruction index); backends report their own events through the delegate calls (see
// event_tracer_hooks_delegate.h). At EventTracerDebugLogLevel::kProgramOutputs / kIntermediateOutputs the tracer
// is also given the values the method produces (log_evalue). Without a tracer the runtime makes no call and reads
// no clock. executorch::etdump::ETDumpGen (executorch/devtools/etdump/etdump_flatcc.h) writes ETDump files.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {

typedef uint32_t AllocatorID;
typedef int32_t ChainID;
typedef uint32_t DebugHandle;
typedef int32_t DelegateDebugIntId;

constexpr ChainID kUnsetChainId = -1;
constexpr DebugHandle kUnsetDebugHandle = 0;
constexpr DelegateDebugIntId kUnsetDelegateDebugIntId = -1;
constexpr int kUnsetBundledInputIndex = -1;

// How a delegate event is identified: not a delegate event, by an integer id, or by a name.
enum class DelegateDebugIdType { kNone, kInt, kStr };

enum class LoggedEValueType {
  kIntermediateOutput = 0,
  kProgramOutput = 1,
};

// Which values the runtime hands to log_evalue(): none, the method's outputs, or every intermediate value too.
enum class EventTracerDebugLogLevel {
  kNoLogging,
  kProgramOutputs,
  kIntermediateOutputs,
};

// Decides which delegate intermediate outputs are logged: filter() returns true for those to leave out.
class EXECUTORCH_API EventTracerFilterBase {
 public:
  virtual Result<bool> filter(const char* name, DelegateDebugIntId delegate_debug_index) = 0;
  virtual ~EventTracerFilterBase() = default;
};

// kProfileMethodOnly: only method-level events ("Method::execute"), no per-instruction events.
enum class EventTracerProfilingLevel {
  kProfileMethodOnly,
  kProfileAllEvents,
};

// What start_profiling() / start_profiling_delegate() return and the matching end call takes back.
struct EventTracerEntry {
  int64_t event_id;
  ChainID chain_id;
  DebugHandle debug_handle;
  et_timestamp_t start_time;
  DelegateDebugIdType delegate_event_id_type;
};

class EXECUTORCH_API EventTracer {
 public:
  // Starts a new block of events (one per run); later events belong to it.
  virtual void create_event_block(const char* name) = 0;
  // A profiling event. chain_id == kUnsetChainId takes the current chain and instruction
  // (set_chain_debug_handle()).
  virtual EventTracerEntry start_profiling(const char* name, ChainID chain_id = kUnsetChainId,
                                           DebugHandle debug_handle = kUnsetDebugHandle) = 0;
  // An event inside a delegate, identified either by name or by an integer id (exactly one of the two; the other
  // is nullptr / kUnsetDelegateDebugIntId).
  virtual EventTracerEntry start_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index) = 0;
  virtual void end_profiling_delegate(EventTracerEntry event_tracer_entry, const void* metadata = nullptr,
                                      size_t metadata_len = 0) = 0;
  // A delegate event whose times the delegate measured itself.
  virtual void log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                      et_timestamp_t start_time, et_timestamp_t end_time,
                                      const void* metadata = nullptr, size_t metadata_len = 0) = 0;
  virtual void end_profiling(EventTracerEntry prof_entry) = 0;
  virtual void track_allocation(AllocatorID id, size_t size) = 0;
  virtual AllocatorID track_allocator(const char* name) = 0;
  virtual Result<bool> log_evalue(const EValue& evalue, LoggedEValueType evalue_type) = 0;
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                        const executorch::aten::Tensor& output) = 0;
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                        const ArrayRef<executorch::aten::Tensor> output) = 0;
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                        const int& output) = 0;
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                        const bool& output) = 0;
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                        const double& output) = 0;
  virtual void set_delegation_intermediate_output_filter(EventTracerFilterBase* event_tracer_filter) = 0;

  // The instruction being run (the runtime sets it around each instruction).
  void set_chain_debug_handle(ChainID chain_id, DebugHandle debug_handle) {
    chain_id_ = chain_id;
    debug_handle_ = debug_handle;
  }
  // The bundled-program test case the next runs belong to (kUnsetBundledInputIndex: none).
  void set_bundled_input_index(int bundled_input_index) { bundled_input_index_ = bundled_input_index; }
  int bundled_input_index() { return bundled_input_index_; }
  void set_event_tracer_debug_level(EventTracerDebugLogLevel log_level) { event_tracer_debug_level_ = log_level; }
  EventTracerDebugLogLevel event_tracer_debug_level() { return event_tracer_debug_level_; }
  void set_event_tracer_profiling_level(EventTracerProfilingLevel profiling_level) {
    event_tracer_profiling_level_ = profiling_level;
  }
  EventTracerProfilingLevel event_tracer_profiling_level() { return event_tracer_profiling_level_; }
  bool intermediate_outputs_logging_status() { return log_intermediate_tensors_; }
  ChainID current_chain_id() { return chain_id_; }
  DebugHandle current_debug_handle() { return debug_handle_; }

  virtual ~EventTracer() {}

 protected:
  ChainID chain_id_ = kUnsetChainId;
  DebugHandle debug_handle_ = kUnsetDebugHandle;
  bool event_tracer_enable_debugging_ = false;
  bool log_intermediate_tensors_ = false;
  int bundled_input_index_ = kUnsetBundledInputIndex;
  EventTracerDebugLogLevel event_tracer_debug_level_ = EventTracerDebugLogLevel::kNoLogging;
  EventTracerProfilingLevel event_tracer_profiling_level_ = EventTracerProfilingLevel::kProfileAllEvents;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::AllocatorID;
using ::executorch::runtime::ChainID;
using ::executorch::runtime::DebugHandle;
using ::executorch::runtime::DelegateDebugIdType;
using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracer;
using ::executorch::runtime::EventTracerDebugLogLevel;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::kUnsetBundledInputIndex;
using ::executorch::runtime::kUnsetChainId;
using ::executorch::runtime::kUnsetDebugHandle;
using ::executorch::runtime::kUnsetDelegateDebugIntId;
using ::executorch::runtime::LoggedEValueType;
}  // namespace executor
}  // namespace torch
