#pragma once
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

// Tables of the .pte flatbuffer schema (upstream's names; this runtime reads the same wire format).
namespace executorch_flatbuffer {
struct ExecutionPlan;
struct Program;
struct Tensor;
struct TensorList;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {

// InvalidProgram when a serialized tensor has no sizes, a negative size, an unknown dtype, or an element or byte
// count that overflows.
ET_NODISCARD EXECUTORCH_API Error validate_tensor(const executorch_flatbuffer::Tensor* tensor);

// The tensor checks over every value of every method of a program. Program::load runs these checks and more (the
// flatbuffer verifier and a bounds check of every index, size and offset) on every .pte it loads.
ET_NODISCARD EXECUTORCH_API Error validate_program(const executorch_flatbuffer::Program* program);

}  // namespace runtime
}  // namespace executorch
