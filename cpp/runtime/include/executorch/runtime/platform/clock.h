#pragma once
// Converts platform ticks (et_pal_current_ticks()) to nanoseconds.
#include <stdint.h>

#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {

// ticks * numerator / denominator of et_pal_ticks_to_ns_multiplier(). The default platform layer counts
// nanoseconds, so the default ratio is 1/1.
inline uint64_t ticks_to_ns(et_timestamp_t ticks) {
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  return static_cast<uint64_t>(ticks) * ratio.numerator / ratio.denominator;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ticks_to_ns;
}  // namespace executor
}  // namespace torch
