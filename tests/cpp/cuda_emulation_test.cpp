// Runs programs lowered with `python -m executorch.lower --backend cuda` through the CudaBackend's own payload
// reader, shape planner and execution logic (cpp/cuda/src/payload.cpp + executor.h, compiled in here), with the
// device operations emulated on the host: the elementwise and copy loops use the kernels' own index walk and
// functors (descs.h, elementwise.h: ops.def), the softmax/layer-norm loops mirror kernels.cu index for index, and
// sgemm follows cuBLAS's (column-major BLAS) semantics, so the operand swapping and leading dimensions the backend
// passes to cuBLAS are checked too. Outputs are compared with the fixtures' expected outputs. What this cannot check
// is the CUDA code itself (kernels.cu launches, device memory, streams).
//
// usage: cuda_emulation_test [--device] [LOWERED.pte FIXTURE_DIR]...
//   --device: use the real libexecutorch_cuda (on a machine with a GPU) instead of the host emulation, so the same
//   cases check the CUDA kernels and cuBLAS calls.
//   Always runs a built-in payload (linear with and without bias on a 3-D input, add/sub/div .Scalar_out with
//   alpha, clone, gelu tanh: the operators the fixtures do not lower to) at two batch sizes against a C++
//   reference. Each LOWERED.pte is a tests/fixtures/<name>/portable.pte lowered with
//   `python -m executorch.lower --backend cuda`; FIXTURE_DIR holds its <method>_case<N>_in<K>.npy /
//   <method>_case<N>_out<K>.npy files.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/components.h>

#include "elementwise.h"
#include "executor.h"
#include "graph.h"
#include "npy.h"
#include "program_generated.h"

using executorch::runtime::Error;

namespace {

int g_delegate_calls = 0;

struct HostDev {
  Error alloc(float** p, int64_t n) {
    *p = new (std::nothrow) float[static_cast<size_t>(n)];
    return *p ? Error::Ok : Error::MemoryAllocationFailed;
  }
  void release(float* p) { delete[] p; }
  Error h2d(float* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    return Error::Ok;
  }
  Error d2h(void* dst, const float* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    return Error::Ok;
  }
  Error d2d(float* dst, const float* src, size_t bytes) {
    std::memmove(dst, src, bytes);
    return Error::Ok;
  }
  Error zero(float* p, size_t bytes) {
    std::memset(p, 0, bytes);
    return Error::Ok;
  }

  // The kernels' own index walk and elementwise functors (descs.h, elementwise.h: ops.def), on the host.
  Error binary(etcuda::Fn op, float alpha, float* out, const float* a, const float* b, bool b_is_scalar, float scalar,
               const etcuda::BinaryDesc& d) {
    return etcuda::with_binary_fn(op, Error::InvalidArgument, [&](auto f) {
      for (int64_t idx = 0; idx < d.n; ++idx) {
        int64_t oa, ob;
        etcuda::strided_offsets(idx, d.ndim, d.size, d.a_stride, d.b_stride, &oa, &ob);
        out[idx] = f(a[oa], b_is_scalar ? scalar : b[ob], alpha);
      }
      return Error::Ok;
    });
  }

  Error unary(etcuda::Fn op, float lo, float hi, float* out, const float* in, int64_t n) {
    return etcuda::with_unary_fn(op, Error::InvalidArgument, [&](auto f) {
      for (int64_t i = 0; i < n; ++i) out[i] = f(in[i], lo, hi);
      return Error::Ok;
    });
  }

  Error softmax(float* out, const float* in, int64_t outer, int64_t len, int64_t inner, bool log) {
    for (int64_t row = 0; row < outer * inner; ++row) {
      const int64_t o = row / inner, i = row % inner;
      const float* x = in + o * len * inner + i;
      float* y = out + o * len * inner + i;
      float m = -INFINITY;
      for (int64_t k = 0; k < len; ++k) m = std::fmax(m, x[k * inner]);
      float s = 0.f;
      for (int64_t k = 0; k < len; ++k) s += std::exp(x[k * inner] - m);
      const float ls = std::log(s);
      for (int64_t k = 0; k < len; ++k) y[k * inner] = log ? x[k * inner] - m - ls : std::exp(x[k * inner] - m) / s;
    }
    return Error::Ok;
  }

