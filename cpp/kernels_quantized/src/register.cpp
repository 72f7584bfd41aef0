// The component descriptor: registers every kernel of ETQ_OPS into the runtime's registry when the runtime asks
// (platform/component.h). No static initializer: the table is constant data.
#include <exception>
#include <new>

#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/version.h>

#include "ops.h"

namespace etq {
namespace {

// Kernels never let an exception (e.g. std::bad_alloc from a scratch buffer) escape into the runtime.
template <void (*F)(KernelRuntimeContext&, Args)>
void guarded(KernelRuntimeContext& ctx, Args args) {
  try {
    F(ctx, args);
  } catch (const std::bad_alloc&) {
    fail(ctx, Error::MemoryAllocationFailed, "out of memory for the kernel's scratch buffers");
  } catch (...) {
    fail(ctx, Error::Internal, "the kernel threw an exception (a bug: please report it)");
  }
}

#define ETQ_KERNEL(name, fn) rt::Kernel(name, &guarded<&fn>),
const rt::Kernel kKernels[] = {ETQ_OPS(ETQ_KERNEL)};
#undef ETQ_KERNEL

uint32_t register_all() {
  const Error e = rt::register_kernels(Span<const rt::Kernel>(kKernels, sizeof(kKernels) / sizeof(kKernels[0])));
  if (e != Error::Ok) {
    ET_LOG(Error, "executorch_kernels_quantized: registering %zu kernels failed (error 0x%x)",
           sizeof(kKernels) / sizeof(kKernels[0]), static_cast<unsigned>(e));
  }
  return static_cast<uint32_t>(e);
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
