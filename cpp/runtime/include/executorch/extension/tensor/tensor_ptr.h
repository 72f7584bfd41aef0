#pragma once
// TensorPtr: a Tensor bundled with the metadata it points at (sizes, dim order, strides) and, for the owning
// forms, its data, shared like any std::shared_ptr. Upstream ExecuTorch's extension/tensor API (1.5.1 argument
// order: the Device comes right after the dtype); the 1.4 order (dynamism right after the dtype, as upstream's
// documentation still shows) is accepted too.
//
// Bad arguments (sizes that do not match the data, invalid dim orders or strides, disallowed dtype conversions)
// abort the process with a message, as upstream's ET_CHECKs do: these are programming errors, not input errors.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

// A smart pointer that owns a Tensor, its metadata and (optionally) its data.
using TensorPtr = std::shared_ptr<executorch::aten::Tensor>;

namespace internal {

// The dtype of a C++ element type; no `value` member for types a tensor cannot hold (SFINAE in the overloads).
template <typename T>
struct dtype_of {};
#define ET_TENSOR_PTR_DTYPE(cpp, st) \
  template <>                        \
  struct dtype_of<cpp> : std::integral_constant<executorch::aten::ScalarType, executorch::aten::ScalarType::st> {};
ET_TENSOR_PTR_DTYPE(uint8_t, Byte)
ET_TENSOR_PTR_DTYPE(int8_t, Char)
ET_TENSOR_PTR_DTYPE(int16_t, Short)
ET_TENSOR_PTR_DTYPE(int32_t, Int)
ET_TENSOR_PTR_DTYPE(int64_t, Long)
ET_TENSOR_PTR_DTYPE(float, Float)
ET_TENSOR_PTR_DTYPE(double, Double)
ET_TENSOR_PTR_DTYPE(bool, Bool)
ET_TENSOR_PTR_DTYPE(uint16_t, UInt16)
ET_TENSOR_PTR_DTYPE(uint32_t, UInt32)
ET_TENSOR_PTR_DTYPE(uint64_t, UInt64)
ET_TENSOR_PTR_DTYPE(executorch::aten::Half, Half)
ET_TENSOR_PTR_DTYPE(executorch::aten::BFloat16, BFloat16)
#undef ET_TENSOR_PTR_DTYPE

// Upstream's canCast: no complex -> real, no floating -> signed integral, nothing but Bool -> Bool.
constexpr bool can_cast(executorch::aten::ScalarType from, executorch::aten::ScalarType to) {
  using S = executorch::aten::ScalarType;
  const auto is_complex = [](S t) { return t == S::ComplexHalf || t == S::ComplexFloat || t == S::ComplexDouble; };
  const auto is_floating = [](S t) { return t == S::Half || t == S::Float || t == S::Double || t == S::BFloat16; };
  const auto is_integral = [](S t) {
    return t == S::Byte || t == S::Char || t == S::Short || t == S::Int || t == S::Long;
  };
  return !(is_complex(from) && !is_complex(to)) && !(is_floating(from) && is_integral(to)) &&
         !(from != S::Bool && to == S::Bool);
}

template <typename T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<CTYPE>{}) for the element types tensors are made of here (upstream's REALHBBF16 + unsigned
// set); any other dtype aborts, naming `what`.
template <typename F>
void visit_dtype(executorch::aten::ScalarType type, const char* what, F&& f) {
  using S = executorch::aten::ScalarType;
  switch (type) {
    case S::Byte: f(type_tag<uint8_t>{}); return;
    case S::Char: f(type_tag<int8_t>{}); return;
    case S::Short: f(type_tag<int16_t>{}); return;
    case S::Int: f(type_tag<int32_t>{}); return;
    case S::Long: f(type_tag<int64_t>{}); return;
    case S::Half: f(type_tag<executorch::aten::Half>{}); return;
    case S::Float: f(type_tag<float>{}); return;
    case S::Double: f(type_tag<double>{}); return;
    case S::Bool: f(type_tag<bool>{}); return;
    case S::BFloat16: f(type_tag<executorch::aten::BFloat16>{}); return;
    case S::UInt16: f(type_tag<uint16_t>{}); return;
    case S::UInt32: f(type_tag<uint32_t>{}); return;
    case S::UInt64: f(type_tag<uint64_t>{}); return;
    default: break;
  }
  ET_CHECK_MSG(false, "%s: unsupported dtype %s", what, executorch::aten::toString(type));
}

template <typename T>
constexpr bool is_16bit_float_v =
    std::is_same<T, executorch::aten::Half>::value || std::is_same<T, executorch::aten::BFloat16>::value;

// static_cast semantics, with Half / BFloat16 going through float (their only arithmetic form).
template <typename To, typename From>
To convert(const From& v) {
  if constexpr (is_16bit_float_v<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (is_16bit_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Converts n elements of type From into `dst`, laid out as `to` elements.
template <typename From>
void convert_into(const From* src, size_t n, executorch::aten::ScalarType to, void* dst) {
  visit_dtype(to, "make_tensor_ptr", [&](auto tag) {
    using To = typename decltype(tag)::type;
    To* out = static_cast<To*>(dst);
    for (size_t i = 0; i < n; ++i) out[i] = convert<To>(src[i]);
  });
}

// Element count of `sizes`; aborts on a negative size or an overflow.
inline size_t checked_numel(const std::vector<executorch::aten::SizesType>& sizes) {
  size_t n = 1;
  for (executorch::aten::SizesType s : sizes) {
    ET_CHECK_MSG(s >= 0, "make_tensor_ptr: negative size %d", static_cast<int>(s));
    ET_CHECK_MSG(!__builtin_mul_overflow(n, static_cast<size_t>(s), &n), "make_tensor_ptr: element count overflows");
  }
  return n;
}

// Bytes of n elements of `type`; aborts on an overflow.
inline size_t checked_nbytes(size_t n, executorch::aten::ScalarType type) {
  size_t bytes = 0;
  ET_CHECK_MSG(!__builtin_mul_overflow(n, executorch::aten::elementSize(type), &bytes),
               "make_tensor_ptr: byte size overflows (%zu elements of %s)", n, executorch::aten::toString(type));
  return bytes;
}

// Holds a vector alive for a TensorPtr's data (the deleter owns it; the buffer never moves).
template <typename V>
std::function<void(void*)> keep_alive(std::shared_ptr<V> owned) {
  return [owned = std::move(owned)](void*) {};
}

}  // namespace internal

// Wraps `data` (not copied). `deleter`, when given, is called once with the data pointer when the last reference
// to the tensor goes. Empty `dim_order` is contiguous (or follows `strides`, largest first, when those are given);
// `strides`, when given, must be those the dim order implies (a size-1 dimension may have any stride). `device`
// only records where `data` lives. Rank-0 tensors are always STATIC.
EXECUTORCH_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data, std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    const executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::runtime::etensor::Device device =
        executorch::runtime::etensor::Device(executorch::runtime::etensor::DeviceType::CPU),
    const executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data,
    const executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::runtime::etensor::Device device =
        executorch::runtime::etensor::Device(executorch::runtime::etensor::DeviceType::CPU),
    const executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, device, dynamism, std::move(deleter));
}

// The 1.4 argument order (dynamism, deleter, device). The dynamism is a deduced parameter so that a braced `{}`
// never selects these forms.
template <typename Dynamism,
          std::enable_if_t<std::is_same<Dynamism, executorch::aten::TensorShapeDynamism>::value, int> = 0>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, void* data,
                                 std::vector<executorch::aten::DimOrderType> dim_order,
                                 std::vector<executorch::aten::StridesType> strides,
                                 const executorch::aten::ScalarType type, Dynamism dynamism,
                                 std::function<void(void*)> deleter = nullptr,
                                 executorch::runtime::etensor::Device device = executorch::runtime::etensor::Device(
                                     executorch::runtime::etensor::DeviceType::CPU)) {
  return make_tensor_ptr(std::move(sizes), data, std::move(dim_order), std::move(strides), type, device, dynamism,
                         std::move(deleter));
}
template <typename Dynamism,
          std::enable_if_t<std::is_same<Dynamism, executorch::aten::TensorShapeDynamism>::value, int> = 0>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, void* data,
                                 const executorch::aten::ScalarType type, Dynamism dynamism,
                                 std::function<void(void*)> deleter = nullptr,
                                 executorch::runtime::etensor::Device device = executorch::runtime::etensor::Device(
                                     executorch::runtime::etensor::DeviceType::CPU)) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, device, dynamism, std::move(deleter));
}