  Error layer_norm(float* out, float* mean, float* rstd, const float* in, const float* w, const float* b, int64_t rows,
                   int64_t cols, float eps) {
    for (int64_t row = 0; row < rows; ++row) {
      const float* x = in + row * cols;
      float* y = out + row * cols;
      float s = 0.f;
      for (int64_t k = 0; k < cols; ++k) s += x[k];
      const float mu = s / static_cast<float>(cols);
      float q = 0.f;
      for (int64_t k = 0; k < cols; ++k) q += (x[k] - mu) * (x[k] - mu);
      const float r = 1.f / std::sqrt(q / static_cast<float>(cols) + eps);
      for (int64_t k = 0; k < cols; ++k) {
        float v = (x[k] - mu) * r;
        if (w) v *= w[k];
        if (b) v += b[k];
        y[k] = v;
      }
      mean[row] = mu;
      rstd[row] = r;
    }
    return Error::Ok;
  }

  Error copy(float* dst, const float* src, const etcuda::CopyDesc& d) {
    for (int64_t idx = 0; idx < d.n; ++idx) {
      int64_t os, od;
      etcuda::strided_offsets(idx, d.ndim, d.size, d.src_stride, d.dst_stride, &os, &od);
      dst[od] = src[os];
    }
    return Error::Ok;
  }

  // Column-major BLAS sgemm, with cuBLAS's argument checks.
  Error sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) {
    if (m < 0 || n < 0 || k < 0 || lda < std::max(1, ta ? k : m) || ldb < std::max(1, tb ? n : k) ||
        ldc < std::max(1, m)) {
      return executorch::runtime::set_last_error(Error::Internal, "sgemm: CUBLAS_STATUS_INVALID_VALUE");
    }
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int l = 0; l < k; ++l) {
          const float av = ta ? A[l + static_cast<int64_t>(i) * lda] : A[i + static_cast<int64_t>(l) * lda];
          const float bv = tb ? B[j + static_cast<int64_t>(l) * ldb] : B[l + static_cast<int64_t>(j) * ldb];
          s += static_cast<double>(av) * bv;
        }
        float& c = C[i + static_cast<int64_t>(j) * ldc];
        c = static_cast<float>(alpha * s + (beta == 0.f ? 0.0 : static_cast<double>(beta) * c));
      }
    }
    return Error::Ok;
  }

  Error sgemm_strided_batched(bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda, int64_t sa,
                              const float* B, int ldb, int64_t sb, float beta, float* C, int ldc, int64_t sc,
                              int batch) {
    for (int i = 0; i < batch; ++i) {
      Error e = sgemm(ta, tb, m, n, k, alpha, A + i * sa, lda, B + i * sb, ldb, beta, C + i * sc, ldc);
      if (e != Error::Ok) return e;
    }
    return Error::Ok;
  }

  Error finish() { return Error::Ok; }
};

struct EmuHandle {
  etcuda::State state;
  HostDev dev;
  ~EmuHandle() { etcuda::release_all(dev, state); }
};

class EmulatedCudaBackend final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  executorch::runtime::Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext& ctx, executorch::runtime::FreeableBuffer* processed,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec> specs) const override {
    auto* h = new EmuHandle();
    Error e = etcuda::parse_payload(static_cast<const uint8_t*>(processed->data()), processed->size(), specs,
                                    ctx.get_named_data_map(), &h->state.graph);
    if (e == Error::Ok) e = etcuda::upload_constants(h->dev, h->state);
    if (e != Error::Ok) {
      delete h;
      return e;
    }
    processed->Free();
    return static_cast<executorch::runtime::DelegateHandle*>(h);
  }
  Error execute(executorch::runtime::BackendExecutionContext&, executorch::runtime::DelegateHandle* handle,
                executorch::runtime::Span<executorch::runtime::EValue*> args) const override {
    ++g_delegate_calls;
    auto* h = static_cast<EmuHandle*>(handle);
    return etcuda::execute_state(h->dev, h->state, args);
  }
  void destroy(executorch::runtime::DelegateHandle* handle) const override { delete static_cast<EmuHandle*>(handle); }
};

EmulatedCudaBackend g_emulated;
executorch::runtime::BackendInterface* g_backend = &g_emulated;

// ---- built-in payload -------------------------------------------------------------------------------------------

