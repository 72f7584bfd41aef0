// cat and stack: tensors joined along an existing or a new dim.
#include "copy_util.h"

namespace etk {

namespace {
// (Tensor[] tensors, int dim=0, *, Tensor(a!) out).
bool list_args(KernelRuntimeContext& ctx, Args args, std::vector<Tensor>* ts, int64_t* dim, const Tensor** out) {
  if (!check_nargs(ctx, args, 3)) return false;
  if (!arg_tensor_list(ctx, args, 0, ts) || !arg_int(ctx, args, 1, dim)) return false;
  *out = arg_tensor(ctx, args, 2);
  return *out != nullptr;
}
}  // namespace

ET_KERNEL_OP("aten::cat.out", cat_out, "(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")
void cat_out(KernelRuntimeContext& ctx, Args args) {
  std::vector<Tensor> ts;
  int64_t dim;
  const Tensor* out;
  if (!list_args(ctx, args, &ts, &dim, &out)) return;
  const Tensor* ref = nullptr;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;  // legacy empty tensors are skipped
    if (!dtypes_copyable(t.scalar_type(), out->scalar_type()))
      return fail_dtypes(ctx, "a tensor in argument 0", t.scalar_type(), out->scalar_type());
    if (!ref) ref = &t;
  }
  if (!ref) {
    // Everything empty: the output is an empty 1-D tensor (or keeps its rank with a zero dim).
    Shape s = shape_of(*out);
    if (s.ndim == 0)
      return fail(ctx, Error::InvalidArgument, "every tensor in argument 0 is empty and the output is 0-d");
    int64_t d0 = 0;
    if (!norm_dim(dim, s.ndim, &d0)) return fail_dim(ctx, dim, 1, s.ndim);
    s.d[d0] = 0;
    resize_out(ctx, *out, s);
    return;
  }
  const int nd = static_cast<int>(ref->dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 holds a 0-d tensor, which cannot be concatenated");
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  Shape s = shape_of(*ref);
  s.d[d] = 0;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    if (t.dim() != nd)
      return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: different ranks",
                  shape_string(*ref).c_str(), shape_string(t).c_str());
    for (int k = 0; k < nd; ++k)
      if (k != d && t.size(k) != ref->size(k))
        return fail(ctx, Error::InvalidArgument,
                    "tensors in argument 0 have shapes %s and %s: they differ outside dim %lld",
                    shape_string(*ref).c_str(), shape_string(t).c_str(), ll(d));
    s.d[d] += t.size(d);
    if (s.d[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "the concatenated size along dim %lld exceeds %lld", ll(d),
                  ll(kMaxSize));
  }
  if (!resize_out(ctx, *out, s)) return;
  Operand oo = operand_of(*out);
  int64_t pos = 0;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    const int64_t n = t.size(d);
    if (n > 0 && t.numel() > 0) {
      Operand dst = oo;
      dst.data += pos * oo.strides[d] * oo.esize;
      dst.sizes[d] = n;
      copy_operand(dst, operand_of(t), shape_of(t));
    }
    pos += n;
  }
}

ET_KERNEL_OP("aten::stack.out", stack_out, "(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)")
void stack_out(KernelRuntimeContext& ctx, Args args) {
  std::vector<Tensor> ts;
  int64_t dim;
  const Tensor* out;
  if (!list_args(ctx, args, &ts, &dim, &out)) return;
  if (ts.empty()) return fail(ctx, Error::InvalidArgument, "argument 0 (tensors) is empty");
  const int nd = static_cast<int>(ts[0].dim());
  if (nd + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 0 holds %d-d tensors; stacking them exceeds %d dims", nd,
                kMaxDim);
  if (dim < -(nd + 1) || dim > nd)
    return fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range [%d, %d] for stacking %d-d tensors",
                ll(dim), -(nd + 1), nd, nd);
  const int d = static_cast<int>(dim < 0 ? dim + nd + 1 : dim);
  for (const Tensor& t : ts) {
    if (!is_supported_dtype(t.scalar_type()) || !is_supported_dtype(out->scalar_type()))
      return fail(ctx, Error::InvalidType, "a tensor in argument 0 has dtype %s, the output %s: not supported",
                  dtype_name(t.scalar_type()), dtype_name(out->scalar_type()));
    if (t.dim() != nd)
      return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: expected the same",
                  shape_string(ts[0]).c_str(), shape_string(t).c_str());
    for (int k = 0; k < nd; ++k)
      if (t.size(k) != ts[0].size(k))
        return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: expected the same",
                    shape_string(ts[0]).c_str(), shape_string(t).c_str());
  }
  if (static_cast<int64_t>(ts.size()) > kMaxSize)
    return fail(ctx, Error::InvalidArgument, "argument 0 holds %zu tensors, too many", ts.size());
  Shape s;
  s.ndim = nd + 1;
  for (int k = 0, j = 0; k < nd + 1; ++k) s.d[k] = k == d ? static_cast<int64_t>(ts.size()) : ts[0].size(j++);
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const Operand oo = operand_of(*out);
  for (size_t i = 0; i < ts.size(); ++i) {
    Operand dst = oo;
    dst.data += static_cast<int64_t>(i) * oo.strides[d] * oo.esize;
    drop_dim(&dst, d);
    copy_operand(dst, operand_of(ts[i]), shape_of(ts[i]));
  }
}

}  // namespace etk
