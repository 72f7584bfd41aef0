// ETDumpGen: records profiling events in memory and serializes them as upstream's ETDump flatbuffer
// (schema/etdump.fbs: identifier "ED00", size-prefixed) when asked.
#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "etdump_generated.h"

namespace executorch {
namespace runtime {

et_timestamp_t pal_current_ticks() {
  return static_cast<et_timestamp_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace runtime

namespace etdump {

using ::executorch::runtime::AllocatorID;
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::ChainID;
using ::executorch::runtime::DebugHandle;
using ::executorch::runtime::DelegateDebugIdType;
using ::executorch::runtime::DelegateDebugIntId;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::kUnsetChainId;
using ::executorch::runtime::kUnsetDelegateDebugIntId;
using ::executorch::runtime::LoggedEValueType;
using ::executorch::runtime::Result;
using ::executorch::runtime::set_last_error;
using ::executorch::runtime::Span;

ETDumpGen::ETDumpGen(Span<uint8_t> buffer) : buffer_(buffer) {}
ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::clear_builder() {
  blocks_.clear();
  names_.clear();
  name_ids_.clear();
  metadata_.clear();
  done_ = false;
}

int64_t ETDumpGen::intern(const char* name) {
  if (name == nullptr) return -1;
  auto it = name_ids_.find(std::string_view(name));
  if (it != name_ids_.end()) return it->second;
  names_.emplace_back(name);
  const int64_t id = static_cast<int64_t>(names_.size() - 1);
  name_ids_.emplace(std::string_view(names_.back()), id);
  return id;
}

ETDumpGen::Block& ETDumpGen::current_block() {
  // Events before the first create_event_block() (e.g. a delegate's init events) get a block of their own.
  if (blocks_.empty()) {
    blocks_.emplace_back();
    blocks_.back().bundled_input_index = bundled_input_index_;
  }
  return blocks_.back();
}

void ETDumpGen::create_event_block(const char* name) {
  if (done_) clear_builder();  // upstream: the first block after get_etdump_data() starts a new dump
  blocks_.emplace_back();
  blocks_.back().name = name != nullptr ? name : "";
  blocks_.back().bundled_input_index = bundled_input_index_;
}

EventTracerEntry ETDumpGen::start_profiling(const char* name, ChainID chain_id, DebugHandle debug_handle) {
  EventTracerEntry e{};
  e.event_id = intern(name);
  e.delegate_event_id_type = DelegateDebugIdType::kNone;
  if (chain_id == kUnsetChainId) {
    e.chain_id = chain_id_;
    e.debug_handle = debug_handle_;
  } else {
    e.chain_id = chain_id;
    e.debug_handle = debug_handle;
  }
  e.start_time = ::executorch::runtime::pal_current_ticks();
  return e;
}

void ETDumpGen::end_profiling(EventTracerEntry prof_entry) {
  const et_timestamp_t end = ::executorch::runtime::pal_current_ticks();
  Event ev;
  ev.name = prof_entry.event_id;
  ev.chain = prof_entry.chain_id;
  ev.instruction = static_cast<int32_t>(prof_entry.debug_handle);
  ev.start = prof_entry.start_time;
  ev.end = end;
  current_block().events.push_back(ev);
}

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index) {
  EventTracerEntry e{};
  if (name != nullptr) {
    e.delegate_event_id_type = DelegateDebugIdType::kStr;
    e.event_id = intern(name);
  } else {
    e.delegate_event_id_type = DelegateDebugIdType::kInt;
    e.event_id = delegate_debug_index;
  }
  e.chain_id = chain_id_;
  e.debug_handle = debug_handle_;
  e.start_time = ::executorch::runtime::pal_current_ticks();
  return e;
}

void ETDumpGen::end_profiling_delegate(EventTracerEntry entry, const void* metadata, size_t metadata_len) {
  const et_timestamp_t end = ::executorch::runtime::pal_current_ticks();
  if (entry.delegate_event_id_type == DelegateDebugIdType::kStr) {
    log_profiling_delegate(names_[static_cast<size_t>(entry.event_id)].c_str(), kUnsetDelegateDebugIntId,
                           entry.start_time, end, metadata, metadata_len);
  } else {
    log_profiling_delegate(nullptr, static_cast<DelegateDebugIntId>(entry.event_id), entry.start_time, end, metadata,
                           metadata_len);
  }
}

void ETDumpGen::log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                       et_timestamp_t start_time, et_timestamp_t end_time, const void* metadata,
                                       size_t metadata_len) {
  Event ev;
  if (name != nullptr) {
    ev.delegate_id_str = intern(name);
  } else {
    ev.delegate_id_int = delegate_debug_index;
  }
  ev.chain = chain_id_;
  ev.instruction = static_cast<int32_t>(debug_handle_);
  ev.start = start_time;
  ev.end = end_time;
  if (metadata != nullptr && metadata_len > 0) {
    const auto* p = static_cast<const uint8_t*>(metadata);
    metadata_.emplace_back(p, p + metadata_len);
    ev.metadata = static_cast<int64_t>(metadata_.size() - 1);
  }
  current_block().events.push_back(ev);
}

void ETDumpGen::track_allocation(AllocatorID id, size_t size) {
  Event ev;
  ev.allocation = true;
  ev.allocator = id;
  ev.end = size;
  current_block().events.push_back(ev);
}

AllocatorID ETDumpGen::track_allocator(const char* name) {
  Block& b = current_block();
  b.allocators.emplace_back(name != nullptr ? name : "");
  return static_cast<AllocatorID>(b.allocators.size() - 1);
}

Result<bool> ETDumpGen::log_evalue(const EValue&, LoggedEValueType) {
  return false;  // value logging is not supported: nothing recorded
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                         const executorch::aten::Tensor&) {
  return false;
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char*, DelegateDebugIntId,
                                                         const ArrayRef<executorch::aten::Tensor>) {
  return false;
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char*, DelegateDebugIntId, const int&) { return false; }
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char*, DelegateDebugIntId, const bool&) { return false; }
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char*, DelegateDebugIntId, const double&) {
  return false;
}

