// The component descriptor: registers every kernel of ETQ_OPS into the runtime's registry when the runtime asks
// (platform/component.h). No static initializer: the table is constant data.
#include <iterator>

#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/version.h>

#include "ops.h"

namespace etq {
namespace {

#define ETQ_KERNEL(name, fn) rt::Kernel(name, &guarded<&fn>),
const rt::Kernel kKernels[] = {ETQ_OPS(ETQ_KERNEL)};
#undef ETQ_KERNEL

uint32_t register_all() {
  return register_table("executorch_kernels_quantized", Span<const rt::Kernel>(kKernels, std::size(kKernels)));
}

const char* const kNamespaces[] = {"quantized_decomposed", nullptr};
const char* const kBackends[] = {nullptr};
const ExecutorchComponent kComponent = {EXECUTORCH_COMPONENT_API_VERSION,
                                        "kernels_quantized",
                                        "executorch-kernels-quantized",
                                        EXECUTORCH_VERSION,
                                        kNamespaces,
                                        kBackends,
                                        &register_all};

}  // namespace
}  // namespace etq

EXECUTORCH_COMPONENT(etq::kComponent)
