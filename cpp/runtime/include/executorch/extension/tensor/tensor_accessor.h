#pragma once
// TensorAccessor<T, N>: element access a[i][j]... into an N-dimensional tensor through its strides, without
// copying (upstream ExecuTorch's extension/tensor/tensor_accessor.h). make_tensor_accessor<T, N>(tensor) checks
// the rank, the element size and that the dim order is the default one.
#include <cstddef>
#include <type_traits>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace internal {

// Sizes and strides of the dimensions still to index, and the data they start at.
template <typename T, ssize_t N>
class TensorAccessorBase {
 public:
  executorch::aten::SizesType size(ssize_t i) const {
    ET_CHECK_MSG(i >= 0 && i < dim_, "TensorAccessor: dimension %zd outside of [0, %zd)", static_cast<ssize_t>(i),
                 static_cast<ssize_t>(dim_));
    return sizes_[i];
  }
  executorch::aten::StridesType stride(ssize_t i) const {
    ET_CHECK_MSG(i >= 0 && i < dim_, "TensorAccessor: dimension %zd outside of [0, %zd)", static_cast<ssize_t>(i),
                 static_cast<ssize_t>(dim_));
    return strides_[i];
  }

 protected:
  TensorAccessorBase(T* data, const executorch::aten::SizesType* sizes, const executorch::aten::StridesType* strides,
                     ssize_t dim)
      : data_(data), sizes_(sizes), strides_(strides), dim_(dim) {}

  T* data_;
  const executorch::aten::SizesType* sizes_;
  const executorch::aten::StridesType* strides_;
  ssize_t dim_;
};

}  // namespace internal

template <typename T, ssize_t N>
class TensorAccessor;

template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(const executorch::aten::Tensor& tensor);

// Indexing the first dimension gives an accessor of rank N - 1.
template <typename T, ssize_t N>
class TensorAccessor : public internal::TensorAccessorBase<T, N> {
 public:
  TensorAccessor<T, N - 1> operator[](ssize_t i) {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1, N - 1);
  }
  const TensorAccessor<T, N - 1> operator[](ssize_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1, N - 1);
  }

 private:
  TensorAccessor(T* data, const executorch::aten::SizesType* sizes, const executorch::aten::StridesType* strides,
                 ssize_t dim)
      : internal::TensorAccessorBase<T, N>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;
  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>> make_tensor_accessor(
      const executorch::aten::Tensor& tensor);
};

// Rank 1: indexing gives the element.
template <typename T>
class TensorAccessor<T, 1> : public internal::TensorAccessorBase<T, 1> {
 public:
  T& operator[](ssize_t i) { return this->data_[this->strides_[0] * i]; }
  const T& operator[](ssize_t i) const { return this->data_[this->strides_[0] * i]; }

 private:
  TensorAccessor(T* data, const executorch::aten::SizesType* sizes, const executorch::aten::StridesType* strides,
                 ssize_t dim)
      : internal::TensorAccessorBase<T, 1>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;
  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>> make_tensor_accessor(
      const executorch::aten::Tensor& tensor);
};

// An accessor over `tensor`, or InvalidArgument (rank is not N, sizeof(T) is not the element size) or
// NotSupported (a dim order other than 0, 1, ..., N - 1). The tensor's metadata and data must outlive it.
template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(const executorch::aten::Tensor& tensor) {
  static_assert(N > 0, "TensorAccessor indexes tensors of rank >= 1; read scalars with const_data_ptr<T>()");
  if (N != tensor.dim()) {
    ET_LOG(Error, "make_tensor_accessor: expected %zd dimensions, the tensor has %zd", static_cast<ssize_t>(N),
           static_cast<ssize_t>(tensor.dim()));
    return executorch::runtime::Error::InvalidArgument;
  }
  if (static_cast<ssize_t>(sizeof(T)) != static_cast<ssize_t>(tensor.element_size())) {
    ET_LOG(Error, "make_tensor_accessor: element type of %zu bytes for a tensor of %zd-byte elements", sizeof(T),
           static_cast<ssize_t>(tensor.element_size()));
    return executorch::runtime::Error::InvalidArgument;
  }
  const auto dim_order = tensor.dim_order();
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (static_cast<size_t>(dim_order[i]) != i) {
      ET_LOG(Error, "make_tensor_accessor: only the default dim order is supported");
      return executorch::runtime::Error::NotSupported;
    }
  }
  T* ptr = nullptr;
  if constexpr (std::is_const<T>::value) {
    ptr = tensor.template const_data_ptr<std::remove_const_t<T>>();
  } else {
    ptr = tensor.template mutable_data_ptr<T>();
  }
  return TensorAccessor<T, N>(ptr, tensor.sizes().data(), tensor.strides().data(), N);
}

}  // namespace extension
}  // namespace executorch
