#pragma once
// The thread pool (libexecutorch_threadpool), with upstream ExecuTorch's API. get_threadpool() is the one
// process-wide pool that kernels and delegates run on; its size comes from, in order: _unsafe_reset_threadpool(),
// the environment variable EXECUTORCH_NUM_THREADS, the CPUs available to the process (affinity mask, cgroup quota).
#include <cstddef>
#include <cstdint>
#include <functional>

#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/export.h>

// pthreadpool's handle type, declared as pthreadpool.h declares it (the declarations agree when both are included).
// get_pthreadpool()'s handle is this SDK's pool, not a pthreadpool object: run work on it with the
// et_pthreadpool_* functions below, not with libpthreadpool's.
struct pthreadpool;
typedef struct pthreadpool* pthreadpool_t;

namespace executorch {
namespace extension {
namespace threadpool {

class EXECUTORCH_API ThreadPool final {
 public:
  // A pool of thread_count threads (the caller of run() counted as one), or the default size when 0.
  explicit ThreadPool(size_t thread_count = 0);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ThreadPool(ThreadPool&&) = delete;
  ThreadPool& operator=(ThreadPool&&) = delete;

  // Threads that run work, the calling thread included; 0 after _unsafe_destroy_threadpool().
  size_t get_thread_count() const;

  // Replaces the workers with num_threads threads (0: no change). Must not be called while the pool runs work;
  // false (and no change) when called from inside work running on this pool or for more than 1024 threads.
  [[deprecated("experimental (as upstream's): resizes the pool under whatever still uses it")]]
  bool _unsafe_reset_threadpool(uint32_t num_threads);

  // Stops the workers; run() then runs everything on the calling thread until the next _unsafe_reset_threadpool().
  // Must not be called while the pool runs work.
  [[deprecated("experimental (as upstream's): stops the pool under whatever still uses it")]]
  void _unsafe_destroy_threadpool();

  // Calls fn(i) for every i in [0, range), spread over the pool; returns when all calls are done. Runs serially on
  // the calling thread under a NoThreadPoolGuard, inside work running on the pool, or while another thread is
  // using the pool (one parallel run at a time).
  void run(runtime::FunctionRef<void(size_t)> fn, size_t range);

  // Extras of this SDK (tests, diagnostics).
  // Number of run() calls that were spread over worker threads since the pool was made.
  uint64_t parallel_runs() const;
  // Where the work of parallel runs went: units run by the calling thread and by the workers, the runs in which the
  // caller had to sleep until a worker finished the unit it was running, and the times a worker found itself on the
  // caller's CPU and moved to another one.
  struct Stats {
    uint64_t parallel_runs;
    uint64_t units_by_caller;
    uint64_t units_by_workers;
    uint64_t caller_waits;
    uint64_t worker_moves;
  };
  Stats stats() const;

 private:
  struct Impl;
  void recover_after_fork();
  Impl* impl_;
};

// The process-wide pool (created on first use; never null).
EXECUTORCH_API ThreadPool* get_threadpool();

// A handle to the process-wide pool for C code (see pthreadpool_t above); null under a NoThreadPoolGuard, which the
// et_pthreadpool_* functions take as "run serially on the calling thread".
EXECUTORCH_API pthreadpool_t get_pthreadpool();

// Number of ThreadPool objects created in this process (1 once the process-wide pool exists, unless the
// application makes its own; for tests).
EXECUTORCH_API size_t num_threadpools_created();

// This SDK's name for the handle's type.
using et_pthreadpool = ::pthreadpool;

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executorch {
namespace threadpool {
// Upstream's old (deprecated) namespace.
using ::executorch::extension::threadpool::get_pthreadpool;
using ::executorch::extension::threadpool::get_threadpool;
using ::executorch::extension::threadpool::ThreadPool;
}  // namespace threadpool
}  // namespace executorch
}  // namespace torch

// pthreadpool-style loops on a pool handle (null: serially on the calling thread). `flags` is accepted and ignored.
extern "C" {
typedef void (*et_pthreadpool_task_1d_t)(void* context, size_t i);
typedef void (*et_pthreadpool_task_1d_tile_1d_t)(void* context, size_t start, size_t tile);
typedef void (*et_pthreadpool_task_2d_t)(void* context, size_t i, size_t j);
EXECUTORCH_API size_t et_pthreadpool_get_threads_count(pthreadpool_t pool);
EXECUTORCH_API void et_pthreadpool_parallelize_1d(pthreadpool_t pool, et_pthreadpool_task_1d_t task, void* context,
                                                  size_t range, uint32_t flags);
EXECUTORCH_API void et_pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, et_pthreadpool_task_1d_tile_1d_t task,
                                                          void* context, size_t range, size_t tile, uint32_t flags);
EXECUTORCH_API void et_pthreadpool_parallelize_2d(pthreadpool_t pool, et_pthreadpool_task_2d_t task, void* context,
                                                  size_t range_i, size_t range_j, uint32_t flags);
}
