// ETDump (executorch/devtools/etdump/...) and the event-tracer interface (executorch/runtime/core/event_tracer*.h)
// as upstream ExecuTorch's headers and docs describe them: ETDumpGen's blocks, profiling, allocation, delegate
// and debug events, its static buffer, the data sinks, the hooks, and a fixture run through Program / Method.
// The ETDump bytes are read back with a small flatbuffer reader written here from upstream's schema
// (devtools/etdump/etdump_schema_flatcc.fbs: field slots, size prefix, identifier "ED00").
#ifndef ET_EVENT_TRACER_ENABLED
#define ET_EVENT_TRACER_ENABLED 1  // what upstream's CMake package defines for its consumers
#endif

#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/emitter.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/devtools/etdump/utils.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::etdump::BufferDataSink;
using executorch::etdump::DataSinkBase;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;
using executorch::etdump::FileDataSink;
using executorch::runtime::AllocatorID;
using executorch::runtime::ArrayRef;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::DelegateDebugIdType;
using executorch::runtime::DelegateDebugIntId;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::EventTracerDebugLogLevel;
using executorch::runtime::EventTracerEntry;
using executorch::runtime::EventTracerFilterBase;
using executorch::runtime::EventTracerProfilingLevel;
using executorch::runtime::kUnsetChainId;
using executorch::runtime::kUnsetDebugHandle;
using executorch::runtime::kUnsetDelegateDebugIntId;
using executorch::runtime::LoggedEValueType;
using executorch::runtime::Method;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

// ---- a minimal reader of the ETDump flatbuffer (little endian)

struct Table {
  const uint8_t* buf = nullptr;
  size_t pos = 0;

  template <typename T>
  T load(size_t at) const {
    T v;
    std::memcpy(&v, buf + at, sizeof(T));
    return v;
  }
  size_t field(int slot) const {
    const size_t vt = pos - static_cast<size_t>(load<int32_t>(pos));
    const uint16_t vt_size = load<uint16_t>(vt);
    const size_t entry = 4 + 2 * static_cast<size_t>(slot);
    return entry < vt_size ? load<uint16_t>(vt + entry) : 0;
  }
  bool has(int slot) const { return field(slot) != 0; }
  template <typename T>
  T scalar(int slot, T def = 0) const {
    const size_t o = field(slot);
    return o != 0 ? load<T>(pos + o) : def;
  }
  // Where the offset in `slot` points (0 when the field is absent).
  size_t deref(int slot) const {
    const size_t o = field(slot);
    return o != 0 ? pos + o + load<uint32_t>(pos + o) : 0;
  }
  std::optional<Table> table(int slot) const {
    const size_t p = deref(slot);
    if (p == 0) return std::nullopt;
    return Table{buf, p};
  }
  std::optional<std::string> string(int slot) const {
    const size_t p = deref(slot);
    if (p == 0) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(buf + p + 4), load<uint32_t>(p));
  }
  std::vector<Table> tables(int slot) const {
    std::vector<Table> out;
    const size_t p = deref(slot);
    if (p == 0) return out;
    const uint32_t n = load<uint32_t>(p);
    for (uint32_t i = 0; i < n; ++i) {
      const size_t e = p + 4 + 4 * i;
      out.push_back(Table{buf, e + load<uint32_t>(e)});
    }
    return out;
  }
  template <typename T>
  std::optional<std::vector<T>> scalars(int slot) const {
    const size_t p = deref(slot);
    if (p == 0) return std::nullopt;
    std::vector<T> out(load<uint32_t>(p));
    if (!out.empty()) std::memcpy(out.data(), buf + p + 4, out.size() * sizeof(T));
    return out;
  }
};

// Slots of upstream's schema.
namespace slot {
enum ETDump { kVersion, kRunData };
enum RunData { kRunName, kBundledInputIndex, kAllocators, kEvents };
enum Event { kProfileEvent, kAllocationEvent, kDebugEvent };
enum ProfileEvent { kName, kChainIndex, kInstructionId, kDelegateIdInt, kDelegateIdStr, kMetadata, kStart, kEnd };
enum AllocationEvent { kAllocatorId, kAllocationSize };
enum DebugEvent { kDChainIndex, kDInstructionId, kDebugEntry, kDDelegateIdInt, kDDelegateIdStr, kDName };
enum Value { kVal, kTensor, kTensorList, kIntValue, kFloatValue, kDoubleValue, kBoolValue, kOutput };
enum Tensor { kScalarType, kSizes, kStrides, kOffset };
}  // namespace slot

// ValueType of the schema.
enum ValueType : int8_t { kNull, kInt, kBool, kFloat, kDouble, kTensorV, kTensorList, kString };

// The root of a size-prefixed ETDump, after checking the prefix and the identifier.
Table root_of(const ETDumpResult& r) {
  EXPECT_NE(r.buf, nullptr);
  EXPECT_GE(r.size, 12u);
  const auto* p = static_cast<const uint8_t*>(r.buf);
  uint32_t prefix;
  std::memcpy(&prefix, p, 4);
  EXPECT_EQ(prefix, r.size - 4) << "size prefix";
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(p) + 8, 4), "ED00") << "file identifier";
  const uint8_t* buf = p + 4;
  uint32_t root;
  std::memcpy(&root, buf, 4);
  return Table{buf, root};
}

std::vector<Table> runs_of(const ETDumpResult& r) {
  Table root = root_of(r);
  EXPECT_EQ(root.scalar<uint32_t>(slot::kVersion), static_cast<uint32_t>(ETDUMP_VERSION));
  return root.tables(slot::kRunData);
}

// Releases a result the way upstream's documentation says: free() unless the ETDumpGen had a buffer.
struct Dump {
  ETDumpResult r;
  bool owned;
  Dump(ETDumpGen& gen) : r(gen.get_etdump_data()), owned(!gen.is_static_etdump()) {}
  ~Dump() {
    if (owned) free(r.buf);
  }
};

// A float tensor over caller-owned storage.
struct FloatTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::vector<float> data;
  TensorImpl impl;
  FloatTensor(std::vector<int32_t> s, float first)
      : sizes(std::move(s)), dim_order(sizes.size()), strides(sizes.size()) {
    size_t n = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      dim_order[d] = static_cast<uint8_t>(d);
      n *= static_cast<size_t>(sizes[d]);
    }
    for (size_t i = 0; i < n; ++i) data.push_back(first + static_cast<float>(i));
    impl = TensorImpl(ScalarType::Float, static_cast<ssize_t>(sizes.size()), sizes.data(), data.data(),
                      dim_order.data(), strides.data());
  }
  Tensor tensor() { return Tensor(&impl); }
};

