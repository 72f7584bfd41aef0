// split_with_sizes_copy, split_copy.Tensor and unbind_copy.int: one tensor cut along a dim into a list of outputs.
#include "copy_util.h"

#include <algorithm>

namespace etk {

namespace {
void split_impl(KernelRuntimeContext& ctx, const Tensor& in, const std::vector<int64_t>& sizes, int64_t dim,
                const std::vector<Tensor>& outs) {
  const int nd = static_cast<int>(in.dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to split");
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  if (sizes.size() != outs.size())
    return fail(ctx, Error::InvalidArgument, "%zu split sizes, but argument 3 holds %zu outputs", sizes.size(),
                outs.size());
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "split size %lld is negative or too large", ll(s));
    total += s;
  }
  if (total != in.size(d))
    return fail(ctx, Error::InvalidArgument, "split sizes sum to %lld, but dim %lld of argument 0 has size %lld",
                ll(total), ll(d), ll(in.size(d)));
  for (const Tensor& o : outs)
    if (!dtypes_copyable(in.scalar_type(), o.scalar_type()))
      return fail(ctx, Error::InvalidType,
                  "argument 0 has dtype %s, an output in argument 3 %s: no conversion between them",
                  dtype_name(in.scalar_type()), dtype_name(o.scalar_type()));
  const Operand oi = operand_of(in);
  int64_t pos = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    Shape s = shape_of(in);
    s.d[d] = sizes[k];
    if (!resize_out(ctx, outs[k], s)) return;
    if (s.numel() > 0) {
      Operand src = oi;
      src.data += pos * oi.strides[d] * oi.esize;
      src.sizes[d] = sizes[k];
      copy_operand(operand_of(outs[k]), src, s);
    }
    pos += sizes[k];
  }
}
}  // namespace

ET_KERNEL_OP("aten::split_with_sizes_copy.out", split_with_sizes_copy_out,
             "(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out) -> ()")
void split_with_sizes_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> sizes;
  int64_t dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int_list(ctx, args, 1, &sizes) || !arg_int(ctx, args, 2, &dim) ||
      !arg_tensor_list(ctx, args, 3, &outs))
    return;
  split_impl(ctx, *in, sizes, dim, outs);
}

ET_KERNEL_OP("aten::split_copy.Tensor_out", split_copy_tensor_out,
             "(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()")
void split_copy_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t split, dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int(ctx, args, 1, &split) || !arg_int(ctx, args, 2, &dim) || !arg_tensor_list(ctx, args, 3, &outs))
    return;
  int64_t d;
  if (in->dim() == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to split");
  if (!norm_dim(dim, in->dim(), &d)) return fail_dim(ctx, dim, 2, in->dim());
  if (split < 0) return fail(ctx, Error::InvalidArgument, "split_size (argument 1) is %lld, expected >= 0", ll(split));
  std::vector<int64_t> sizes;
  int64_t len = in->size(d);
  if (split == 0) {
    if (len != 0)
      return fail(ctx, Error::InvalidArgument, "split_size (argument 1) is 0, but dim %lld has size %lld", ll(d),
                  ll(len));
    sizes.push_back(0);
  }
  for (int64_t p = 0; split > 0 && p < len; p += split) sizes.push_back(std::min(split, len - p));
  if (len == 0 && split > 0) sizes.push_back(0);
  split_impl(ctx, *in, sizes, dim, outs);
}

ET_KERNEL_OP("aten::unbind_copy.int_out", unbind_copy_int_out, "(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()")
void unbind_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_tensor_list(ctx, args, 2, &outs)) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to unbind");
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  if (static_cast<int64_t>(outs.size()) != in->size(d))
    return fail(ctx, Error::InvalidArgument, "argument 2 (out) holds %zu tensors, dim %lld of argument 0 has size %lld",
                outs.size(), ll(d), ll(in->size(d)));
  const Operand oi = operand_of(*in);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!is_supported_dtype(in->scalar_type()) || !is_supported_dtype(outs[i].scalar_type()))
      return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, output %zu in argument 2 %s: not supported",
                  dtype_name(in->scalar_type()), i, dtype_name(outs[i].scalar_type()));
    Operand src = oi;
    src.data += static_cast<int64_t>(i) * oi.strides[d] * oi.esize;
    drop_dim(&src, static_cast<int>(d));
    Shape s;
    s.ndim = src.ndim;
    for (int k = 0; k < s.ndim; ++k) s.d[k] = src.sizes[k];
    if (!resize_out(ctx, outs[i], s)) return;
    if (s.numel() > 0) copy_operand(operand_of(outs[i]), src, s);
  }
}

}  // namespace etk
