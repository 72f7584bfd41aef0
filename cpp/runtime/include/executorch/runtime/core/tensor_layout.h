#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// Shape, dim order and dtype of a tensor stored in a data map (a .ptd), without its data. The spans point into
// memory owned elsewhere (the data map) and must outlive the layout.
class TensorLayout final {
 public:
  TensorLayout() = delete;

  // InvalidArgument for a negative size, a dim order of another rank or naming a dimension out of range, or a
  // byte size that overflows.
  EXECUTORCH_API static Result<const TensorLayout> create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                                          executorch::aten::ScalarType scalar_type);

  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  executorch::aten::ScalarType scalar_type() const { return scalar_type_; }
  size_t nbytes() const { return nbytes_; }

 private:
  TensorLayout(Span<const int32_t> sizes, Span<const uint8_t> dim_order, executorch::aten::ScalarType scalar_type,
               size_t nbytes)
      : sizes_(sizes), dim_order_(dim_order), scalar_type_(scalar_type), nbytes_(nbytes) {}

  const Span<const int32_t> sizes_;
  const Span<const uint8_t> dim_order_;
  const executorch::aten::ScalarType scalar_type_;
  const size_t nbytes_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