std::string temp_path(const char* name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/etdump_test_" + std::to_string(getpid()) + "_" + name;
}

// Upstream's signatures, exactly.
static_assert(std::is_same<decltype(&ETDumpGen::get_etdump_data), ETDumpResult (ETDumpGen::*)()>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::set_debug_buffer), Result<bool> (ETDumpGen::*)(Span<uint8_t>)>::value,
              "");
static_assert(std::is_same<decltype(&ETDumpGen::set_data_sink), void (ETDumpGen::*)(DataSinkBase*)>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::get_data_sink), DataSinkBase* (ETDumpGen::*)()>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::get_num_blocks), size_t (ETDumpGen::*)()>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::is_static_etdump), bool (ETDumpGen::*)()>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::reset), void (ETDumpGen::*)()>::value, "");
static_assert(std::is_same<decltype(&ETDumpGen::clear_builder), void (ETDumpGen::*)()>::value, "");
static_assert(std::is_base_of<EventTracer, ETDumpGen>::value, "");
static_assert(
    std::is_same<decltype(&BufferDataSink::get_storage_size), Result<size_t> (BufferDataSink::*)() const>::value, "");
static_assert(std::is_same<decltype(&BufferDataSink::get_used_bytes), size_t (BufferDataSink::*)() const>::value, "");
static_assert(std::is_same<decltype(&FileDataSink::close), void (FileDataSink::*)()>::value, "");
static_assert(std::is_same<decltype(&FileDataSink::create), Result<FileDataSink> (*)(const char*)>::value, "");
static_assert(std::is_move_constructible<FileDataSink>::value && !std::is_copy_constructible<FileDataSink>::value, "");
static_assert(std::is_move_constructible<BufferDataSink>::value && !std::is_copy_constructible<BufferDataSink>::value,
              "");
static_assert(std::is_abstract<DataSinkBase>::value && std::is_base_of<DataSinkBase, BufferDataSink>::value, "");
static_assert(std::is_same<torch::executor::etdump_result, ETDumpResult>::value, "");
static_assert(std::is_same<executorch::etdump::Result<int>, Result<int>>::value, "");

class Etdump : public ::testing::Test {
 protected:
  void SetUp() override { executorch::runtime::runtime_init(); }
};

// ---- ETDumpGen without a program

TEST_F(Etdump, NothingRecordedGivesNoData) {
  ETDumpGen gen;
  ETDumpResult r = gen.get_etdump_data();
  EXPECT_EQ(r.buf, nullptr);
  EXPECT_EQ(r.size, 0u);
  EXPECT_EQ(gen.get_num_blocks(), 0u);
  EXPECT_FALSE(gen.is_static_etdump());
  EXPECT_EQ(gen.get_data_sink(), nullptr);
}

TEST_F(Etdump, BlocksAllocatorsAndProfileEvents) {
  ETDumpGen gen;
  gen.create_event_block("test_block");
  EXPECT_EQ(gen.track_allocator("test_allocator_0"), 1u);  // upstream's ids start at 1
  EXPECT_EQ(gen.track_allocator("test_allocator_1"), 2u);
  gen.track_allocation(1, 64);
  gen.track_allocation(2, 128);
  EventTracerEntry e = gen.start_profiling("test_event", 0, 1);
  EXPECT_EQ(e.delegate_event_id_type, DelegateDebugIdType::kNone);
  EXPECT_EQ(e.chain_id, 0);
  EXPECT_EQ(e.debug_handle, 1u);
  gen.end_profiling(e);
  gen.create_event_block("test_block_1");
  gen.set_chain_debug_handle(3, 9);  // chain_id -1: the current instruction
  gen.end_profiling(gen.start_profiling("second"));
  EXPECT_EQ(gen.get_num_blocks(), 2u);

  Dump d(gen);
  std::vector<Table> runs = runs_of(d.r);
  ASSERT_EQ(runs.size(), gen.get_num_blocks());
  EXPECT_EQ(runs[0].string(slot::kRunName), "test_block");
  EXPECT_EQ(runs[0].scalar<int32_t>(slot::kBundledInputIndex, -1), -1);
  std::vector<Table> allocators = runs[0].tables(slot::kAllocators);
  ASSERT_EQ(allocators.size(), 2u);
  EXPECT_EQ(allocators[0].string(0), "test_allocator_0");
  EXPECT_EQ(allocators[1].string(0), "test_allocator_1");
  std::vector<Table> events = runs[0].tables(slot::kEvents);
  ASSERT_EQ(events.size(), 3u);
  Table a0 = *events[0].table(slot::kAllocationEvent);
  EXPECT_EQ(a0.scalar<int32_t>(slot::kAllocatorId), 1);
  EXPECT_EQ(a0.scalar<uint64_t>(slot::kAllocationSize), 64u);
  EXPECT_EQ(events[1].table(slot::kAllocationEvent)->scalar<uint64_t>(slot::kAllocationSize), 128u);
  EXPECT_FALSE(events[2].has(slot::kAllocationEvent));
  Table p = *events[2].table(slot::kProfileEvent);
  EXPECT_EQ(p.string(slot::kName), "test_event");
  EXPECT_EQ(p.scalar<int32_t>(slot::kChainIndex), 0);
  EXPECT_EQ(p.scalar<int32_t>(slot::kInstructionId, -1), 1);
  EXPECT_EQ(p.scalar<int32_t>(slot::kDelegateIdInt, -1), -1);
  EXPECT_FALSE(p.has(slot::kDelegateIdStr));
  EXPECT_GT(p.scalar<uint64_t>(slot::kStart), 0u);
  EXPECT_LE(p.scalar<uint64_t>(slot::kStart), p.scalar<uint64_t>(slot::kEnd));

  EXPECT_EQ(runs[1].string(slot::kRunName), "test_block_1");
  Table q = *runs[1].tables(slot::kEvents).at(0).table(slot::kProfileEvent);
  EXPECT_EQ(q.string(slot::kName), "second");
  EXPECT_EQ(q.scalar<int32_t>(slot::kChainIndex), 3);
  EXPECT_EQ(q.scalar<int32_t>(slot::kInstructionId, -1), 9);
  EXPECT_LE(p.scalar<uint64_t>(slot::kEnd), q.scalar<uint64_t>(slot::kStart));  // one clock, in order
}