std::vector<uint8_t> builtin_payload() {
  flatbuffers::FlatBufferBuilder fbb;
  auto tensor = [&](std::vector<int32_t> sizes, uint32_t buf) {
    std::vector<uint8_t> order(sizes.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<uint8_t>(k);
    auto t = et_pte::CreateTensorDirect(fbb, et_pte::ScalarType::FLOAT, 0, &sizes, &order, false, buf, 0, 0,
                                        et_pte::TensorShapeDynamism::DYNAMIC_BOUND);
    return et_pte::CreateEValue(fbb, et_pte::KernelTypes::Tensor, t.Union());
  };
  auto dbl = [&](double v) {
    return et_pte::CreateEValue(fbb, et_pte::KernelTypes::Double, et_pte::CreateDouble(fbb, v).Union());
  };
  auto integer = [&](int64_t v) {
    return et_pte::CreateEValue(fbb, et_pte::KernelTypes::Int, et_pte::CreateInt(fbb, v).Union());
  };
  const std::vector<int32_t> act = {2, 3, 5};
  std::vector<flatbuffers::Offset<et_pte::EValue>> values = {
      tensor({2, 3, 4}, 0),  // 0 x
      tensor({5, 4}, 1),     // 1 w
      tensor({5}, 2),        // 2 b
      tensor(act, 0),        // 3 linear(x, w, b)
      dbl(2.0),              // 4
      dbl(0.5),              // 5
      tensor(act, 0),        // 6 add.Scalar_out(3, 2.0, alpha=0.5)
      integer(1),            // 7
      integer(2),            // 8
      tensor(act, 0),        // 9 sub.Scalar_out(6, 1, alpha=2)
      dbl(4.0),              // 10
      tensor(act, 0),        // 11 div.Scalar_out(9, 4.0)
      et_pte::CreateEValue(fbb, et_pte::KernelTypes::Null, et_pte::CreateNull(fbb).Union()),  // 12
      tensor(act, 0),                                                                         // 13 clone(11)
      et_pte::CreateEValue(fbb, et_pte::KernelTypes::String, et_pte::CreateStringDirect(fbb, "tanh").Union()),  // 14
      tensor(act, 0),  // 15 gelu(13, "tanh")
      tensor(act, 0),  // 16 linear(x, w, None)
  };
  const char* names[][2] = {{"aten::linear", "out"},     {"aten::add", "Scalar_out"}, {"aten::sub", "Scalar_out"},
                            {"aten::div", "Scalar_out"}, {"aten::clone", "out"},      {"aten::gelu", "out"}};
  std::vector<flatbuffers::Offset<et_pte::Operator>> ops;
  for (auto& n : names) ops.push_back(et_pte::CreateOperatorDirect(fbb, n[0], n[1]));
  auto call = [&](int op, const std::vector<int32_t>& args) {
    auto kc = et_pte::CreateKernelCallDirect(fbb, op, &args);
    return et_pte::CreateInstruction(fbb, et_pte::InstructionArguments::KernelCall, kc.Union());
  };
  std::vector<flatbuffers::Offset<et_pte::Instruction>> instructions = {
      call(0, {0, 1, 2, 3}), call(1, {3, 4, 5, 6}), call(2, {6, 7, 8, 9}),  call(3, {9, 10, 11}),
      call(4, {11, 12, 13}), call(5, {13, 14, 15}), call(0, {0, 1, 12, 16})};
  const std::vector<int32_t> inputs = {0}, outputs = {15, 16};
  std::vector<flatbuffers::Offset<et_pte::Chain>> chains = {
      et_pte::CreateChainDirect(fbb, &inputs, &outputs, &instructions)};
  std::vector<flatbuffers::Offset<et_pte::ExecutionPlan>> plans = {
      et_pte::CreateExecutionPlanDirect(fbb, "subgraph", 0, &values, &inputs, &outputs, &chains, &ops)};
  std::vector<float> w(20), b(5);
  for (int i = 0; i < 20; ++i) w[i] = 0.1f * static_cast<float>((i * 7) % 11) - 0.5f;
  for (int i = 0; i < 5; ++i) b[i] = 0.25f * static_cast<float>(i) - 0.5f;
  const std::vector<uint8_t> empty, wb(reinterpret_cast<uint8_t*>(w.data()), reinterpret_cast<uint8_t*>(w.data()) + 80),
      bb(reinterpret_cast<uint8_t*>(b.data()), reinterpret_cast<uint8_t*>(b.data()) + 20);
  std::vector<flatbuffers::Offset<et_pte::Buffer>> buffers = {et_pte::CreateBufferDirect(fbb, &empty),
                                                              et_pte::CreateBufferDirect(fbb, &wb),
                                                              et_pte::CreateBufferDirect(fbb, &bb)};
  fbb.Finish(et_pte::CreateProgramDirect(fbb, 0, &plans, &buffers), et_pte::ProgramIdentifier());
  std::vector<uint8_t> out(16 + fbb.GetSize());
  std::memcpy(out.data(), "ETCUDA01", 8);
  const uint64_t n = fbb.GetSize();
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 16, fbb.GetBufferPointer(), fbb.GetSize());
  return out;
}