// Owning form (a CPU tensor): takes the vector. The dtype is T's unless `type` says otherwise, in which case the
// values are converted (where upstream's canCast allows: not floating -> integral, not anything -> Bool).
template <typename T = float, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<T> data,
    std::vector<executorch::aten::DimOrderType> dim_order = {}, std::vector<executorch::aten::StridesType> strides = {},
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  const size_t numel = internal::checked_numel(sizes);
  ET_CHECK_MSG(data.size() == numel, "make_tensor_ptr: %zu values for a tensor of %zu elements", data.size(), numel);
  const executorch::runtime::etensor::Device cpu(executorch::runtime::etensor::DeviceType::CPU);
  if constexpr (!std::is_same<T, bool>::value) {
    if (type == deduced_type) {
      auto owned = std::make_shared<std::vector<T>>(std::move(data));
      void* raw = owned->data();
      return make_tensor_ptr(std::move(sizes), raw, std::move(dim_order), std::move(strides), type, cpu, dynamism,
                             internal::keep_alive(std::move(owned)));
    }
  }
  ET_CHECK_MSG(internal::can_cast(deduced_type, type), "make_tensor_ptr: cannot convert %s values to %s",
               executorch::aten::toString(deduced_type), executorch::aten::toString(type));
  auto bytes = std::make_shared<std::vector<uint8_t>>(internal::checked_nbytes(numel, type));
  if constexpr (std::is_same<T, bool>::value) {
    // std::vector<bool> is packed: unpack it first.
    std::unique_ptr<bool[]> flat(new bool[numel > 0 ? numel : 1]);
    std::copy(data.begin(), data.end(), flat.get());
    internal::convert_into(flat.get(), numel, type, bytes->data());
  } else {
    internal::convert_into(data.data(), numel, type, bytes->data());
  }
  void* raw = bytes->empty() ? nullptr : bytes->data();
  return make_tensor_ptr(std::move(sizes), raw, std::move(dim_order), std::move(strides), type, cpu, dynamism,
                         internal::keep_alive(std::move(bytes)));
}