TEST_F(Etdump, EmptyBlocksAreKept) {
  ETDumpGen gen;
  gen.create_event_block("a");
  gen.create_event_block("b");
  gen.create_event_block("c");
  gen.end_profiling(gen.start_profiling("e", 0, 1));
  Dump d(gen);
  std::vector<Table> runs = runs_of(d.r);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].tables(slot::kEvents).size(), 0u);
  EXPECT_EQ(runs[1].tables(slot::kEvents).size(), 0u);
  EXPECT_EQ(runs[2].tables(slot::kEvents).size(), 1u);
}

TEST_F(Etdump, BundledInputIndexIsRecordedPerBlock) {
  ETDumpGen gen;
  EXPECT_EQ(gen.bundled_input_index(), executorch::runtime::kUnsetBundledInputIndex);
  gen.set_bundled_input_index(2);
  EXPECT_EQ(gen.bundled_input_index(), 2);
  gen.create_event_block("case2");
  gen.set_bundled_input_index(-1);
  gen.create_event_block("none");
  Dump d(gen);
  std::vector<Table> runs = runs_of(d.r);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].scalar<int32_t>(slot::kBundledInputIndex, -1), 2);
  EXPECT_EQ(runs[1].scalar<int32_t>(slot::kBundledInputIndex, -1), -1);
}

TEST_F(Etdump, DelegateProfilingEvents) {
  ETDumpGen gen;
  gen.create_event_block("test_block");
  gen.set_chain_debug_handle(0, 4);
  const char* metadata = "test_metadata";
  gen.log_profiling_delegate(nullptr, 276, 1, 2, nullptr, 0);                      // 0
  gen.log_profiling_delegate(nullptr, 278, 1, 2, metadata, strlen(metadata) + 1);  // 1
  EventTracerEntry entry = gen.start_profiling_delegate("test_event", kUnsetDelegateDebugIntId);
  EXPECT_EQ(entry.delegate_event_id_type, DelegateDebugIdType::kStr);
  gen.end_profiling_delegate(entry, metadata, strlen(metadata) + 1);  // 2
  EventTracerEntry by_id = gen.start_profiling_delegate(nullptr, 17);
  EXPECT_EQ(by_id.delegate_event_id_type, DelegateDebugIdType::kInt);
  gen.end_profiling(by_id);  // 3: ends as a delegate event
  // Both identifiers, or neither: not recorded.
  gen.log_profiling_delegate("test_event", 1, 1, 2, nullptr, 0);
  gen.log_profiling_delegate(nullptr, kUnsetDelegateDebugIntId, 1, 2, nullptr, 0);
  gen.end_profiling_delegate(gen.start_profiling_delegate("x", 1), nullptr, 0);

  Dump d(gen);
  std::vector<Table> events = runs_of(d.r).at(0).tables(slot::kEvents);
  ASSERT_EQ(events.size(), 4u);
  Table e0 = *events[0].table(slot::kProfileEvent);
  EXPECT_EQ(e0.scalar<int32_t>(slot::kDelegateIdInt, -1), 276);
  EXPECT_FALSE(e0.has(slot::kDelegateIdStr));
  EXPECT_FALSE(e0.has(slot::kName));
  EXPECT_EQ(e0.scalars<uint8_t>(slot::kMetadata)->size(), 0u);  // present and empty, as upstream writes it
  EXPECT_EQ(e0.scalar<uint64_t>(slot::kStart), 1u);
  EXPECT_EQ(e0.scalar<uint64_t>(slot::kEnd), 2u);
  EXPECT_EQ(e0.scalar<int32_t>(slot::kInstructionId, -1), 4);
  Table e1 = *events[1].table(slot::kProfileEvent);
  EXPECT_EQ(e1.scalar<int32_t>(slot::kDelegateIdInt, -1), 278);
  std::vector<uint8_t> meta = *e1.scalars<uint8_t>(slot::kMetadata);
  EXPECT_EQ(std::string(meta.begin(), meta.end()), std::string("test_metadata", 14));
  Table e2 = *events[2].table(slot::kProfileEvent);
  EXPECT_EQ(e2.string(slot::kDelegateIdStr), "test_event");
  EXPECT_EQ(e2.scalar<int32_t>(slot::kDelegateIdInt, -1), kUnsetDelegateDebugIntId);
  EXPECT_LE(e2.scalar<uint64_t>(slot::kStart), e2.scalar<uint64_t>(slot::kEnd));
  Table e3 = *events[3].table(slot::kProfileEvent);
  EXPECT_EQ(e3.scalar<int32_t>(slot::kDelegateIdInt, -1), 17);
}

