#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/extension/tensor/tensor_ptr_maker.h>

#include <cstring>

#include "internal.h"

namespace executorch {
namespace extension {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::StridesType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::set_last_error;

namespace {

// Owns everything a TensorPtr points at.
struct TensorStorage {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::vector<uint8_t> owned;
  std::function<void(void*)> deleter;
  void* data = nullptr;
  TensorImpl impl;
  Tensor tensor;
  ~TensorStorage() {
    if (deleter) deleter(data);
  }
};

bool valid_dim_order(const std::vector<DimOrderType>& order, size_t rank) {
  if (order.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (DimOrderType d : order) {
    if (d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

}  // namespace

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, void* data, std::vector<DimOrderType> dim_order,
                          std::vector<StridesType> strides, ScalarType type, TensorShapeDynamism dynamism,
                          std::function<void(void*)> deleter) {
  const size_t rank = sizes.size();
  auto storage = std::make_shared<TensorStorage>();
  storage->data = data;
  storage->deleter = std::move(deleter);
  for (SizesType s : sizes) {
    if (s < 0) {
      set_last_error(Error::InvalidArgument, "make_tensor_ptr: negative size %d", s);
      return nullptr;
    }
  }
  if (dim_order.empty()) {
    for (size_t i = 0; i < rank; ++i) dim_order.push_back(static_cast<DimOrderType>(i));
  }
  if (!valid_dim_order(dim_order, rank)) {
    set_last_error(Error::InvalidArgument, "make_tensor_ptr: dim_order is not a permutation of the %zu dims", rank);
    return nullptr;
  }
  storage->sizes = std::move(sizes);
  storage->dim_order = std::move(dim_order);
  storage->strides.assign(rank, 0);
  storage->impl = TensorImpl(type, static_cast<ssize_t>(rank), storage->sizes.data(), data, storage->dim_order.data(),
                             storage->strides.data(), dynamism);
  if (!strides.empty()) {
    if (strides.size() != rank) {
      set_last_error(Error::InvalidArgument, "make_tensor_ptr: %zu strides for %zu dims", strides.size(), rank);
      return nullptr;
    }
    for (size_t i = 0; i < rank; ++i) {
      if (strides[i] != storage->strides[i] && storage->sizes[i] > 1) {
        set_last_error(Error::InvalidArgument,
                       "make_tensor_ptr: strides do not match the dim order (only dense tensors)");
        return nullptr;
      }
    }
  }
  storage->tensor = Tensor(&storage->impl);
  return TensorPtr(storage, &storage->tensor);
}

TensorPtr make_tensor_ptr(std::vector<SizesType> sizes, std::vector<uint8_t> data, std::vector<DimOrderType> dim_order,
                          std::vector<StridesType> strides, ScalarType type, TensorShapeDynamism dynamism) {
  size_t n = executorch::aten::elementSize(type);
  for (SizesType s : sizes) n *= static_cast<size_t>(s < 0 ? 0 : s);
  if (data.size() != n) {
    set_last_error(Error::InvalidArgument, "make_tensor_ptr: %zu bytes of data for a tensor of %zu bytes", data.size(),
                   n);
    return nullptr;
  }
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(data));
  void* ptr = owned->empty() ? nullptr : owned->data();
  return make_tensor_ptr(std::move(sizes), ptr, std::move(dim_order), std::move(strides), type, dynamism,
                         [owned](void*) mutable { owned.reset(); });
}

Error resize_tensor_ptr(TensorPtr& tensor, const std::vector<SizesType>& sizes) {
  if (tensor == nullptr) return Error::InvalidArgument;
  return tensor->unsafeGetTensorImpl()->internal_resize_contiguous(
      executorch::runtime::ArrayRef<SizesType>(sizes.data(), sizes.size()));
}

TensorPtr clone_tensor_ptr(const Tensor& tensor) {
  std::vector<uint8_t> bytes(tensor.nbytes());
  if (!bytes.empty() && tensor.const_data_ptr() != nullptr)
    std::memcpy(bytes.data(), tensor.const_data_ptr(), bytes.size());
  return make_tensor_ptr(tensor.sizes().vec(), std::move(bytes), tensor.dim_order().vec(), {}, tensor.scalar_type(),
                         tensor.shape_dynamism());
}

TensorPtr full(std::vector<SizesType> sizes, double fill_value, ScalarType type) {
  size_t numel = 1;
  for (SizesType s : sizes) numel *= static_cast<size_t>(s < 0 ? 0 : s);
  const size_t es = executorch::aten::elementSize(type);
  std::vector<uint8_t> bytes(numel * es);
  for (size_t i = 0; i < numel; ++i) {
    uint8_t* p = bytes.data() + i * es;
    switch (type) {
      case ScalarType::Float: {
        float v = static_cast<float>(fill_value);
        std::memcpy(p, &v, 4);
        break;
      }
      case ScalarType::Double: std::memcpy(p, &fill_value, 8); break;
      case ScalarType::Long: {
        int64_t v = static_cast<int64_t>(fill_value);
        std::memcpy(p, &v, 8);
        break;
      }
      case ScalarType::Int: {
        int32_t v = static_cast<int32_t>(fill_value);
        std::memcpy(p, &v, 4);
        break;
      }
      case ScalarType::Short: {
        int16_t v = static_cast<int16_t>(fill_value);
        std::memcpy(p, &v, 2);
        break;
      }
      case ScalarType::Char: {
        int8_t v = static_cast<int8_t>(fill_value);
        std::memcpy(p, &v, 1);
        break;
      }
      case ScalarType::Byte: *p = static_cast<uint8_t>(fill_value); break;
      case ScalarType::Bool: *p = fill_value != 0.0 ? 1 : 0; break;
      default:
        set_last_error(Error::NotSupported, "full(): dtype %s is not supported", executorch::aten::toString(type));
        return nullptr;
    }
  }
  return make_tensor_ptr(std::move(sizes), std::move(bytes), {}, {}, type);
}

}  // namespace extension
}  // namespace executorch
