#pragma once
// The largest rank a tensor may have. Kernels size fixed stack arrays (sizes, strides, coordinates) with it.
#include <cstddef>

namespace executorch::runtime {

constexpr size_t kTensorDimensionLimit = 16;

}  // namespace executorch::runtime
