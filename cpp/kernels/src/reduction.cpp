// Reductions (sum, mean, amax, amin, any, argmax, argmin) and softmax / log_softmax.
#include "kernel_utils.h"
#include "ops.h"

#include <algorithm>

namespace etk {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

// Splits an input's dims into kept and reduced ones and drives a loop over the output with an inner loop
// over the reduced sub-space.
struct ReducePlan {
  Shape out_shape;
  Loop<2> outer;  // operands: out, in (over the kept dims)
  Loop<1> inner;  // operand: in (over the reduced dims)
};

bool make_plan(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
               bool all, bool keepdim, ReducePlan* p) {
  const int nd = static_cast<int>(in.dim());
  bool red[kMaxDim] = {};
  if (all) {
    for (int d = 0; d < nd; ++d) red[d] = true;
  } else {
    for (int64_t d : dims) {
      int64_t nd2;
      if (!norm_dim(d, nd, &nd2)) {
        fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range for a %d-d tensor", ll(d), nd);
        return false;
      }
      if (nd == 0) continue;
      if (red[nd2]) {
        fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is given more than once", ll(d));
        return false;
      }
      red[nd2] = true;
    }
  }
  Operand oin = operand_of(in);
  Shape& os = p->out_shape;
  os.ndim = 0;
  Operand kin = oin;  // kept view of in
  kin.ndim = 0;
  Operand rin = oin;  // reduced view of in
  rin.ndim = 0;
  Shape kshape, rshape;
  for (int d = 0; d < nd; ++d) {
    if (red[d]) {
      if (keepdim) os.d[os.ndim++] = 1;
      rin.sizes[rin.ndim] = oin.sizes[d];
      rin.strides[rin.ndim] = oin.strides[d];
      rshape.d[rin.ndim] = oin.sizes[d];
      rin.ndim++;
    } else {
      os.d[os.ndim++] = oin.sizes[d];
      kin.sizes[kin.ndim] = oin.sizes[d];
      kin.strides[kin.ndim] = oin.strides[d];
      kshape.d[kin.ndim] = oin.sizes[d];
      kin.ndim++;
    }
  }
  kshape.ndim = kin.ndim;
  rshape.ndim = rin.ndim;
  if (!resize_out(ctx, out, os)) return false;
  Operand oout = operand_of(out);
  Operand kout = oout;  // out restricted to kept dims
  kout.ndim = 0;
  for (int d = 0, j = 0; d < nd; ++d) {
    if (red[d]) {
      if (keepdim) ++j;
      continue;
    }
    kout.sizes[kout.ndim] = oout.sizes[j];
    kout.strides[kout.ndim] = oout.strides[j];
    kout.ndim++;
    ++j;
  }
  const Operand* ops2[2] = {&kout, &kin};
  const Operand* ops1[1] = {&rin};
  if (!p->outer.init(kshape, ops2) || !p->inner.init(rshape, ops1, /*reorder=*/false)) {
    fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is too large to reduce", shape_string(in).c_str());
    return false;
  }
  return true;
}

// Calls f(out_offset, reduce) for every output element, where reduce(g) calls g(in_offset) over the reduced
// sub-space (element offsets).
template <typename F>
void for_each_output(const ReducePlan& p, F f, int64_t work_per_out) {
  auto body = [&p, &f](int64_t n, const int64_t* off, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t oo = off[0] + i * st[0];
      const int64_t base = off[1] + i * st[1];
      auto reduce = [&p, base](auto&& g) {
        auto inner = [&g, base](int64_t m, const int64_t* o2, const int64_t* s2) {
          const int64_t b = base + o2[0];
          const int64_t s = s2[0];
          for (int64_t k = 0; k < m; ++k) g(b + k * s);
        };
        p.inner.run_range(0, p.inner.numel, inner);
      };
      f(oo, reduce);
    }
  };
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, work_per_out));
  p.outer.run(body, grain);
}

bool dims_arg(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* dims, bool* all) {
  bool has = false;
  if (!arg_opt_int_list(ctx, args, i, dims, &has)) return false;
  *all = !has || dims->empty();
  return true;
}

