// var (.correction and .out): the variance over dims with a correction.
#include "reduce_util.h"

namespace etk {

namespace {

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

}  // namespace

ET_KERNEL_OP(
    "aten::var.correction_out", var_correction_out,
    "(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor(a!) out) -> Tensor(a!)")
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

ET_KERNEL_OP("aten::var.out", var_out,
             "(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
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

}  // namespace etk
