// The component descriptor: registers every kernel of ETK_OPS into the runtime's registry when the runtime asks
// (platform/component.h); every kernel also takes Half / BFloat16 tensors (reduced_float.h).
#include <iterator>

#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/version.h>

#include "ops.h"
#include "reduced_float.h"

namespace etk {
namespace {

#define ETK_KERNEL(name, fn) rt::Kernel(name, &guarded<&reduced_float<&fn>>),
const rt::Kernel kKernels[] = {ETK_OPS(ETK_KERNEL)};
#undef ETK_KERNEL

uint32_t register_all() {
  return register_table("executorch_kernels", Span<const rt::Kernel>(kKernels, std::size(kKernels)));
}

const char* const kNamespaces[] = {"aten", "dim_order_ops", nullptr};
const char* const kBackends[] = {nullptr};
const ExecutorchComponent kComponent = {EXECUTORCH_COMPONENT_API_VERSION,
                                        "kernels",
                                        "executorch-kernels",
                                        EXECUTORCH_VERSION,
                                        kNamespaces,
                                        kBackends,
                                        &register_all};

}  // namespace
}  // namespace etk

EXECUTORCH_COMPONENT(etk::kComponent)
