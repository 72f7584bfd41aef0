#pragma once
// Dim order <-> strides conversions and layout tests (upstream's names). A dim order lists the dimensions from the
// outermost (largest stride) to the innermost in memory: {0, 1, 2, 3} is contiguous ("NCHW"), {0, 2, 3, 1} is
// channels-last ("NHWC"). Templated over the element types so that callers with int32 or int64 sizes share them.
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

namespace internal {
// True when dim_order[0..dims) is a permutation of 0..dims-1 (and dims is within kTensorDimensionLimit).
template <typename DimOrderType>
bool validate_dim_order(const DimOrderType* dim_order, const size_t dims) {
  static_assert(kTensorDimensionLimit <= 32, "the seen-mask below holds one bit per dimension");
  if (dims > kTensorDimensionLimit) return false;
  uint32_t seen = 0;
  for (size_t i = 0; i < dims; ++i) {
    const auto d = static_cast<int64_t>(dim_order[i]);
    if (d < 0 || d >= static_cast<int64_t>(dims)) return false;
    const uint32_t bit = uint32_t{1} << d;
    if (seen & bit) return false;
    seen |= bit;
  }
  return true;
}
}  // namespace internal
// Upstream declares it directly in this namespace (file-local there); the same name works here.
using internal::validate_dim_order;

// True for the identity order {0, 1, ..., dims-1} (also for dims == 0).
template <typename DimOrderType>
inline bool is_contiguous_dim_order(const DimOrderType* dim_order, const size_t dims) {
  for (size_t i = 0; i < dims; ++i) {
    if (dim_order[i] != static_cast<DimOrderType>(i)) return false;
  }
  return true;
}

// True for channels-last: {0, 2, 3, 1} for 4-d (NCHW) and {0, 2, 3, 4, 1} for 5-d tensors; false for other ranks.
template <typename DimOrderType>
bool is_channels_last_dim_order(const DimOrderType* dim_order, const size_t dims) {
  if (dims != 4 && dims != 5) return false;
  if (dim_order[0] != 0 || dim_order[dims - 1] != 1) return false;
  for (size_t i = 1; i + 1 < dims; ++i) {
    if (dim_order[i] != static_cast<DimOrderType>(i + 1)) return false;
  }
  return true;
}

// Fills strides[0..dims) for a dense tensor laid out in `dim_order`. A size-0 dimension counts as size 1 for the
// strides of the dimensions outside it. The dim order must be valid (see dim_order_to_stride for a checked form).
template <typename SizesType, typename DimOrderType, typename StridesType>
inline void dim_order_to_stride_nocheck(const SizesType* sizes, const DimOrderType* dim_order, const size_t dims,
                                        StridesType* strides) {
  if (dims == 0) return;
  strides[dim_order[dims - 1]] = 1;
  for (size_t i = dims - 1; i > 0; --i) {
    const auto inner = dim_order[i];
    const auto outer = dim_order[i - 1];
    strides[outer] = sizes[inner] == 0 ? strides[inner] : static_cast<StridesType>(strides[inner] * sizes[inner]);
  }
}

// As dim_order_to_stride_nocheck; InvalidArgument when dim_order is not a permutation of 0..dims-1.
template <typename SizesType, typename DimOrderType, typename StridesType>
ET_NODISCARD inline Error dim_order_to_stride(const SizesType* sizes, const DimOrderType* dim_order, const size_t dims,
                                              StridesType* strides) {
  if (dims == 0) return Error::Ok;
  if (!internal::validate_dim_order(dim_order, dims)) {
    ET_LOG(Error, "Invalid dim order: values must be a permutation of [0, %zu)", dims);
    return Error::InvalidArgument;
  }
  dim_order_to_stride_nocheck(sizes, dim_order, dims, strides);
  return Error::Ok;
}

namespace internal {

// A (stride, dimension) pair; `a > b` means a sorts after b, i.e. has the smaller stride (descending order).
template <typename StridesType, typename DimOrderType>
struct StrideDimOrder {
  StridesType stride;
  DimOrderType dim_order;

  StrideDimOrder(StridesType stride_, DimOrderType dim_order_) : stride(stride_), dim_order(dim_order_) {}
  StrideDimOrder() = default;
  bool operator>(const StrideDimOrder& other) const { return stride < other.stride; }
};

// An in-place quicksort (Lomuto partition, last element as pivot) on ValueType::operator>. Kept as upstream has it
// because its order among equal strides (size-1 dimensions) decides the dim order stride_to_dim_order reports.
template <typename ValueType>
struct Sorter {
 public:
  void quick_sort(ValueType arr[], int32_t low, int32_t high) {
    if (low >= high) return;
    const ValueType pivot = arr[high];
    int32_t store = low;
    for (int32_t i = low; i <= high; ++i) {
      if (!(arr[i] > pivot)) swap(arr, i, store++);
    }
    const int32_t pos = store - 1;
    quick_sort(arr, low, pos - 1);
    quick_sort(arr, pos + 1, high);
  }

 private:
  static void swap(ValueType arr[], int32_t a, int32_t b) noexcept {
    ValueType tmp = arr[a];
    arr[a] = arr[b];
    arr[b] = tmp;
  }
};

}  // namespace internal

// The dim order of a tensor with the given strides: dimensions sorted by descending stride. MemoryAllocationFailed
// when dim_order is null, NotSupported above 16 dimensions.
template <typename DimOrderType, typename StridesType>
ET_NODISCARD inline Error stride_to_dim_order(const StridesType* strides, const size_t dims, DimOrderType* dim_order) {
  constexpr size_t kMaxNumOfDimensions = 16;
  if (dim_order == nullptr) {
    ET_LOG(Error, "Need memory to get dim_order.");
    return Error::MemoryAllocationFailed;
  }
  if (dims > kMaxNumOfDimensions) {
    ET_LOG(Error, "dims %zu exceeds maximum allowed %zu", dims, kMaxNumOfDimensions);
    return Error::NotSupported;
  }
  internal::StrideDimOrder<StridesType, DimOrderType> array[kMaxNumOfDimensions];
  for (size_t i = 0; i < dims; ++i) {
    array[i].dim_order = static_cast<DimOrderType>(i);
    array[i].stride = strides[i];
  }
  internal::Sorter<internal::StrideDimOrder<StridesType, DimOrderType>> sorter;
  sorter.quick_sort(array, 0, static_cast<int32_t>(dims) - 1);
  for (size_t i = 0; i < dims; ++i) dim_order[i] = array[i].dim_order;
  return Error::Ok;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::dim_order_to_stride;
using ::executorch::runtime::dim_order_to_stride_nocheck;
using ::executorch::runtime::is_channels_last_dim_order;
using ::executorch::runtime::is_contiguous_dim_order;
using ::executorch::runtime::stride_to_dim_order;
}  // namespace executor
}  // namespace torch
