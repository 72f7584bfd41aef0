#include <executorch/runtime/core/tensor_layout.h>

namespace executorch {
namespace runtime {

Result<const TensorLayout> TensorLayout::create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                                executorch::aten::ScalarType scalar_type) {
  if (!executorch::aten::isValid(scalar_type)) return Error::InvalidArgument;
  size_t nbytes = executorch::aten::elementSize(scalar_type);
  for (int32_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(s), &nbytes)) return Error::InvalidArgument;
  }
  if (dim_order.size() != sizes.size()) return Error::InvalidArgument;
  for (uint8_t d : dim_order) {
    if (d >= sizes.size()) return Error::InvalidArgument;
  }
  return TensorLayout(sizes, dim_order, scalar_type, nbytes);
}

}  // namespace runtime
}  // namespace executorch
