// CudaBackend's execution logic, independent of the device API: plans shapes from the actual inputs, grows the
// per-value buffers (kept across calls), copies inputs in, runs every kernel call, resizes the outer outputs and
// copies them back. `Dev` supplies the device operations; backend.cpp instantiates it with the CUDA runtime and
// cuBLAS, the tests with a host emulation of the same operations (so the planning and the cuBLAS argument mapping
// are checked against reference outputs on machines without a GPU).
//
// Dev must provide (each returns Error::Ok or an error with the reason set via set_last_error):
//   alloc(float** p, int64_t n) / release(float* p)
//   h2d(float* dst, const void* src, size_t bytes), d2h(void* dst, const float* src, size_t bytes),
//   d2d(float* dst, const float* src, size_t bytes), zero(float* p, size_t bytes)
//   binary(Fn, alpha, out, a, b, b_is_scalar, scalar, const BinaryDesc&)     (Fn: an ETCUDA_BINARY_FN of ops.def)
//   unary(Fn, lo, hi, out, in, n)                                            (Fn: an ETCUDA_UNARY_FN of ops.def)
//   softmax(out, in, outer, len, inner, log)
//   layer_norm(out, mean, rstd, in, w, b, rows, cols, eps)
//   copy(dst, src, const CopyDesc&)
//   sgemm(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)                (cuBLAS/BLAS semantics)
//   sgemm_strided_batched(trans_a, trans_b, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch)
//   finish(): waits for everything enqueued; returns the first asynchronous error
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include "descs.h"
#include "graph.h"