// 1-D owning form: the sizes are {data.size()}.
template <typename T = float, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<T> data, executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{static_cast<executorch::aten::SizesType>(data.size())};
  return make_tensor_ptr(std::move(sizes), std::move(data), {0}, {1}, type, dynamism);
}

// Owning forms from a braced list of values.
template <typename T = float, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value>
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::initializer_list<T> list,
    std::vector<executorch::aten::DimOrderType> dim_order = {}, std::vector<executorch::aten::StridesType> strides = {},
    executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), std::vector<T>(list), std::move(dim_order), std::move(strides), type,
                         dynamism);
}
template <typename T = float, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value>
inline TensorPtr make_tensor_ptr(
    std::initializer_list<T> list, executorch::aten::ScalarType type = deduced_type,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{static_cast<executorch::aten::SizesType>(list.size())};
  return make_tensor_ptr(std::move(sizes), std::vector<T>(list), {0}, {1}, type, dynamism);
}

// Sizes, a braced list of values and a dtype, as upstream's documentation writes it:
//   make_tensor_ptr({2, 3}, {1, 2, 3, 4, 5, 6}, ScalarType::Int, TensorShapeDynamism::DYNAMIC_BOUND);
// Upstream's overloads read such a list as raw bytes (the std::vector<uint8_t> form below). Here a list with one
// value per element is converted to `type`; a list of integers with exactly the tensor's byte count is still
// taken as raw bytes, as upstream does.
template <typename T, typename Type, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value,
          std::enable_if_t<std::is_same<Type, executorch::aten::ScalarType>::value, int> = 0>
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::initializer_list<T> list, Type type,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

// 0-D owning form holding `value`.
template <typename T, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value>
inline TensorPtr make_tensor_ptr(T value) {
  return make_tensor_ptr(std::vector<executorch::aten::SizesType>{}, std::vector<T>{value});
}
// 0-D owning form holding `value` converted to `type` (upstream's documentation: make_tensor_ptr(42, Float)).
template <typename T, typename Type, executorch::aten::ScalarType deduced_type = internal::dtype_of<T>::value,
          std::enable_if_t<std::is_same<Type, executorch::aten::ScalarType>::value, int> = 0>
inline TensorPtr make_tensor_ptr(T value, Type type) {
  return make_tensor_ptr(std::vector<executorch::aten::SizesType>{}, std::vector<T>{value}, {}, {}, type);
}

