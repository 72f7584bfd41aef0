// Test plugin: registers the custom operator my_ops::scale.out and the backend PluginTestBackend into the
// process-wide registries of libexecutorch when loaded, and exposes C entry points so a test can look at the
// registries from C++ code in the same process.
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include <cstring>

using namespace executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;

namespace {

// my_ops::scale.out(Tensor x, float factor, *, Tensor(a!) out) -> Tensor(a!)
void scale_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 3 || !args[0]->isTensor() || !args[1]->isScalar() || !args[2]->isTensor()) {
    return ctx.fail(Error::InvalidArgument);
  }
  const Tensor& x = args[0]->toTensor();
  Tensor out = args[2]->toTensor();
  if (x.scalar_type() != ScalarType::Float || out.scalar_type() != ScalarType::Float ||
      resize_tensor(out, x.sizes()) != Error::Ok) {
    return ctx.fail(Error::InvalidArgument);
  }
  const float factor = static_cast<float>(args[1]->toScalarDouble());
  for (ssize_t i = 0; i < x.numel(); ++i) out.mutable_data_ptr<float>()[i] = x.const_data_ptr<float>()[i] * factor;
}

void negate_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 2 || !args[0]->isTensor() || !args[1]->isTensor()) return ctx.fail(Error::InvalidArgument);
  ctx.fail(Error::NotImplemented);
}

class PluginBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const override {
    return Error::NotSupported;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override { return Error::NotSupported; }
};

PluginBackend g_backend;

const bool g_registered = [] {
  const Kernel kernels[] = {Kernel("my_ops::scale.out", scale_out)};
  return register_kernels(Span<const Kernel>(kernels, 1)) == Error::Ok &&
         register_backend(Backend{"PluginTestBackend", &g_backend}) == Error::Ok;
}();

}  // namespace

extern "C" {
__attribute__((visibility("default"))) int plugin_registered() { return g_registered ? 1 : 0; }
__attribute__((visibility("default"))) size_t plugin_num_backends() { return get_num_registered_backends(); }
__attribute__((visibility("default"))) int plugin_has_operator(const char* name) {
  return registry_has_op_function(name) ? 1 : 0;
}
// Registers one more kernel from C++, so a test can check that Python sees it.
__attribute__((visibility("default"))) int plugin_register_negate() {
  return register_kernel(Kernel("my_ops::negate.out", negate_out)) == Error::Ok ? 1 : 0;
}
}
