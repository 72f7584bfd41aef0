#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

namespace internal {
struct PlanView;
struct TensorInfoAccess;
}  // namespace internal

// Shape, dtype and layout of one method input, output or attribute, as written in the program. For DYNAMIC_BOUND
// tensors the sizes are the upper bound.
class EXECUTORCH_API TensorInfo final {
 public:
  TensorInfo() = delete;
  TensorInfo(const TensorInfo&) = default;
  TensorInfo(TensorInfo&&) = default;
  TensorInfo& operator=(const TensorInfo&) = default;
  TensorInfo& operator=(TensorInfo&&) = default;
  ~TensorInfo() = default;

  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  executorch::aten::ScalarType scalar_type() const { return scalar_type_; }
  // True when the program places the tensor itself: in planned memory, or a constant.
  bool is_memory_planned() const { return is_memory_planned_; }
  size_t nbytes() const { return nbytes_; }
  // The fully qualified name of an attribute (empty for inputs and outputs).
  std::string_view name() const { return name_; }
  // An extension of this SDK: STATIC or DYNAMIC_BOUND.
  executorch::aten::TensorShapeDynamism shape_dynamism() const { return dynamism_; }

 private:
  friend class MethodMeta;
  friend struct internal::TensorInfoAccess;
  static Result<TensorInfo> create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                   executorch::aten::ScalarType scalar_type, bool is_memory_planned,
                                   std::string_view name, executorch::aten::TensorShapeDynamism dynamism);
  TensorInfo(Span<const int32_t> sizes, Span<const uint8_t> dim_order, executorch::aten::ScalarType scalar_type,
             bool is_memory_planned, std::string_view name, size_t nbytes,
             executorch::aten::TensorShapeDynamism dynamism)
      : sizes_(sizes),
        dim_order_(dim_order),
        name_(name),
        scalar_type_(scalar_type),
        is_memory_planned_(is_memory_planned),
        nbytes_(nbytes),
        dynamism_(dynamism) {}

  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  std::string_view name_;
  executorch::aten::ScalarType scalar_type_;
  bool is_memory_planned_;
  size_t nbytes_;
  executorch::aten::TensorShapeDynamism dynamism_;
};

// Describes a method of a program without loading it. Valid as long as its Program.
class EXECUTORCH_API MethodMeta final {
 public:
  MethodMeta() = delete;
  MethodMeta(const MethodMeta&) = default;
  MethodMeta(MethodMeta&&) = default;
  MethodMeta& operator=(const MethodMeta&) = default;
  MethodMeta& operator=(MethodMeta&&) = default;
  ~MethodMeta() = default;

  const char* name() const;
  size_t num_inputs() const;
  Result<Tag> input_tag(size_t index) const;
  Result<TensorInfo> input_tensor_meta(size_t index) const;
  size_t num_outputs() const;
  Result<Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;
  // Attributes: tensors of the method that carry a fully qualified name (e.g. weights kept in a data file).
  size_t num_attributes() const;
  Result<TensorInfo> attribute_tensor_meta(size_t index) const;
  // The memory-planned buffers the caller provides (program memory ids 1..N are indexes 0..N-1 here), their sizes
  // and, for programs that plan buffers on an accelerator, their devices (CPU otherwise).
  size_t num_memory_planned_buffers() const;
  Result<int64_t> memory_planned_buffer_size(size_t index) const;
  Result<etensor::Device> memory_planned_buffer_device(size_t index) const;
  bool uses_backend(const char* backend_name) const;
  size_t num_backends() const;
  Result<const char*> get_backend_name(size_t index) const;
  ET_EXPERIMENTAL size_t num_instructions() const;

  ET_DEPRECATED size_t num_non_const_buffers() const { return num_memory_planned_buffers(); }
  Result<int64_t> non_const_buffer_size(size_t index) const { return memory_planned_buffer_size(index); }

  // For the runtime: a method of a loaded program.
  explicit MethodMeta(const internal::PlanView* plan) : plan_(plan) {}

 private:
  const internal::PlanView* plan_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::MethodMeta;
using ::executorch::ET_RUNTIME_NAMESPACE::TensorInfo;
}  // namespace executor
}  // namespace torch