void ETDumpGen::set_delegation_intermediate_output_filter(::executorch::runtime::EventTracerFilterBase* filter) {
  filter_ = filter;
}

Result<bool> ETDumpGen::set_debug_buffer(Span<uint8_t>) {
  return set_last_error(Error::NotSupported,
                        "ETDumpGen: logging intermediate values (a debug buffer) is not supported by this runtime; "
                        "profiling events are recorded without it");
}

size_t ETDumpGen::get_num_blocks() { return blocks_.size(); }
bool ETDumpGen::is_static_etdump() { return buffer_.data() != nullptr; }

ETDumpResult ETDumpGen::get_etdump_data() {
  ETDumpResult result{nullptr, 0};
  done_ = true;
  if (blocks_.empty()) return result;
  flatbuffers::FlatBufferBuilder fbb(1024);
  std::vector<flatbuffers::Offset<flatbuffers::String>> name_refs(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) name_refs[i] = fbb.CreateString(names_[i]);
  std::vector<flatbuffers::Offset<et_etdump::RunData>> runs;
  runs.reserve(blocks_.size());
  for (const Block& b : blocks_) {
    std::vector<flatbuffers::Offset<et_etdump::Allocator>> allocators;
    for (const auto& a : b.allocators) allocators.push_back(et_etdump::CreateAllocator(fbb, fbb.CreateString(a)));
    std::vector<flatbuffers::Offset<et_etdump::Event>> events;
    events.reserve(b.events.size());
    for (const Event& e : b.events) {
      if (e.allocation) {
        auto a = et_etdump::CreateAllocationEvent(fbb, static_cast<int32_t>(e.allocator), e.end);
        events.push_back(et_etdump::CreateEvent(fbb, 0, a, 0));
        continue;
      }
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> meta;
      if (e.metadata >= 0) meta = fbb.CreateVector(metadata_[static_cast<size_t>(e.metadata)]);
      auto p = et_etdump::CreateProfileEvent(
          fbb, e.name >= 0 ? name_refs[static_cast<size_t>(e.name)] : 0, e.chain, e.instruction, e.delegate_id_int,
          e.delegate_id_str >= 0 ? name_refs[static_cast<size_t>(e.delegate_id_str)] : 0, meta, e.start, e.end);
      events.push_back(et_etdump::CreateEvent(fbb, p, 0, 0));
    }
    runs.push_back(et_etdump::CreateRunData(fbb, fbb.CreateString(b.name), b.bundled_input_index,
                                            fbb.CreateVector(allocators), fbb.CreateVector(events)));
  }
  auto root = et_etdump::CreateETDump(fbb, ETDUMP_VERSION, fbb.CreateVector(runs));
  fbb.FinishSizePrefixed(root, et_etdump::ETDumpIdentifier());
  const size_t size = fbb.GetSize();
  if (buffer_.data() != nullptr) {
    if (buffer_.size() < size) {
      set_last_error(Error::OutOfResources, "ETDumpGen: the ETDump needs %zu bytes, the buffer given holds %zu", size,
                     buffer_.size());
      return result;
    }
    std::memcpy(buffer_.data(), fbb.GetBufferPointer(), size);
    result.buf = buffer_.data();
  } else {
    // 16-byte aligned like upstream's builder output, and released with free() like it.
    void* p = std::aligned_alloc(16, (size + 15) / 16 * 16);
    if (p == nullptr) {
      set_last_error(Error::MemoryAllocationFailed, "ETDumpGen: cannot allocate %zu bytes for the ETDump", size);
      return result;
    }
    std::memcpy(p, fbb.GetBufferPointer(), size);
    result.buf = p;
  }
  result.size = size;
  return result;
}

}  // namespace etdump
}  // namespace executorch
