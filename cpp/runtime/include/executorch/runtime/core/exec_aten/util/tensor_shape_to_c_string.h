#pragma once
// Formats a tensor shape as "(2, 3, 4)" into a fixed-size buffer, for log and error messages (no allocation).
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch::runtime {

// Room for the longest shape: "(" + kTensorDimensionLimit elements of at most 10 digits, each followed by ", "
// (the last ", " becomes ")" and the terminating NUL).
constexpr size_t kTensorShapeStringSizeLimit = 1 + 10 * kTensorDimensionLimit + 2 * kTensorDimensionLimit + 1;

namespace internal {
// Elements above this (or negative ones) print as "ERR".
constexpr size_t kMaximumPrintableTensorShapeElement = std::numeric_limits<int32_t>::max();
}  // namespace internal

// "(d0, d1, ...)"; "()" for a rank-0 shape; "(ERR: tensor ndim exceeds limit)" above kTensorDimensionLimit dims.
EXECUTORCH_API std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(
    executorch::runtime::Span<const std::int32_t> shape);
EXECUTORCH_API std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(
    executorch::runtime::Span<const std::int64_t> shape);

}  // namespace executorch::runtime
