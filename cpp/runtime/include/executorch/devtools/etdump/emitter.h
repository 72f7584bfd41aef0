#pragma once
// Upstream ExecuTorch's hook for building an ETDump with the flatcc library inside a fixed buffer. This runtime's
// ETDumpGen does not use flatcc (it has its own writer, and ETDumpGen(Span<uint8_t>) places the result in the
// buffer given), so the function exists for source compatibility only and always reports failure.
#include <cstdint>
#include <cstdlib>

#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/export.h>

typedef struct flatcc_builder flatcc_builder_t;

namespace executorch {
namespace etdump {
namespace internal {

// Returns -1 (flatcc's failure status): no flatcc builder can be set up by this SDK.
EXECUTORCH_API int etdump_flatcc_custom_init(flatcc_builder_t* builder, internal::ETDumpStaticAllocator* alloc);

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
