// permute_copy, transpose_copy, t_copy: a dims permutation materialized as a copy.
#include "copy_util.h"

#include <algorithm>

namespace etk {

ET_KERNEL_OP("aten::permute_copy.out", permute_copy_out, "(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)")
void permute_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (static_cast<int>(dims.size()) != nd)
    return fail(ctx, Error::InvalidArgument, "argument 1 (dims) has %zu entries, argument 0 is %d-d", dims.size(), nd);
  Operand oi = operand_of(*in);
  Operand src = oi;
  bool seen[kMaxDim] = {};
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) {
    int64_t d;
    if (!norm_dim(dims[k], nd, &d) || seen[d])
      return fail(ctx, Error::InvalidArgument, "argument 1 (dims) %s is not a permutation of the dims of a %d-d tensor",
                  shape_string(dims.data(), nd).c_str(), nd);
    seen[d] = true;
    src.sizes[k] = oi.sizes[d];
    src.strides[k] = oi.strides[d];
    s.d[k] = oi.sizes[d];
  }
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

ET_KERNEL_OP("aten::transpose_copy.int_out", transpose_copy_int_out,
             "(Tensor self, int dim0, int dim1, *, Tensor(a!) out) -> Tensor(a!)")
void transpose_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t d0, d1;
  if (!in || !arg_int(ctx, args, 1, &d0) || !arg_int(ctx, args, 2, &d1)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (nd == 0) return same_shape_copy(ctx, *in, *out);
  int64_t a, b;
  if (!norm_dim(d0, nd, &a) || !norm_dim(d1, nd, &b))
    return fail(ctx, Error::InvalidArgument,
                "dims %lld and %lld (arguments 1, 2): one is out of range for a %d-d tensor", ll(d0), ll(d1), nd);
  Operand src = operand_of(*in);
  std::swap(src.sizes[a], src.sizes[b]);
  std::swap(src.strides[a], src.strides[b]);
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) s.d[k] = src.sizes[k];
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

ET_KERNEL_OP("aten::t_copy.out", t_copy_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void t_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  if (in->dim() > 2)
    return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d, expected at most 2-d", static_cast<int>(in->dim()));
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  if (in->dim() < 2) return same_shape_copy(ctx, *in, *out);
  Operand src = operand_of(*in);
  std::swap(src.sizes[0], src.sizes[1]);
  std::swap(src.strides[0], src.strides[1]);
  Shape s;
  s.ndim = 2;
  s.d[0] = src.sizes[0];
  s.d[1] = src.sizes[1];
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

}  // namespace etk