// Owning form over raw bytes read as `type`: data.size() must be numel * elementSize(type).
EXECUTORCH_API TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    std::vector<executorch::aten::DimOrderType> dim_order, std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism = executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), std::move(data), {}, {}, type, dynamism);
}

template <typename T, typename Type, executorch::aten::ScalarType deduced_type,
          std::enable_if_t<std::is_same<Type, executorch::aten::ScalarType>::value, int>>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, std::initializer_list<T> list,
                                 Type type, executorch::aten::TensorShapeDynamism dynamism) {
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    const size_t numel = internal::checked_numel(sizes);
    if (list.size() != numel && list.size() == internal::checked_nbytes(numel, type)) {
      std::vector<uint8_t> bytes(list.size());
      std::transform(list.begin(), list.end(), bytes.begin(), [](T v) { return static_cast<uint8_t>(v); });
      return make_tensor_ptr(std::move(sizes), std::move(bytes), {}, {}, type, dynamism);
    }
  }
  return make_tensor_ptr(std::move(sizes), std::vector<T>(list), {}, {}, type, dynamism);
}

// A new TensorPtr over the same data as `tensor` (never a copy), with its own metadata: `sizes` (default: the
// tensor's; at most as many elements), `dim_order` and `strides` (default: the tensor's when the rank is unchanged,
// contiguous otherwise). Dtype, device and dynamism are the tensor's. `deleter` runs when the view goes; without
// one the view does not keep the source alive.
inline TensorPtr make_tensor_ptr(const executorch::aten::Tensor& tensor,
                                 std::vector<executorch::aten::SizesType> sizes = {},
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {},
                                 std::function<void(void*)> deleter = nullptr) {
  if (sizes.empty()) sizes.assign(tensor.sizes().begin(), tensor.sizes().end());
  const size_t numel = internal::checked_numel(sizes);
  ET_CHECK_MSG(numel <= static_cast<size_t>(tensor.numel()),
               "make_tensor_ptr: a view of %zu elements over a tensor of %zd elements", numel,
               static_cast<ssize_t>(tensor.numel()));
  if (dim_order.empty() && strides.empty() && sizes.size() == static_cast<size_t>(tensor.dim())) {
    dim_order.assign(tensor.dim_order().begin(), tensor.dim_order().end());
  }
  return make_tensor_ptr(std::move(sizes), tensor.mutable_data_ptr(), std::move(dim_order), std::move(strides),
                         tensor.scalar_type(),
                         executorch::runtime::etensor::Device(tensor.device_type(), tensor.device_index()),
                         tensor.shape_dynamism(), std::move(deleter));
}

// The same over a TensorPtr; the view keeps `tensor_ptr` (and so its data) alive.
inline TensorPtr make_tensor_ptr(const TensorPtr& tensor_ptr, std::vector<executorch::aten::SizesType> sizes = {},
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {}) {
  return make_tensor_ptr(*tensor_ptr, std::move(sizes), std::move(dim_order), std::move(strides),
                         [tensor_ptr](void*) {});
}

// A CPU tensor owning a copy of `tensor`'s data converted to `type` (conversions as make_tensor_ptr allows), with
// the same sizes, dim order and dynamism. A tensor without data gives a tensor without data.
EXECUTORCH_API TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor, executorch::aten::ScalarType type);

inline TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor) {
  return clone_tensor_ptr(tensor, tensor.scalar_type());
}
inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor, executorch::aten::ScalarType type) {
  return clone_tensor_ptr(*tensor, type);
}
inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor) { return clone_tensor_ptr(*tensor, tensor->scalar_type()); }

// Changes the sizes in place (same rank): a STATIC tensor accepts only its own sizes, a DYNAMIC_BOUND (or
// DYNAMIC_UNBOUND) one any sizes with at most as many elements as it was made with. NotSupported otherwise.
ET_NODISCARD EXECUTORCH_API executorch::runtime::Error resize_tensor_ptr(
    TensorPtr& tensor, const std::vector<executorch::aten::SizesType>& sizes);

// Copies a tensor between the CPU and an accelerator (either direction, not CPU to CPU nor device to device) with
// the DeviceAllocator registered for the accelerator (the CUDA delegate's is loaded on demand). The result owns
// its memory.
EXECUTORCH_API TensorPtr clone_tensor_ptr_to(const TensorPtr& tensor, executorch::runtime::etensor::Device target);

}  // namespace extension
}  // namespace executorch
