// select_copy.int and select_scatter: one index of one dim.
#include "copy_util.h"

namespace etk {

ET_KERNEL_OP("aten::select_copy.int_out", select_copy_int_out,
             "(Tensor self, int dim, SymInt index, *, Tensor(a!) out) -> Tensor(a!)")
void select_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim, index;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_int(ctx, args, 2, &index)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  int64_t d;
  if (!select_dim_index(ctx, *in, dim, 1, &index, 2, "select from", &d)) return;
  Operand src = operand_of(*in);
  src.data += index * src.strides[d] * src.esize;
  drop_dim(&src, static_cast<int>(d));
  Shape s;
  s.ndim = src.ndim;
  for (int k = 0; k < s.ndim; ++k) s.d[k] = src.sizes[k];
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

ET_KERNEL_OP("aten::select_scatter.out", select_scatter_out,
             "(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out) -> Tensor(a!)")
void select_scatter_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  int64_t dim, index;
  if (!src || !arg_int(ctx, args, 2, &dim) || !arg_int(ctx, args, 3, &index)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!scatter_dtypes(ctx, *self, *src, *out)) return;
  int64_t d;
  if (!select_dim_index(ctx, *self, dim, 2, &index, 3, "scatter into", &d)) return;
  scatter_view(ctx, *self, *src, *out, d, index, 1, 1, true);
}

}  // namespace etk
