#pragma once
// Helpers that make TensorPtrs the way ATen's factory functions make tensors: for_blob / from_blob (over caller's
// memory), empty / full / zeros / ones / scalar_tensor and the random rand / randn / randint, each with its
// *_like and *_strided forms (upstream ExecuTorch's extension/tensor/tensor_ptr_maker.h).
#include <executorch/extension/tensor/tensor_ptr.h>

namespace executorch {
namespace extension {

// Builder of a TensorPtr over caller's memory, started by for_blob(): set what differs from the defaults
// (contiguous, DYNAMIC_BOUND, CPU, no deleter), then make_tensor_ptr() or convert to TensorPtr.
class TensorPtrMaker final {
 public:
  TensorPtrMaker(const TensorPtrMaker&) = delete;
  TensorPtrMaker& operator=(const TensorPtrMaker&) = delete;
  TensorPtrMaker(TensorPtrMaker&&) = default;
  TensorPtrMaker& operator=(TensorPtrMaker&&) = default;

  TensorPtrMaker&& type(executorch::aten::ScalarType type) {
    type_ = type;
    return std::move(*this);
  }
  TensorPtrMaker&& dim_order(std::vector<executorch::aten::DimOrderType> dim_order) {
    dim_order_ = std::move(dim_order);
    return std::move(*this);
  }
  TensorPtrMaker&& strides(std::vector<executorch::aten::StridesType> strides) {
    strides_ = std::move(strides);
    return std::move(*this);
  }
  TensorPtrMaker&& dynamism(executorch::aten::TensorShapeDynamism dynamism) {
    dynamism_ = dynamism;
    return std::move(*this);
  }
  // Called once with the data pointer when the last reference to the tensor goes.
  TensorPtrMaker&& deleter(std::function<void(void*)>&& deleter) {
    deleter_ = std::move(deleter);
    return std::move(*this);
  }
  // Where the data lives (nothing is copied or allocated).
  TensorPtrMaker&& device(executorch::runtime::etensor::Device device) {
    device_ = device;
    return std::move(*this);
  }

  TensorPtr make_tensor_ptr() && {
    return ::executorch::extension::make_tensor_ptr(std::move(sizes_), data_, std::move(dim_order_),
                                                    std::move(strides_), type_, device_, dynamism_,
                                                    std::move(deleter_));
  }
  operator TensorPtr() && { return std::move(*this).make_tensor_ptr(); }

 private:
  TensorPtrMaker(void* data, std::vector<executorch::aten::SizesType> sizes, executorch::aten::ScalarType type)
      : sizes_(std::move(sizes)), data_(data), type_(type) {}

  friend TensorPtrMaker for_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                                 executorch::aten::ScalarType type);

  std::vector<executorch::aten::SizesType> sizes_;
  std::vector<executorch::aten::StridesType> strides_;
  std::vector<executorch::aten::DimOrderType> dim_order_;
  std::function<void(void*)> deleter_ = nullptr;
  void* data_ = nullptr;
  executorch::aten::ScalarType type_ = executorch::aten::ScalarType::Float;
  executorch::aten::TensorShapeDynamism dynamism_ = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND;
  executorch::runtime::etensor::Device device_ =
      executorch::runtime::etensor::Device(executorch::runtime::etensor::DeviceType::CPU);
};

inline TensorPtrMaker for_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                               executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return TensorPtrMaker(data, std::move(sizes), type);
}

// A TensorPtr over caller's memory (not owned; with a deleter, handed to it at the end).
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::runtime::etensor::Device device =
        executorch::runtime::etensor::Device(executorch::runtime::etensor::DeviceType::CPU),
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type).device(device).dynamism(dynamism).make_tensor_ptr();
}
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::runtime::etensor::Device device =
        executorch::runtime::etensor::Device(executorch::runtime::etensor::DeviceType::CPU),
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .device(device)
      .dynamism(dynamism)
      .make_tensor_ptr();
}
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes, executorch::aten::ScalarType type,
    executorch::runtime::etensor::Device device, std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .device(device)
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type, executorch::runtime::etensor::Device device,
    std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .device(device)
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

// The 1.4 forms, without a device (as upstream's documentation still writes them: from_blob(data, {3}, Int,
// deleter)). A deduced dynamism keeps a braced `{}` from selecting them.
template <typename Dynamism,
          std::enable_if_t<std::is_same<Dynamism, executorch::aten::TensorShapeDynamism>::value, int> = 0>
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           executorch::aten::ScalarType type, Dynamism dynamism) {
  return for_blob(data, std::move(sizes), type).dynamism(dynamism).make_tensor_ptr();
}
template <typename Dynamism,
          std::enable_if_t<std::is_same<Dynamism, executorch::aten::TensorShapeDynamism>::value, int> = 0>
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides, executorch::aten::ScalarType type,
                           Dynamism dynamism) {
  return for_blob(data, std::move(sizes), type).strides(std::move(strides)).dynamism(dynamism).make_tensor_ptr();
}
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes, executorch::aten::ScalarType type,
    std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type).deleter(std::move(deleter)).dynamism(dynamism).make_tensor_ptr();
}
inline TensorPtr from_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type, std::function<void(void*)>&& deleter,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

