#pragma once
#include <cstdint>

#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace cpuinfo {

// The number of threads worth running parallel work on, at least 1: EXECUTORCH_NUM_THREADS when set (as the
// pool's default size), else the CPUs of the process's affinity mask capped by its cgroup CPU quota; when those
// CPUs come in two or more classes of maximum frequency (big.LITTLE), only the fastest class counts (capped by the
// quota). Upstream asks the cpuinfo library; this SDK reads the same facts from /proc and /sys.
EXECUTORCH_API uint32_t get_num_performant_cores();

}  // namespace cpuinfo
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executorch {
namespace cpuinfo {
// Upstream's old (deprecated) namespace.
using ::executorch::extension::cpuinfo::get_num_performant_cores;
}  // namespace cpuinfo
}  // namespace executorch
}  // namespace torch
