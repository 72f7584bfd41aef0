#pragma once
// Whether a tensor's shape may change between executions (upstream's TensorShapeDynamism, same values: they are
// written into .pte files).
#include <cstdint>

namespace executorch {
namespace runtime {

enum class TensorShapeDynamism : uint8_t {
  // The shape never changes.
  STATIC = 0,
  // The shape may change, but never to more elements than the tensor had when it was planned.
  DYNAMIC_BOUND = 1,
  // The shape may change freely. Memory is not reallocated here, so this behaves as DYNAMIC_BOUND.
  DYNAMIC_UNBOUND = 2,
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
