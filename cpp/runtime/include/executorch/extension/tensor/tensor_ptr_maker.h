#pragma once
#include <executorch/extension/tensor/tensor_ptr.h>

namespace executorch {
namespace extension {

// Non-owning tensor over `data`.
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, dynamism);
}

// Owning tensors filled with a value.
EXECUTORCH_API TensorPtr full(std::vector<executorch::aten::SizesType> sizes, double fill_value,
                              executorch::aten::ScalarType type = executorch::aten::ScalarType::Float);
inline TensorPtr empty(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full(std::move(sizes), 0.0, type);
}
inline TensorPtr zeros(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full(std::move(sizes), 0.0, type);
}
inline TensorPtr ones(std::vector<executorch::aten::SizesType> sizes,
                      executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full(std::move(sizes), 1.0, type);
}

}  // namespace extension
}  // namespace executorch
