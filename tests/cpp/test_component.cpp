// A component for the discovery tests (unit_tests, Components.*), built twice into a directory of its own:
// libexecutorch_testgood (this API version, provides operator namespace "etest") and libexecutorch_testbad (API
// version 99: the runtime must refuse it before it registers anything).
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/component.h>

namespace {
using namespace executorch::runtime;

void noop(KernelRuntimeContext&, Span<EValue*>) {}

const Kernel kKernels[] = {Kernel(ET_TEST_NS "::noop.out", &noop)};

uint32_t register_all() { return static_cast<uint32_t>(register_kernels(Span<const Kernel>(kKernels, 1))); }

const char* const kNamespaces[] = {ET_TEST_NS, nullptr};
const char* const kBackends[] = {nullptr};
const ExecutorchComponent kComponent = {ET_TEST_API, ET_TEST_NAME, "executorch-" ET_TEST_NAME, "9.9.9", kNamespaces,
                                        kBackends,   &register_all};
}  // namespace

EXECUTORCH_COMPONENT(kComponent)
