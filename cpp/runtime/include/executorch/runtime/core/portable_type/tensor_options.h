#pragma once
// Memory format and layout arguments of operators (schema types MemoryFormat / Layout, passed as ints).
#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

enum class MemoryFormat : int8_t {
  // Row-major (the default dim order).
  Contiguous = 0,
  // Keep the input's dim order.
  Preserve = 1,
};

// Only dense, strided tensors exist in this runtime.
enum class Layout : int8_t {
  Strided = 0,
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Layout;
using ::executorch::runtime::etensor::MemoryFormat;
}  // namespace executor
}  // namespace torch
