#pragma once
// ETDumpGen: the event tracer that writes upstream ExecuTorch's ETDump file (flatbuffer, identifier "ED00",
// size-prefixed), readable by upstream's executorch.devtools.Inspector. Same header path and names as upstream:
//
//   auto tracer = std::make_unique<executorch::etdump::ETDumpGen>();
//   Module module("model.pte", Module::LoadMode::File, std::move(tracer));
//   module.forward(inputs);
//   auto* gen = static_cast<executorch::etdump::ETDumpGen*>(module.event_tracer());
//   executorch::etdump::ETDumpResult r = gen->get_etdump_data();
//   if (r.buf != nullptr) { fwrite(r.buf, 1, r.size, f); free(r.buf); }
//
// Records profiling events, allocation events and debug events (logged values). A logged tensor's data goes to
// the data sink (set_debug_buffer() or set_data_sink()); the ETDump keeps its dtype, sizes, strides and the
// offset where the sink stored it, which the Inspector reads back with the sink's bytes ("debug buffer").
#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

#define ETDUMP_VERSION 0

struct flatcc_builder;

namespace executorch {
namespace etdump {

using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::EventTracerFilterBase;
using ::executorch::runtime::Result;

namespace internal {
struct ETDumpState;  // what ETDumpGen has recorded (defined by the library)

// Upstream's layout of a fixed buffer shared by its flatcc builder and output (see emitter.h). Not used by this
// runtime's ETDumpGen; kept for source compatibility.
struct ETDumpStaticAllocator {
  ETDumpStaticAllocator() = default;

  void set_buffer(uint8_t* buffer, size_t total_buf_size, size_t alloc_buf_size) {
    data = buffer;
    data_size = alloc_buf_size;
    allocated = 0;
    out_size = total_buf_size - alloc_buf_size;
    front_cursor = &buffer[alloc_buf_size + out_size];
    front_left = out_size;
  }

  uint8_t* data{nullptr};
  size_t data_size{0};
  size_t allocated{0};
  size_t out_size{0};
  uint8_t* front_cursor{nullptr};
  size_t front_left{0};
};
}  // namespace internal

// The serialized ETDump. Without a buffer given to ETDumpGen, `buf` comes from malloc() and the caller releases
// it with free(); with one, it points into that buffer. {nullptr, 0} when no event block was recorded, or when
// the given buffer is too small (last_error_message() says so).
struct ETDumpResult {
  void* buf;
  size_t size;
};

class EXECUTORCH_API ETDumpGen : public ::executorch::runtime::EventTracer {
 public:
  // `buffer`: optional storage for the serialized result: get_etdump_data() then writes there (at a 64-byte
  // aligned address) instead of allocating.
  ETDumpGen(::executorch::runtime::Span<uint8_t> buffer = {nullptr, (size_t)0});
  ~ETDumpGen() override;
  ETDumpGen(const ETDumpGen&) = delete;
  ETDumpGen& operator=(const ETDumpGen&) = delete;

  // Forgets every recorded block (the data sink stays).
  void clear_builder();

  // The first block after get_etdump_data() starts a new dump. Events recorded before any block go to an
  // unnamed block of their own.
  void create_event_block(const char* name) override;
  ::executorch::runtime::EventTracerEntry start_profiling(const char* name,
                                                          ::executorch::runtime::ChainID chain_id = -1,
                                                          ::executorch::runtime::DebugHandle debug_handle = 0) override;
  // Ending a delegate entry here ends it as end_profiling_delegate() would.
  void end_profiling(::executorch::runtime::EventTracerEntry prof_entry) override;
  // Exactly one of `name` / `delegate_debug_index` must be set; an event with both or neither is not recorded
  // (last_error_message() says why).
  ::executorch::runtime::EventTracerEntry start_profiling_delegate(const char* name,
                                                                   DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(::executorch::runtime::EventTracerEntry prof_entry, const void* metadata,
                              size_t metadata_len) override;
  void log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index, et_timestamp_t start_time,
                              et_timestamp_t end_time, const void* metadata, size_t metadata_len) override;
  // Allocation events: track_allocator() returns the allocator's id within the current block (1, 2, ...).
  void track_allocation(::executorch::runtime::AllocatorID id, size_t size) override;
  ::executorch::runtime::AllocatorID track_allocator(const char* name) override;

  // Logs a Tensor, a tensor list, an Int, a Double or a Bool as a debug event of the current instruction. A
  // non-empty tensor needs a data sink (Error::InvalidArgument without one); errors of the sink are returned;
  // other EValue kinds give Error::NotSupported. Nothing is recorded on error.
  Result<bool> log_evalue(const ::executorch::runtime::EValue& evalue,
                          ::executorch::runtime::LoggedEValueType evalue_type =
                              ::executorch::runtime::LoggedEValueType::kIntermediateOutput) override;
  // Intermediate outputs of a delegate: exactly one of `name` / `delegate_debug_index` (else
  // Error::InvalidArgument). Returns false (nothing logged) when the filter leaves the output out.
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                const executorch::aten::Tensor& output) override;
  Result<bool> log_intermediate_output_delegate(
      const char* name, DelegateDebugIntId delegate_debug_index,
      const ::executorch::runtime::ArrayRef<executorch::aten::Tensor> output) override;
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                const int& output) override;
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                const bool& output) override;
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                const double& output) override;
  void set_delegation_intermediate_output_filter(EventTracerFilterBase* event_tracer_filter) override;

  // Logged tensor data goes to `buffer` (through a BufferDataSink with 64-byte alignment). The buffer must
  // outlive the logging.
  Result<bool> set_debug_buffer(::executorch::runtime::Span<uint8_t> buffer);
  // Logged tensor data goes to `data_sink` (not owned; it must outlive the logging).
  void set_data_sink(DataSinkBase* data_sink);

  // Serializes every block recorded so far (see ETDumpResult for who owns the bytes).
  ETDumpResult get_etdump_data();
  size_t get_num_blocks();
  DataSinkBase* get_data_sink();
  bool is_static_etdump();
  // Forgets every recorded block and the data sink.
  void reset();

 private:
  ::executorch::runtime::Span<uint8_t> buffer_;
  std::unique_ptr<internal::ETDumpState> state_;
  DataSinkBase* data_sink_ = nullptr;
  BufferDataSink buffer_data_sink_;
  EventTracerFilterBase* filter_ = nullptr;
};

}  // namespace etdump
}  // namespace executorch

namespace torch {
namespace executor {
using etdump_result = ::executorch::etdump::ETDumpResult;
using ::executorch::etdump::ETDumpGen;
}  // namespace executor
}  // namespace torch