// Floating sums accumulate as upstream's portable kernels do, so that outputs (and so the values a quantized
// program requantizes) are bit for bit upstream's: in the output's type (float for Float, Half and BFloat16
// outputs, double for Double), element by element in the order of the reduced index space, a mean dividing the sum
// by the count in that type.
template <typename Acc>
Acc mean_of(Acc sum, int64_t count) {
  return count > 0 ? sum / static_cast<Acc>(count) : std::numeric_limits<Acc>::quiet_NaN();
}

// Fast path for a contiguous float input reduced over a trailing block of dims (e.g. the last dim, or H and W of
// NCHW) into a contiguous float output: plain row sums. Returns false (having done nothing) when it does not
// apply; true when it ran or failed ctx.
bool sum_trailing_float(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out,
                        const std::vector<int64_t>& dims, bool all, bool keepdim, bool mean) {
  const int nd = static_cast<int>(in.dim());
  if (nd == 0 || !is_contiguous(in)) return false;
  bool red[kMaxDim] = {};
  if (all) {
    for (int d = 0; d < nd; ++d) red[d] = true;
  } else {
    for (int64_t d : dims) {
      int64_t k;
      if (!norm_dim(d, nd, &k) || red[k]) return false;  // the general path reports it
      red[k] = true;
    }
  }
  int d0 = nd;
  while (d0 > 0 && red[d0 - 1]) --d0;
  for (int d = 0; d < d0; ++d)
    if (red[d]) return false;
  if (d0 == nd) return false;
  Shape os;
  int64_t outer = 1, R = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < d0) {
      os.d[os.ndim++] = in.size(d);
      outer *= in.size(d);
    } else {
      if (keepdim) os.d[os.ndim++] = 1;
      R *= in.size(d);
    }
  }
  if (out.dim() != os.ndim) return false;
  if (!resize_out(ctx, out, os)) return true;
  if (!is_contiguous(out)) return false;
  if (outer == 0) return true;
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  auto body = [=](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const float* r = x + o * R;
      float acc = 0;
      for (int64_t k = 0; k < R; ++k) acc += r[k];
      y[o] = mean ? mean_of(acc, R) : acc;
    }
  };
  if (outer * R <= kParallelGrain)
    body(0, outer);
  else
    ::executorch::extension::parallel_for(0, outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, R)),
                                          body);
  return true;
}

