#pragma once
// Tensor: a cheap, copyable handle to a TensorImpl, which it does not own. What kernels and methods pass around.
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
namespace etensor {

class Tensor {
 public:
  using SizesType = TensorImpl::SizesType;
  using DimOrderType = TensorImpl::DimOrderType;
  using StridesType = TensorImpl::StridesType;

  // A handle to no tensor (extension of this SDK, for arrays and lists of Tensors that are filled in later;
  // upstream has no default constructor). Only assignment and unsafeGetTensorImpl() may be used on it.
  Tensor() = default;
  explicit constexpr Tensor(TensorImpl* impl) : impl_(impl) {}

  // The TensorImpl this handle refers to.
  TensorImpl* unsafeGetTensorImpl() const { return impl_; }

  size_t nbytes() const { return impl_->nbytes(); }
  ssize_t size(ssize_t dim) const { return impl_->size(dim); }
  ssize_t dim() const { return impl_->dim(); }
  ssize_t numel() const { return impl_->numel(); }
  ScalarType scalar_type() const { return impl_->scalar_type(); }
  inline ScalarType dtype() const { return scalar_type(); }
  ssize_t element_size() const { return impl_->element_size(); }
  const ArrayRef<SizesType> sizes() const { return impl_->sizes(); }
  const ArrayRef<DimOrderType> dim_order() const { return impl_->dim_order(); }
  const ArrayRef<StridesType> strides() const { return impl_->strides(); }
  TensorShapeDynamism shape_dynamism() const { return impl_->shape_dynamism(); }
  Device device() const { return impl_->device(); }
  DeviceType device_type() const { return impl_->device_type(); }
  DeviceIndex device_index() const { return impl_->device_index(); }

  template <typename T>
  inline const T* const_data_ptr() const {
    return impl_->data<T>();
  }
  inline const void* const_data_ptr() const { return impl_->data(); }
  // Writable data, also through a const Tensor (the handle is const, not the data).
  template <typename T>
  inline T* mutable_data_ptr() const {
    return impl_->mutable_data<T>();
  }
  inline void* mutable_data_ptr() const { return impl_->mutable_data(); }

  // Use mutable_data_ptr() or const_data_ptr().
  template <typename T>
  ET_DEPRECATED inline T* data_ptr() const {
    return impl_->mutable_data<T>();
  }
  ET_DEPRECATED inline void* data_ptr() const { return impl_->mutable_data(); }
  // Use unsafeGetTensorImpl()->set_data().
  ET_DEPRECATED void set_data(void* ptr) const { impl_->set_data(ptr); }

 private:
  TensorImpl* impl_ = nullptr;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Tensor;
}  // namespace executor
}  // namespace torch
