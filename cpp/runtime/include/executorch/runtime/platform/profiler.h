#pragma once
// The legacy in-memory profiler: fixed-size blocks of timed events and allocation records. The EXECUTORCH_* macros
// below call it only when PROFILING_ENABLED is defined; otherwise they compile to nothing. (The runtime's own
// profiling goes through EventTracer / ETDump: executorch/devtools/etdump/etdump_flatcc.h.)
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Version of the buffer layout, stored in every block header.
#define ET_PROF_VER 0x00000001

// Capacities of one block. The runtime library is built with these defaults; other values only change the offsets
// and sizes computed below, not the library's buffer.
#ifndef MAX_PROFILE_EVENTS
#define MAX_PROFILE_EVENTS 1024
#endif
#ifndef MAX_MEM_PROFILE_EVENTS
#define MAX_MEM_PROFILE_EVENTS 1024
#endif
#ifndef MEM_PROFILE_MAX_ALLOCATORS
#define MEM_PROFILE_MAX_ALLOCATORS 32
#endif
#ifndef MAX_PROFILE_BLOCKS
#define MAX_PROFILE_BLOCKS 2
#endif

#define PROF_NAME_MAX_LEN 32

// One timed event. While recording, name_str points at the caller's string; dump_profile_stats() copies it into
// name (cut to PROF_NAME_MAX_LEN bytes, not NUL-terminated when that long).
typedef struct alignas(8) {
  union {
    const char* name_str;
    char name[PROF_NAME_MAX_LEN];
  };
  int32_t chain_idx;
  uint32_t instruction_idx;
  uint64_t start_time;  // platform ticks
  uint64_t end_time;
} prof_event_t;

typedef struct alignas(8) {
  uint32_t allocator_id;
  uint32_t allocation_size;
} mem_prof_event_t;

typedef struct alignas(8) {
  char name[PROF_NAME_MAX_LEN];
  uint64_t allocator_id;
} prof_allocator_t;

// What dump_profile_stats() returns: num_blocks blocks of prof_buf_size bytes each at prof_data.
typedef struct alignas(8) {
  uint8_t* prof_data;
  uint32_t num_bytes;
  uint32_t num_blocks;
} prof_result_t;

// The start of every block.
typedef struct alignas(8) {
  char name[32];
  uint32_t prof_ver;
  uint32_t max_prof_entries;
  uint32_t prof_entries;
  uint32_t max_allocator_entries;
  uint32_t allocator_entries;
  uint32_t max_mem_prof_entries;
  uint32_t mem_prof_entries;
} prof_header_t;

// Layout of a block: header, events, allocators, allocation records.
constexpr uint32_t prof_buf_size = sizeof(prof_header_t) + sizeof(prof_event_t) * MAX_PROFILE_EVENTS +
                                   sizeof(mem_prof_event_t) * MAX_MEM_PROFILE_EVENTS +
                                   sizeof(prof_allocator_t) * MEM_PROFILE_MAX_ALLOCATORS;
constexpr size_t prof_header_offset = 0;
constexpr size_t prof_events_offset = sizeof(prof_header_t);
constexpr size_t prof_mem_alloc_info_offset = prof_events_offset + sizeof(prof_event_t) * MAX_PROFILE_EVENTS;
constexpr size_t prof_mem_alloc_events_offset =
    prof_mem_alloc_info_offset + sizeof(prof_allocator_t) * MEM_PROFILE_MAX_ALLOCATORS;

// Starts the "default" block.
EXECUTORCH_API void profiler_init(void);
// Starts a timed event; returns the token end_profiling() takes. Aborts when the block is full.
EXECUTORCH_API uint32_t begin_profiling(const char* name);
EXECUTORCH_API void end_profiling(uint32_t token_id);
// Points `prof_result` at the recorded blocks (owned by the runtime, valid until the next reset).
EXECUTORCH_API void dump_profile_stats(prof_result_t* prof_result);
// Empties the current block.
EXECUTORCH_API void reset_profile_stats();
// Records an allocation of `size` bytes from allocator `id` (from track_allocator(); -1 is ignored).
EXECUTORCH_API void track_allocation(int32_t id, uint32_t size);
// Names an allocator; returns its id.
EXECUTORCH_API uint32_t track_allocator(const char* name);
// Starts a new block (or renames the current one while it is still empty). Aborts past MAX_PROFILE_BLOCKS.
EXECUTORCH_API void profiling_create_block(const char* name);

// Times its own lifetime as one event.
class EXECUTORCH_API ExecutorchProfiler {
 public:
  explicit ExecutorchProfiler(const char* name);
  ~ExecutorchProfiler();

 private:
  uint32_t prof_tok;
};

// The chain and instruction that new events are attributed to (per thread).
typedef struct {
  int32_t chain_idx;
  uint32_t instruction_idx;
} prof_state_t;

EXECUTORCH_API const prof_state_t& get_profile_tls_state();
EXECUTORCH_API void set_profile_tls_state(const prof_state_t& state);

