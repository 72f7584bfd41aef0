#pragma once
// TensorImpl: a tensor's metadata. It points at arrays of sizes, dim order and strides, and at the data, all
// owned elsewhere (by the Method for program values, by the TensorPtr for user tensors). Strides always follow
// the dim order: the constructor and resizes compute them from the sizes.
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
namespace internal {
// Upstream's friend for resizing (executorch/runtime/core/exec_aten/util/tensor_util.h defines it there).
class TensorResizerFriend;
}  // namespace internal
}  // namespace runtime
}  // namespace executorch

namespace executorch {
namespace runtime {
namespace etensor {

class EXECUTORCH_API TensorImpl {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  // An empty rank-0 Float tensor with no data; for storage that is assigned a real TensorImpl later (upstream has
  // no default constructor).
  TensorImpl() = default;

  // `sizes` (and `dim_order` and `strides`, when given) point to `dim` entries that outlive the TensorImpl and
  // stay writable: resizing changes sizes and strides in place. When both dim_order and strides are given, the
  // strides are (re)computed from the sizes in the dim order. Aborts for an invalid dtype, a negative dim, null
  // sizes with dim > 0 or a negative size, as upstream does.
  TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data = nullptr, DimOrderType* dim_order = nullptr,
             StridesType* strides = nullptr, TensorShapeDynamism dynamism = TensorShapeDynamism::STATIC,
             DeviceType device_type = DeviceType::CPU, DeviceIndex device_index = 0);

  // numel() * element_size().
  size_t nbytes() const;

  // Size of dimension `dim`; aborts unless 0 <= dim < dim().
  ssize_t size(ssize_t dim) const {
    ET_CHECK_MSG(dim < dim_ && dim >= 0, "Dimension out of range (expected to be in range of [0, %zd], but got %zd",
                 dim_ - 1, dim);
    return sizes_[dim];
  }
  ssize_t dim() const { return dim_; }
  ssize_t numel() const { return numel_; }
  // Extension of this SDK: the most elements a resize may give (the element count at construction).
  ssize_t numel_bound() const { return static_cast<ssize_t>(numel_bound_); }
  ScalarType scalar_type() const { return type_; }
  inline ScalarType dtype() const { return scalar_type(); }
  // Size in bytes of one element.
  ssize_t element_size() const;
  const ArrayRef<SizesType> sizes() const { return ArrayRef<SizesType>{sizes_, static_cast<size_t>(dim_)}; }
  const ArrayRef<DimOrderType> dim_order() const {
    return ArrayRef<DimOrderType>{dim_order_, static_cast<size_t>(dim_)};
  }
  const ArrayRef<StridesType> strides() const { return ArrayRef<StridesType>{strides_, static_cast<size_t>(dim_)}; }
  TensorShapeDynamism shape_dynamism() const { return shape_dynamism_; }

  // Where the data lives (CPU unless the constructor said otherwise).
  Device device() const { return device_; }
  DeviceType device_type() const { return device_.type(); }
  DeviceIndex device_index() const { return device_.index(); }

  template <typename T>
  inline const T* data() const {
    return static_cast<const T*>(data());
  }
  const void* data() const { return data_; }
  template <typename T>
  inline T* mutable_data() const {
    return static_cast<T*>(mutable_data());
  }
  void* mutable_data() const { return data_; }
  // Points the tensor at other memory (not owned; at least nbytes() long).
  void set_data(void* ptr) { data_ = ptr; }

  // Resizes in place and aborts on failure; prefer executorch::runtime::resize_tensor(), which returns the error.
  ET_DEPRECATED void set_sizes_contiguous(ArrayRef<SizesType> new_sizes) {
    const Error err = internal_resize_contiguous(new_sizes);
    ET_CHECK_MSG(err == Error::Ok, "Could not resize Tensor; see logs for details");
  }

  // Changes the sizes in place (same rank) and recomputes the strides. A STATIC tensor accepts only its current
  // sizes (NotSupported otherwise); a DYNAMIC_BOUND or DYNAMIC_UNBOUND one any sizes with at most numel_bound()
  // elements (NotSupported beyond, InvalidArgument for negative sizes). A different rank is NotSupported.
  // Upstream makes this private (reached through internal::TensorResizerFriend / resize_tensor()); the runtime
  // here calls it directly.
  ET_NODISCARD Error internal_resize_contiguous(ArrayRef<SizesType> new_sizes);

 private:
  friend class ::executorch::runtime::internal::TensorResizerFriend;

  void recompute_strides();

  SizesType* sizes_ = nullptr;
  DimOrderType* dim_order_ = nullptr;
  StridesType* strides_ = nullptr;
  void* data_ = nullptr;
  ssize_t dim_ = 0;
  ssize_t numel_ = 1;
  size_t numel_bound_ = 1;
  ScalarType type_ = ScalarType::Float;
  TensorShapeDynamism shape_dynamism_ = TensorShapeDynamism::STATIC;
  Device device_{DeviceType::CPU, 0};
};

// The element count of `sizes[0..dim)` (1 for dim 0); aborts for null sizes with dim > 0 or a negative size.
EXECUTORCH_API ssize_t compute_numel(const TensorImpl::SizesType* sizes, ssize_t dim);

// As compute_numel, but InvalidArgument instead of aborting, also when the count overflows.
EXECUTORCH_API ::executorch::runtime::Result<ssize_t> safe_numel(const TensorImpl::SizesType* sizes, ssize_t dim);

// printf length modifiers for sizes, dims, numels (ssize_t) and size / stride entries (int32_t).
#define ET_PRI_TENSOR_SIZE "zd"
#define ET_PRI_TENSOR_DIM "zd"
#define ET_PRI_TENSOR_NUMEL "zd"
#define ET_PRI_SIZES_AND_STRIDES "d"

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;
using ::executorch::runtime::etensor::TensorImpl;
}  // namespace executor
}  // namespace torch
