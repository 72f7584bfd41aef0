// The component descriptor: registers every kernel of ETL_OPS into the runtime's registry when the runtime asks
// (platform/component.h).
#include <iterator>

#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/version.h>

#include "ops.h"

namespace etl {
namespace {

#define ETL_KERNEL(name, fn) rt::Kernel(name, &guarded<&fn>),
const rt::Kernel kKernels[] = {ETL_OPS(ETL_KERNEL)};
#undef ETL_KERNEL

uint32_t register_all() {
  return register_table("executorch_llm", Span<const rt::Kernel>(kKernels, std::size(kKernels)));
}

const char* const kNamespaces[] = {"llama", nullptr};
const char* const kBackends[] = {nullptr};
const ExecutorchComponent kComponent = {EXECUTORCH_COMPONENT_API_VERSION,
                                        "llm",
                                        "executorch-llm",
                                        EXECUTORCH_VERSION,
                                        kNamespaces,
                                        kBackends,
                                        &register_all};

}  // namespace
}  // namespace etl

EXECUTORCH_COMPONENT(etl::kComponent)