namespace etcuda {

using executorch::runtime::EValue;
using executorch::runtime::Span;

struct State {
  Graph graph;
  Plan plan;
  std::vector<float*> buf;   // per value: device buffer (constants: uploaded at init)
  std::vector<int64_t> cap;  // per value: capacity in elements
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<executorch::aten::SizesType> sizes_tmp;
};

template <class Dev>
void release_all(Dev& dev, State& s) {
  for (float*& p : s.buf) {
    if (p != nullptr) dev.release(p);
    p = nullptr;
  }
}

template <class Dev>
Error ensure(Dev& dev, State& s, int32_t v, int64_t n) {
  if (n < 1) n = 1;
  if (s.buf[v] != nullptr && s.cap[v] >= n) return Error::Ok;
  if (s.buf[v] != nullptr) {
    dev.release(s.buf[v]);
    s.buf[v] = nullptr;
    s.cap[v] = 0;
  }
  float* p = nullptr;
  if (Error e = dev.alloc(&p, n); e != Error::Ok) return e;
  s.buf[v] = p;
  s.cap[v] = n;
  return Error::Ok;
}

// Copies every constant to the device; afterwards the graph no longer refers to the payload.
template <class Dev>
Error upload_constants(Dev& dev, State& s) {
  const size_t nv = s.graph.values.size();
  s.buf.assign(nv, nullptr);
  s.cap.assign(nv, 0);
  for (size_t v = 0; v < nv; ++v) {
    Value& val = s.graph.values[v];
    if (!val.constant) continue;
    const int64_t n = numel_of(val.sizes);
    if (Error e = ensure(dev, s, static_cast<int32_t>(v), n); e != Error::Ok) return e;
    if (n > 0) {
      if (Error e = dev.h2d(s.buf[v], val.data, static_cast<size_t>(n) * sizeof(float)); e != Error::Ok) return e;
    }
    val.data = nullptr;  // points into the payload, which is freed after init
  }
  if (Error e = dev.finish(); e != Error::Ok) return e;
  s.graph.storage.clear();
  s.graph.storage.shrink_to_fit();
  return Error::Ok;
}

template <class Dev>
Error run_copy(Dev& dev, State& s, const Copy& c) {
  const CopyDesc& d = c.desc;
  if (d.n <= 0) return Error::Ok;
  float* dst = s.buf[c.dst] + c.dst_offset;
  const float* src = s.buf[c.src] + c.src_offset;
  if (d.ndim == 1 && d.src_stride[0] == 1 && d.dst_stride[0] == 1) {
    return dev.d2d(dst, src, static_cast<size_t>(d.n) * sizeof(float));
  }
  return dev.copy(dst, src, d);
}

// ---- the launchers of ops.def: each runs one planned call

template <class Dev>
Error run_copies(Dev& dev, State& s, const StepPlan& sp) {
  for (const Copy& c : sp.copies) {
    if (Error e = run_copy(dev, s, c); e != Error::Ok) return e;
  }
  return Error::Ok;
}

template <class Dev>
Error run_gemm(Dev& dev, State& s, const StepPlan& sp) {
  if (Error e = run_copies(dev, s, sp); e != Error::Ok) return e;
  const int64_t total = sp.m * sp.n * sp.batch;
  if (total == 0) return Error::Ok;
  float* C = s.buf[sp.out];
  if (sp.k == 0) {
    // An empty sum: out = beta * prefill (or zeros).
    if (sp.copies.empty()) return dev.zero(C, static_cast<size_t>(total) * sizeof(float));
    if (sp.beta != 1.f) {
      BinaryDesc d;
      d.ndim = 1, d.n = total, d.size[0] = total, d.a_stride[0] = 1;
      return dev.binary(Fn::Mul, 1.f, C, C, nullptr, true, sp.beta, d);
    }
    return Error::Ok;
  }
  // Row-major C[m][n] = A[m][k] @ B is column-major C^T = B^T @ A^T: swap the operands, keep the leading dims.
  const int m = static_cast<int>(sp.m), n = static_cast<int>(sp.n), k = static_cast<int>(sp.k);
  const float* A = s.buf[sp.a];
  const float* B = s.buf[sp.b];
  if (sp.b_transposed) {
    // linear: B is the weight, row-major [n][k] = column-major [k][n] with ld k; transposed it is the n x k operand.
    return dev.sgemm(true, false, n, m, k, sp.alpha, B, k, A, k, sp.beta, C, n);
  }
  if (sp.batch == 1) return dev.sgemm(false, false, n, m, k, sp.alpha, B, n, A, k, sp.beta, C, n);
  return dev.sgemm_strided_batched(false, false, n, m, k, sp.alpha, B, n, sp.k * sp.n, A, k, sp.m * sp.k, sp.beta, C, n,
                                   sp.m * sp.n, static_cast<int>(sp.batch));
}

template <class Dev>
Error run_binary(Dev& dev, State& s, const StepPlan& sp) {
  return dev.binary(sp.fn, sp.alpha, s.buf[sp.out], s.buf[sp.a], sp.b_scalar ? nullptr : s.buf[sp.b], sp.b_scalar,
                    sp.scalar, sp.bin);
}

template <class Dev>
Error run_unary(Dev& dev, State& s, const StepPlan& sp) {
  return dev.unary(sp.fn, sp.lo, sp.hi, s.buf[sp.out], s.buf[sp.a], sp.numel);
}

template <class Dev>
Error run_softmax(Dev& dev, State& s, const StepPlan& sp) {
  return dev.softmax(s.buf[sp.out], s.buf[sp.a], sp.outer, sp.len, sp.inner, sp.log);
}

template <class Dev>
Error run_layer_norm(Dev& dev, State& s, const StepPlan& sp) {
  return dev.layer_norm(s.buf[sp.out], s.buf[sp.mean], s.buf[sp.rstd], s.buf[sp.a],
                        sp.weight >= 0 ? s.buf[sp.weight] : nullptr, sp.bias >= 0 ? s.buf[sp.bias] : nullptr, sp.outer,
                        sp.len, sp.eps);
}

// Kernel call si with its operator's launcher (ops.def).
template <class Dev>
Error run_step(Dev& dev, State& s, size_t si) {
  const StepPlan& sp = s.plan.steps[si];
  switch (s.graph.steps[si].op) {
#define ETCUDA_OP(Id, name, arguments, shape_rule, launcher, function) \
  case Op::Id: return run_##launcher(dev, s, sp);
#include "ops.def"
  }
  return ETCUDA_FAIL(Error::Internal, "operator %d has no launcher", static_cast<int>(s.graph.steps[si].op));
}

inline bool contiguous_dim_order(const executorch::aten::Tensor& t) {
  const auto order = t.dim_order();
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] != k) return false;
  }
  return true;
}

