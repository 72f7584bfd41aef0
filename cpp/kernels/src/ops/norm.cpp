// Normalization: batch norm (inference form) and layer norm.
#include "kernel_utils.h"

#include <algorithm>

namespace etk {
namespace {

// Fails naming the first (schema index, tensor) pair whose tensor is present and not Float.
void fail_not_float(KernelRuntimeContext& ctx, std::initializer_list<std::pair<int, const Tensor*>> ts) {
  for (const auto& [i, t] : ts)
    if (t && t->scalar_type() != ScalarType::Float)
      return fail(ctx, Error::InvalidType, "argument %d has dtype %s, expected Float", i, dtype_name(t->scalar_type()));
  fail(ctx, Error::InvalidType, "a tensor argument is not Float");
}

// Reads a 1-D per-channel parameter of length C into doubles (dflt when absent).
bool channel_param(KernelRuntimeContext& ctx, const Tensor* t, int argi, int64_t C, double dflt,
                   std::vector<double>* v) {
  v->assign(static_cast<size_t>(C), dflt);
  if (!t) return true;
  if (t->numel() != C || t->dim() != 1) {
    fail(ctx, Error::InvalidArgument, "argument %d has shape %s, expected [%lld] (the input's channels)", argi,
         shape_string(*t).c_str(), ll(C));
    return false;
  }
  if (!is_supported_dtype(t->scalar_type())) {
    fail(ctx, Error::InvalidType, "argument %d has dtype %s, not supported", argi, dtype_name(t->scalar_type()));
    return false;
  }
  const char* p = static_cast<const char*>(t->const_data_ptr());
  const int64_t s = t->strides()[0], es = t->element_size();
  for (int64_t c = 0; c < C; ++c) (*v)[static_cast<size_t>(c)] = load_as<double>(p + c * s * es, t->scalar_type());
  return true;
}

void empty_stat(KernelRuntimeContext& ctx, const Tensor& t) {
  // save_mean / save_invstd are empty in the inference form.
  if (t.dim() == 1) {
    Shape s;
    s.ndim = 1;
    s.d[0] = 0;
    resize_out(ctx, t, s);
  }
}

}  // namespace

ET_KERNEL_OP("aten::_native_batch_norm_legit_no_training.out", native_batch_norm_legit_no_training_out,
             "(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, "
             "float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))")
void native_batch_norm_legit_no_training_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 10)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  if (!x) return;
  const Tensor *w = nullptr, *b = nullptr;
  if (!arg_opt_tensor(ctx, args, 1, &w) || !arg_opt_tensor(ctx, args, 2, &b)) return;
  const Tensor* rm = arg_tensor(ctx, args, 3);
  const Tensor* rv = rm ? arg_tensor(ctx, args, 4) : nullptr;
  if (!rv) return;
  double momentum, eps;
  if (!arg_double(ctx, args, 5, &momentum) || !arg_double(ctx, args, 6, &eps)) return;
  const Tensor* out = arg_tensor(ctx, args, 7);
  const Tensor* o1 = out ? arg_tensor(ctx, args, 8) : nullptr;
  const Tensor* o2 = o1 ? arg_tensor(ctx, args, 9) : nullptr;
  if (!o2) return;
  const ScalarType t = x->scalar_type();
  if (!is_floating(t) || out->scalar_type() != t)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected Float or Double, the same",
                dtype_name(t), dtype_name(out->scalar_type()));
  if (x->dim() < 2)
    return fail(ctx, Error::InvalidArgument, "argument 0 (input) has shape %s, expected at least 2-d",
                shape_string(*x).c_str());
  const int64_t C = x->size(1);
  std::vector<double> wv, bv, mv, vv;
  if (!channel_param(ctx, w, 1, C, 1.0, &wv) || !channel_param(ctx, b, 2, C, 0.0, &bv) ||
      !channel_param(ctx, rm, 3, C, 0.0, &mv) || !channel_param(ctx, rv, 4, C, 1.0, &vv))
    return;
  const Shape s = shape_of(*x);
  if (!resize_out(ctx, *out, s)) return;
  empty_stat(ctx, *o1);
  empty_stat(ctx, *o2);
  if (ctx.failure_state() != Error::Ok) return;
  if (x->numel() == 0) return;
  dispatch_float(t, [&](auto z) {
    using T = decltype(z);
    std::vector<T> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      const size_t k = static_cast<size_t>(c);
      const double sc = wv[k] / std::sqrt(vv[k] + eps);
      scale[k] = static_cast<T>(sc);
      shift[k] = static_cast<T>(bv[k] - mv[k] * sc);
    }
    // Per-channel operands viewed as [C, 1, ..., 1] so they broadcast against [N, C, ...].
    Operand os, oh;
    os.dtype = oh.dtype = t;
    os.esize = oh.esize = static_cast<int64_t>(sizeof(T));
    os.data = reinterpret_cast<char*>(scale.data());
    oh.data = reinterpret_cast<char*>(shift.data());
    os.ndim = oh.ndim = s.ndim - 1;
    for (int d = 0; d < s.ndim - 1; ++d) {
      os.sizes[d] = oh.sizes[d] = d == 0 ? C : 1;
      os.strides[d] = oh.strides[d] = d == 0 ? 1 : 0;
    }
    Operand ox = operand_of(*x), oo = operand_of(*out);
    const Operand* ops[4] = {&oo, &ox, &os, &oh};
    Loop<4> L;
    if (!L.init(s, ops))
      return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is too large", shape_string(*x).c_str());
    T* ob = reinterpret_cast<T*>(oo.data);
    const T* xb = reinterpret_cast<const T*>(ox.data);
    const T* sb = scale.data();
    const T* hb = shift.data();
    L.run([=](int64_t n, const int64_t* off, const int64_t* st) {
      T* o = ob + off[0];
      const T* xi = xb + off[1];
      if (st[2] == 0 && st[3] == 0) {
        const T a = sb[off[2]], c = hb[off[3]];
        if (st[0] == 1 && st[1] == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = xi[i] * a + c;
        } else {
          for (int64_t i = 0; i < n; ++i) o[i * st[0]] = xi[i * st[1]] * a + c;
        }
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = xi[i * st[1]] * sb[off[2] + i * st[2]] + hb[off[3] + i * st[3]];
      }
    });
  });
}

