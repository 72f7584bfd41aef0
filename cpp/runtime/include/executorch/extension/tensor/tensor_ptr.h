#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

// A tensor that owns its metadata (and, for the owning forms, its data), shared like std::shared_ptr.
using TensorPtr = std::shared_ptr<executorch::aten::Tensor>;

// Wraps `data` (not owned; `deleter` is called on it when the last reference goes). Empty dim_order means
// contiguous; strides, when given, must match the dim order.
EXECUTORCH_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data, std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

// Owning form over raw bytes of the given type (size must be numel * element size).
EXECUTORCH_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    std::vector<executorch::aten::DimOrderType> dim_order, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

// Owning form: takes a vector of elements; the dtype follows T.
template <typename T,
          executorch::aten::ScalarType deduced = executorch::runtime::etensor::CppTypeToScalarType<T>::value>
TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<T> data,
    std::vector<executorch::aten::DimOrderType> dim_order = {}, std::vector<executorch::aten::StridesType> strides = {},
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<uint8_t> bytes(data.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), data.data(), bytes.size());
  return make_tensor_ptr(std::move(sizes), std::move(bytes), std::move(dim_order), std::move(strides), deduced,
                         dynamism);
}

// 1-D owning forms.
template <typename T,
          executorch::aten::ScalarType deduced = executorch::runtime::etensor::CppTypeToScalarType<T>::value>
TensorPtr make_tensor_ptr(std::vector<T> data) {
  const auto n = static_cast<executorch::aten::SizesType>(data.size());
  return make_tensor_ptr<T>({n}, std::move(data));
}
template <typename T,
          executorch::aten::ScalarType deduced = executorch::runtime::etensor::CppTypeToScalarType<T>::value>
TensorPtr make_tensor_ptr(std::initializer_list<T> list) {
  return make_tensor_ptr<T>(std::vector<T>(list));
}
// 0-D owning form.
template <typename T,
          executorch::aten::ScalarType deduced = executorch::runtime::etensor::CppTypeToScalarType<T>::value>
TensorPtr make_tensor_ptr(T scalar) {
  return make_tensor_ptr<T>(std::vector<executorch::aten::SizesType>{}, std::vector<T>{scalar});
}

// Resizes a DYNAMIC_BOUND tensor within its bound.
EXECUTORCH_API executorch::runtime::Error resize_tensor_ptr(TensorPtr& tensor,
                                                            const std::vector<executorch::aten::SizesType>& sizes);
// Deep copy (owning).
EXECUTORCH_API TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor);
inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor) { return clone_tensor_ptr(*tensor); }

}  // namespace extension
}  // namespace executorch