TEST_F(Etdump, LogEvalueWritesDebugEventsAndTensorData) {
  alignas(64) static uint8_t debug[2048];
  ETDumpGen gen;
  gen.create_event_block("test_block");
  gen.set_chain_debug_handle(1, 7);
  FloatTensor t({3, 2}, 1.0f);
  // A tensor's data needs a debug buffer or data sink; scalars do not.
  Result<bool> no_sink = gen.log_evalue(EValue(t.tensor()));
  ASSERT_FALSE(no_sink.ok());
  EXPECT_EQ(no_sink.error(), Error::InvalidArgument);
  ASSERT_TRUE(gen.log_evalue(EValue(static_cast<int64_t>(5))).ok());
  ASSERT_TRUE(gen.log_evalue(EValue(1.5)).ok());
  ASSERT_TRUE(gen.log_evalue(EValue(true)).ok());
  Result<bool> set = gen.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug)));
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(*set);
  ASSERT_NE(gen.get_data_sink(), nullptr);
  Result<bool> logged = gen.log_evalue(EValue(t.tensor()));
  ASSERT_TRUE(logged.ok());
  EXPECT_TRUE(*logged);
  FloatTensor out({2, 2}, 10.0f);
  ASSERT_TRUE(gen.log_evalue(EValue(out.tensor()), LoggedEValueType::kProgramOutput).ok());
  // A tensor list.
  FloatTensor l0({2}, 100.0f), l1({3}, 200.0f);
  Tensor storage[2] = {l0.tensor(), l1.tensor()};
  EValue e0(storage[0]), e1(storage[1]);
  EValue* boxed[2] = {&e0, &e1};
  BoxedEvalueList<Tensor> list(boxed, storage, 2);
  ASSERT_TRUE(gen.log_evalue(EValue(list)).ok());
  // Kinds that cannot be logged.
  Result<bool> none = gen.log_evalue(EValue());
  EXPECT_FALSE(none.ok());

  Dump d(gen);
  std::vector<Table> events = runs_of(d.r).at(0).tables(slot::kEvents);
  ASSERT_EQ(events.size(), 6u);
  for (const Table& ev : events) {
    ASSERT_TRUE(ev.has(slot::kDebugEvent));
    EXPECT_FALSE(ev.has(slot::kProfileEvent));
    Table de = *ev.table(slot::kDebugEvent);
    EXPECT_EQ(de.scalar<uint64_t>(slot::kDChainIndex), 1u);
    EXPECT_EQ(de.scalar<int32_t>(slot::kDInstructionId, -1), 7);
  }
  auto value = [&](size_t i) { return *events[i].table(slot::kDebugEvent)->table(slot::kDebugEntry); };
  EXPECT_EQ(value(0).scalar<int8_t>(slot::kVal), kInt);
  EXPECT_EQ(value(0).table(slot::kIntValue)->scalar<int64_t>(0), 5);
  EXPECT_EQ(value(1).scalar<int8_t>(slot::kVal), kDouble);
  EXPECT_EQ(value(1).table(slot::kDoubleValue)->scalar<double>(0), 1.5);
  EXPECT_EQ(value(2).scalar<int8_t>(slot::kVal), kBool);
  EXPECT_TRUE(value(2).table(slot::kBoolValue)->scalar<uint8_t>(0));

  Table v3 = value(3);
  EXPECT_EQ(v3.scalar<int8_t>(slot::kVal), kTensorV);
  EXPECT_FALSE(v3.has(slot::kOutput));
  Table t3 = *v3.table(slot::kTensor);
  EXPECT_EQ(t3.scalar<int8_t>(slot::kScalarType), static_cast<int8_t>(ScalarType::Float));
  EXPECT_EQ(*t3.scalars<int64_t>(slot::kSizes), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(*t3.scalars<int64_t>(slot::kStrides), (std::vector<int64_t>{2, 1}));
  const int64_t off3 = t3.scalar<int64_t>(slot::kOffset);
  ASSERT_GE(off3, 0);
  EXPECT_EQ(std::memcmp(debug + off3, t.data.data(), t.data.size() * sizeof(float)), 0);

  Table v4 = value(4);
  ASSERT_TRUE(v4.has(slot::kOutput));
  EXPECT_TRUE(v4.table(slot::kOutput)->scalar<uint8_t>(0));
  const int64_t off4 = v4.table(slot::kTensor)->scalar<int64_t>(slot::kOffset);
  EXPECT_EQ(off4 % 64, 0);  // set_debug_buffer's sink aligns each blob to 64 bytes
  EXPECT_GE(off4, off3 + 24);
  EXPECT_EQ(std::memcmp(debug + off4, out.data.data(), out.data.size() * sizeof(float)), 0);

  Table v5 = value(5);
  EXPECT_EQ(v5.scalar<int8_t>(slot::kVal), kTensorList);
  std::vector<Table> ts = v5.table(slot::kTensorList)->tables(0);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(*ts[1].scalars<int64_t>(slot::kSizes), (std::vector<int64_t>{3}));
  EXPECT_EQ(std::memcmp(debug + ts[1].scalar<int64_t>(slot::kOffset), l1.data.data(), 3 * sizeof(float)), 0);
  EXPECT_EQ(gen.get_data_sink()->get_used_bytes(), static_cast<size_t>(ts[1].scalar<int64_t>(slot::kOffset)) + 12);
}

TEST_F(Etdump, LoggingAFullDebugBufferFails) {
  uint8_t debug[64];
  ETDumpGen gen;
  gen.create_event_block("b");
  ASSERT_TRUE(gen.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  FloatTensor big({4, 8}, 0.0f);  // 128 bytes
  Result<bool> r = gen.log_evalue(EValue(big.tensor()));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::OutOfResources);
  Dump d(gen);
  EXPECT_EQ(runs_of(d.r).at(0).tables(slot::kEvents).size(), 0u);  // nothing recorded
}

// Leaves out names starting with "filtered" and integer ids 1..10; an error for a name and id together.
class TestFilter : public EventTracerFilterBase {
 public:
  Result<bool> filter(const char* name, DelegateDebugIntId index) override {
    ++calls;
    if (name != nullptr && index != kUnsetDelegateDebugIntId) return Error::InvalidArgument;
    if (name != nullptr) return std::strncmp(name, "filtered", 8) == 0;
    return index >= 1 && index <= 10;
  }
  int calls = 0;
};

