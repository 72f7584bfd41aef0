// The CudaBackend, and the component descriptor through which the runtime registers it (platform/component.h).
//
// init() reads and checks the payload on the host first (payload.cpp), so a bad or upstream-AOTInductor payload is
// rejected with its reason on any machine; only then does it need a device (stream, cuBLAS handle, constants).
// execute() plans shapes from the actual inputs, grows the per-value device buffers (owned by the handle, reused
// across calls), copies the inputs in, runs the kernel calls on the handle's stream, resizes the outer outputs and
// copies them back.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/version.h>

#include "executor.h"
#include "graph.h"
#include "kernels.h"

namespace etcuda {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::DelegateHandle;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::Span;

Error cuda_fail(cudaError_t e, const char* what) {
  return ETCUDA_FAIL(Error::Internal, "%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

const char* cublas_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "cuBLAS error";
  }
}

// Whether a CUDA device is usable; on false, `why` says what cudaGetDeviceCount reported.
bool have_device(char* why, size_t n) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    std::snprintf(why, n, "no CUDA device: cudaGetDeviceCount returned %d (%s: %s)", static_cast<int>(e),
                  cudaGetErrorName(e), cudaGetErrorString(e));
    (void)cudaGetLastError();  // not sticky, but leave nothing behind
    return false;
  }
  if (count <= 0) {
    std::snprintf(why, n, "no CUDA device: cudaGetDeviceCount found 0 devices");
    return false;
  }
  return true;
}

// The device operations of executor.h on the CUDA runtime and cuBLAS (errors set the reason, unprefixed).
struct CudaDev {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;

  static Error check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Error::Ok;
    return set_last_error(Error::Internal, "%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  }
  static Error check(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return Error::Ok;
    return set_last_error(Error::Internal, "%s failed: %s (%d)", what, cublas_name(s), static_cast<int>(s));
  }

  Error alloc(float** p, int64_t n) {
    void* q = nullptr;
    const cudaError_t e = cudaMalloc(&q, static_cast<size_t>(n) * sizeof(float));
    if (e != cudaSuccess) {
      return set_last_error(Error::MemoryAllocationFailed, "cudaMalloc of %lld bytes failed: %s",
                            static_cast<long long>(n) * 4, cudaGetErrorString(e));
    }
    *p = static_cast<float*>(q);
    return Error::Ok;
  }
  void release(float* p) { (void)cudaFree(p); }
  Error h2d(float* dst, const void* src, size_t bytes) {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (to the device)");
  }
  Error d2h(void* dst, const float* src, size_t bytes) {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (to the host)");
  }
  Error d2d(float* dst, const float* src, size_t bytes) {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  }
  Error zero(float* p, size_t bytes) { return check(cudaMemsetAsync(p, 0, bytes, stream), "cudaMemsetAsync"); }
  Error binary(Fn op, float alpha, float* out, const float* a, const float* b, bool b_is_scalar, float scalar,
               const BinaryDesc& d) {
    return check(launch_binary(op, alpha, out, a, b, b_is_scalar, scalar, d, stream), "elementwise kernel launch");
  }
  Error unary(Fn op, float lo, float hi, float* out, const float* in, int64_t n) {
    return check(launch_unary(op, lo, hi, out, in, n, stream), "elementwise kernel launch");
  }
  Error softmax(float* out, const float* in, int64_t outer, int64_t len, int64_t inner, bool log) {
    return check(launch_softmax(out, in, outer, len, inner, log, stream), "softmax kernel launch");
  }
  Error layer_norm(float* out, float* mean, float* rstd, const float* in, const float* w, const float* b, int64_t rows,
                   int64_t cols, float eps) {
    return check(launch_layer_norm(out, mean, rstd, in, w, b, rows, cols, eps, stream), "layer norm kernel launch");
  }
  Error copy(float* dst, const float* src, const CopyDesc& d) {
    return check(launch_copy(dst, src, d, stream), "copy kernel launch");
  }
  Error sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) {
    return check(cublasSgemm(cublas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, A,
                             lda, B, ldb, &beta, C, ldc),
                 "cublasSgemm");
  }
  Error sgemm_strided_batched(bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda, int64_t sa,
                              const float* B, int ldb, int64_t sb, float beta, float* C, int ldc, int64_t sc,
                              int batch) {
    return check(cublasSgemmStridedBatched(cublas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n,
                                           k, &alpha, A, lda, sa, B, ldb, sb, &beta, C, ldc, sc, batch),
                 "cublasSgemmStridedBatched");
  }
  Error finish() { return check(cudaStreamSynchronize(stream), "running the kernel calls (cudaStreamSynchronize)"); }
};

