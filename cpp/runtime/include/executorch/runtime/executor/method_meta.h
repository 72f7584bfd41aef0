#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Shape, dtype and layout of one method input or output, as written in the program. For DYNAMIC_BOUND tensors
// the sizes are the upper bound.
class TensorInfo final {
 public:
  TensorInfo(ArrayRef<int32_t> sizes, ArrayRef<uint8_t> dim_order, executorch::aten::ScalarType type,
             bool is_memory_planned, executorch::aten::TensorShapeDynamism dynamism)
      : sizes_(sizes), dim_order_(dim_order), type_(type), planned_(is_memory_planned), dynamism_(dynamism) {}
  ArrayRef<int32_t> sizes() const { return sizes_; }
  ArrayRef<uint8_t> dim_order() const { return dim_order_; }
  executorch::aten::ScalarType scalar_type() const { return type_; }
  bool is_memory_planned() const { return planned_; }
  executorch::aten::TensorShapeDynamism shape_dynamism() const { return dynamism_; }
  size_t nbytes() const {
    size_t n = executorch::aten::elementSize(type_);
    for (int32_t s : sizes_) n *= static_cast<size_t>(s);
    return n;
  }

 private:
  ArrayRef<int32_t> sizes_;
  ArrayRef<uint8_t> dim_order_;
  executorch::aten::ScalarType type_;
  bool planned_;
  executorch::aten::TensorShapeDynamism dynamism_;
};

namespace internal {
struct PlanView;
}

// Describes a method of a program without loading it.
class EXECUTORCH_API MethodMeta final {
 public:
  explicit MethodMeta(const internal::PlanView* plan) : plan_(plan) {}
  const char* name() const;
  size_t num_inputs() const;
  Result<Tag> input_tag(size_t index) const;
  Result<TensorInfo> input_tensor_meta(size_t index) const;
  size_t num_outputs() const;
  Result<Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;
  // Planned arenas (memory_id 1..N); index 0 here is memory_id 1.
  size_t num_memory_planned_buffers() const;
  Result<int64_t> memory_planned_buffer_size(size_t index) const;
  size_t num_backends() const;
  Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(const char* backend_name) const;
  size_t num_instructions() const;

 private:
  const internal::PlanView* plan_;
};

}  // namespace runtime
}  // namespace executorch
