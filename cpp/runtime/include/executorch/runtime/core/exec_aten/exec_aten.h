#pragma once
// The tensor types used across the runtime, under the names upstream code uses (executorch::aten::...).
#include <optional>
#include <string_view>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>

namespace executorch {
namespace aten {
using Tensor = ::executorch::runtime::etensor::Tensor;
using TensorImpl = ::executorch::runtime::etensor::TensorImpl;
using ScalarType = ::executorch::runtime::etensor::ScalarType;
using Scalar = ::executorch::runtime::etensor::Scalar;
using Half = ::executorch::runtime::etensor::Half;
using BFloat16 = ::executorch::runtime::etensor::BFloat16;
using TensorShapeDynamism = ::executorch::runtime::etensor::TensorShapeDynamism;
using SizesType = TensorImpl::SizesType;
using DimOrderType = TensorImpl::DimOrderType;
using StridesType = TensorImpl::StridesType;
template <typename T>
using ArrayRef = ::executorch::runtime::ArrayRef<T>;
using IntArrayRef = ArrayRef<int64_t>;
using ::executorch::runtime::etensor::elementSize;
using ::executorch::runtime::etensor::isValid;
using ::executorch::runtime::etensor::toString;
template <typename T>
using optional = std::optional<T>;
using nullopt_t = std::nullopt_t;
inline constexpr std::nullopt_t nullopt = std::nullopt;
using string_view = std::string_view;
}  // namespace aten
}  // namespace executorch

namespace exec_aten = ::executorch::aten;

namespace torch {
namespace executor {
using ::executorch::aten::ArrayRef;
using ::executorch::aten::IntArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
}  // namespace executor
}  // namespace torch
