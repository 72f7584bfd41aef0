#pragma once
#include <cstddef>
#include <cstdint>
#include <sys/types.h>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>

namespace executorch {
namespace runtime {
namespace etensor {

// Metadata of a tensor: dtype, rank, and pointers to sizes / dim order / strides arrays owned elsewhere (by
// the Method for program values, by the TensorPtr for user tensors). Strides always follow the dim order.
class EXECUTORCH_API TensorImpl {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  TensorImpl() = default;
  // dim_order and strides may be null for rank 0; for rank > 0 both must point to `dim` writable entries
  // (strides are computed here from sizes and dim_order).
  TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data = nullptr, DimOrderType* dim_order = nullptr,
             StridesType* strides = nullptr, TensorShapeDynamism dynamism = TensorShapeDynamism::STATIC);

  ssize_t dim() const { return dim_; }
  ssize_t numel() const { return numel_; }
  ssize_t numel_bound() const { return numel_bound_; }
  ScalarType scalar_type() const { return type_; }
  ScalarType dtype() const { return type_; }
  ssize_t element_size() const { return static_cast<ssize_t>(elementSize(type_)); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * elementSize(type_); }
  ssize_t size(ssize_t d) const { return sizes_[d]; }
  ArrayRef<SizesType> sizes() const { return ArrayRef<SizesType>(sizes_, static_cast<size_t>(dim_)); }
  ArrayRef<DimOrderType> dim_order() const { return ArrayRef<DimOrderType>(dim_order_, static_cast<size_t>(dim_)); }
  ArrayRef<StridesType> strides() const { return ArrayRef<StridesType>(strides_, static_cast<size_t>(dim_)); }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }
  const void* data() const { return data_; }
  void* mutable_data() const { return data_; }
  void set_data(void* data) { data_ = data; }

  // Changes the sizes in place (same rank). STATIC tensors accept only their current sizes; DYNAMIC_BOUND
  // tensors accept any sizes whose element count is within the bound given at construction.
  Error internal_resize_contiguous(ArrayRef<SizesType> new_sizes);

 private:
  void recompute_strides();
  ScalarType type_ = ScalarType::Float;
  ssize_t dim_ = 0;
  ssize_t numel_ = 1;
  ssize_t numel_bound_ = 1;
  SizesType* sizes_ = nullptr;
  DimOrderType* dim_order_ = nullptr;
  StridesType* strides_ = nullptr;
  void* data_ = nullptr;
  TensorShapeDynamism dynamism_ = TensorShapeDynamism::STATIC;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
