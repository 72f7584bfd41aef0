#include <executorch/runtime/core/portable_type/tensor_impl.h>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace etensor {

TensorImpl::TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data, DimOrderType* dim_order,
                       StridesType* strides, TensorShapeDynamism dynamism)
    : type_(type),
      dim_(dim),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dynamism_(dynamism) {
  ssize_t n = 1;
  for (ssize_t i = 0; i < dim_; ++i) n *= sizes_[i];
  numel_ = n;
  numel_bound_ = n;
  recompute_strides();
}

void TensorImpl::recompute_strides() {
  if (dim_ == 0 || strides_ == nullptr || dim_order_ == nullptr) return;
  int64_t stride = 1;
  for (ssize_t i = dim_ - 1; i >= 0; --i) {
    const DimOrderType d = dim_order_[i];
    strides_[d] = static_cast<StridesType>(stride);
    // Size-0 dims still get a stride as if they were 1, as upstream does. Programs are checked at load so that
    // strides fit 32 bits; the 64-bit product only keeps other callers free of overflow.
    stride *= sizes_[d] == 0 ? 1 : sizes_[d];
    if (stride > INT32_MAX) stride = INT32_MAX;
  }
}

Error TensorImpl::internal_resize_contiguous(ArrayRef<SizesType> new_sizes) {
  if (static_cast<ssize_t>(new_sizes.size()) != dim_) {
    return set_last_error(Error::InvalidArgument, "cannot resize a rank-%zd tensor to rank %zu", dim_,
                          new_sizes.size());
  }
  uint64_t n = 1;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] < 0) return set_last_error(Error::InvalidArgument, "negative size %d in resize", new_sizes[i]);
    if (internal::mul_overflows(n, static_cast<uint64_t>(new_sizes[i]), &n)) {
      return set_last_error(Error::InvalidArgument, "tensor size overflows");
    }
  }
  bool same = true;
  for (ssize_t i = 0; i < dim_; ++i) same = same && sizes_[i] == new_sizes[i];
  if (same) return Error::Ok;
  switch (dynamism_) {
    case TensorShapeDynamism::STATIC:
      return set_last_error(Error::NotSupported, "a tensor with static shape cannot change shape");
    case TensorShapeDynamism::DYNAMIC_BOUND:
    case TensorShapeDynamism::DYNAMIC_UNBOUND:
      if (n > static_cast<uint64_t>(numel_bound_)) {
        return set_last_error(Error::NotSupported,
                              "new shape has %llu elements, more than the %zd this tensor was planned for",
                              static_cast<unsigned long long>(n), numel_bound_);
      }
      break;
  }
  for (ssize_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = static_cast<ssize_t>(n);
  recompute_strides();
  return Error::Ok;
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
