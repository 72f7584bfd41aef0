// flip: the order of the given dims reversed.
#include "copy_util.h"
#include "index_util.h"

namespace etk {

ET_KERNEL_OP("aten::flip.out", flip_out, "(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)")
void flip_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  Operand src = operand_of(*in);
  bool seen[kMaxDim] = {};
  for (int64_t v : dims) {
    int64_t d;
    if (!norm_dim(v, nd, &d)) return fail_dim(ctx, v, 1, nd);
    if (nd == 0) continue;
    if (seen[d]) return fail(ctx, Error::InvalidArgument, "argument 1 (dims) names dim %lld more than once", ll(d));
    seen[d] = true;
    if (src.sizes[d] > 0) src.data += (src.sizes[d] - 1) * src.strides[d] * src.esize;
    src.strides[d] = -src.strides[d];
  }
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  if (in->numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

}  // namespace etk
