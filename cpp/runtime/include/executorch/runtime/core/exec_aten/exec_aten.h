#pragma once
// The tensor types of the runtime under the names upstream code uses: executorch::aten::Tensor, ScalarType,
// Half, ... (also reachable as exec_aten:: and, for most, torch::executor::). This SDK has only upstream's
// portable mode (no ATen), so these are the etensor types.
#include <optional>
#include <string_view>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/bfloat16_math.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/optional.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/portable_type/string_view.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/portable_type/tensor_options.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>

// The namespace of the runtime's types (compiler.h defines it; upstream's ATen mode would make it runtime::aten).
#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime
#endif

namespace executorch {
namespace aten {

using TensorShapeDynamism = ::executorch::runtime::TensorShapeDynamism;

using std::nullopt;
using std::nullopt_t;
using std::optional;
using string_view = std::string_view;

using Tensor = ::executorch::runtime::etensor::Tensor;
using TensorImpl = ::executorch::runtime::etensor::TensorImpl;
template <typename T>
using ArrayRef = ::executorch::runtime::ArrayRef<T>;
using ScalarType = ::executorch::runtime::etensor::ScalarType;
using TensorList = ArrayRef<Tensor>;
using Scalar = ::executorch::runtime::etensor::Scalar;
using MemoryFormat = ::executorch::runtime::etensor::MemoryFormat;
using SizesType = ::executorch::runtime::etensor::Tensor::SizesType;
using DimOrderType = ::executorch::runtime::etensor::Tensor::DimOrderType;
using StridesType = ::executorch::runtime::etensor::Tensor::StridesType;
using Device = ::executorch::runtime::etensor::Device;
using DeviceType = ::executorch::runtime::etensor::DeviceType;
using DeviceIndex = ::executorch::runtime::etensor::DeviceIndex;
using Layout = ::executorch::runtime::etensor::Layout;

using Half = ::executorch::runtime::etensor::Half;
template <typename T>
using complex = ::executorch::runtime::etensor::complex<T>;
using qint8 = ::executorch::runtime::etensor::qint8;
using quint8 = ::executorch::runtime::etensor::quint8;
using qint32 = ::executorch::runtime::etensor::qint32;
using BFloat16 = ::executorch::runtime::etensor::BFloat16;
using quint4x2 = ::executorch::runtime::etensor::quint4x2;
using quint2x4 = ::executorch::runtime::etensor::quint2x4;

using IntArrayRef = ::executorch::runtime::IntArrayRef;
template <typename T>
using OptionalArrayRef = std::optional<ArrayRef<T>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;

// Extensions of this SDK, used by its components: the dtype helpers of portable_type/scalar_type.h.
using ::executorch::runtime::etensor::elementSize;
using ::executorch::runtime::etensor::isValid;
using ::executorch::runtime::etensor::toString;

}  // namespace aten
}  // namespace executorch

namespace exec_aten = ::executorch::aten;

namespace torch {
namespace executor {
using TensorList = ::executorch::aten::TensorList;
}  // namespace executor
}  // namespace torch
