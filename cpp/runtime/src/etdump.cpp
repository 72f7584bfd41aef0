// ETDumpGen: records events in memory (names interned, tensor data sent to the data sink at once) and serializes
// them as upstream's ETDump flatbuffer (schema/etdump.fbs: identifier "ED00", size-prefixed) when asked.
#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <executorch/devtools/etdump/emitter.h>
#include <executorch/devtools/etdump/utils.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "etdump_generated.h"

namespace executorch {
namespace etdump {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::AllocatorID;
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::ChainID;
using ::executorch::runtime::DebugHandle;
using ::executorch::runtime::DelegateDebugIdType;
using ::executorch::runtime::Error;
using ::executorch::runtime::EValue;
using ::executorch::runtime::EventTracerEntry;
using ::executorch::runtime::kUnsetChainId;
using ::executorch::runtime::kUnsetDelegateDebugIntId;
using ::executorch::runtime::LoggedEValueType;
using ::executorch::runtime::set_last_error;
using ::executorch::runtime::Span;
using ::executorch::runtime::Tag;

namespace {

// The platform clock (CLOCK_MONOTONIC nanoseconds by default: the Inspector's default time scale), as upstream's
// ETDumpGen reads it, so a platform layer registered by the application applies here too.
et_timestamp_t now() { return ::executorch::runtime::pal_current_ticks(); }

// A logged tensor: what the ETDump keeps of it.
struct LoggedTensor {
  int8_t scalar_type = 0;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;  // in the data sink; -1 for a tensor without data
};

// The payload of a debug event (schema table Value).
struct LoggedValue {
  et_etdump::ValueType type = et_etdump::ValueType::Null;
  bool output = false;  // a program output (LoggedEValueType::kProgramOutput)
  int64_t int_val = 0;
  double double_val = 0;
  bool bool_val = false;
  std::vector<LoggedTensor> tensors;  // one for Tensor, any number for TensorList
};

enum class Kind : uint8_t { kProfile, kAllocation, kDebug };

struct Event {
  Kind kind = Kind::kProfile;
  bool delegate = false;  // a delegate profile event (always carries a metadata vector, maybe empty)
  int32_t chain = 0;
  int32_t instruction = -1;
  int32_t delegate_id_int = -1;
  int64_t delegate_id_str = -1;  // interned name
  int64_t name = -1;             // interned name
  uint64_t start = 0, end = 0;   // allocation events: the size in `end`, the allocator in `chain`
  int64_t data = -1;             // profile: index into metadata; debug: index into values
};

struct Block {
  std::string name;
  int bundled_input_index = -1;
  std::vector<std::string> allocators;
  std::vector<Event> events;
};

// The schema's ScalarType enum names these of ExecuTorch's dtypes (same numbers); others cannot be described.
bool describable(ScalarType t) {
  const int v = static_cast<int>(t);
  return (v >= 0 && v <= 7) || (v >= 11 && v <= 17) || (v >= 22 && v <= 29);
}

bool exactly_one_id(const char* name, DelegateDebugIntId index) {
  return (name == nullptr) != (index == kUnsetDelegateDebugIntId);
}

constexpr const char* kOneIdMessage =
    "ETDumpGen: a delegate event is identified by a name or by an integer id, exactly one of the two (got %s)";

}  // namespace

namespace internal {

struct ETDumpState {
  // Interned names, kept for the object's lifetime so that a pending EventTracerEntry always stays valid.
  std::deque<std::string> names;
  std::unordered_map<std::string_view, int64_t> name_ids;
  std::vector<Block> blocks;
  std::vector<std::vector<uint8_t>> metadata;
  std::vector<LoggedValue> values;
  bool done = false;  // get_etdump_data() was called: the next block starts a new dump

  int64_t intern(const char* name) {
    if (name == nullptr) return -1;
    auto it = name_ids.find(std::string_view(name));
    if (it != name_ids.end()) return it->second;
    names.emplace_back(name);
    const int64_t id = static_cast<int64_t>(names.size() - 1);
    name_ids.emplace(std::string_view(names.back()), id);
    return id;
  }
  void clear() {
    blocks.clear();
    metadata.clear();
    values.clear();
    done = false;
  }

