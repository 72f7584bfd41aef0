// sum.IntList and mean: sums over dims (floating sums accumulate as upstream's portable kernels do).
#include "reduce_util.h"

namespace etk {

namespace {

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

}  // namespace

ET_KERNEL_OP("aten::sum.IntList_out", sum_intlist_out,
             "(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void sum_intlist_out(KernelRuntimeContext& ctx, Args args) { sum_mean(ctx, args, false); }

ET_KERNEL_OP("aten::mean.out", mean_out,
             "(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void mean_out(KernelRuntimeContext& ctx, Args args) { sum_mean(ctx, args, true); }

}  // namespace etk
