// arange: evenly spaced values in [start, end).
#include "kernel_utils.h"

namespace etk {

namespace {
void arange_impl(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end, const Scalar& step,
                 const Tensor& out) {
  const ScalarType ot = out.scalar_type();
  if (!is_supported_dtype(ot) || ot == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "the output has dtype %s, expected a numeric non-Bool dtype", dtype_name(ot));
  if (out.dim() != 1)
    return fail(ctx, Error::InvalidArgument, "the output is %d-d, expected 1-d", static_cast<int>(out.dim()));
  const double a = start.to_double(), b = end.to_double(), st = step.to_double();
  if (!(st != 0) || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(st))
    return fail(ctx, Error::InvalidArgument, "step %g must be nonzero and start %g, end %g, step finite", st, a, b);
  if ((st > 0 && b < a) || (st < 0 && b > a))
    return fail(ctx, Error::InvalidArgument, "step %g goes away from end %g (start %g)", st, b, a);
  const double nd = std::ceil((b - a) / st);
  if (!(nd >= 0) || nd > static_cast<double>(kMaxSize))
    return fail(ctx, Error::InvalidArgument, "arange from %g to %g by %g has too many elements", a, b, st);
  const int64_t n = static_cast<int64_t>(nd);
  Shape s;
  s.ndim = 1;
  s.d[0] = n;
  if (!resize_out(ctx, out, s)) return;
  char* ob = static_cast<char*>(out.mutable_data_ptr());
  const int64_t es = out.element_size(), stride = n > 0 ? out.strides()[0] : 0;
  const bool ints =
      !is_floating(ot) && start.kind != Scalar::kDouble && end.kind != Scalar::kDouble && step.kind != Scalar::kDouble;
  for (int64_t i = 0; i < n; ++i) {
    if (ints)
      store_as<int64_t>(ob + i * stride * es, ot, start.to_int() + i * step.to_int());
    else
      store_as<double>(ob + i * stride * es, ot, a + static_cast<double>(i) * st);
  }
}
}  // namespace

ET_KERNEL_OP("aten::arange.out", arange_out, "(Scalar end, *, Tensor(a!) out) -> Tensor(a!)")
void arange_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  Scalar end;
  if (!arg_scalar(ctx, args, 0, &end)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  Scalar zero, one;
  one.i = 1;
  arange_impl(ctx, zero, end, one, *out);
}

ET_KERNEL_OP("aten::arange.start_out", arange_start_out,
             "(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)")
void arange_start_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  Scalar start, end, step;
  if (!arg_scalar(ctx, args, 0, &start) || !arg_scalar(ctx, args, 1, &end) || !arg_scalar(ctx, args, 2, &step)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  arange_impl(ctx, start, end, step, *out);
}

}  // namespace etk