TEST_F(Etdump, DelegateIntermediateOutputs) {
  alignas(64) static uint8_t debug[4096];
  ETDumpGen gen;
  gen.create_event_block("test_block");
  FloatTensor t({3, 4}, 0.5f);
  // Without a data sink a tensor cannot be logged; scalars can.
  EXPECT_EQ(gen.log_intermediate_output_delegate("t", kUnsetDelegateDebugIntId, t.tensor()).error(),
            Error::InvalidArgument);
  ASSERT_TRUE(gen.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  // Exactly one of name and id.
  EXPECT_EQ(gen.log_intermediate_output_delegate("t", 2589, t.tensor()).error(), Error::InvalidArgument);
  EXPECT_EQ(gen.log_intermediate_output_delegate(nullptr, kUnsetDelegateDebugIntId, 10).error(),
            Error::InvalidArgument);
  EXPECT_EQ(gen.log_intermediate_output_delegate("t", 3, 29.82).error(), Error::InvalidArgument);

  ASSERT_TRUE(gen.log_intermediate_output_delegate(nullptr, 257, t.tensor()).ok());  // 0
  FloatTensor a({5, 4}, 1.0f), b({7, 6}, 2.0f);
  std::vector<Tensor> list = {a.tensor(), b.tensor()};
  ASSERT_TRUE(
      gen.log_intermediate_output_delegate("list", kUnsetDelegateDebugIntId, ArrayRef<Tensor>(list.data(), list.size()))
          .ok());                                                                                // 1
  ASSERT_TRUE(gen.log_intermediate_output_delegate("i", kUnsetDelegateDebugIntId, 10).ok());     // 2
  ASSERT_TRUE(gen.log_intermediate_output_delegate("d", kUnsetDelegateDebugIntId, 20.75).ok());  // 3
  ASSERT_TRUE(gen.log_intermediate_output_delegate("b", kUnsetDelegateDebugIntId, true).ok());   // 4

  TestFilter filter;
  gen.set_delegation_intermediate_output_filter(&filter);
  Result<bool> filtered = gen.log_intermediate_output_delegate("filtered_event", kUnsetDelegateDebugIntId, 1);
  ASSERT_TRUE(filtered.ok());
  EXPECT_FALSE(*filtered);  // left out
  Result<bool> in_range = gen.log_intermediate_output_delegate(nullptr, 5, t.tensor());
  ASSERT_TRUE(in_range.ok());
  EXPECT_FALSE(*in_range);
  Result<bool> kept = gen.log_intermediate_output_delegate(nullptr, 20, t.tensor());  // 5
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(*kept);
  EXPECT_EQ(filter.calls, 3);

  Dump d(gen);
  std::vector<Table> events = runs_of(d.r).at(0).tables(slot::kEvents);
  ASSERT_EQ(events.size(), 6u);
  Table d0 = *events[0].table(slot::kDebugEvent);
  EXPECT_EQ(d0.scalar<int32_t>(slot::kDDelegateIdInt, -1), 257);
  EXPECT_FALSE(d0.has(slot::kDDelegateIdStr));
  Table t0 = *d0.table(slot::kDebugEntry)->table(slot::kTensor);
  EXPECT_EQ(*t0.scalars<int64_t>(slot::kSizes), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(std::memcmp(debug + t0.scalar<int64_t>(slot::kOffset), t.data.data(), 48), 0);
  Table d1 = *events[1].table(slot::kDebugEvent);
  EXPECT_EQ(d1.string(slot::kDDelegateIdStr), "list");
  EXPECT_EQ(d1.scalar<int32_t>(slot::kDDelegateIdInt, -1), -1);
  EXPECT_EQ(d1.table(slot::kDebugEntry)->table(slot::kTensorList)->tables(0).size(), 2u);
  EXPECT_EQ(events[2].table(slot::kDebugEvent)->table(slot::kDebugEntry)->table(slot::kIntValue)->scalar<int64_t>(0),
            10);
  EXPECT_EQ(events[3].table(slot::kDebugEvent)->table(slot::kDebugEntry)->table(slot::kDoubleValue)->scalar<double>(0),
            20.75);
  EXPECT_TRUE(
      events[4].table(slot::kDebugEvent)->table(slot::kDebugEntry)->table(slot::kBoolValue)->scalar<uint8_t>(0));
  EXPECT_EQ(events[5].table(slot::kDebugEvent)->scalar<int32_t>(slot::kDDelegateIdInt, -1), 20);
}

TEST_F(Etdump, StaticBufferHoldsTheResult) {
  std::vector<uint8_t> storage(512 * 1024);
  ETDumpGen gen(Span<uint8_t>(storage.data(), storage.size()));
  EXPECT_TRUE(gen.is_static_etdump());
  gen.create_event_block("test_block");
  for (int j = 0; j < 2048; ++j) gen.end_profiling(gen.start_profiling("test_event", 0, 1));
  ETDumpResult r = gen.get_etdump_data();
  ASSERT_NE(r.buf, nullptr);
  EXPECT_GE(static_cast<uint8_t*>(r.buf), storage.data());
  EXPECT_LE(static_cast<uint8_t*>(r.buf) + r.size, storage.data() + storage.size());
  EXPECT_EQ(runs_of(r).at(0).tables(slot::kEvents).size(), 2048u);

  // A buffer too small for the result: no data, no overrun.
  std::vector<uint8_t> tiny(256, 0xAB);
  ETDumpGen small(Span<uint8_t>(tiny.data(), 128));
  small.create_event_block("block");
  for (int j = 0; j < 64; ++j) small.end_profiling(small.start_profiling("event", 0, 1));
  ETDumpResult none = small.get_etdump_data();
  EXPECT_EQ(none.buf, nullptr);
  EXPECT_EQ(none.size, 0u);
  for (size_t i = 128; i < tiny.size(); ++i) ASSERT_EQ(tiny[i], 0xAB);
}

TEST_F(Etdump, NextBlockAfterGetStartsANewDump) {
  ETDumpGen gen;
  for (int round = 0; round < 2; ++round) {
    gen.create_event_block("test_block");
    gen.end_profiling(gen.start_profiling("test_event", 0, 1));
    EXPECT_EQ(gen.get_num_blocks(), 1u);
    Dump d(gen);
    std::vector<Table> runs = runs_of(d.r);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].tables(slot::kEvents).size(), 1u);
  }
}