// Owning tensors with uninitialized (here: zeroed) contents. Empty `strides` means contiguous. The *_like forms
// take sizes and strides from `other`, and its dtype unless `type` is given.
EXECUTORCH_API TensorPtr
empty_strided(std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
              executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
              executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr empty_like(
    const TensorPtr& other, executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  if (type == executorch::aten::ScalarType::Undefined) type = other->scalar_type();
  return empty_strided({other->sizes().begin(), other->sizes().end()},
                       {other->strides().begin(), other->strides().end()}, type, dynamism);
}

inline TensorPtr empty(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return empty_strided(std::move(sizes), {}, type, dynamism);
}

// Owning tensors filled with `fill_value`, which must fit the dtype: an integral value (not a bool, not a
// floating-point one) in range for integer dtypes, a finite value in range (or any non-finite one) or an integer
// for floating dtypes, a bool or an integer for Bool. Anything else aborts, as upstream.
EXECUTORCH_API TensorPtr full_strided(
    std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::Scalar fill_value, executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr full_like(
    const TensorPtr& other, executorch::aten::Scalar fill_value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  if (type == executorch::aten::ScalarType::Undefined) type = other->scalar_type();
  return full_strided({other->sizes().begin(), other->sizes().end()},
                      {other->strides().begin(), other->strides().end()}, fill_value, type, dynamism);
}

inline TensorPtr full(
    std::vector<executorch::aten::SizesType> sizes, executorch::aten::Scalar fill_value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(std::move(sizes), {}, fill_value, type, dynamism);
}

// A 0-D tensor holding `value`.
inline TensorPtr scalar_tensor(executorch::aten::Scalar value,
                               executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full({}, value, type);
}

inline TensorPtr ones_like(
    const TensorPtr& other, executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 1, type, dynamism);
}
inline TensorPtr ones(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 1, type, dynamism);
}
// Not in upstream's headers, but in the table of its documentation.
inline TensorPtr ones_strided(
    std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(std::move(sizes), std::move(strides), 1, type, dynamism);
}

inline TensorPtr zeros_like(
    const TensorPtr& other, executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 0, type, dynamism);
}
inline TensorPtr zeros(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 0, type, dynamism);
}
// Not in upstream's headers, but in the table of its documentation.
inline TensorPtr zeros_strided(
    std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(std::move(sizes), std::move(strides), 0, type, dynamism);
}

// Uniform values in [0, 1), converted to the dtype (so 0 for integer dtypes; never 1 for Half / BFloat16).
EXECUTORCH_API TensorPtr
rand_strided(std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
             executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
             executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr rand_like(
    const TensorPtr& other, executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  if (type == executorch::aten::ScalarType::Undefined) type = other->scalar_type();
  return rand_strided({other->sizes().begin(), other->sizes().end()},
                      {other->strides().begin(), other->strides().end()}, type, dynamism);
}

inline TensorPtr rand(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return rand_strided(std::move(sizes), {}, type, dynamism);
}

// Standard normal values, converted to the dtype.
EXECUTORCH_API TensorPtr
randn_strided(std::vector<executorch::aten::SizesType> sizes, std::vector<executorch::aten::StridesType> strides,
              executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
              executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr randn_like(
    const TensorPtr& other, executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  if (type == executorch::aten::ScalarType::Undefined) type = other->scalar_type();
  return randn_strided({other->sizes().begin(), other->sizes().end()},
                       {other->strides().begin(), other->strides().end()}, type, dynamism);
}

inline TensorPtr randn(
    std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randn_strided(std::move(sizes), {}, type, dynamism);
}

// Uniform integers in [low, high) (low < high), converted to the dtype.
EXECUTORCH_API TensorPtr
randint_strided(int64_t low, int64_t high, std::vector<executorch::aten::SizesType> sizes,
                std::vector<executorch::aten::StridesType> strides,
                executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
                executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr randint_like(
    const TensorPtr& other, int64_t low, int64_t high,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Undefined,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  if (type == executorch::aten::ScalarType::Undefined) type = other->scalar_type();
  return randint_strided(low, high, {other->sizes().begin(), other->sizes().end()},
                         {other->strides().begin(), other->strides().end()}, type, dynamism);
}

inline TensorPtr randint(
    int64_t low, int64_t high, std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randint_strided(low, high, std::move(sizes), {}, type, dynamism);
}

}  // namespace extension
}  // namespace executorch