// The sum of f(x[i]) in double, in 8 partial lanes (so the loop vectorizes; no reassociation needed).
template <typename F>
double lane_sum(const float* x, int64_t n, F f) {
  constexpr int64_t kLanes = 8;
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) lane[k] += f(static_cast<double>(x[i + k]));
  double sum = 0;
  for (; i < n; ++i) sum += f(static_cast<double>(x[i]));
  for (int64_t k = 0; k < kLanes; ++k) sum += lane[k];
  return sum;
}

ET_KERNEL_OP("aten::native_layer_norm.out", native_layer_norm_out,
             "(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps, *, Tensor(a!) out0, "
             "Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))")
void native_layer_norm_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 8)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  std::vector<int64_t> ns;
  if (!x || !arg_int_list(ctx, args, 1, &ns)) return;
  const Tensor *w = nullptr, *b = nullptr;
  if (!arg_opt_tensor(ctx, args, 2, &w) || !arg_opt_tensor(ctx, args, 3, &b)) return;
  double eps;
  if (!arg_double(ctx, args, 4, &eps)) return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  const Tensor* mean_t = out ? arg_tensor(ctx, args, 6) : nullptr;
  const Tensor* rstd_t = mean_t ? arg_tensor(ctx, args, 7) : nullptr;
  if (!rstd_t) return;
  if (x->scalar_type() != ScalarType::Float || out->scalar_type() != ScalarType::Float ||
      mean_t->scalar_type() != ScalarType::Float || rstd_t->scalar_type() != ScalarType::Float ||
      (w && w->scalar_type() != ScalarType::Float) || (b && b->scalar_type() != ScalarType::Float))
    return fail_not_float(ctx, {{0, x}, {2, w}, {3, b}, {5, out}, {6, mean_t}, {7, rstd_t}});
  const int nd = static_cast<int>(x->dim());
  const int nn = static_cast<int>(ns.size());
  if (nn < 1 || nn > nd)
    return fail(ctx, Error::InvalidArgument, "argument 1 (normalized_shape) %s has %d dims, argument 0 (shape %s) %d",
                shape_string(ns.data(), nn).c_str(), nn, shape_string(*x).c_str(), nd);
  int64_t N = 1;
  for (int k = 0; k < nn; ++k) {
    if (ns[k] != x->size(nd - nn + k))
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (normalized_shape) %s is not the trailing shape of argument 0 (shape %s)",
                  shape_string(ns.data(), nn).c_str(), shape_string(*x).c_str());
    N *= ns[k];
  }
  const int64_t M = N == 0 ? 0 : x->numel() / N;
  if (w && w->numel() != N)
    return fail(ctx, Error::InvalidArgument, "argument 2 (weight) has %lld elements, expected %lld", ll(w->numel()),
                ll(N));
  if (b && b->numel() != N)
    return fail(ctx, Error::InvalidArgument, "argument 3 (bias) has %lld elements, expected %lld", ll(b->numel()),
                ll(N));
  const Shape s = shape_of(*x);
  Shape ss = s;
  for (int k = nd - nn; k < nd; ++k) ss.d[k] = 1;
  if (!resize_out(ctx, *out, s) || !resize_out(ctx, *mean_t, ss) || !resize_out(ctx, *rstd_t, ss)) return;
  if (x->numel() == 0) return;
  std::vector<float> xs, wsv, bsv;
  const float* xp = contiguous_float(*x, &xs);
  const float* wp = w ? contiguous_float(*w, &wsv) : nullptr;
  const float* bp = b ? contiguous_float(*b, &bsv) : nullptr;
  ContigOut co(*out), cm(*mean_t), cr(*rstd_t);
  float* yp = co.ptr;
  float* mp = cm.ptr;
  float* rp = cr.ptr;
  auto body = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = xp + r * N;
      float* yr = yp + r * N;
      const double mean = lane_sum(xr, N, [](double v) { return v; }) / static_cast<double>(N);
      const double var = lane_sum(xr, N, [mean](double v) { return (v - mean) * (v - mean); }) / static_cast<double>(N);
      const double rstd = 1.0 / std::sqrt(var + eps);
      const float fm = static_cast<float>(mean), fr = static_cast<float>(rstd);
      for (int64_t i = 0; i < N; ++i) {
        float v = (xr[i] - fm) * fr;
        if (wp) v *= wp[i];
        if (bp) v += bp[i];
        yr[i] = v;
      }
      mp[r] = fm;
      rp[r] = fr;
    }
  };
  if (M * N < kParallelGrain)
    body(0, M);
  else
    ::executorch::extension::parallel_for(0, M, std::max<int64_t>(1, kParallelGrain / (N + 1)), body);
  co.finish();
  cm.finish();
  cr.finish();
}