  // The block new events go to: after get_etdump_data() a new dump, before any block an unnamed one.
  Block& current_block(int bundled_input_index) {
    if (done) clear();
    if (blocks.empty()) {
      blocks.emplace_back();
      blocks.back().bundled_input_index = bundled_input_index;
    }
    return blocks.back();
  }
};

}  // namespace internal

using internal::ETDumpState;

ETDumpGen::ETDumpGen(Span<uint8_t> buffer) : buffer_(buffer), state_(std::make_unique<ETDumpState>()) {}
ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::clear_builder() { state_->clear(); }

void ETDumpGen::reset() {
  state_->clear();
  data_sink_ = nullptr;
}

void ETDumpGen::create_event_block(const char* name) {
  ETDumpState& s = *state_;
  if (s.done) s.clear();
  s.blocks.emplace_back();
  s.blocks.back().name = name != nullptr ? name : "";
  s.blocks.back().bundled_input_index = bundled_input_index_;
}

EventTracerEntry ETDumpGen::start_profiling(const char* name, ChainID chain_id, DebugHandle debug_handle) {
  EventTracerEntry e{};
  e.event_id = state_->intern(name);
  e.delegate_event_id_type = DelegateDebugIdType::kNone;
  if (chain_id == kUnsetChainId) {
    e.chain_id = chain_id_;
    e.debug_handle = debug_handle_;
  } else {
    e.chain_id = chain_id;
    e.debug_handle = debug_handle;
  }
  e.start_time = now();
  return e;
}

void ETDumpGen::end_profiling(EventTracerEntry prof_entry) {
  const et_timestamp_t end = now();
  if (prof_entry.delegate_event_id_type != DelegateDebugIdType::kNone) {
    end_profiling_delegate(prof_entry, nullptr, 0);
    return;
  }
  Event ev;
  ev.name = prof_entry.event_id;
  ev.chain = prof_entry.chain_id;
  ev.instruction = static_cast<int32_t>(prof_entry.debug_handle);
  ev.start = prof_entry.start_time;
  ev.end = end;
  state_->current_block(bundled_input_index_).events.push_back(ev);
}

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index) {
  EventTracerEntry e{};
  e.chain_id = chain_id_;
  e.debug_handle = debug_handle_;
  if (!exactly_one_id(name, delegate_debug_index)) {
    set_last_error(Error::InvalidArgument, kOneIdMessage, name != nullptr ? "both" : "neither");
    e.delegate_event_id_type = DelegateDebugIdType::kNone;
    e.event_id = -2;  // recognized (and dropped) by end_profiling_delegate()
    return e;
  }
  if (name != nullptr) {
    e.delegate_event_id_type = DelegateDebugIdType::kStr;
    e.event_id = state_->intern(name);
  } else {
    e.delegate_event_id_type = DelegateDebugIdType::kInt;
    e.event_id = delegate_debug_index;
  }
  e.start_time = now();
  return e;
}

void ETDumpGen::end_profiling_delegate(EventTracerEntry entry, const void* metadata, size_t metadata_len) {
  const et_timestamp_t end = now();
  ETDumpState& s = *state_;
  Event ev;
  if (entry.delegate_event_id_type == DelegateDebugIdType::kStr) {
    ev.delegate_id_str = entry.event_id;
  } else if (entry.delegate_event_id_type == DelegateDebugIdType::kInt) {
    ev.delegate_id_int = static_cast<int32_t>(entry.event_id);
  } else {
    return;  // an entry that start_profiling_delegate() refused
  }
  ev.delegate = true;
  ev.chain = chain_id_;
  ev.instruction = static_cast<int32_t>(debug_handle_);
  ev.start = entry.start_time;
  ev.end = end;
  Block& block = s.current_block(bundled_input_index_);  // first: it may start a new dump
  if (metadata != nullptr && metadata_len > 0) {
    const auto* p = static_cast<const uint8_t*>(metadata);
    s.metadata.emplace_back(p, p + metadata_len);
    ev.data = static_cast<int64_t>(s.metadata.size() - 1);
  }
  block.events.push_back(ev);
}

void ETDumpGen::log_profiling_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                       et_timestamp_t start_time, et_timestamp_t end_time, const void* metadata,
                                       size_t metadata_len) {
  if (!exactly_one_id(name, delegate_debug_index)) {
    set_last_error(Error::InvalidArgument, kOneIdMessage, name != nullptr ? "both" : "neither");
    return;
  }
  ETDumpState& s = *state_;
  Event ev;
  ev.delegate = true;
  if (name != nullptr) {
    ev.delegate_id_str = s.intern(name);
  } else {
    ev.delegate_id_int = delegate_debug_index;
  }
  ev.chain = chain_id_;
  ev.instruction = static_cast<int32_t>(debug_handle_);
  ev.start = start_time;
  ev.end = end_time;
  Block& block = s.current_block(bundled_input_index_);  // first: it may start a new dump
  if (metadata != nullptr && metadata_len > 0) {
    const auto* p = static_cast<const uint8_t*>(metadata);
    s.metadata.emplace_back(p, p + metadata_len);
    ev.data = static_cast<int64_t>(s.metadata.size() - 1);
  }
  block.events.push_back(ev);
}