// sum / mean over dims.
void sum_mean(KernelRuntimeContext& ctx, Args args, bool mean) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false, has_dt = false;
  ScalarType dt;
  if (!dims_arg(ctx, args, 1, &dims, &all) || !arg_bool(ctx, args, 2, &keepdim) ||
      !arg_opt_dtype(ctx, args, 3, &dt, &has_dt))
    return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  const ScalarType it = in->scalar_type(), ot = out->scalar_type();
  if (!is_supported_dtype(it) || !is_supported_dtype(ot))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: not supported", dtype_name(it),
                dtype_name(ot));
  if (has_dt && dt != ot)
    return fail(ctx, Error::InvalidType, "argument 3 (dtype) is %s, the output %s: expected the same", dtype_name(dt),
                dtype_name(ot));
  if (mean && !is_floating(ot))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, mean needs Float or Double", dtype_name(ot));
  if (it == ScalarType::Float && ot == ScalarType::Float &&
      sum_trailing_float(ctx, *in, *out, dims, all, keepdim, mean))
    return;
  ReducePlan p;
  if (!make_plan(ctx, *in, *out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const int64_t ies = in->element_size(), oes = out->element_size();
  const int64_t count = p.inner.numel;
  if (!is_floating(ot)) {
    // An integer sum adds the elements converted to integers (a floating input's fractions drop per element).
    const bool from_float = is_floating(it);
    for_each_output(
        p,
        [=](int64_t oo, auto reduce) {
          uint64_t acc = 0;
          reduce([&](int64_t off) {
            const char* e = ib + off * ies;
            acc +=
                static_cast<uint64_t>(from_float ? sat_cast<int64_t>(load_as<double>(e, it)) : load_as<int64_t>(e, it));
          });
          store_as<int64_t>(ob + oo * oes, ot, static_cast<int64_t>(acc));
        },
        count);
    return;
  }
  auto floating = [&](auto zero) {
    using Acc = decltype(zero);
    if (it == ScalarType::Float) {
      const float* fb = reinterpret_cast<const float*>(ib);
      for_each_output(
          p,
          [=](int64_t oo, auto reduce) {
            Acc acc = 0;
            reduce([&](int64_t off) { acc += fb[off]; });
            store_as<Acc>(ob + oo * oes, ot, mean ? mean_of(acc, count) : acc);
          },
          count);
      return;
    }
    for_each_output(
        p,
        [=](int64_t oo, auto reduce) {
          Acc acc = 0;
          reduce([&](int64_t off) { acc += load_as<Acc>(ib + off * ies, it); });
          store_as<Acc>(ob + oo * oes, ot, mean ? mean_of(acc, count) : acc);
        },
        count);
  };
  if (ot == ScalarType::Double)
    floating(0.0);
  else
    floating(0.f);
}

template <typename T>
inline bool nan_of(T v) {
  if constexpr (std::is_floating_point<T>::value)
    return v != v;
  else
    return false;
}

// amax / amin.
void amax_amin(KernelRuntimeContext& ctx, Args args, bool is_max) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false;
  if (!dims_arg(ctx, args, 1, &dims, &all) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  ReducePlan p;
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, not supported", dtype_name(t));
  if (!make_plan(ctx, *in, *out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  auto run = [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* ob = out->mutable_data_ptr<T>();
    for_each_output(
        p,
        [=](int64_t oo, auto reduce) {
          bool first = true;
          T best = T(0);
          reduce([&](int64_t off) {
            const T v = ib[off];
            if (first || nan_of(v) || (!nan_of(best) && (is_max ? v > best : v < best))) best = v;
            first = false;
          });
          ob[oo] = best;
        },
        p.inner.numel);
  };
  if (t == ScalarType::Bool) {
    run(uint8_t{});
  } else {
    dispatch_numeric(t, run);
  }
}

// argmax / argmin (dim optional: flatten).
void argmax_argmin(KernelRuntimeContext& ctx, Args args, bool is_max) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim = 0;
  bool has_dim = false, keepdim = false;
  if (!arg_opt_int(ctx, args, 1, &dim, &has_dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (out->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType, "the output has dtype %s, expected Long", dtype_name(out->scalar_type()));
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t) || t == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, expected a numeric non-Bool dtype", dtype_name(t));
  if (in->numel() == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is empty", shape_string(*in).c_str());
  ReducePlan p;
  std::vector<int64_t> dims;
  if (has_dim) dims.push_back(dim);
  if (!has_dim && keepdim) {
    // keepdim with dim=None keeps every dim as 1.
    if (!make_plan(ctx, *in, *out, dims, true, true, &p)) return;
  } else if (!make_plan(ctx, *in, *out, dims, !has_dim, keepdim, &p)) {
    return;
  }
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  // The reduced loop runs in logical order (no reordering), so counting calls gives the logical index.
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    int64_t* ob = out->mutable_data_ptr<int64_t>();
    for_each_output(
        p,
        [=](int64_t oo, auto reduce) {
          bool first = true;
          T best = T(0);
          int64_t bi = 0, k = 0;
          reduce([&](int64_t off) {
            const T v = ib[off];
            if (first || (!nan_of(best) && (nan_of(v) || (is_max ? v > best : v < best)))) {
              best = v;
              bi = k;
            }
            first = false;
            ++k;
          });
          ob[oo] = bi;
        },
        p.inner.numel);
  });
}

// any over dims.
void any_impl(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
              bool all, bool keepdim) {
  const ScalarType it = in.scalar_type(), ot = out.scalar_type();
  if (!is_supported_dtype(it) || !is_supported_dtype(ot))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: not supported", dtype_name(it),
                dtype_name(ot));
  ReducePlan p;
  if (!make_plan(ctx, in, out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  const char* ib = static_cast<const char*>(in.const_data_ptr());
  char* ob = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ies = in.element_size(), oes = out.element_size();
  for_each_output(
      p,
      [=](int64_t oo, auto reduce) {
        bool acc = false;
        if (is_floating(it)) {
          reduce([&](int64_t off) { acc = acc || load_as<double>(ib + off * ies, it) != 0.0; });
        } else {
          reduce([&](int64_t off) { acc = acc || load_as<int64_t>(ib + off * ies, it) != 0; });
        }
        store_as<int64_t>(ob + oo * oes, ot, acc ? 1 : 0);
      },
      p.inner.numel);
}

// softmax / log_softmax along one dim.
void softmax_impl(KernelRuntimeContext& ctx, Args args, bool log) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim;
  bool half_to_float;
  if (!arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &half_to_float)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (half_to_float)
    return fail(ctx, Error::NotSupported, "half_to_float (argument 2) is true, which is not supported");
  const ScalarType t = in->scalar_type();
  if (!is_floating(t) || out->scalar_type() != t)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected Float or Double, the same",
                dtype_name(t), dtype_name(out->scalar_type()));
  int64_t d;
  if (!norm_dim(dim, in->dim(), &d))
    return fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range for a %d-d tensor", ll(dim),
                static_cast<int>(in->dim()));
  const Shape shape = shape_of(*in);
  if (!resize_out(ctx, *out, shape)) return;
  if (in->numel() == 0) return;
  Operand oi = operand_of(*in), oo = operand_of(*out);
  int64_t len = 1, si = 0, so = 0;
  if (in->dim() > 0) {
    len = oi.sizes[d];
    si = oi.strides[d];
    so = oo.strides[d];
    // View the dim as size 1 for the outer loop.
    oi.sizes[d] = 1;
    oo.sizes[d] = 1;
  }
  Shape outer = shape;
  if (outer.ndim > 0) outer.d[d] = 1;
  Loop<2> L;
  const Operand* ops[2] = {&oo, &oi};
  if (!L.init(outer, ops))
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is too large", shape_string(*in).c_str());
  dispatch_float(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* ob = out->mutable_data_ptr<T>();
    auto body = [=](int64_t n, const int64_t* off, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const T* x = ib + off[1] + i * st[1];
        T* y = ob + off[0] + i * st[0];
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, x[k * si]);
        if (mx != mx) mx = 0;  // NaN input: the NaN propagates through the sum anyway
        if (std::isinf(mx)) mx = 0;
        double sum = 0;
        if (log) {
          for (int64_t k = 0; k < len; ++k) sum += std::exp(static_cast<double>(x[k * si] - mx));
          const T ls = static_cast<T>(std::log(sum));
          for (int64_t k = 0; k < len; ++k) y[k * so] = x[k * si] - mx - ls;
        } else {
          for (int64_t k = 0; k < len; ++k) {
            const T e = std::exp(x[k * si] - mx);
            y[k * so] = e;
            sum += e;
          }
          const T inv = static_cast<T>(1.0 / sum);
          for (int64_t k = 0; k < len; ++k) y[k * so] *= inv;
        }
      }
    };
    L.run(body, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, len)));
  });
}