int run_builtin() {
  using namespace executorch::extension;
  const std::vector<uint8_t> payload = builtin_payload();
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (payload.size() + 15) / 16 * 16 + 16)), std::free);
  std::memcpy(copy.get(), payload.data(), payload.size());
  executorch::runtime::FreeableBuffer buf(copy.get(), payload.size(), nullptr);
  executorch::runtime::BackendInitContext ctx(nullptr, nullptr, "forward", nullptr);
  auto handle = g_backend->init(ctx, &buf, {});
  if (!handle.ok()) {
    std::printf("FAIL built-in payload: init: %s\n", executorch::runtime::last_error_message());
    return 1;
  }
  std::vector<float> w(20), b(5);
  for (int i = 0; i < 20; ++i) w[i] = 0.1f * static_cast<float>((i * 7) % 11) - 0.5f;
  for (int i = 0; i < 5; ++i) b[i] = 0.25f * static_cast<float>(i) - 0.5f;
  int failed = 0;
  for (int batch : {2, 1}) {
    std::vector<float> x(static_cast<size_t>(batch) * 12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>((i * 5) % 9) - 1.f;
    std::vector<float> y1(30, -7.f), y2(30, -7.f);
    auto xt = make_tensor_ptr({batch, 3, 4}, x.data());
    auto t1 = make_tensor_ptr({2, 3, 5}, y1.data());
    auto t2 = make_tensor_ptr({2, 3, 5}, y2.data());
    executorch::runtime::EValue ex(xt), e1(t1), e2(t2);
    executorch::runtime::EValue* args[] = {&ex, &e1, &e2};
    executorch::runtime::BackendExecutionContext ectx;
    const Error e = g_backend->execute(ectx, *handle, executorch::runtime::Span<executorch::runtime::EValue*>(args, 3));
    if (e != Error::Ok) {
      std::printf("FAIL built-in payload batch %d: %s\n", batch, executorch::runtime::last_error_message());
      ++failed;
      continue;
    }
    double worst = 0;
    bool shapes = t1->size(0) == batch && t2->size(0) == batch && t1->dim() == 3 && t1->size(2) == 5;
    for (int r = 0; r < batch * 3; ++r) {
      for (int o = 0; o < 5; ++o) {
        double lin = 0;
        for (int k = 0; k < 4; ++k) lin += double(x[r * 4 + k]) * w[o * 4 + k];
        double v = ((lin + b[o] + 0.5 * 2.0) - 2.0 * 1.0) / 4.0;
        v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
        worst = std::max(worst, std::fabs(v - y1[r * 5 + o]));
        worst = std::max(worst, std::fabs(lin - y2[r * 5 + o]));
      }
    }
    const bool ok = shapes && worst < 1e-5;
    std::printf(
        "%s built-in payload (linear with/without bias, add/sub/div .Scalar_out, clone, gelu tanh), "
        "batch %d: max error %g\n",
        ok ? "ok  " : "FAIL", batch, worst);
    failed += ok ? 0 : 1;
  }
  g_backend->destroy(*handle);
  return failed;
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

int run_fixture(const std::string& pte_path, const std::string& dir) {
  using namespace executorch::extension;
  std::ifstream in(pte_path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (bytes.size() + 15) / 16 * 16 + 16)), std::free);
  std::memcpy(copy.get(), bytes.data(), bytes.size());
  module::Module mod(std::make_unique<BufferDataLoader>(copy.get(), bytes.size()));
  auto names = mod.method_names();
  if (!names.ok()) {
    std::printf("FAIL %s: cannot load: %s\n", pte_path.c_str(), executorch::runtime::last_error_message());
    return 1;
  }
  int failed = 0, cases = 0;
  const int calls_before = g_delegate_calls;
  for (const std::string& method : *names) {
    for (int c = 0;; ++c) {
      const std::string base = dir + "/" + method + "_case" + std::to_string(c);
      if (!exists(base + "_in0.npy") && !exists(base + "_out0.npy")) break;
      std::vector<executorch::runtime::EValue> inputs;
      std::vector<TensorPtr> keep;
      std::vector<executorch_tools::NpyArray> arrays;
      for (int k = 0; exists(base + "_in" + std::to_string(k) + ".npy"); ++k) {
        arrays.emplace_back();
        const std::string err = executorch_tools::read_npy(base + "_in" + std::to_string(k) + ".npy", &arrays.back());
        if (!err.empty()) {
          std::printf("FAIL %s: %s\n", base.c_str(), err.c_str());
          return 1;
        }
      }
      for (auto& a : arrays) {
        std::vector<executorch::aten::SizesType> sizes(a.shape.begin(), a.shape.end());
        keep.push_back(make_tensor_ptr(sizes, a.data.data(), {}, {}, a.dtype));
        inputs.emplace_back(keep.back());
      }
      auto result = mod.execute(method, inputs);
      ++cases;
      if (!result.ok()) {
        std::printf("FAIL %s %s case %d: %s\n", pte_path.c_str(), method.c_str(), c,
                    executorch::runtime::last_error_message());
        ++failed;
        continue;
      }
      for (size_t k = 0; k < result->size(); ++k) {
        executorch_tools::NpyArray want;
        const std::string err = executorch_tools::read_npy(base + "_out" + std::to_string(k) + ".npy", &want);
        if (!err.empty() || !(*result)[k].isTensor()) continue;
        const auto& t = (*result)[k].toTensor();
        bool shape_ok = static_cast<size_t>(t.dim()) == want.shape.size();
        for (size_t d = 0; shape_ok && d < want.shape.size(); ++d) shape_ok = t.size(d) == want.shape[d];
        if (!shape_ok) {
          std::printf("FAIL %s %s case %d output %zu: shape differs\n", pte_path.c_str(), method.c_str(), c, k);
          ++failed;
          continue;
        }
        if (t.scalar_type() != executorch::aten::ScalarType::Float) continue;
        const float* got = t.const_data_ptr<float>();
        const float* ref = reinterpret_cast<const float*>(want.data.data());
        double worst = 0;
        for (ssize_t i = 0; i < t.numel(); ++i) {
          const double diff = std::fabs(double(got[i]) - ref[i]) - 1e-4 * std::fabs(double(ref[i]));
          if (!(diff <= 1e-4)) worst = std::max(worst, std::isnan(diff) ? INFINITY : diff);
        }
        if (worst > 0) {
          std::printf("FAIL %s %s case %d output %zu: off by %g beyond atol=rtol=1e-4\n", pte_path.c_str(),
                      method.c_str(), c, k, worst);
          ++failed;
        }
      }
    }
  }
  if (g_backend == &g_emulated) {
    std::printf("%s %s: %d case(s), %d delegate call(s) emulated\n", failed ? "FAIL" : "ok  ", pte_path.c_str(), cases,
                g_delegate_calls - calls_before);
  } else {
    std::printf("%s %s: %d case(s) on the device\n", failed ? "FAIL" : "ok  ", pte_path.c_str(), cases);
  }
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  const bool device = argc > 1 && std::string(argv[1]) == "--device";
  if (device) first = 2;
  if ((argc - first) % 2 != 0) {
    std::fprintf(stderr, "usage: cuda_emulation_test [--device] [LOWERED.pte FIXTURE_DIR]...\n");
    return 2;
  }
  if (device) {
    // The real delegate: preload the CUDA runtime and cuBLAS it links (see cuda_backend_test), load it.
    const char* env = std::getenv("ET_CUDA_LIBRARY_DIR");
    const std::string dir = env && *env ? env : ET_CUDA_LIBRARY_DIR;
    for (const char* lib :
         {"libcudart.so." ET_CUDA_MAJOR, "libcublasLt.so." ET_CUDA_MAJOR, "libcublas.so." ET_CUDA_MAJOR}) {
      if (dlopen(lib, RTLD_NOW | RTLD_GLOBAL) == nullptr)
        (void)dlopen((dir + "/" + lib).c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
    if (executorch::runtime::load_component("cuda") != Error::Ok) {
      std::fprintf(stderr, "cannot load libexecutorch_cuda: %s\n", executorch::runtime::last_error_message());
      return 2;
    }
    g_backend = executorch::runtime::get_backend_class("CudaBackend");
    executorch::runtime::clear_last_error();
    if (g_backend == nullptr || !g_backend->is_available()) {
      std::fprintf(stderr, "CudaBackend is not available: %s\n", executorch::runtime::last_error_message());
      return 2;
    }
    std::printf("running on the device (libexecutorch_cuda)\n");
  } else if (executorch::runtime::register_backend({"CudaBackend", &g_emulated}) != Error::Ok) {
    std::fprintf(stderr, "cannot register the emulated CudaBackend\n");
    return 2;
  }
  int failed = run_builtin();
  for (int i = first; i + 1 < argc; i += 2) failed += run_fixture(argv[i], argv[i + 1]);
  std::printf("%s\n", failed ? "FAILED" : "all cases match");
  return failed ? 1 : 0;
}