void ETDumpGen::track_allocation(AllocatorID id, size_t size) {
  Event ev;
  ev.kind = Kind::kAllocation;
  ev.chain = static_cast<int32_t>(id);
  ev.end = size;
  state_->current_block(bundled_input_index_).events.push_back(ev);
}

AllocatorID ETDumpGen::track_allocator(const char* name) {
  Block& b = state_->current_block(bundled_input_index_);
  b.allocators.emplace_back(name != nullptr ? name : "");
  return static_cast<AllocatorID>(b.allocators.size());
}

// Describes `t` and stores its bytes in the data sink. Tensors without data need no sink (offset -1).
static Error log_tensor(DataSinkBase* sink, const Tensor& t, LoggedTensor* out) {
  if (!describable(t.scalar_type())) {
    return set_last_error(Error::InvalidArgument, "ETDumpGen: tensors of dtype %s cannot be logged",
                          ::executorch::aten::toString(t.scalar_type()));
  }
  out->scalar_type = static_cast<int8_t>(t.scalar_type());
  out->sizes.assign(t.sizes().begin(), t.sizes().end());
  out->strides.assign(t.strides().begin(), t.strides().end());
  if (t.nbytes() == 0) {
    out->offset = -1;
    return Error::Ok;
  }
  if (t.const_data_ptr() == nullptr) {
    return set_last_error(Error::InvalidState, "ETDumpGen: a tensor of %zu bytes has no data", t.nbytes());
  }
  if (sink == nullptr) {
    return set_last_error(Error::InvalidArgument,
                          "ETDumpGen: logging tensor data needs a debug buffer or data sink "
                          "(set_debug_buffer() / set_data_sink())");
  }
  ::executorch::runtime::Result<size_t> off = sink->write(t.const_data_ptr(), t.nbytes());
  if (!off.ok()) {
    return set_last_error(off.error(), "ETDumpGen: the data sink refused %zu bytes of tensor data (error 0x%x)",
                          t.nbytes(), static_cast<unsigned>(off.error()));
  }
  out->offset = static_cast<int64_t>(*off);
  return Error::Ok;
}

