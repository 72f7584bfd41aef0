#pragma once
// The process-wide thread pool (libexecutorch_threadpool). Exactly one pool exists per process; kernels and
// delegates all run on it. Its size comes from, in order: _unsafe_reset_threadpool(), the environment variable
// EXECUTORCH_NUM_THREADS, the number of CPUs available to the process.
#include <cstddef>
#include <cstdint>
#include <functional>

#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace threadpool {

class EXECUTORCH_API ThreadPool {
 public:
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run work, the calling thread included.
  size_t get_thread_count() const;
  // Replaces the workers with `num_threads` (>= 1) threads. Must not be called while work is running.
  bool _unsafe_reset_threadpool(uint32_t num_threads);
  // Calls fn(i) for every i in [0, range), spread over the pool; returns when all calls are done. Called from
  // inside a pool task, or while another thread is using the pool, it runs serially on the calling thread.
  void run(const std::function<void(size_t)>& fn, size_t range);
  // Number of run() calls that were spread over worker threads since the process started (for tests).
  uint64_t parallel_runs() const;

  // Where the work of parallel runs went (for tests and diagnostics): units run by the calling thread and by the
  // workers, the runs in which the caller had to sleep until a worker finished the unit it was running, and the
  // times a worker found itself on the caller's CPU and moved to another one.
  struct Stats {
    uint64_t parallel_runs;
    uint64_t units_by_caller;
    uint64_t units_by_workers;
    uint64_t caller_waits;
    uint64_t worker_moves;
  };
  Stats stats() const;

 private:
  friend ThreadPool* get_threadpool();
  ThreadPool();
  ~ThreadPool();
  struct Impl;
  Impl* impl_;
};

// The process-wide pool (created on first use).
EXECUTORCH_API ThreadPool* get_threadpool();

// Number of ThreadPool objects created in this process (always 1 once the pool exists; for tests).
EXECUTORCH_API size_t num_threadpools_created();

// A pthreadpool-style handle for C libraries (the XNNPACK delegate): an opaque pointer to the one pool, plus
// C entry points that run a 1-D or 2-D tiled loop on it.
struct et_pthreadpool;
EXECUTORCH_API et_pthreadpool* get_pthreadpool();

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

extern "C" {
typedef void (*et_pthreadpool_task_1d_t)(void* context, size_t i);
typedef void (*et_pthreadpool_task_1d_tile_1d_t)(void* context, size_t start, size_t tile);
typedef void (*et_pthreadpool_task_2d_t)(void* context, size_t i, size_t j);
EXECUTORCH_API size_t et_pthreadpool_get_threads_count(executorch::extension::threadpool::et_pthreadpool* pool);
EXECUTORCH_API void et_pthreadpool_parallelize_1d(executorch::extension::threadpool::et_pthreadpool* pool,
                                                  et_pthreadpool_task_1d_t task, void* context, size_t range,
                                                  uint32_t flags);
EXECUTORCH_API void et_pthreadpool_parallelize_1d_tile_1d(executorch::extension::threadpool::et_pthreadpool* pool,
                                                          et_pthreadpool_task_1d_tile_1d_t task, void* context,
                                                          size_t range, size_t tile, uint32_t flags);
EXECUTORCH_API void et_pthreadpool_parallelize_2d(executorch::extension::threadpool::et_pthreadpool* pool,
                                                  et_pthreadpool_task_2d_t task, void* context, size_t range_i,
                                                  size_t range_j, uint32_t flags);
}
