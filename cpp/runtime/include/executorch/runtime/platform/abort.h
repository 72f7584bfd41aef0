#pragma once
// Ends the process at once, through the platform layer's abort (et_pal_abort(), std::abort() by default).
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {

// Aborts without cleanup and with an abnormal exit status. Never returns, even if a registered PAL abort does.
ET_NORETURN EXECUTORCH_API void runtime_abort();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_abort;
}  // namespace executor
}  // namespace torch
