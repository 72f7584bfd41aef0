#pragma once
// Process-wide runtime setup.
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

// Initializes the platform layer: calls et_pal_init() the first time, nothing after. Call it before other runtime
// functions (Program::load() and Module call it too); safe to call any number of times, from any thread.
EXECUTORCH_API void runtime_init();

// Version of the runtime library, e.g. "0.1.0".
EXECUTORCH_API const char* runtime_version();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_init;
}  // namespace executor
}  // namespace torch
