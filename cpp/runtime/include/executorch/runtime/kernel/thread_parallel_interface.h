#pragma once
// parallel_for for kernels, as upstream ExecuTorch declares it. Code built with ET_USE_THREADPOOL defined (linking
// the executorch::threadpool CMake target defines it, as upstream's extension_threadpool does) runs on the one
// process-wide pool of libexecutorch_threadpool; without it, parallel_for runs inline on the calling thread.
#include <cinttypes>
#include <cstdint>
#include <functional>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace internal {

// The serial parallel_for. Debug builds (no NDEBUG) call f once per index, last index first, so that a kernel that
// depends on chunk order or size shows it in tests; release builds make one call over the whole range.
template <typename Func>
inline bool parallel_for_no_threadpool(const int64_t begin, const int64_t end, const int64_t grain_size,
                                       const Func& f) {
  if (begin < 0 || end < 0 || end < begin) {
    ET_LOG(Error, "parallel_for: begin = %" PRId64 ", end = %" PRId64, begin, end);
    return false;
  }
  if (grain_size <= 0) {
    ET_LOG(Error, "parallel_for: grain_size = %" PRId64, grain_size);
    return false;
  }
#ifndef NDEBUG
  for (int64_t idx = end - 1; idx >= begin; --idx) f(idx, idx + 1);
#else
  f(begin, end);
#endif
  return true;
}

// The default grain size of kernels that have no better estimate.
constexpr int64_t GRAIN_SIZE = 32768;

}  // namespace internal

#ifdef ET_USE_THREADPOOL

// Calls f(chunk_begin, chunk_end) over disjoint chunks that cover [begin, end) exactly once, each chunk at least
// grain_size long (except the last), in parallel on the thread pool; returns when all calls are done. false (and no
// call) when begin < 0, end < begin or grain_size < 1. Inside f, get_thread_num() is the index of the pool thread
// running it (0 = the caller), below get_thread_count() and distinct among calls running at the same time (so it can
// index per-thread scratch); a parallel_for inside f runs inline on that thread.
EXECUTORCH_API bool parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size,
                                 runtime::FunctionRef<void(int64_t, int64_t)> f);

// Threads parallel_for uses (the calling thread included).
EXECUTORCH_API int64_t get_thread_count();

// See parallel_for; 0 outside parallel_for.
EXECUTORCH_API int64_t get_thread_num();

// Sets what get_thread_num() returns on the calling thread.
EXECUTORCH_API void set_thread_num(int64_t thread_num);

#else  // ET_USE_THREADPOOL

template <typename Func>
bool parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size, const Func& func) {
  return internal::parallel_for_no_threadpool(begin, end, grain_size, func);
}

inline int64_t get_thread_num() { return 0; }

inline int64_t get_thread_count() { return 1; }

inline void set_thread_num(int64_t thread_num) {
  (void)thread_num;
  ET_DCHECK_MSG(false, "cannot set_thread_num without threading support!");
}

#endif  // ET_USE_THREADPOOL

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::get_thread_num;
using ::executorch::extension::parallel_for;
using ::executorch::extension::set_thread_num;
}  // namespace executor
}  // namespace torch