// args: the DelegateCall's arguments, [inputs..., outputs...] in the payload's input/output order.
template <class Dev>
Error execute_state(Dev& dev, State& s, Span<EValue*> args) {
  const Graph& g = s.graph;
  const size_t ni = g.inputs.size(), no = g.outputs.size();
  if (args.size() != ni + no) {
    return ETCUDA_FAIL(Error::InvalidArgument,
                       "the delegate call has %zu arguments, the payload takes %zu inputs and "
                       "%zu outputs",
                       args.size(), ni, no);
  }
  s.input_shapes.resize(ni);
  for (size_t i = 0; i < ni + no; ++i) {
    if (args[i] == nullptr || !args[i]->isTensor()) {
      return ETCUDA_FAIL(Error::InvalidArgument, "delegate argument %zu is not a tensor", i);
    }
    const executorch::aten::Tensor& t = args[i]->toTensor();
    if (t.scalar_type() != executorch::aten::ScalarType::Float) {
      return ETCUDA_FAIL(Error::InvalidType, "delegate argument %zu is not an fp32 tensor", i);
    }
    if (!contiguous_dim_order(t)) {
      return ETCUDA_FAIL(Error::NotSupported, "delegate argument %zu is not in contiguous dim order", i);
    }
    if (i < ni) s.input_shapes[i].assign(t.sizes().begin(), t.sizes().end());
  }
  if (Error e = make_plan(g, s.input_shapes, &s.plan); e != Error::Ok) return e;

  // Buffers for everything fed in or written in this call.
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind != Kind::Tensor || val.constant || !(val.input || val.written)) continue;
    if (Error e = ensure(dev, s, static_cast<int32_t>(v), numel_of(s.plan.shapes[v])); e != Error::Ok) return e;
  }
  Error err = Error::Ok;
  for (size_t i = 0; i < ni && err == Error::Ok; ++i) {
    const size_t bytes = static_cast<size_t>(numel_of(s.input_shapes[i])) * sizeof(float);
    if (bytes > 0) err = dev.h2d(s.buf[g.inputs[i]], args[i]->toTensor().const_data_ptr(), bytes);
  }
  for (size_t si = 0; si < g.steps.size() && err == Error::Ok; ++si) {
    err = run_step(dev, s, si);
    if (err != Error::Ok) {
      const std::string why = executorch::runtime::last_error_message();
      err = ETCUDA_FAIL(err, "kernel call %zu (%s): %s", si, g.steps[si].name.c_str(), why.c_str());
    }
  }
  for (size_t j = 0; j < no && err == Error::Ok; ++j) {
    const int32_t v = g.outputs[j];
    const std::vector<int64_t>& shape = s.plan.shapes[v];
    executorch::aten::Tensor& t = args[ni + j]->toTensor();
    s.sizes_tmp.clear();
    for (int64_t d : shape) {
      if (d > std::numeric_limits<executorch::aten::SizesType>::max()) {
        err = ETCUDA_FAIL(Error::InvalidArgument, "output %zu: size %lld does not fit a tensor size", j,
                          static_cast<long long>(d));
        break;
      }
      s.sizes_tmp.push_back(static_cast<executorch::aten::SizesType>(d));
    }
    if (err != Error::Ok) break;
    err = executorch::runtime::resize_tensor(
        t, executorch::runtime::ArrayRef<executorch::aten::SizesType>(s.sizes_tmp.data(), s.sizes_tmp.size()));
    if (err != Error::Ok) {
      const std::string why = executorch::runtime::last_error_message();
      err = ETCUDA_FAIL(err, "output %zu: cannot resize the output tensor to the computed shape: %s", j, why.c_str());
      break;
    }
    const size_t bytes = static_cast<size_t>(numel_of(shape)) * sizeof(float);
    if (bytes > 0) err = dev.d2h(t.mutable_data_ptr(), s.buf[v], bytes);
  }
  // Always drain the queue (the host buffers must not be touched after we return), keep the first error.
  const Error fin = dev.finish();
  return err != Error::Ok ? err : fin;
}

}  // namespace etcuda
