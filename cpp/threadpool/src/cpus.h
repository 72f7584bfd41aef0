#pragma once
// How many CPUs this process may use (internal to libexecutorch_threadpool).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace executorch {
namespace extension {
namespace threadpool {
namespace internal {

// The most threads a pool may have: the bound of EXECUTORCH_NUM_THREADS, of the default size and of
// _unsafe_reset_threadpool() (threadpool.h).
constexpr size_t kMaxThreadCount = 1024;

// EXECUTORCH_NUM_THREADS when it is an integer in [1, kMaxThreadCount], else 0.
size_t env_thread_count();
// The CPUs of the process's affinity mask (their numbers).
std::vector<int> affinity_cpus();
// CPUs the cgroup CPU quota allows, rounded up; 0 when there is no quota or it cannot be read.
size_t cgroup_cpu_limit();
// The pool's default size: env_thread_count(), else the affinity mask's CPUs capped by the quota; at least 1.
size_t default_thread_count();
// Of CPUs with these maximum frequencies (any unit; 0 = unknown), how many are not in the slowest class. Classes
// are runs of sorted frequencies less than 15% apart, so that boost-binned cores of one type stay one class while
// big.LITTLE types (typically 25% or more apart) separate. All of them when there is one class or any is unknown.
size_t count_fast_cpus(const std::vector<uint64_t>& max_freqs);

}  // namespace internal
}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