Result<bool> ETDumpGen::log_evalue(const EValue& evalue, LoggedEValueType evalue_type) {
  LoggedValue v;
  switch (evalue.tag) {
    case Tag::Tensor: {
      v.type = et_etdump::ValueType::Tensor;
      v.tensors.emplace_back();
      const Error err = log_tensor(data_sink_, evalue.toTensor(), &v.tensors.back());
      if (err != Error::Ok) return err;
      v.output = evalue_type == LoggedEValueType::kProgramOutput;
      break;
    }
    case Tag::ListTensor: {
      v.type = et_etdump::ValueType::TensorList;
      ArrayRef<Tensor> list = evalue.toTensorList();
      v.tensors.resize(list.size());
      for (size_t i = 0; i < list.size(); ++i) {
        const Error err = log_tensor(data_sink_, list[i], &v.tensors[i]);
        if (err != Error::Ok) return err;
      }
      v.output = evalue_type == LoggedEValueType::kProgramOutput;
      break;
    }
    case Tag::Int:
      v.type = et_etdump::ValueType::Int;
      v.int_val = evalue.toInt();
      break;
    case Tag::Double:
      v.type = et_etdump::ValueType::Double;
      v.double_val = evalue.toDouble();
      break;
    case Tag::Bool:
      v.type = et_etdump::ValueType::Bool;
      v.bool_val = evalue.toBool();
      break;
    default:
      return set_last_error(Error::NotSupported, "ETDumpGen: values of kind %s cannot be logged",
                            ::executorch::runtime::tag_to_string(evalue.tag));
  }
  ETDumpState& s = *state_;
  Block& block = s.current_block(bundled_input_index_);  // first: it may start a new dump
  s.values.push_back(std::move(v));
  Event ev;
  ev.kind = Kind::kDebug;
  ev.chain = chain_id_;
  ev.instruction = static_cast<int32_t>(debug_handle_);
  ev.data = static_cast<int64_t>(s.values.size() - 1);
  block.events.push_back(ev);
  return true;
}

template <typename T>
static Result<bool> log_delegate_output(ETDumpState& s, EventTracerFilterBase* filter, DataSinkBase* sink,
                                        int bundled_input_index, ChainID chain, DebugHandle instruction,
                                        const char* name, DelegateDebugIntId index, const T& output) {
  if (!exactly_one_id(name, index)) {
    return set_last_error(Error::InvalidArgument, kOneIdMessage, name != nullptr ? "both" : "neither");
  }
  if (filter != nullptr) {
    Result<bool> skip = filter->filter(name, index);
    if (!skip.ok()) return skip.error();
    if (*skip) return false;
  }
  LoggedValue v;
  if constexpr (std::is_same<T, Tensor>::value) {
    v.type = et_etdump::ValueType::Tensor;
    v.tensors.emplace_back();
    const Error err = log_tensor(sink, output, &v.tensors.back());
    if (err != Error::Ok) return err;
  } else if constexpr (std::is_same<T, ArrayRef<Tensor>>::value) {
    v.type = et_etdump::ValueType::TensorList;
    v.tensors.resize(output.size());
    for (size_t i = 0; i < output.size(); ++i) {
      const Error err = log_tensor(sink, output[i], &v.tensors[i]);
      if (err != Error::Ok) return err;
    }
  } else if constexpr (std::is_same<T, int>::value) {
    v.type = et_etdump::ValueType::Int;
    v.int_val = output;
  } else if constexpr (std::is_same<T, double>::value) {
    v.type = et_etdump::ValueType::Double;
    v.double_val = output;
  } else {
    static_assert(std::is_same<T, bool>::value, "unsupported delegate output type");
    v.type = et_etdump::ValueType::Bool;
    v.bool_val = output;
  }
  Block& block = s.current_block(bundled_input_index);  // first: it may start a new dump
  s.values.push_back(std::move(v));
  Event ev;
  ev.kind = Kind::kDebug;
  ev.chain = chain;
  ev.instruction = static_cast<int32_t>(instruction);
  if (name != nullptr) {
    ev.delegate_id_str = s.intern(name);
  } else {
    ev.delegate_id_int = index;
  }
  ev.data = static_cast<int64_t>(s.values.size() - 1);
  block.events.push_back(ev);
  return true;
}

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                         const Tensor& output) {
  return log_delegate_output(*state_, filter_, data_sink_, bundled_input_index_, chain_id_, debug_handle_, name,
                             delegate_debug_index, output);
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                         const ArrayRef<Tensor> output) {
  return log_delegate_output(*state_, filter_, data_sink_, bundled_input_index_, chain_id_, debug_handle_, name,
                             delegate_debug_index, output);
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                         const int& output) {
  return log_delegate_output(*state_, filter_, data_sink_, bundled_input_index_, chain_id_, debug_handle_, name,
                             delegate_debug_index, output);
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                         const bool& output) {
  return log_delegate_output(*state_, filter_, data_sink_, bundled_input_index_, chain_id_, debug_handle_, name,
                             delegate_debug_index, output);
}
Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId delegate_debug_index,
                                                         const double& output) {
  return log_delegate_output(*state_, filter_, data_sink_, bundled_input_index_, chain_id_, debug_handle_, name,
                             delegate_debug_index, output);
}

