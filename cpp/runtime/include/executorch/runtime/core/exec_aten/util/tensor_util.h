#pragma once
// Checks and helpers for kernel code, under upstream ExecuTorch's names: ET_KERNEL_CHECK / ET_KERNEL_CHECK_MSG
// (fail the kernel call with an error and return), resize_tensor, and shape / dtype / layout predicates.
#include <cstdint>
#include <type_traits>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/log.h>

// If `cond` is false: log it, mark the kernel call failed with Error::<error> (the method stops and returns that
// error, naming the operator) and `return retval` from the kernel. `retval` may be empty for void kernels.
#define ET_KERNEL_CHECK(context, cond, error, retval)                                 \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      (context).fail(::executorch::runtime::Error::error, "check failed: %s", #cond); \
      return retval;                                                                  \
    }                                                                                 \
  } while (false)

// As ET_KERNEL_CHECK, with a printf-style message that becomes part of the method's error.
#define ET_KERNEL_CHECK_MSG(context, cond, error, retval, message, ...)                                         \
  do {                                                                                                          \
    if (!(cond)) {                                                                                              \
      (context).fail(::executorch::runtime::Error::error, "check failed (%s): " message, #cond, ##__VA_ARGS__); \
      return retval;                                                                                            \
    }                                                                                                           \
  } while (false)

// In a bool-returning check function: when `cond` is false, log it and the printf-style message, return false.
#define ET_CHECK_OR_RETURN_FALSE(cond, ...)     \
  do {                                          \
    if (!(cond)) {                              \
      ET_LOG(Error, "check failed: %s", #cond); \
      ET_LOG(Error, __VA_ARGS__);               \
      return false;                             \
    }                                           \
  } while (false)

#define ET_LOG_AND_RETURN_IF_FALSE(cond)        \
  do {                                          \
    if (!(cond)) {                              \
      ET_LOG(Error, "check failed: %s", #cond); \
      return false;                             \
    }                                           \
  } while (false)
#define ET_LOG_MSG_AND_RETURN_IF_FALSE(cond, ...) ET_CHECK_OR_RETURN_FALSE(cond, __VA_ARGS__)

namespace executorch {
namespace runtime {

// Resizes a kernel's output tensor (see TensorImpl::internal_resize_contiguous for the rules): a STATIC tensor
// accepts only its own shape, a DYNAMIC_BOUND one any shape within its planned element count.
inline Error resize_tensor(executorch::aten::Tensor t, ArrayRef<executorch::aten::SizesType> new_sizes) {
  return t.unsafeGetTensorImpl()->internal_resize_contiguous(new_sizes);
}

// The same from sizes of another integer type (e.g. int64_t sizes computed by the kernel).
template <typename T,
          std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, executorch::aten::SizesType>::value, int> = 0>
Error resize_tensor(executorch::aten::Tensor t, ArrayRef<T> new_sizes) {
  constexpr size_t kMaxDim = 16;
  if (new_sizes.size() > kMaxDim) {
    return set_last_error(Error::InvalidArgument, "resize_tensor: %zu dimensions (at most %zu)", new_sizes.size(),
                          kMaxDim);
  }
  executorch::aten::SizesType sizes[kMaxDim];
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] < 0 || static_cast<uint64_t>(new_sizes[i]) > 0x7fffffffu) {
      return set_last_error(Error::InvalidArgument, "resize_tensor: size %lld of dimension %zu is out of range",
                            static_cast<long long>(new_sizes[i]), i);
    }
    sizes[i] = static_cast<executorch::aten::SizesType>(new_sizes[i]);
  }
  return resize_tensor(t, ArrayRef<executorch::aten::SizesType>(sizes, new_sizes.size()));
}

inline bool tensors_have_same_dtype(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_CHECK_OR_RETURN_FALSE(a.scalar_type() == b.scalar_type(), "dtypes differ: %s and %s",
                           executorch::aten::toString(a.scalar_type()), executorch::aten::toString(b.scalar_type()));
  return true;
}

inline bool tensors_have_same_dtype(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b,
                                    const executorch::aten::Tensor& c) {
  return tensors_have_same_dtype(a, b) && tensors_have_same_dtype(a, c);
}

inline bool tensors_have_same_shape(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_CHECK_OR_RETURN_FALSE(a.sizes() == b.sizes(), "shapes differ (%zd and %zd dimensions, %zd and %zd elements)",
                           a.dim(), b.dim(), a.numel(), b.numel());
  return true;
}

inline bool tensors_have_same_shape(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b,
                                    const executorch::aten::Tensor& c) {
  return tensors_have_same_shape(a, b) && tensors_have_same_shape(a, c);
}

inline bool tensors_have_same_shape_and_dtype(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  return tensors_have_same_shape(a, b) && tensors_have_same_dtype(a, b);
}

inline bool tensors_have_same_shape_and_dtype(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b,
                                              const executorch::aten::Tensor& c) {
  return tensors_have_same_shape(a, b, c) && tensors_have_same_dtype(a, b, c);
}

// True when the tensor's dim order is 0, 1, ..., n-1 (row-major, what "contiguous" means for kernels).
inline bool tensor_is_default_dim_order(const executorch::aten::Tensor& t) {
  const auto order = t.dim_order();
  for (size_t i = 0; i < order.size(); ++i) {
    ET_CHECK_OR_RETURN_FALSE(order[i] == i, "dim order is not the default one (dimension %zu is %d)", i,
                             static_cast<int>(order[i]));
  }
  return true;
}

inline bool tensor_is_contiguous(const executorch::aten::Tensor& t) { return tensor_is_default_dim_order(t); }

inline bool tensor_is_rank(const executorch::aten::Tensor& t, size_t rank) {
  ET_CHECK_OR_RETURN_FALSE(static_cast<size_t>(t.dim()) == rank, "expected rank %zu, got %zd", rank, t.dim());
  return true;
}

inline bool tensors_have_same_dim_order(const executorch::aten::Tensor& a, const executorch::aten::Tensor& b) {
  ET_LOG_AND_RETURN_IF_FALSE(a.dim_order() == b.dim_order());
  return true;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::resize_tensor;
using ::executorch::runtime::tensor_is_contiguous;
using ::executorch::runtime::tensor_is_default_dim_order;
using ::executorch::runtime::tensor_is_rank;
using ::executorch::runtime::tensors_have_same_dim_order;
using ::executorch::runtime::tensors_have_same_dtype;
using ::executorch::runtime::tensors_have_same_shape;
using ::executorch::runtime::tensors_have_same_shape_and_dtype;
}  // namespace executor
}  // namespace torch
