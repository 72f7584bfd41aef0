// The legacy in-memory profiler of executorch/runtime/platform/profiler.h: MAX_PROFILE_BLOCKS blocks of
// prof_buf_size bytes in one static buffer (zero pages until used). Recording is serialized by a mutex; the
// chain/instruction state is per thread.
#include <executorch/runtime/platform/profiler.h>

#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/platform.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <mutex>

namespace executorch {
namespace runtime {
namespace {

alignas(8) uint8_t g_buf[prof_buf_size * MAX_PROFILE_BLOCKS];
uint32_t g_num_blocks = 0;             // blocks started; the current one is the last
uint32_t g_named[MAX_PROFILE_BLOCKS];  // per block: events whose name dump_profile_stats() has copied in
std::mutex g_mutex;
thread_local prof_state_t t_state{-1, 0u};

uint8_t* block_base() { return g_buf + (g_num_blocks - 1) * static_cast<size_t>(prof_buf_size); }
prof_header_t* header() { return reinterpret_cast<prof_header_t*>(block_base() + prof_header_offset); }
prof_event_t* events() { return reinterpret_cast<prof_event_t*>(block_base() + prof_events_offset); }
prof_allocator_t* allocators() {
  return reinterpret_cast<prof_allocator_t*>(block_base() + prof_mem_alloc_info_offset);
}
mem_prof_event_t* allocations() {
  return reinterpret_cast<mem_prof_event_t*>(block_base() + prof_mem_alloc_events_offset);
}

void copy_name(char* dst, const char* src) {
  std::memset(dst, 0, PROF_NAME_MAX_LEN);
  std::memcpy(dst, src, std::min<size_t>(std::strlen(src), PROF_NAME_MAX_LEN));
}

void reset_locked() {
  prof_header_t* h = header();
  h->prof_entries = 0;
  h->allocator_entries = 0;
  h->mem_prof_entries = 0;
  g_named[g_num_blocks - 1] = 0;
}

void create_block_locked(const char* name) {
  // A block with nothing in it yet is reused (renamed) rather than wasted.
  if (g_num_blocks == 0 || header()->prof_entries != 0 || header()->allocator_entries != 0 ||
      header()->mem_prof_entries != 0) {
    ET_CHECK_MSG(g_num_blocks < MAX_PROFILE_BLOCKS, "all %d profiling blocks are used; raise MAX_PROFILE_BLOCKS",
                 MAX_PROFILE_BLOCKS);
    ++g_num_blocks;
  }
  prof_header_t* h = header();
  std::memset(h->name, 0, sizeof(h->name));
  std::memcpy(h->name, name, std::min<size_t>(std::strlen(name), sizeof(h->name)));
  h->prof_ver = ET_PROF_VER;
  h->max_prof_entries = MAX_PROFILE_EVENTS;
  h->max_allocator_entries = MEM_PROFILE_MAX_ALLOCATORS;
  h->max_mem_prof_entries = MAX_MEM_PROFILE_EVENTS;
  reset_locked();
}

// Recording before any block was started (runtime_init() starts one only in PROFILING_ENABLED builds of the
// runtime) goes to a "default" block.
void ensure_block_locked() {
  if (g_num_blocks == 0) create_block_locked("default");
}

}  // namespace

const prof_state_t& get_profile_tls_state() { return t_state; }

void set_profile_tls_state(const prof_state_t& state) { t_state = state; }

ExecutorchProfilerInstructionScope::ExecutorchProfilerInstructionScope(const prof_state_t& state)
    : old_state_(get_profile_tls_state()) {
  set_profile_tls_state(state);
}

ExecutorchProfilerInstructionScope::~ExecutorchProfilerInstructionScope() { set_profile_tls_state(old_state_); }

uint32_t begin_profiling(const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ensure_block_locked();
  prof_header_t* h = header();
  ET_CHECK_MSG(h->prof_entries < MAX_PROFILE_EVENTS, "profiling buffer full; raise MAX_PROFILE_EVENTS");
  const uint32_t token = h->prof_entries++;
  prof_event_t& e = events()[token];
  e.name_str = name;
  e.chain_idx = t_state.chain_idx;
  e.instruction_idx = t_state.instruction_idx;
  e.end_time = 0;
  e.start_time = pal_current_ticks();  // last, so the bookkeeping above is not timed
  return token;
}

void end_profiling(uint32_t token_id) {
  const et_timestamp_t now = pal_current_ticks();  // first, for the same reason
  std::lock_guard<std::mutex> lock(g_mutex);
  ET_CHECK_MSG(token_id < MAX_PROFILE_EVENTS, "invalid profiling token %" PRIu32, token_id);
  ensure_block_locked();
  events()[token_id].end_time = now;
}

void dump_profile_stats(prof_result_t* prof_result) {
  std::lock_guard<std::mutex> lock(g_mutex);
  prof_result->prof_data = g_buf;
  prof_result->num_bytes = g_num_blocks * prof_buf_size;
  prof_result->num_blocks = g_num_blocks;
  // Replace each new event's name pointer by (up to PROF_NAME_MAX_LEN bytes of) the name itself, once per event.
  for (uint32_t b = 0; b < g_num_blocks; ++b) {
    uint8_t* base = g_buf + b * static_cast<size_t>(prof_buf_size);
    const auto* h = reinterpret_cast<const prof_header_t*>(base + prof_header_offset);
    auto* ev = reinterpret_cast<prof_event_t*>(base + prof_events_offset);
    for (uint32_t i = g_named[b]; i < h->prof_entries; ++i) {
      const char* name = ev[i].name_str;
      char copy[PROF_NAME_MAX_LEN];
      copy_name(copy, name != nullptr ? name : "");
      std::memcpy(ev[i].name, copy, PROF_NAME_MAX_LEN);
    }
    g_named[b] = h->prof_entries;
  }
}

void reset_profile_stats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_num_blocks > 0) reset_locked();
}

void track_allocation(int32_t id, uint32_t size) {
  if (id == -1) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ensure_block_locked();
  prof_header_t* h = header();
  ET_CHECK_MSG(h->mem_prof_entries < MAX_MEM_PROFILE_EVENTS,
               "allocation profiling buffer full (%" PRIu32 " records); raise MAX_MEM_PROFILE_EVENTS",
               h->mem_prof_entries);
  mem_prof_event_t& e = allocations()[h->mem_prof_entries++];
  e.allocator_id = static_cast<uint32_t>(id);
  e.allocation_size = size;
}

uint32_t track_allocator(const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ensure_block_locked();
  prof_header_t* h = header();
  ET_CHECK_MSG(h->allocator_entries < MEM_PROFILE_MAX_ALLOCATORS,
               "allocator table full (%" PRIu32 " allocators); raise MEM_PROFILE_MAX_ALLOCATORS", h->allocator_entries);
  const uint32_t id = h->allocator_entries++;
  copy_name(allocators()[id].name, name);
  allocators()[id].allocator_id = id;
  return id;
}

void profiling_create_block(const char* name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  create_block_locked(name);
}

void profiler_init(void) { profiling_create_block("default"); }

ExecutorchProfiler::ExecutorchProfiler(const char* name) : prof_tok(begin_profiling(name)) {}

ExecutorchProfiler::~ExecutorchProfiler() { end_profiling(prof_tok); }

}  // namespace runtime
}  // namespace executorch
