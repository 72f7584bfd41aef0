#include <executorch/runtime/core/portable_type/tensor_impl.h>

#include <cinttypes>
#include <cstdint>

#include "internal.h"

namespace executorch {
namespace runtime {
namespace etensor {

ssize_t compute_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  ET_CHECK_MSG(dim == 0 || sizes != nullptr, "Sizes must be provided for non-scalar tensors");
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    ET_CHECK_MSG(sizes[i] >= 0, "Size must be non-negative, got %zd at dimension %zd", static_cast<ssize_t>(sizes[i]),
                 i);
    numel *= sizes[i];
  }
  return numel;
}

Result<ssize_t> safe_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  if (dim != 0 && sizes == nullptr) {
    return set_last_error(Error::InvalidArgument, "sizes must be provided for a tensor of rank %zd", dim);
  }
  uint64_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    if (sizes[i] < 0) {
      return set_last_error(Error::InvalidArgument, "size must be non-negative, got %d at dimension %zd", sizes[i], i);
    }
    if (::executorch::runtime::internal::mul_overflows(numel, static_cast<uint64_t>(sizes[i]), &numel) ||
        numel > static_cast<uint64_t>(INTPTR_MAX)) {
      return set_last_error(Error::InvalidArgument, "element count overflows at dimension %zd", i);
    }
  }
  return static_cast<ssize_t>(numel);
}

TensorImpl::TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data, DimOrderType* dim_order,
                       StridesType* strides, TensorShapeDynamism dynamism, DeviceType device_type,
                       DeviceIndex device_index)
    : sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dim_(dim),
      numel_(compute_numel(sizes, dim)),
      numel_bound_(static_cast<size_t>(numel_)),
      type_(type),
      shape_dynamism_(dynamism),
      device_(device_type, device_index) {
  ET_CHECK_MSG(isValid(type_), "Invalid type %" PRId8, static_cast<int8_t>(type_));
  ET_CHECK_MSG(dim_ >= 0, "Dimension must be non-negative, got %zd", dim_);
  recompute_strides();
}

size_t TensorImpl::nbytes() const { return static_cast<size_t>(numel_) * elementSize(type_); }

ssize_t TensorImpl::element_size() const { return static_cast<ssize_t>(elementSize(type_)); }

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
    return set_last_error(Error::NotSupported, "cannot change the rank of a tensor (from %zd to %zu)", dim_,
                          new_sizes.size());
  }
  if (dim_ == 0) return Error::Ok;
  bool same = true;
  for (ssize_t i = 0; i < dim_; ++i) same = same && sizes_[i] == new_sizes[i];
  if (same) return Error::Ok;
  if (shape_dynamism_ == TensorShapeDynamism::STATIC) {
    return set_last_error(Error::NotSupported, "a tensor with static shape cannot change shape");
  }
  // DYNAMIC_BOUND, and DYNAMIC_UNBOUND too: the memory behind the tensor was planned for numel_bound_ elements.
  Result<ssize_t> n = safe_numel(new_sizes.data(), dim_);
  if (!n.ok()) return n.error();
  if (static_cast<size_t>(*n) > numel_bound_) {
    return set_last_error(Error::NotSupported,
                          "new shape has %zd elements, more than the %zu this tensor was planned for", *n,
                          numel_bound_);
  }
  for (ssize_t i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = *n;
  recompute_strides();
  return Error::Ok;
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
