#pragma once
#include <executorch/runtime/core/portable_type/tensor_impl.h>

namespace executorch {
namespace runtime {
namespace etensor {

// A cheap, copyable handle to a TensorImpl (which it does not own).
class Tensor {
 public:
  using SizesType = TensorImpl::SizesType;
  using DimOrderType = TensorImpl::DimOrderType;
  using StridesType = TensorImpl::StridesType;

  Tensor() = default;
  explicit constexpr Tensor(TensorImpl* impl) : impl_(impl) {}

  TensorImpl* unsafeGetTensorImpl() const { return impl_; }
  ssize_t dim() const { return impl_->dim(); }
  ssize_t numel() const { return impl_->numel(); }
  ssize_t size(ssize_t d) const { return impl_->size(d); }
  ArrayRef<SizesType> sizes() const { return impl_->sizes(); }
  ArrayRef<DimOrderType> dim_order() const { return impl_->dim_order(); }
  ArrayRef<StridesType> strides() const { return impl_->strides(); }
  ScalarType scalar_type() const { return impl_->scalar_type(); }
  ScalarType dtype() const { return impl_->scalar_type(); }
  ssize_t element_size() const { return impl_->element_size(); }
  size_t nbytes() const { return impl_->nbytes(); }
  TensorShapeDynamism shape_dynamism() const { return impl_->shape_dynamism(); }

  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(impl_->data());
  }
  const void* const_data_ptr() const { return impl_->data(); }
  template <typename T>
  T* mutable_data_ptr() const {
    return static_cast<T*>(impl_->mutable_data());
  }
  void* mutable_data_ptr() const { return impl_->mutable_data(); }
  template <typename T>
  T* data_ptr() const {
    return static_cast<T*>(impl_->mutable_data());
  }
  void* data_ptr() const { return impl_->mutable_data(); }
  void set_data(void* data) const { impl_->set_data(data); }

 private:
  TensorImpl* impl_ = nullptr;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