TEST_F(Etdump, ResetForgetsBlocksAndTheDataSink) {
  uint8_t debug[256];
  ETDumpGen gen;
  ASSERT_TRUE(gen.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  gen.create_event_block("b");
  gen.reset();
  EXPECT_EQ(gen.get_num_blocks(), 0u);
  EXPECT_EQ(gen.get_data_sink(), nullptr);
  EXPECT_EQ(gen.get_etdump_data().buf, nullptr);
  gen.create_event_block("c");
  gen.clear_builder();
  EXPECT_EQ(gen.get_num_blocks(), 0u);
}

// ---- data sinks

TEST(DataSink, BufferDataSinkAlignsAndRefusesOverflow) {
  alignas(64) uint8_t storage[256];
  std::memset(storage, 0xCD, sizeof(storage));
  EXPECT_EQ(BufferDataSink::create(storage, sizeof(storage), 0).error(), Error::InvalidArgument);
  EXPECT_EQ(BufferDataSink::create(storage, sizeof(storage), 24).error(), Error::InvalidArgument);
  Result<BufferDataSink> sink = BufferDataSink::create(Span<uint8_t>(storage, sizeof(storage)));
  ASSERT_TRUE(sink.ok());
  EXPECT_EQ(*sink->get_storage_size(), sizeof(storage));
  EXPECT_EQ(sink->get_used_bytes(), 0u);
  const uint8_t a[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(*sink->write(a, 10), 0u);
  EXPECT_EQ(sink->get_used_bytes(), 10u);
  EXPECT_EQ(*sink->write(a, 0), 10u);  // nothing written: the current end
  EXPECT_EQ(*sink->write(a, 4), 64u);  // the next 64-byte boundary
  EXPECT_EQ(sink->get_used_bytes(), 68u);
  EXPECT_EQ(std::memcmp(storage, a, 10), 0);
  for (size_t i = 10; i < 64; ++i) ASSERT_EQ(storage[i], 0) << "padding is zeroed";
  EXPECT_EQ(std::memcmp(storage + 64, a, 4), 0);
  // 128 + 200 > 256: refused, nothing changes.
  std::vector<uint8_t> big(200, 7);
  Result<size_t> over = sink->write(big.data(), big.size());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error(), Error::OutOfResources);
  EXPECT_EQ(sink->get_used_bytes(), 68u);
  EXPECT_EQ(storage[128], 0xCD);
  EXPECT_EQ(*sink->write(big.data(), 128), 128u);  // exactly fills the buffer
  EXPECT_EQ(sink->get_used_bytes(), 256u);
  EXPECT_EQ(sink->write(a, 1).error(), Error::OutOfResources);

  // Any power-of-two alignment, through the base class.
  Result<BufferDataSink> byte_aligned = BufferDataSink::create(storage, sizeof(storage), 1);
  ASSERT_TRUE(byte_aligned.ok());
  DataSinkBase* base = &byte_aligned.get();
  EXPECT_EQ(*base->write(a, 3), 0u);
  EXPECT_EQ(*base->write(a, 3), 3u);
  EXPECT_EQ(base->get_used_bytes(), 6u);

  EXPECT_EQ(executorch::etdump::internal::align_pointer(storage + 1, 64), storage + 64);
  EXPECT_EQ(executorch::etdump::internal::align_pointer(storage, 64), storage);
}

TEST(DataSink, FileDataSinkWritesAtOffsets) {
  const std::string path = temp_path("sink.bin");
  {
    Result<FileDataSink> sink = FileDataSink::create(path.c_str());
    ASSERT_TRUE(sink.ok());
    EXPECT_EQ(*sink->write("abc", 3), 0u);
    EXPECT_EQ(*sink->write("defgh", 5), 3u);
    EXPECT_EQ(*sink->write("x", 0), 8u);
    EXPECT_EQ(sink->get_used_bytes(), 8u);
    FileDataSink moved(std::move(sink.get()));
    EXPECT_EQ(*moved.write("i", 1), 8u);
    moved.close();
    EXPECT_EQ(moved.write("j", 1).error(), Error::AccessFailed);
    moved.close();  // twice is fine
  }
  std::vector<uint8_t> bytes = api_test::read_file(path);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "abcdefghi");
  std::remove(path.c_str());
  EXPECT_EQ(FileDataSink::create("/nonexistent-dir/etdump/x.bin").error(), Error::AccessFailed);
}

TEST_F(Etdump, TensorDataToAFileDataSink) {
  const std::string path = temp_path("debug.bin");
  Result<FileDataSink> sink = FileDataSink::create(path.c_str());
  ASSERT_TRUE(sink.ok());
  ETDumpGen gen;
  gen.set_data_sink(&sink.get());
  EXPECT_EQ(gen.get_data_sink(), &sink.get());
  gen.create_event_block("b");
  FloatTensor a({2, 3}, 1.0f), b({4}, 7.0f);
  ASSERT_TRUE(gen.log_evalue(EValue(a.tensor())).ok());
  ASSERT_TRUE(gen.log_evalue(EValue(b.tensor())).ok());
  sink->close();
  std::vector<uint8_t> bytes = api_test::read_file(path);
  std::remove(path.c_str());
  Dump d(gen);
  std::vector<Table> events = runs_of(d.r).at(0).tables(slot::kEvents);
  ASSERT_EQ(events.size(), 2u);
  const int64_t off_b = events[1]
                            .table(slot::kDebugEvent)
                            ->table(slot::kDebugEntry)
                            ->table(slot::kTensor)
                            ->scalar<int64_t>(slot::kOffset);
  EXPECT_EQ(off_b, 24);  // the file sink appends without padding
  ASSERT_EQ(bytes.size(), 40u);
  EXPECT_EQ(std::memcmp(bytes.data(), a.data.data(), 24), 0);
  EXPECT_EQ(std::memcmp(bytes.data() + off_b, b.data.data(), 16), 0);
}

TEST(Emitter, FlatccInitIsNotAvailable) {
  executorch::etdump::internal::ETDumpStaticAllocator alloc;
  uint8_t buf[128];
  alloc.set_buffer(buf, sizeof(buf), 32);
  EXPECT_EQ(alloc.out_size, 96u);
  EXPECT_EQ(alloc.front_cursor, buf + 128);
  EXPECT_NE(executorch::etdump::internal::etdump_flatcc_custom_init(nullptr, &alloc), 0);
}

// ---- the hooks, with a tracer that records the calls

class RecordingTracer : public EventTracer {
 public:
  std::vector<std::string> calls;
  void create_event_block(const char* name) override { calls.push_back(std::string("block ") + name); }
  EventTracerEntry start_profiling(const char* name, executorch::runtime::ChainID chain_id,
                                   executorch::runtime::DebugHandle debug_handle) override {
    calls.push_back(std::string("start ") + name);
    EventTracerEntry e{};
    e.event_id = static_cast<int64_t>(calls.size());
    e.chain_id = chain_id == kUnsetChainId ? chain_id_ : chain_id;
    e.debug_handle = chain_id == kUnsetChainId ? debug_handle_ : debug_handle;
    return e;
  }
  void end_profiling(EventTracerEntry e) override {
    calls.push_back("end " + std::to_string(e.chain_id) + ":" + std::to_string(e.debug_handle));
  }
  EventTracerEntry start_profiling_delegate(const char* name, DelegateDebugIntId id) override {
    calls.push_back(std::string("start_delegate ") + (name != nullptr ? name : std::to_string(id)));
    return EventTracerEntry{};
  }
  void end_profiling_delegate(EventTracerEntry, const void*, size_t len) override {
    calls.push_back("end_delegate " + std::to_string(len));
  }
  void log_profiling_delegate(const char* name, DelegateDebugIntId, et_timestamp_t s, et_timestamp_t e, const void*,
                              size_t) override {
    calls.push_back(std::string("log_delegate ") + name + " " + std::to_string(e - s));
  }
  void track_allocation(AllocatorID id, size_t size) override {
    calls.push_back("allocation " + std::to_string(id) + " " + std::to_string(size));
  }
  AllocatorID track_allocator(const char* name) override {
    calls.push_back(std::string("allocator ") + name);
    return 42;
  }
  Result<bool> log_evalue(const EValue& v, LoggedEValueType type) override {
    calls.push_back(std::string(type == LoggedEValueType::kProgramOutput ? "output " : "value ") +
                    std::to_string(v.isInt() ? v.toInt() : -1));
    return true;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const Tensor&) override {
    calls.push_back("delegate_output tensor");
    return true;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const ArrayRef<Tensor>) override {
    calls.push_back("delegate_output list");
    return true;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const int& v) override {
    calls.push_back("delegate_output int " + std::to_string(v));
    return true;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const bool&) override {
    calls.push_back("delegate_output bool");
    return true;
  }
  Result<bool> log_intermediate_output_delegate(const char*, DelegateDebugIntId, const double&) override {
    calls.push_back("delegate_output double");
    return true;
  }
  void set_delegation_intermediate_output_filter(EventTracerFilterBase*) override {}
};

