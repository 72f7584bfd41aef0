// index_select: the entries of one dim given by an index list.
#include "copy_util.h"
#include "index_util.h"

namespace etk {

ET_KERNEL_OP("aten::index_select.out", index_select_out,
             "(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)")
void index_select_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* index = arg_tensor(ctx, args, 2);
  const Tensor* out = index ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  if (index->dim() > 1)
    return fail(ctx, Error::InvalidArgument, "argument 2 (index) is %d-d, expected 0-d or 1-d",
                static_cast<int>(index->dim()));
  std::vector<int64_t> ids;
  if (!read_indices(ctx, *index, &ids, "argument 2 (index)")) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int64_t len = nd == 0 ? 1 : in->size(d);
  for (int64_t& v : ids) {
    if (v < -len || v >= len)
      return fail(ctx, Error::InvalidArgument, "index (argument 2) holds %lld, out of range for size %lld", ll(v),
                  ll(len));
    if (v < 0) v += len;
  }
  Shape s = shape_of(*in);
  if (nd == 0) {
    if (ids.size() != 1)
      return fail(ctx, Error::InvalidArgument, "argument 2 (index) has %zu entries, expected 1 for a 0-d tensor",
                  ids.size());
    if (!resize_out(ctx, *out, s)) return;
    copy_operand(operand_of(*out), operand_of(*in), s);
    return;
  }
  s.d[d] = static_cast<int64_t>(ids.size());
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const Operand oi = operand_of(*in), oo = operand_of(*out);
  Shape sl = s;
  sl.d[d] = 1;
  for (size_t k = 0; k < ids.size(); ++k) {
    Operand src = oi, dst = oo;
    src.data += ids[k] * oi.strides[d] * oi.esize;
    src.sizes[d] = 1;
    dst.data += static_cast<int64_t>(k) * oo.strides[d] * oo.esize;
    dst.sizes[d] = 1;
    copy_operand(dst, src, sl);
  }
}

}  // namespace etk