ET_KERNEL_OP("aten::native_group_norm.out", native_group_norm_out,
             "(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps, *, "
             "Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))")
void native_group_norm_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 11)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  if (!x) return;
  const Tensor *w = nullptr, *b = nullptr;
  if (!arg_opt_tensor(ctx, args, 1, &w) || !arg_opt_tensor(ctx, args, 2, &b)) return;
  int64_t N, C, HxW, G;
  double eps;
  if (!arg_int(ctx, args, 3, &N) || !arg_int(ctx, args, 4, &C) || !arg_int(ctx, args, 5, &HxW) ||
      !arg_int(ctx, args, 6, &G) || !arg_double(ctx, args, 7, &eps))
    return;
  const Tensor* out = arg_tensor(ctx, args, 8);
  const Tensor* mean_t = out ? arg_tensor(ctx, args, 9) : nullptr;
  const Tensor* rstd_t = mean_t ? arg_tensor(ctx, args, 10) : nullptr;
  if (!rstd_t) return;
  if (x->scalar_type() != ScalarType::Float || out->scalar_type() != ScalarType::Float ||
      mean_t->scalar_type() != ScalarType::Float || rstd_t->scalar_type() != ScalarType::Float ||
      (w && w->scalar_type() != ScalarType::Float) || (b && b->scalar_type() != ScalarType::Float))
    return fail_not_float(ctx, {{0, x}, {1, w}, {2, b}, {8, out}, {9, mean_t}, {10, rstd_t}});
  if (x->dim() < 2 || N != x->size(0) || C != x->size(1) || G <= 0 || C % G != 0)
    return fail(ctx, Error::InvalidArgument,
                "argument 0 has shape %s; N %lld, C %lld, group %lld (arguments 3, 4, 6): expected [N, C, ...], C "
                "divisible by group",
                shape_string(*x).c_str(), ll(N), ll(C), ll(G));
  int64_t hw = 1;
  for (int d = 2; d < x->dim(); ++d) hw *= x->size(d);
  if (hw != HxW)
    return fail(ctx, Error::InvalidArgument, "HxW (argument 5) is %lld, argument 0 (shape %s) has %lld", ll(HxW),
                shape_string(*x).c_str(), ll(hw));
  if ((w && w->numel() != C) || (b && b->numel() != C))
    return fail(ctx, Error::InvalidArgument,
                "weight, bias (arguments 1, 2) have %lld, %lld elements (-1: None), expected C = %lld",
                ll(w ? w->numel() : -1), ll(b ? b->numel() : -1), ll(C));
  Shape ss;
  ss.ndim = 2;
  ss.d[0] = N;
  ss.d[1] = G;
  if (!resize_out(ctx, *out, shape_of(*x)) || !resize_out(ctx, *mean_t, ss) || !resize_out(ctx, *rstd_t, ss)) return;
  if (N * G == 0) return;
  std::vector<float> xs, wsv, bsv;
  const float* xp = x->numel() > 0 ? contiguous_float(*x, &xs) : nullptr;
  const float* wp = w ? contiguous_float(*w, &wsv) : nullptr;
  const float* bp = b ? contiguous_float(*b, &bsv) : nullptr;
  ContigOut co(*out), cm(*mean_t), cr(*rstd_t);
  const int64_t Cg = C / G, len = Cg * HxW;
  auto body = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t g = r % G;
      const float* xr = xp ? xp + r * len : nullptr;
      float* yr = co.ptr + r * len;
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += xr[i];
      const double mean = len > 0 ? sum / static_cast<double>(len) : 0.0;
      double var = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = xr[i] - mean;
        var += d * d;
      }
      if (len > 0) var /= static_cast<double>(len);
      const double rstd = 1.0 / std::sqrt(var + eps);
      for (int64_t c = 0; c < Cg; ++c) {
        const int64_t ch = g * Cg + c;
        const double a = rstd * (wp ? wp[ch] : 1.0f);
        const double sh = (bp ? bp[ch] : 0.0f) - mean * a;
        for (int64_t i = 0; i < HxW; ++i) yr[c * HxW + i] = static_cast<float>(xr[c * HxW + i] * a + sh);
      }
      cm.ptr[r] = static_cast<float>(mean);
      cr.ptr[r] = static_cast<float>(rstd);
    }
  };
  if (N * G * len < kParallelGrain)
    body(0, N * G);
  else
    ::executorch::extension::parallel_for(0, N * G, std::max<int64_t>(1, kParallelGrain / (len + 1)), body);
  co.finish();
  cm.finish();
  cr.finish();
}

}  // namespace etk
