// The CudaBackend (skeleton): registered from a static initializer when libexecutorch_cuda is loaded.
#include <cuda_runtime_api.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/log.h>

namespace etcuda {
namespace {
using namespace executorch::runtime;

class CudaBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
      set_last_error(Error::NotFound, "no CUDA device: cudaGetDeviceCount returned %d (%s)", static_cast<int>(e),
                     cudaGetErrorString(e));
      return false;
    }
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const override {
    return set_last_error(Error::NotImplemented, "CudaBackend: not implemented yet");
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::NotImplemented;
  }
};

CudaBackend g_backend;
struct Registrar {
  Registrar() {
    if (register_backend({"CudaBackend", &g_backend}) != Error::Ok) {
      ET_LOG(Error, "CudaBackend: registration failed; another CudaBackend is registered");
    }
  }
};
Registrar g_registrar;
}  // namespace
}  // namespace etcuda