TEST(Hooks, CallTheTracerAccordingToItsLevels) {
  namespace internal = executorch::runtime::internal;
  ASSERT_TRUE(internal::event_tracer_enabled());
  RecordingTracer t;
  EXPECT_EQ(t.event_tracer_profiling_level(), EventTracerProfilingLevel::kProfileAllEvents);
  EXPECT_EQ(t.event_tracer_debug_level(), EventTracerDebugLogLevel::kNoLogging);
  internal::event_tracer_create_event_block(&t, "Execute");
  {
    internal::EventTracerProfileMethodScope method(&t, "Method::execute");
    internal::EventTracerProfileInstructionScope instr(&t, 2, 5);
    EXPECT_EQ(t.current_chain_id(), 2);
    EXPECT_EQ(t.current_debug_handle(), 5u);
    internal::EventTracerProfileOpScope op(&t, "OPERATOR_CALL");
  }
  EXPECT_EQ(t.current_chain_id(), kUnsetChainId);  // the instruction scope unsets them on exit
  EXPECT_EQ(t.current_debug_handle(), kUnsetDebugHandle);
  t.set_event_tracer_profiling_level(EventTracerProfilingLevel::kProfileMethodOnly);
  {
    internal::EventTracerProfileScope op(&t, "skipped");  // op-level: not at kProfileMethodOnly
    internal::EventTracerProfileMethodScope method(&t, "kept");
  }
  EventTracerEntry e = internal::event_tracer_begin_profiling_event(&t, "step");
  internal::event_tracer_end_profiling_event(&t, e);
  EXPECT_EQ(internal::event_tracer_track_allocator(&t, "pool"), 42u);
  internal::event_tracer_track_allocation(&t, 42, 128);
  internal::event_tracer_set_bundled_input_index(&t, 3);
  EXPECT_EQ(t.bundled_input_index(), 3);

  EValue seven(static_cast<int64_t>(7));
  internal::event_tracer_log_evalue(&t, seven);         // not at kNoLogging
  internal::event_tracer_log_evalue_output(&t, seven);  // not at kNoLogging
  t.set_event_tracer_debug_level(EventTracerDebugLogLevel::kProgramOutputs);
  internal::event_tracer_log_evalue(&t, seven);  // intermediate values need kIntermediateOutputs
  internal::event_tracer_log_evalue_output(&t, seven);
  t.set_event_tracer_debug_level(EventTracerDebugLogLevel::kIntermediateOutputs);
  internal::event_tracer_log_evalue(&t, seven);

  using executorch::runtime::event_tracer_end_profiling_delegate;
  using executorch::runtime::event_tracer_log_output_delegate;
  using executorch::runtime::event_tracer_log_profiling_delegate;
  using executorch::runtime::event_tracer_start_profiling_delegate;
  EventTracerEntry d = event_tracer_start_profiling_delegate(&t, "conv", kUnsetDelegateDebugIntId);
  event_tracer_end_profiling_delegate(&t, d, "meta", 4);
  event_tracer_log_profiling_delegate(&t, "gemm", kUnsetDelegateDebugIntId, 100, 250);
  event_tracer_log_output_delegate<int>(&t, "n", kUnsetDelegateDebugIntId, 3);
  event_tracer_log_output_delegate<double>(&t, "x", kUnsetDelegateDebugIntId, 0.5);

  const std::vector<std::string> expected = {"block Execute",
                                             "start Method::execute",
                                             "start OPERATOR_CALL",
                                             "end 2:5",
                                             "end -1:0",
                                             "start kept",
                                             "end -1:0",
                                             "start step",
                                             "end -1:0",
                                             "allocator pool",
                                             "allocation 42 128",
                                             "output 7",
                                             "value 7",
                                             "start_delegate conv",
                                             "end_delegate 4",
                                             "log_delegate gemm 150",
                                             "delegate_output int 3",
                                             "delegate_output double"};
  EXPECT_EQ(t.calls, expected);

  // A null tracer: nothing happens, neutral results.
  internal::event_tracer_create_event_block(nullptr, "x");
  internal::EventTracerProfileMethodScope none(nullptr, "x");
  EXPECT_EQ(internal::event_tracer_track_allocator(nullptr, "x"), 0u);
  EXPECT_EQ(event_tracer_start_profiling_delegate(nullptr, "x", 0).event_id, 0);

  // The torch::executor aliases.
  torch::executor::internal::event_tracer_create_event_block(&t, "alias");
  torch::executor::event_tracer_log_profiling_delegate(&t, "alias", kUnsetDelegateDebugIntId, 1, 2);
  EXPECT_EQ(t.calls.back(), "log_delegate alias 1");
}

// ---- a program run with an ETDumpGen (Program / Method, as upstream's executor_runner does)

// mlp/<variant>.pte's forward loaded with `tracer`, its input set to -1, 0, 1, ...
struct MlpRun : api_test::LoadedMethod {
  FloatTensor input{{2, 8}, -1.0f};
  MlpRun(const char* variant, EventTracer* tracer)
      : LoadedMethod(std::string("mlp/") + variant + ".pte", options(tracer)) {}
  static api_test::LoadOptions options(EventTracer* tracer) {
    api_test::LoadOptions o;
    o.method_pool = 4 << 20;
    o.temp_pool = 0;
    o.tracer = tracer;
    return o;
  }
};