// Sets the chain/instruction of this thread for its lifetime, then restores the previous one.
class EXECUTORCH_API ExecutorchProfilerInstructionScope {
 public:
  explicit ExecutorchProfilerInstructionScope(const prof_state_t& state);
  ~ExecutorchProfilerInstructionScope();
  ExecutorchProfilerInstructionScope(const ExecutorchProfilerInstructionScope&) = delete;
  ExecutorchProfilerInstructionScope& operator=(const ExecutorchProfilerInstructionScope&) = delete;
  ExecutorchProfilerInstructionScope(ExecutorchProfilerInstructionScope&&) = delete;
  ExecutorchProfilerInstructionScope& operator=(ExecutorchProfilerInstructionScope&&) = delete;

 private:
  prof_state_t old_state_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::begin_profiling;
using ::executorch::runtime::dump_profile_stats;
using ::executorch::runtime::end_profiling;
using ::executorch::runtime::ExecutorchProfiler;
using ::executorch::runtime::ExecutorchProfilerInstructionScope;
using ::executorch::runtime::get_profile_tls_state;
using ::executorch::runtime::mem_prof_event_t;
using ::executorch::runtime::prof_allocator_t;
using ::executorch::runtime::prof_buf_size;
using ::executorch::runtime::prof_event_t;
using ::executorch::runtime::prof_events_offset;
using ::executorch::runtime::prof_header_offset;
using ::executorch::runtime::prof_header_t;
using ::executorch::runtime::prof_mem_alloc_events_offset;
using ::executorch::runtime::prof_mem_alloc_info_offset;
using ::executorch::runtime::prof_result_t;
using ::executorch::runtime::prof_state_t;
using ::executorch::runtime::profiler_init;
using ::executorch::runtime::profiling_create_block;
using ::executorch::runtime::reset_profile_stats;
using ::executorch::runtime::set_profile_tls_state;
using ::executorch::runtime::track_allocation;
using ::executorch::runtime::track_allocator;
}  // namespace executor
}  // namespace torch

#ifdef PROFILING_ENABLED

#define EXECUTORCH_PROFILE_CREATE_BLOCK(name) ::executorch::runtime::profiling_create_block(name);
#define EXECUTORCH_BEGIN_PROF(name) ::executorch::runtime::begin_profiling(name);
#define EXECUTORCH_END_PROF(token_id) ::executorch::runtime::end_profiling(token_id);
#define EXECUTORCH_SCOPE_PROF_CONCAT_IMPL(a, b) a##b
#define EXECUTORCH_SCOPE_PROF_CONCAT(a, b) EXECUTORCH_SCOPE_PROF_CONCAT_IMPL(a, b)
#define EXECUTORCH_SCOPE_PROF(name) \
  ::executorch::runtime::ExecutorchProfiler EXECUTORCH_SCOPE_PROF_CONCAT(et_profiler_, __LINE__)(name);
#define EXECUTORCH_PROFILE_INSTRUCTION_SCOPE(chain_idx, instruction_idx) \
  ::executorch::runtime::ExecutorchProfilerInstructionScope __profiler_instruction_scope({chain_idx, instruction_idx});
#define EXECUTORCH_DUMP_PROFILE_RESULTS(prof_result) ::executorch::runtime::dump_profile_stats(prof_result);
#define EXECUTORCH_RESET_PROFILE_RESULTS() ::executorch::runtime::reset_profile_stats();
#define EXECUTORCH_TRACK_ALLOCATOR(name) ::executorch::runtime::track_allocator(name);
#define EXECUTORCH_TRACK_ALLOCATION(id, size) ::executorch::runtime::track_allocation(id, size);

#else  // PROFILING_ENABLED

#define EXECUTORCH_PROFILE_CREATE_BLOCK(name) \
  do {                                        \
    (void)(name);                             \
  } while (0)
#define EXECUTORCH_BEGIN_PROF(name) \
  {                                 \
  }
#define EXECUTORCH_END_PROF(token_id) \
  do {                                \
    (void)(token_id);                 \
  } while (0)
#define EXECUTORCH_SCOPE_PROF(name) \
  do {                              \
    (void)(name);                   \
  } while (0)
#define EXECUTORCH_PROFILE_INSTRUCTION_SCOPE(chain_idx, instruction_idx) \
  do {                                                                   \
    (void)(chain_idx);                                                   \
    (void)(instruction_idx);                                             \
  } while (0)
#define EXECUTORCH_DUMP_PROFILE_RESULTS(prof_result_test) \
  memset(prof_result_test, 0, sizeof(::executorch::runtime::prof_result_t));
#define EXECUTORCH_RESET_PROFILE_RESULTS() \
  {                                        \
  }
#define EXECUTORCH_TRACK_ALLOCATOR(name) ((void)(name), -1)
#define EXECUTORCH_TRACK_ALLOCATION(id, size) \
  do {                                        \
    (void)(id);                               \
    (void)(size);                             \
  } while (0)

#endif  // PROFILING_ENABLED
