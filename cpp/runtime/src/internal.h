#pragma once
// Internal helpers of libexecutorch (not installed).
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <executorch/runtime/core/error.h>

namespace executorch {
namespace runtime {
namespace internal {

inline bool add_overflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_add_overflow(a, b, out); }
inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }

// True when [offset, offset + size) lies inside [0, total).
inline bool range_ok(uint64_t offset, uint64_t size, uint64_t total) {
  uint64_t end = 0;
  return !add_overflows(offset, size, &end) && end <= total;
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
