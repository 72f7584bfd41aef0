#pragma once
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Initializes the runtime's platform layer. Safe to call many times and from several threads.
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