void ETDumpGen::set_delegation_intermediate_output_filter(EventTracerFilterBase* filter) { filter_ = filter; }

Result<bool> ETDumpGen::set_debug_buffer(Span<uint8_t> buffer) {
  Result<BufferDataSink> sink = BufferDataSink::create(buffer);
  if (!sink.ok()) {
    return set_last_error(Error::InvalidArgument, "ETDumpGen: cannot use the debug buffer (error 0x%x)",
                          static_cast<unsigned>(sink.error()));
  }
  buffer_data_sink_ = std::move(*sink);
  data_sink_ = &buffer_data_sink_;
  return true;
}

void ETDumpGen::set_data_sink(DataSinkBase* data_sink) { data_sink_ = data_sink; }
DataSinkBase* ETDumpGen::get_data_sink() { return data_sink_; }
size_t ETDumpGen::get_num_blocks() { return state_->blocks.size(); }
bool ETDumpGen::is_static_etdump() { return buffer_.data() != nullptr; }

static flatbuffers::Offset<et_etdump::Tensor> write_tensor(flatbuffers::FlatBufferBuilder& fbb, const LoggedTensor& t) {
  auto sizes = fbb.CreateVector(t.sizes);
  auto strides = fbb.CreateVector(t.strides);
  return et_etdump::CreateTensor(fbb, t.scalar_type, sizes, strides, t.offset);
}

static flatbuffers::Offset<et_etdump::Value> write_value(flatbuffers::FlatBufferBuilder& fbb, const LoggedValue& v) {
  flatbuffers::Offset<et_etdump::Tensor> tensor;
  flatbuffers::Offset<et_etdump::TensorList> list;
  flatbuffers::Offset<et_etdump::Int> int_value;
  flatbuffers::Offset<et_etdump::Double> double_value;
  flatbuffers::Offset<et_etdump::Bool> bool_value, output;
  switch (v.type) {
    case et_etdump::ValueType::Tensor: tensor = write_tensor(fbb, v.tensors.at(0)); break;
    case et_etdump::ValueType::TensorList: {
      std::vector<flatbuffers::Offset<et_etdump::Tensor>> ts;
      for (const LoggedTensor& t : v.tensors) ts.push_back(write_tensor(fbb, t));
      list = et_etdump::CreateTensorList(fbb, fbb.CreateVector(ts));
      break;
    }
    case et_etdump::ValueType::Int: int_value = et_etdump::CreateInt(fbb, v.int_val); break;
    case et_etdump::ValueType::Double: double_value = et_etdump::CreateDouble(fbb, v.double_val); break;
    case et_etdump::ValueType::Bool: bool_value = et_etdump::CreateBool(fbb, v.bool_val); break;
    default: break;
  }
  if (v.output) output = et_etdump::CreateBool(fbb, true);
  return et_etdump::CreateValue(fbb, v.type, tensor, list, int_value, 0, double_value, bool_value, output);
}