std::unique_ptr<MlpRun> load_mlp(const char* variant, EventTracer* tracer) {
  auto m = std::make_unique<MlpRun>(variant, tracer);
  if (m->method == nullptr) return nullptr;
  EXPECT_EQ(m->method->get_event_tracer(), tracer);
  EXPECT_EQ(m->method->set_input(EValue(m->input.tensor()), 0), Error::Ok);
  return m;
}

// The blocks named "Execute" (one per Method::execute()).
std::vector<Table> execute_blocks(const ETDumpResult& r) {
  std::vector<Table> out;
  for (const Table& run : runs_of(r)) {
    if (run.string(slot::kRunName) == "Execute") out.push_back(run);
  }
  return out;
}

TEST_F(Etdump, PortableRunRecordsEveryInstruction) {
  ETDumpGen gen;
  std::unique_ptr<MlpRun> m = load_mlp("portable", &gen);
  ASSERT_NE(m, nullptr);
  constexpr int kRuns = 3;
  for (int i = 0; i < kRuns; ++i) ASSERT_EQ(m->method->execute(), Error::Ok);
  EXPECT_GE(gen.get_num_blocks(), static_cast<size_t>(kRuns));
  Dump d(gen);
  std::vector<Table> blocks = execute_blocks(d.r);
  ASSERT_EQ(blocks.size(), static_cast<size_t>(kRuns));
  for (const Table& block : blocks) {
    EXPECT_EQ(block.scalar<int32_t>(slot::kBundledInputIndex, -1), -1);
    std::vector<Table> events = block.tables(slot::kEvents);
    int method_events = 0;
    std::vector<int32_t> instructions;
    for (const Table& ev : events) {
      ASSERT_TRUE(ev.has(slot::kProfileEvent));
      Table p = *ev.table(slot::kProfileEvent);
      EXPECT_LE(p.scalar<uint64_t>(slot::kStart), p.scalar<uint64_t>(slot::kEnd));
      if (p.string(slot::kName) == "Method::execute") {
        ++method_events;
        EXPECT_EQ(p.scalar<int32_t>(slot::kChainIndex), -1);
      } else if (p.scalar<int32_t>(slot::kChainIndex) == 0) {
        instructions.push_back(p.scalar<int32_t>(slot::kInstructionId, -1));
      }
    }
    EXPECT_EQ(method_events, 1);
    // mlp's portable program: permute, addmm, relu, permute, addmm, in chain 0.
    ASSERT_GE(instructions.size(), 5u);
    for (int32_t k = 0; k < 5; ++k) {
      EXPECT_NE(std::find(instructions.begin(), instructions.end(), k), instructions.end()) << "instruction " << k;
    }
  }
}

TEST_F(Etdump, MethodOnlyProfilingSkipsInstructions) {
  ETDumpGen gen;
  gen.set_event_tracer_profiling_level(EventTracerProfilingLevel::kProfileMethodOnly);
  std::unique_ptr<MlpRun> m = load_mlp("portable", &gen);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->method->execute(), Error::Ok);
  Dump d(gen);
  std::vector<Table> blocks = execute_blocks(d.r);
  ASSERT_EQ(blocks.size(), 1u);
  std::vector<Table> events = blocks[0].tables(slot::kEvents);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].table(slot::kProfileEvent)->string(slot::kName), "Method::execute");
}

TEST_F(Etdump, XnnpackRunRecordsTheDelegateCall) {
  std::vector<uint8_t> storage(1 << 20);
  ETDumpGen gen(Span<uint8_t>(storage.data(), storage.size()));
  std::unique_ptr<MlpRun> m = load_mlp("xnnpack", &gen);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->method->execute(), Error::Ok);
  Dump d(gen);
  std::vector<Table> blocks = execute_blocks(d.r);
  ASSERT_EQ(blocks.size(), 1u);
  std::vector<Table> events = blocks[0].tables(slot::kEvents);
  size_t in_chain = 0;
  for (const Table& ev : events) {
    if (ev.has(slot::kProfileEvent) && ev.table(slot::kProfileEvent)->scalar<int32_t>(slot::kChainIndex) == 0) {
      ++in_chain;
    }
  }
  EXPECT_GE(in_chain, 1u);  // the one DelegateCall
  EXPECT_GE(events.size(), in_chain + 1);
}

// A tracer of the application's own receives the runtime's calls.
TEST_F(Etdump, ApplicationTracerReceivesTheRun) {
  RecordingTracer t;
  std::unique_ptr<MlpRun> m = load_mlp("portable", &t);
  ASSERT_NE(m, nullptr);
  t.calls.clear();
  ASSERT_EQ(m->method->execute(), Error::Ok);
  ASSERT_FALSE(t.calls.empty());
  EXPECT_EQ(t.calls.front(), "block Execute");
  EXPECT_EQ(std::count(t.calls.begin(), t.calls.end(), "start Method::execute"), 1);
  const auto starts =
      std::count_if(t.calls.begin(), t.calls.end(), [](const std::string& c) { return c.rfind("start ", 0) == 0; });
  EXPECT_GE(starts, 6);  // Method::execute and the five instructions
}

// At EventTracerDebugLogLevel::kProgramOutputs the method logs its outputs, as upstream's does.
TEST_F(Etdump, ProgramOutputsAreLogged) {
  alignas(64) static uint8_t debug[4096];
  ETDumpGen gen;
  ASSERT_TRUE(gen.set_debug_buffer(Span<uint8_t>(debug, sizeof(debug))).ok());
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::kProgramOutputs);
  std::unique_ptr<MlpRun> m = load_mlp("portable", &gen);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->method->execute(), Error::Ok);
  const Tensor out = m->method->get_output(0).toTensor();
  Dump d(gen);
  std::vector<Table> blocks = execute_blocks(d.r);
  ASSERT_EQ(blocks.size(), 1u);
  int outputs = 0;
  for (const Table& ev : blocks[0].tables(slot::kEvents)) {
    if (!ev.has(slot::kDebugEvent)) continue;
    Table v = *ev.table(slot::kDebugEvent)->table(slot::kDebugEntry);
    if (!v.has(slot::kOutput)) continue;
    ++outputs;
    Table t = *v.table(slot::kTensor);
    EXPECT_EQ(*t.scalars<int64_t>(slot::kSizes), (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(std::memcmp(debug + t.scalar<int64_t>(slot::kOffset), out.const_data_ptr(), out.nbytes()), 0);
  }
  EXPECT_EQ(outputs, 1);
}

}  // namespace
