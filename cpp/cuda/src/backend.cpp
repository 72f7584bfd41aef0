// The CudaBackend: registered from a static initializer when libexecutorch_cuda is loaded.
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
#include <executorch/runtime/platform/log.h>

#include "graph.h"
#include "kernels.h"

namespace etcuda {
namespace {

using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::DelegateHandle;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::Span;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;

Error failf(Error e, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
Error failf(Error e, const char* fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return set_last_error(e, "CudaBackend: %s", buf);
}

Error cuda_fail(cudaError_t e, const char* what) {
  return failf(Error::Internal, "%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
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

struct Handle {
  Graph graph;
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  std::vector<float*> buf;      // per value: device buffer (constants: uploaded at init)
  std::vector<int64_t> cap;     // per value: capacity in elements
  Plan plan;
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<Tensor::SizesType> sizes_tmp;
  std::mutex mu;                // one call at a time per delegate instance

  ~Handle() {
    for (float* p : buf) {
      if (p != nullptr) (void)cudaFree(p);
    }
    if (cublas != nullptr) (void)cublasDestroy(cublas);
    if (stream != nullptr) (void)cudaStreamDestroy(stream);
  }

  Error ensure(int32_t v, int64_t n) {
    if (n < 1) n = 1;
    if (buf[v] != nullptr && cap[v] >= n) return Error::Ok;
    if (buf[v] != nullptr) {
      (void)cudaFree(buf[v]);
      buf[v] = nullptr;
      cap[v] = 0;
    }
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, static_cast<size_t>(n) * sizeof(float));
    if (e != cudaSuccess) {
      return failf(Error::MemoryAllocationFailed, "cudaMalloc of %lld bytes for value %d failed: %s",
                   static_cast<long long>(n) * 4, v, cudaGetErrorString(e));
    }
    buf[v] = static_cast<float*>(p);
    cap[v] = n;
    return Error::Ok;
  }
};

Error check_cublas(cublasStatus_t s, size_t si, const Step& step) {
  if (s == CUBLAS_STATUS_SUCCESS) return Error::Ok;
  return failf(Error::Internal, "kernel call %zu (%s): cuBLAS failed: %s (%d)", si, step.name.c_str(), cublas_name(s),
               static_cast<int>(s));
}

Error run_copy(Handle& h, const Copy& c) {
  float* dst = h.buf[c.dst] + c.dst_offset;
  const float* src = h.buf[c.src] + c.src_offset;
  const CopyDesc& d = c.desc;
  if (d.n <= 0) return Error::Ok;
  cudaError_t e;
  if (d.ndim == 1 && d.src_stride[0] == 1 && d.dst_stride[0] == 1) {
    e = cudaMemcpyAsync(dst, src, static_cast<size_t>(d.n) * sizeof(float), cudaMemcpyDeviceToDevice, h.stream);
  } else {
    e = launch_copy(dst, src, d, h.stream);
  }
  return e == cudaSuccess ? Error::Ok : cuda_fail(e, "a copy");
}

Error run_gemm(Handle& h, size_t si, const Step& step, const StepPlan& sp) {
  for (const Copy& c : sp.copies) {
    if (Error e = run_copy(h, c); e != Error::Ok) return e;
  }
  const int64_t total = sp.m * sp.n * sp.batch;
  if (total == 0) return Error::Ok;
  float* C = h.buf[sp.out];
  if (sp.k == 0) {
    // An empty sum: out = beta * prefill (or zeros).
    if (sp.copies.empty()) {
      const cudaError_t e = cudaMemsetAsync(C, 0, static_cast<size_t>(total) * sizeof(float), h.stream);
      return e == cudaSuccess ? Error::Ok : cuda_fail(e, "cudaMemsetAsync");
    }
    if (sp.beta != 1.f) {
      BinaryDesc d;
      d.ndim = 1, d.n = total, d.size[0] = total, d.a_stride[0] = 1;
      const cudaError_t e = launch_binary(BinaryOp::Mul, 1.f, C, C, nullptr, true, sp.beta, d, h.stream);
      if (e != cudaSuccess) return cuda_fail(e, "a scale");
    }
    return Error::Ok;
  }
  // Row-major C[m][n] = A[m][k] @ B is column-major C^T = B^T @ A^T: swap the operands, keep the leading dims.
  const int m = static_cast<int>(sp.m), n = static_cast<int>(sp.n), k = static_cast<int>(sp.k);
  const float* A = h.buf[sp.a];
  const float* B = h.buf[sp.b];
  const float alpha = sp.alpha, beta = sp.beta;
  cublasStatus_t s;
  if (sp.b_transposed) {
    // linear: B is the weight, row-major [n][k] = column-major [k][n]; transposed it is the [n][k] operand.
    s = cublasSgemm(h.cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, B, k, A, k, &beta, C, n);
  } else if (sp.batch == 1) {
    s = cublasSgemm(h.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k, &beta, C, n);
  } else {
    s = cublasSgemmStridedBatched(h.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n,
                                  static_cast<long long>(sp.k) * sp.n, A, k, static_cast<long long>(sp.m) * sp.k,
                                  &beta, C, n, static_cast<long long>(sp.m) * sp.n, static_cast<int>(sp.batch));
  }
  return check_cublas(s, si, step);
}

Error run_step(Handle& h, size_t si) {
  const Step& step = h.graph.steps[si];
  const StepPlan& sp = h.plan.steps[si];
  cudaError_t e = cudaSuccess;
  switch (step.op) {
    case Op::Mm: case Op::Addmm: case Op::Bmm: case Op::Linear:
      return run_gemm(h, si, step, sp);
    case Op::Add: case Op::AddScalar: case Op::Sub: case Op::SubScalar:
    case Op::Mul: case Op::MulScalar: case Op::Div: case Op::DivScalar: {
      BinaryOp op = BinaryOp::Add;
      if (step.op == Op::Sub || step.op == Op::SubScalar) op = BinaryOp::Sub;
      if (step.op == Op::Mul || step.op == Op::MulScalar) op = BinaryOp::Mul;
      if (step.op == Op::Div || step.op == Op::DivScalar) op = BinaryOp::Div;
      e = launch_binary(op, sp.alpha, h.buf[sp.out], h.buf[sp.a], sp.b_scalar ? nullptr : h.buf[sp.b], sp.b_scalar,
                        sp.scalar, sp.bin, h.stream);
      break;
    }
    case Op::Relu: case Op::Gelu: case Op::Clamp: case Op::Hardtanh: case Op::Sigmoid: case Op::Tanh: {
      UnaryOp op = UnaryOp::Clamp;
      if (step.op == Op::Relu) op = UnaryOp::Relu;
      if (step.op == Op::Gelu) op = sp.mode == 1 ? UnaryOp::GeluTanh : UnaryOp::GeluErf;
      if (step.op == Op::Sigmoid) op = UnaryOp::Sigmoid;
      if (step.op == Op::Tanh) op = UnaryOp::Tanh;
      e = launch_unary(op, sp.lo, sp.hi, h.buf[sp.out], h.buf[sp.a], sp.numel, h.stream);
      break;
    }
    case Op::Softmax: case Op::LogSoftmax:
      e = launch_softmax(h.buf[sp.out], h.buf[sp.a], sp.outer, sp.len, sp.inner, step.op == Op::LogSoftmax,
                         h.stream);
      break;
    case Op::LayerNorm:
      e = launch_layer_norm(h.buf[sp.out], h.buf[sp.mean], h.buf[sp.rstd], h.buf[sp.a],
                            sp.weight >= 0 ? h.buf[sp.weight] : nullptr, sp.bias >= 0 ? h.buf[sp.bias] : nullptr,
                            sp.outer, sp.len, sp.eps, h.stream);
      break;
    default:
      for (const Copy& c : sp.copies) {
        if (Error err = run_copy(h, c); err != Error::Ok) return err;
      }
      break;
  }
  if (e != cudaSuccess) {
    return failf(Error::Internal, "kernel call %zu (%s): launch failed: %s (%s)", si, step.name.c_str(),
                 cudaGetErrorName(e), cudaGetErrorString(e));
  }
  return Error::Ok;
}

bool contiguous_dim_order(const Tensor& t) {
  const auto order = t.dim_order();
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] != k) return false;
  }
  return true;
}

Error execute_handle(Handle& h, Span<EValue*> args) {
  Graph& g = h.graph;
  const size_t ni = g.inputs.size(), no = g.outputs.size();
  if (args.size() != ni + no) {
    return failf(Error::InvalidArgument, "the delegate call has %zu arguments, the payload takes %zu inputs and %zu "
                 "outputs", args.size(), ni, no);
  }
  cudaError_t ce = cudaSetDevice(h.device);
  if (ce != cudaSuccess) return cuda_fail(ce, "cudaSetDevice");
  h.input_shapes.resize(ni);
  for (size_t i = 0; i < ni + no; ++i) {
    if (args[i] == nullptr || !args[i]->isTensor()) {
      return failf(Error::InvalidArgument, "delegate argument %zu is not a tensor", i);
    }
    const Tensor& t = args[i]->toTensor();
    if (t.scalar_type() != ScalarType::Float) {
      return failf(Error::InvalidType, "delegate argument %zu is not an fp32 tensor", i);
    }
    if (!contiguous_dim_order(t)) {
      return failf(Error::NotSupported, "delegate argument %zu is not in contiguous dim order", i);
    }
    if (i < ni) {
      auto& s = h.input_shapes[i];
      s.assign(t.sizes().begin(), t.sizes().end());
    }
  }
  Error err = make_plan(g, h.input_shapes, &h.plan);
  if (err != Error::Ok) return err;

  // Device buffers for everything written or fed in this call.
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != Kind::Tensor || val.constant || !(val.input || val.written)) continue;
    err = h.ensure(static_cast<int32_t>(v), numel_of(h.plan.shapes[v]));
    if (err != Error::Ok) return err;
  }
  for (size_t i = 0; i < ni; ++i) {
    const Tensor& t = args[i]->toTensor();
    const size_t bytes = static_cast<size_t>(numel_of(h.input_shapes[i])) * sizeof(float);
    if (bytes == 0) continue;
    ce = cudaMemcpyAsync(h.buf[g.inputs[i]], t.const_data_ptr(), bytes, cudaMemcpyHostToDevice, h.stream);
    if (ce != cudaSuccess) return cuda_fail(ce, "copying an input to the device");
  }
  for (size_t si = 0; si < g.steps.size(); ++si) {
    err = run_step(h, si);
    if (err != Error::Ok) {
      (void)cudaStreamSynchronize(h.stream);
      return err;
    }
  }
  for (size_t j = 0; j < no; ++j) {
    const int32_t v = g.outputs[j];
    const std::vector<int64_t>& shape = h.plan.shapes[v];
    Tensor& t = args[ni + j]->toTensor();
    h.sizes_tmp.clear();
    for (int64_t d : shape) {
      if (d > std::numeric_limits<Tensor::SizesType>::max()) {
        (void)cudaStreamSynchronize(h.stream);
        return failf(Error::InvalidArgument, "output %zu: size %lld does not fit a tensor size", j,
                     static_cast<long long>(d));
      }
      h.sizes_tmp.push_back(static_cast<Tensor::SizesType>(d));
    }
    err = executorch::runtime::resize_tensor(
        t, executorch::runtime::ArrayRef<Tensor::SizesType>(h.sizes_tmp.data(), h.sizes_tmp.size()));
    if (err != Error::Ok) {
      (void)cudaStreamSynchronize(h.stream);
      return failf(err, "output %zu: cannot resize the output tensor to the computed shape (rank %zu)", j,
                   shape.size());
    }
    const size_t bytes = static_cast<size_t>(numel_of(shape)) * sizeof(float);
    if (bytes == 0) continue;
    ce = cudaMemcpyAsync(t.mutable_data_ptr(), h.buf[v], bytes, cudaMemcpyDeviceToHost, h.stream);
    if (ce != cudaSuccess) {
      (void)cudaStreamSynchronize(h.stream);
      return cuda_fail(ce, "copying an output to the host");
    }
  }
  ce = cudaStreamSynchronize(h.stream);
  if (ce != cudaSuccess) return cuda_fail(ce, "running the kernel calls (cudaStreamSynchronize)");
  return Error::Ok;
}

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
    if (processed == nullptr) return failf(Error::InvalidArgument, "no payload");
    Handle* h = new (std::nothrow) Handle();
    if (h == nullptr) return Error::MemoryAllocationFailed;
    Error e = parse_payload(static_cast<const uint8_t*>(processed->data()), processed->size(), compile_specs,
                            context.get_named_data_map(), &h->graph);
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
    return execute_handle(h, args);
  }

  void destroy(DelegateHandle* handle) const override { delete static_cast<Handle*>(handle); }

 private:
  static Error open_device(Handle& h) {
    char why[512];
    if (!have_device(why, sizeof(why))) {
      return failf(Error::NotSupported, "payload accepted (%zu kernel calls) but it cannot run here: %s",
                   h.graph.steps.size(), why);
    }
    cudaError_t ce = cudaGetDevice(&h.device);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaGetDevice");
    ce = cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking);
    if (ce != cudaSuccess) return cuda_fail(ce, "cudaStreamCreateWithFlags");
    cublasStatus_t s = cublasCreate(&h.cublas);
    if (s != CUBLAS_STATUS_SUCCESS) {
      h.cublas = nullptr;
      return failf(Error::Internal, "cublasCreate failed: %s", cublas_name(s));
    }
    s = cublasSetStream(h.cublas, h.stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetMathMode(h.cublas, CUBLAS_DEFAULT_MATH);  // plain fp32, no TF32
    if (s != CUBLAS_STATUS_SUCCESS) return failf(Error::Internal, "cuBLAS setup failed: %s", cublas_name(s));
    const size_t nv = h.graph.values.size();
    h.buf.assign(nv, nullptr);
    h.cap.assign(nv, 0);
    for (size_t v = 0; v < nv; ++v) {
      Value& val = h.graph.values[v];
      if (!val.constant) continue;
      const int64_t n = numel_of(val.sizes);
      Error e = h.ensure(static_cast<int32_t>(v), n);
      if (e != Error::Ok) return e;
      if (n > 0) {
        ce = cudaMemcpy(h.buf[v], val.data, static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
        if (ce != cudaSuccess) return cuda_fail(ce, "uploading a constant");
      }
      val.data = nullptr;  // points into the payload, which is freed after init
    }
    h.graph.storage.clear();
    h.graph.storage.shrink_to_fit();
    return Error::Ok;
  }
};

CudaBackend g_backend;

struct Registrar {
  Registrar() {
    const Error e = executorch::runtime::register_backend({"CudaBackend", &g_backend});
    if (e != Error::Ok) {
      ET_LOG(Error, "CudaBackend: registration failed (error 0x%x); another CudaBackend is registered",
             static_cast<unsigned>(e));
    }
  }
};
Registrar g_registrar;

}  // namespace
}  // namespace etcuda
