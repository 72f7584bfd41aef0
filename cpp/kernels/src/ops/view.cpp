// view_copy, squeeze_copy (.dims, .dim, all), unsqueeze_copy: a new shape over the same elements in the same
// logical order.
#include "copy_util.h"

namespace etk {

ET_KERNEL_OP("aten::view_copy.out", view_copy_out, "(Tensor self, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
void view_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> size;
  if (!in || !arg_int_list(ctx, args, 1, &size)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (size.size() > static_cast<size_t>(kMaxDim))
    return fail(ctx, Error::InvalidArgument, "argument 1 (size) has %zu dims, at most %d are supported", size.size(),
                kMaxDim);
  Shape s;
  s.ndim = static_cast<int>(size.size());
  int infer = -1;
  int64_t known = 1;
  for (int k = 0; k < s.ndim; ++k) {
    if (size[k] == -1) {
      if (infer >= 0)
        return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s has more than one -1",
                    shape_string(size.data(), s.ndim).c_str());
      infer = k;
      s.d[k] = 1;
      continue;
    }
    if (size[k] < 0 || size[k] > kMaxSize || !checked_mul(known, size[k], &known))
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s: entry %d (%lld) is negative or too large",
                  shape_string(size.data(), s.ndim).c_str(), k, ll(size[k]));
    s.d[k] = size[k];
  }
  if (infer >= 0) {
    if (known == 0 || in->numel() % known != 0)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s does not fit argument 0's %lld elements",
                  shape_string(size.data(), s.ndim).c_str(), ll(in->numel()));
    s.d[infer] = in->numel() / known;
  }
  reshape_copy(ctx, *in, *out, s);
}

namespace {

// squeeze_copy's forms: the given dims (`dims`, argument 1), or every dim when `all`; only size-1 dims go.
void squeeze(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
             bool all) {
  const int nd = static_cast<int>(in.dim());
  bool sq[kMaxDim] = {};
  if (all) {
    for (int d = 0; d < nd; ++d) sq[d] = in.size(d) == 1;
  } else {
    for (int64_t d : dims) {
      int64_t n;
      if (!norm_dim(d, nd, &n)) return fail_dim(ctx, d, 1, nd);
      if (nd > 0 && in.size(n) == 1) sq[n] = true;
    }
  }
  Shape s;
  for (int d = 0; d < nd; ++d)
    if (!sq[d]) s.d[s.ndim++] = in.size(d);
  reshape_copy(ctx, in, out, s);
}

}  // namespace

ET_KERNEL_OP("aten::squeeze_copy.dims_out", squeeze_copy_dims_out,
             "(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)")
void squeeze_copy_dims_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (out) squeeze(ctx, *in, *out, dims, false);
}

ET_KERNEL_OP("aten::squeeze_copy.dim_out", squeeze_copy_dim_out,
             "(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)")
void squeeze_copy_dim_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (out) squeeze(ctx, *in, *out, {dim}, false);
}

ET_KERNEL_OP("aten::squeeze_copy.out", squeeze_copy_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void squeeze_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (out) squeeze(ctx, *in, *out, {}, true);
}

ET_KERNEL_OP("aten::unsqueeze_copy.out", unsqueeze_copy_out, "(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)")
void unsqueeze_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const int nd = static_cast<int>(in->dim());
  if (nd + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d; unsqueezing it exceeds %d dims", nd, kMaxDim);
  int64_t n;
  if (dim < -(nd + 1) || dim > nd)
    return fail(ctx, Error::InvalidArgument,
                "dim %lld (argument 1) is out of range [%d, %d] for unsqueezing a %d-d tensor", ll(dim), -(nd + 1), nd,
                nd);
  n = dim < 0 ? dim + nd + 1 : dim;
  Shape s;
  s.ndim = nd + 1;
  for (int d = 0, j = 0; d < nd + 1; ++d) s.d[d] = (d == n) ? 1 : in->size(j++);
  reshape_copy(ctx, *in, *out, s);
}

}  // namespace etk
