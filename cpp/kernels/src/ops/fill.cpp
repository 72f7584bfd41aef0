// Fills: full_like, full, zeros, ones, scalar_tensor.
#include "kernel_utils.h"

namespace etk {

namespace {

// Fills `out` with v, after checking that its dtype can be filled.
void fill_checked(KernelRuntimeContext& ctx, const Tensor& out, const Scalar& v) {
  if (!is_supported_dtype(out.scalar_type()))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, which cannot be filled",
                dtype_name(out.scalar_type()));
  fill_scalar(out, v);
}

// Resizes `out` to `size` (argument 0) and fills it with v.
void fill_sized(KernelRuntimeContext& ctx, const std::vector<int64_t>& size, const Tensor& out, const Scalar& v) {
  if (size.size() > static_cast<size_t>(kMaxDim))
    return fail(ctx, Error::InvalidArgument, "argument 0 (size) has %zu dims, at most %d are supported", size.size(),
                kMaxDim);
  Shape s;
  s.ndim = static_cast<int>(size.size());
  for (int k = 0; k < s.ndim; ++k) s.d[k] = size[static_cast<size_t>(k)];
  if (!resize_out(ctx, out, s)) return;
  fill_checked(ctx, out, v);
}

// zeros / ones: (SymInt[] size, *, Tensor(a!) out).
void fill_constant(KernelRuntimeContext& ctx, Args args, int64_t value) {
  if (!check_nargs(ctx, args, 2)) return;
  std::vector<int64_t> size;
  if (!arg_int_list(ctx, args, 0, &size)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  Scalar v;
  v.i = value;
  fill_sized(ctx, size, *out, v);
}

}  // namespace

ET_KERNEL_OP("aten::full_like.out", full_like_out,
             "(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)")
void full_like_out(KernelRuntimeContext& ctx, Args args) {
  // memory_format: None or an Int, otherwise unused.
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  Scalar v;
  if (!in || !arg_scalar(ctx, args, 1, &v)) return;
  if (!args[2]->isNone() && !args[2]->isInt())
    return fail(ctx, Error::InvalidArgument, "argument 2 (memory_format) is %s, expected an int or None",
                value_kind(args[2]));
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!resize_out(ctx, *out, shape_of(*in))) return;
  fill_checked(ctx, *out, v);
}

ET_KERNEL_OP("aten::full.out", full_out, "(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)")
void full_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  std::vector<int64_t> size;
  Scalar v;
  if (!arg_int_list(ctx, args, 0, &size) || !arg_scalar(ctx, args, 1, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  fill_sized(ctx, size, *out, v);
}

ET_KERNEL_OP("aten::zeros.out", zeros_out, "(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
void zeros_out(KernelRuntimeContext& ctx, Args args) { fill_constant(ctx, args, 0); }

ET_KERNEL_OP("aten::ones.out", ones_out, "(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
void ones_out(KernelRuntimeContext& ctx, Args args) { fill_constant(ctx, args, 1); }

ET_KERNEL_OP("aten::scalar_tensor.out", scalar_tensor_out, "(Scalar s, *, Tensor(a!) out) -> Tensor(a!)")
void scalar_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  Scalar v;
  if (!arg_scalar(ctx, args, 0, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  if (!is_supported_dtype(out->scalar_type()))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, which cannot be filled",
                dtype_name(out->scalar_type()));
  if (out->dim() != 0)
    return fail(ctx, Error::InvalidArgument, "the output is %d-d, expected 0-d", static_cast<int>(out->dim()));
  fill_scalar(*out, v);
}

}  // namespace etk