ETDumpResult ETDumpGen::get_etdump_data() {
  ETDumpResult result{nullptr, 0};
  ETDumpState& s = *state_;
  s.done = true;
  if (s.blocks.empty()) return result;
  flatbuffers::FlatBufferBuilder fbb(1024);
  // Each name used by this dump is written once and shared by its events.
  std::vector<flatbuffers::Offset<flatbuffers::String>> name_refs(s.names.size());
  auto name_ref = [&](int64_t id) -> flatbuffers::Offset<flatbuffers::String> {
    if (id < 0) return 0;
    auto& ref = name_refs[static_cast<size_t>(id)];
    if (ref.IsNull()) ref = fbb.CreateString(s.names[static_cast<size_t>(id)]);
    return ref;
  };
  std::vector<flatbuffers::Offset<et_etdump::RunData>> runs;
  runs.reserve(s.blocks.size());
  std::vector<flatbuffers::Offset<et_etdump::Event>> events;
  for (const Block& b : s.blocks) {
    std::vector<flatbuffers::Offset<et_etdump::Allocator>> allocators;
    for (const auto& a : b.allocators) allocators.push_back(et_etdump::CreateAllocator(fbb, fbb.CreateString(a)));
    events.clear();
    for (const Event& e : b.events) {
      switch (e.kind) {
        case Kind::kAllocation: {
          auto a = et_etdump::CreateAllocationEvent(fbb, e.chain, e.end);
          events.push_back(et_etdump::CreateEvent(fbb, 0, a, 0));
          break;
        }
        case Kind::kDebug: {
          auto value = write_value(fbb, s.values[static_cast<size_t>(e.data)]);
          // chain_index is unsigned in the schema: an unset chain (-1) reads as 2^64 - 1, as upstream writes it.
          auto d = et_etdump::CreateDebugEvent(fbb, static_cast<uint64_t>(static_cast<int64_t>(e.chain)), e.instruction,
                                               value, e.delegate_id_int, name_ref(e.delegate_id_str));
          events.push_back(et_etdump::CreateEvent(fbb, 0, 0, d));
          break;
        }
        case Kind::kProfile: {
          flatbuffers::Offset<flatbuffers::Vector<uint8_t>> meta;
          if (e.data >= 0) {
            meta = fbb.CreateVector(s.metadata[static_cast<size_t>(e.data)]);
          } else if (e.delegate) {
            meta = fbb.CreateVector(static_cast<const uint8_t*>(nullptr), 0);
          }
          auto p = et_etdump::CreateProfileEvent(fbb, name_ref(e.name), e.chain, e.instruction, e.delegate_id_int,
                                                 name_ref(e.delegate_id_str), meta, e.start, e.end);
          events.push_back(et_etdump::CreateEvent(fbb, p, 0, 0));
          break;
        }
      }
    }
    auto name = fbb.CreateString(b.name);
    auto allocs = b.allocators.empty() ? 0 : fbb.CreateVector(allocators);
    runs.push_back(et_etdump::CreateRunData(fbb, name, b.bundled_input_index, allocs, fbb.CreateVector(events)));
  }
  auto root = et_etdump::CreateETDump(fbb, ETDUMP_VERSION, fbb.CreateVector(runs));
  fbb.FinishSizePrefixed(root, et_etdump::ETDumpIdentifier());
  const size_t size = fbb.GetSize();
  if (buffer_.data() != nullptr) {
    uint8_t* const begin = internal::align_pointer(buffer_.data(), 64);
    uint8_t* const end = buffer_.data() + buffer_.size();
    const size_t room = begin < end ? static_cast<size_t>(end - begin) : 0;
    if (room < size) {
      set_last_error(Error::OutOfResources, "ETDumpGen: the ETDump needs %zu bytes, the buffer given has room for %zu",
                     size, room);
      return result;
    }
    std::memcpy(begin, fbb.GetBufferPointer(), size);
    result.buf = begin;
  } else {
    // 64-byte aligned, released with free() as upstream's buffer is.
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
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

namespace internal {

int etdump_flatcc_custom_init(flatcc_builder_t*, ETDumpStaticAllocator*) { return -1; }

}  // namespace internal

}  // namespace etdump
}  // namespace executorch