// var over dims with a correction (Bessel's correction = 1).
void var_impl(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
              bool all, bool keepdim, double correction) {
  const ScalarType it = in.scalar_type(), ot = out.scalar_type();
  if (!is_floating(it) || !is_floating(ot))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected Float or Double",
                dtype_name(it), dtype_name(ot));
  ReducePlan p;
  if (!make_plan(ctx, in, out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  const char* ib = static_cast<const char*>(in.const_data_ptr());
  char* ob = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ies = in.element_size(), oes = out.element_size();
  const int64_t count = p.inner.numel;
  const double denom = std::max(0.0, static_cast<double>(count) - correction);
  for_each_output(
      p,
      [=](int64_t oo, auto reduce) {
        double sum = 0;
        reduce([&](int64_t off) { sum += load_as<double>(ib + off * ies, it); });
        const double mean = sum / static_cast<double>(count);
        double ss = 0;
        reduce([&](int64_t off) {
          const double dv = load_as<double>(ib + off * ies, it) - mean;
          ss += dv * dv;
        });
        store_as<double>(ob + oo * oes, ot, count == 0 ? std::numeric_limits<double>::quiet_NaN() : ss / denom);
      },
      2 * count);
}

// max.dim_max / min.dim_min: values and indices along one dim.
void max_min_dim(KernelRuntimeContext& ctx, Args args, bool is_max) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  bool keepdim;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* vals = arg_tensor(ctx, args, 3);
  const Tensor* idxs = vals ? arg_tensor(ctx, args, 4) : nullptr;
  if (!idxs) return;
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t) || t == ScalarType::Bool || vals->scalar_type() != t ||
      idxs->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType,
                "self, values, indices (arguments 0, 3, 4) have dtypes %s, %s, %s; expected numeric, the same, Long",
                dtype_name(t), dtype_name(vals->scalar_type()), dtype_name(idxs->scalar_type()));
  ReducePlan p;
  if (!make_plan(ctx, *in, *vals, {dim}, false, keepdim, &p)) return;
  if (!resize_out(ctx, *idxs, p.out_shape)) return;
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  // The indices output may have another dim order than the values: map value offsets to index offsets
  // through a second plan over the same input.
  ReducePlan pi;
  if (!make_plan(ctx, *in, *idxs, {dim}, false, keepdim, &pi)) return;
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* vb = vals->mutable_data_ptr<T>();
    int64_t* xb = idxs->mutable_data_ptr<int64_t>();
    auto pick = [=](auto reduce, T* best_out, int64_t* idx_out) {
      bool first = true;
      T best = T(0);
      int64_t bi = 0, k = 0;
      reduce([&](int64_t off) {
        const T v = ib[off];
        if (first || (!nan_of(best) && (nan_of(v) || (is_max ? v > best : v < best)))) {
          best = v;
          bi = k;
        }
        first = false;
        ++k;
      });
      if (best_out) *best_out = best;
      if (idx_out) *idx_out = bi;
    };
    for_each_output(p, [=](int64_t oo, auto reduce) { pick(reduce, vb + oo, nullptr); }, p.inner.numel);
    for_each_output(pi, [=](int64_t oo, auto reduce) { pick(reduce, nullptr, xb + oo); }, pi.inner.numel);
  });
}

}  // namespace