struct Handle {
  State state;
  CudaDev dev;
  std::mutex mu;  // one call at a time per delegate instance

  ~Handle() {
    release_all(dev, state);
    if (dev.cublas != nullptr) (void)cublasDestroy(dev.cublas);
    if (dev.stream != nullptr) (void)cudaStreamDestroy(dev.stream);
  }
};

class CudaBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    char why[512];
    if (have_device(why, sizeof(why))) return true;
    set_last_error(Error::NotFound, "%s", why);
    return false;
  }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    if (processed == nullptr) return ETCUDA_FAIL(Error::InvalidArgument, "no payload");
    Handle* h = new (std::nothrow) Handle();
    if (h == nullptr) return Error::MemoryAllocationFailed;
    Error e = parse_payload(static_cast<const uint8_t*>(processed->data()), processed->size(), compile_specs,
                            context.get_named_data_map(), &h->state.graph);
    if (e == Error::Ok) e = open_device(*h);
    if (e != Error::Ok) {
      delete h;
      return e;
    }
    processed->Free();  // constants are on the device now
    return static_cast<DelegateHandle*>(h);
  }

  Error execute(BackendExecutionContext& /*context*/, DelegateHandle* handle, Span<EValue*> args) const override {
    if (handle == nullptr) return Error::DelegateInvalidHandle;
    Handle& h = *static_cast<Handle*>(handle);
    std::lock_guard<std::mutex> lock(h.mu);
    const cudaError_t ce = cudaSetDevice(h.dev.device);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaSetDevice");
    return execute_state(h.dev, h.state, args);
  }

  void destroy(DelegateHandle* handle) const override { delete static_cast<Handle*>(handle); }

  // Without a device the runtime asks whether the payload is ours at all, so that an upstream AOTInductor program
  // or a damaged payload is named as such rather than reported as "no CUDA device".
  Error validate(BackendInitContext& context, FreeableBuffer* processed,
                 ArrayRef<CompileSpec> compile_specs) const override {
    if (processed == nullptr) return ETCUDA_FAIL(Error::InvalidArgument, "no payload");
    Graph g;
    return parse_payload(static_cast<const uint8_t*>(processed->data()), processed->size(), compile_specs,
                         context.get_named_data_map(), &g);
  }

 private:
  static Error open_device(Handle& h) {
    char why[512];
    if (!have_device(why, sizeof(why))) {
      return ETCUDA_FAIL(Error::NotSupported, "payload accepted (%zu kernel calls) but it cannot run here: %s",
                         h.state.graph.steps.size(), why);
    }
    cudaError_t ce = cudaGetDevice(&h.dev.device);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaGetDevice");
    ce = cudaStreamCreateWithFlags(&h.dev.stream, cudaStreamNonBlocking);
    if (ce != cudaSuccess) {
      h.dev.stream = nullptr;
      return cuda_fail(ce, "cudaStreamCreateWithFlags");
    }
    cublasStatus_t s = cublasCreate(&h.dev.cublas);
    if (s != CUBLAS_STATUS_SUCCESS) {
      h.dev.cublas = nullptr;
      return ETCUDA_FAIL(Error::Internal, "cublasCreate failed: %s", cublas_name(s));
    }
    s = cublasSetStream(h.dev.cublas, h.dev.stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetMathMode(h.dev.cublas, CUBLAS_DEFAULT_MATH);  // fp32, no TF32
    if (s != CUBLAS_STATUS_SUCCESS) return ETCUDA_FAIL(Error::Internal, "cuBLAS setup failed: %s", cublas_name(s));
    if (upload_constants(h.dev, h.state) != Error::Ok) {
      const std::string reason = executorch::runtime::last_error_message();
      return ETCUDA_FAIL(Error::MemoryAllocationFailed, "uploading the constants: %s", reason.c_str());
    }
    return Error::Ok;
  }
};

CudaBackend g_backend;

uint32_t register_all() {
  const Error e = executorch::runtime::register_backend({"CudaBackend", &g_backend});
  if (e != Error::Ok) {
    ET_LOG(Error, "CudaBackend: registration failed (error 0x%x); another CudaBackend is registered",
           static_cast<unsigned>(e));
  }
  return static_cast<uint32_t>(e);
}

const char* const kNamespaces[] = {nullptr};
const char* const kBackends[] = {"CudaBackend", nullptr};
const ExecutorchComponent kComponent = {EXECUTORCH_COMPONENT_API_VERSION,
                                        "cuda",
                                        "executorch-cuda",
                                        EXECUTORCH_VERSION,
                                        kNamespaces,
                                        kBackends,
                                        &register_all};

}  // namespace
}  // namespace etcuda

EXECUTORCH_COMPONENT(etcuda::kComponent)
