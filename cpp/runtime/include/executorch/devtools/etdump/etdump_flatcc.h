#pragma once
// ETDumpGen: the event tracer that writes upstream ExecuTorch's ETDump profiling file (flatbuffer, identifier
// "ED00", size-prefixed), readable by upstream's executorch.devtools.Inspector. Same header path and names as
// upstream, so application code written for upstream compiles:
//
//   auto tracer = std::make_unique<executorch::etdump::ETDumpGen>();
//   Module module("model.pte", Module::LoadMode::File, std::move(tracer));
//   module.forward(inputs);
//   auto* gen = static_cast<executorch::etdump::ETDumpGen*>(module.event_tracer());
//   executorch::etdump::ETDumpResult r = gen->get_etdump_data();
//   if (r.buf != nullptr) { fwrite(r.buf, 1, r.size, f); free(r.buf); }
//
// Profiling and allocation events are recorded; value logging (debug events with tensor data) is not supported
// by this runtime (log_evalue() records nothing; set_debug_buffer() returns NotSupported).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

#define ETDUMP_VERSION 0

namespace executorch {
namespace etdump {

// The serialized ETDump. When ETDumpGen was given no buffer, `buf` comes from malloc() and the caller releases
// it with free(); otherwise it points into that buffer. {nullptr, 0} when nothing was recorded (or the given
// buffer is too small).
struct ETDumpResult {
  void* buf;
  size_t size;
};

class EXECUTORCH_API ETDumpGen : public ::executorch::runtime::EventTracer {
 public:
  // `buffer`: optional storage for the serialized result (get_etdump_data() then writes there instead of
  // allocating).
  explicit ETDumpGen(::executorch::runtime::Span<uint8_t> buffer = {nullptr, (size_t)0});
  ~ETDumpGen() override;
  ETDumpGen(const ETDumpGen&) = delete;
  ETDumpGen& operator=(const ETDumpGen&) = delete;

  // Forgets every recorded block.
  void clear_builder();
  void reset() { clear_builder(); }

  void create_event_block(const char* name) override;
  ::executorch::runtime::EventTracerEntry start_profiling(const char* name,
                                                          ::executorch::runtime::ChainID chain_id = -1,
                                                          ::executorch::runtime::DebugHandle debug_handle = 0) override;
  void end_profiling(::executorch::runtime::EventTracerEntry prof_entry) override;
  ::executorch::runtime::EventTracerEntry start_profiling_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index) override;
  void end_profiling_delegate(::executorch::runtime::EventTracerEntry prof_entry, const void* metadata = nullptr,
                              size_t metadata_len = 0) override;
  void log_profiling_delegate(const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index,
                              et_timestamp_t start_time, et_timestamp_t end_time, const void* metadata = nullptr,
                              size_t metadata_len = 0) override;
  void track_allocation(::executorch::runtime::AllocatorID id, size_t size) override;
  ::executorch::runtime::AllocatorID track_allocator(const char* name) override;
  ::executorch::runtime::Result<bool> log_evalue(
      const ::executorch::runtime::EValue& evalue,
      ::executorch::runtime::LoggedEValueType evalue_type =
          ::executorch::runtime::LoggedEValueType::kIntermediateOutput) override;
  ::executorch::runtime::Result<bool> log_intermediate_output_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index,
      const executorch::aten::Tensor& output) override;
  ::executorch::runtime::Result<bool> log_intermediate_output_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index,
      const ::executorch::runtime::ArrayRef<executorch::aten::Tensor> output) override;
  ::executorch::runtime::Result<bool> log_intermediate_output_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index, const int& output) override;
  ::executorch::runtime::Result<bool> log_intermediate_output_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index, const bool& output) override;
  ::executorch::runtime::Result<bool> log_intermediate_output_delegate(
      const char* name, ::executorch::runtime::DelegateDebugIntId delegate_debug_index, const double& output) override;
  void set_delegation_intermediate_output_filter(
      ::executorch::runtime::EventTracerFilterBase* event_tracer_filter) override;

  // Not supported by this runtime (no tensor data is logged): returns NotSupported.
  ::executorch::runtime::Result<bool> set_debug_buffer(::executorch::runtime::Span<uint8_t> buffer);

  // Serializes every block recorded so far (see ETDumpResult for who owns the bytes). The next
  // create_event_block() starts a new dump.
  ETDumpResult get_etdump_data();
  size_t get_num_blocks();
  bool is_static_etdump();

 private:
  struct Event {
    int64_t name = -1;             // profile events: interned name (-1: none)
    int64_t delegate_id_str = -1;  // delegate events identified by name: interned name
    int32_t delegate_id_int = -1;  // delegate events identified by an integer
    int32_t chain = -1;
    int32_t instruction = -1;
    bool allocation = false;  // an allocation event (allocator, size) instead of a profile event
    uint32_t allocator = 0;
    uint64_t start = 0, end = 0;  // profile events; allocation events keep the size in `end`
    int64_t metadata = -1;        // index into metadata_ (delegate debug metadata)
  };
  struct Block {
    std::string name;
    int bundled_input_index = -1;
    std::vector<std::string> allocators;
    std::vector<Event> events;
  };
  Block& current_block();
  int64_t intern(const char* name);

  ::executorch::runtime::Span<uint8_t> buffer_;
  std::vector<Block> blocks_;
  std::deque<std::string> names_;  // interned event names (stable addresses)
  std::unordered_map<std::string_view, int64_t> name_ids_;
  std::vector<std::vector<uint8_t>> metadata_;
  bool done_ = false;
  ::executorch::runtime::EventTracerFilterBase* filter_ = nullptr;
};

}  // namespace etdump
}  // namespace executorch

namespace torch {
namespace executor {
using etdump_result = ::executorch::etdump::ETDumpResult;
using ::executorch::etdump::ETDumpGen;
}  // namespace executor
}  // namespace torch