// var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False,
//                    Tensor(a!) out)
void var_correction_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false, has_c = false;
  Scalar c;
  if (!dims_arg(ctx, args, 1, &dims, &all) || !arg_opt_scalar(ctx, args, 2, &c, &has_c) ||
      !arg_bool(ctx, args, 3, &keepdim))
    return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  var_impl(ctx, *in, *out, dims, all, keepdim, has_c ? c.to_double() : 1.0);
}

// var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out)
void var_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false, unbiased = true;
  if (!dims_arg(ctx, args, 1, &dims, &all) || !arg_bool(ctx, args, 2, &unbiased) || !arg_bool(ctx, args, 3, &keepdim))
    return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  var_impl(ctx, *in, *out, dims, all, keepdim, unbiased ? 1.0 : 0.0);
}

void max_dim_max(KernelRuntimeContext& ctx, Args args) { max_min_dim(ctx, args, true); }
void min_dim_min(KernelRuntimeContext& ctx, Args args) { max_min_dim(ctx, args, false); }

void sum_intlist_out(KernelRuntimeContext& ctx, Args args) { sum_mean(ctx, args, false); }
void mean_out(KernelRuntimeContext& ctx, Args args) { sum_mean(ctx, args, true); }
void amax_out(KernelRuntimeContext& ctx, Args args) { amax_amin(ctx, args, true); }
void amin_out(KernelRuntimeContext& ctx, Args args) { amax_amin(ctx, args, false); }
void argmax_out(KernelRuntimeContext& ctx, Args args) { argmax_argmin(ctx, args, true); }
void argmin_out(KernelRuntimeContext& ctx, Args args) { argmax_argmin(ctx, args, false); }

// any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
void any_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim;
  bool keepdim;
  if (!arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  any_impl(ctx, *in, *out, std::vector<int64_t>{dim}, false, keepdim);
}
// any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
void any_dims_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false;
  if (!dims_arg(ctx, args, 1, &dims, &all) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  any_impl(ctx, *in, *out, dims, all, keepdim);
}
// any.all_out(Tensor self, *, Tensor(a!) out)
void any_all_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  any_impl(ctx, *in, *out, {}, true, false);
}

void softmax_out(KernelRuntimeContext& ctx, Args args) { softmax_impl(ctx, args, false); }
void log_softmax_out(KernelRuntimeContext& ctx, Args args) { softmax_impl(ctx, args, true); }

}  // namespace etk
