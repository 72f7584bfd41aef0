// slice_copy.Tensor and slice_scatter: a strided range of one dim.
#include "copy_util.h"

namespace etk {

ET_KERNEL_OP("aten::slice_copy.Tensor_out", slice_copy_tensor_out,
             "(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *, Tensor(a!) out) -> "
             "Tensor(a!)")
void slice_copy_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim, start = 0, end = 0, step;
  bool has_start = false, has_end = false;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_opt_int(ctx, args, 2, &start, &has_start) ||
      !arg_opt_int(ctx, args, 3, &end, &has_end) || !arg_int(ctx, args, 4, &step))
    return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (nd == 0 || step <= 0)
    return fail(ctx, Error::InvalidArgument, "%s (argument 0 is %d-d, step (argument 4) is %lld)",
                nd == 0 ? "cannot slice a 0-d tensor" : "step must be positive", nd, ll(step));
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int64_t n = slice_count(in->size(d), has_start, &start, has_end, end, step);
  Operand src = operand_of(*in);
  Shape s = shape_of(*in);
  s.d[d] = n;
  src.sizes[d] = n;
  if (n > 0) src.data += start * src.strides[d] * src.esize;
  src.strides[d] *= step;
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

ET_KERNEL_OP("aten::slice_scatter.out", slice_scatter_out,
             "(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *, Tensor(a!) "
             "out) -> Tensor(a!)")
void slice_scatter_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 7)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  int64_t dim, start = 0, end = 0, step;
  bool has_start = false, has_end = false;
  if (!src || !arg_int(ctx, args, 2, &dim) || !arg_opt_int(ctx, args, 3, &start, &has_start) ||
      !arg_opt_int(ctx, args, 4, &end, &has_end) || !arg_int(ctx, args, 5, &step))
    return;
  const Tensor* out = arg_tensor(ctx, args, 6);
  if (!out) return;
  if (!scatter_dtypes(ctx, *self, *src, *out)) return;
  const int nd = static_cast<int>(self->dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to scatter into");
  if (step <= 0) return fail(ctx, Error::InvalidArgument, "step (argument 5) is %lld, expected > 0", ll(step));
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  const int64_t n = slice_count(self->size(d), has_start, &start, has_end, end, step);
  scatter_view(ctx, *self, *src, *out, d, n > 0 ? start : 0, n, step, false);
}

}  // namespace etk
