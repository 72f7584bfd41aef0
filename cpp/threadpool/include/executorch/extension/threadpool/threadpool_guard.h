#pragma once
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace threadpool {

// While a NoThreadPoolGuard lives on a thread, parallel work started on that thread (ThreadPool::run,
// parallel_for) runs inline on it, and get_pthreadpool() returns null. The setting is per thread; the guard restores
// the previous one when it is destroyed. Work running on the pool sees the guard enabled (nested parallel work runs
// inline on the thread that reached it).
struct NoThreadPoolGuard {
  EXECUTORCH_API static bool is_enabled();
  EXECUTORCH_API static void set_enabled(bool enabled);

  NoThreadPoolGuard() : prev_mode_(NoThreadPoolGuard::is_enabled()) { NoThreadPoolGuard::set_enabled(true); }
  ~NoThreadPoolGuard() { NoThreadPoolGuard::set_enabled(prev_mode_); }

 private:
  const bool prev_mode_;
};

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executorch {
namespace threadpool {
// Upstream's old (deprecated) namespace.
using ::executorch::extension::threadpool::NoThreadPoolGuard;
}  // namespace threadpool
}  // namespace executorch
}  // namespace torch
