// Copies: clone, copy_ / copy.out, _to_copy, the dim_order_ops (_to_dim_order_copy, _clone_dim_order), and
// alias_copy / detach_copy / lift_fresh_copy.
#include "copy_util.h"

namespace etk {

ET_KERNEL_OP("aten::clone.out", clone_out,
             "(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)")
void clone_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 2) : nullptr;
  if (!out) return;
  same_shape_copy(ctx, *in, *out);
}

namespace {
// dst = src broadcast to dst's shape (dtype converted): copy_ and copy.out.
void broadcast_copy(KernelRuntimeContext& ctx, const Tensor& src, const Tensor& dst, const char* dst_name) {
  if (!dtypes_copyable(src.scalar_type(), dst.scalar_type()))
    return fail_dtypes(ctx, "argument 1 (src)", src.scalar_type(), dst.scalar_type());
  Operand so = operand_of(src);
  Operand to = operand_of(dst);
  const Operand* both[] = {&so, &to};
  Shape s = shape_of(dst);
  Shape bs;
  if (src.dim() > dst.dim() || !broadcast_shape(both, 2, &bs) || bs.numel() != s.numel())
    return fail(ctx, Error::InvalidArgument, "argument 1 (src) of shape %s does not broadcast to %s of shape %s",
                shape_string(src).c_str(), dst_name, shape_string(dst).c_str());
  if (dst.numel() == 0 || dst.const_data_ptr() == src.const_data_ptr()) return;
  copy_operand(to, so, s);
}
}  // namespace

// In place: how a program writes a mutable buffer (e.g. a KV cache) back.
ET_KERNEL_OP("aten::copy_", copy_inplace, "(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)")
void copy_inplace(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  if (!src) return;
  broadcast_copy(ctx, *src, *self, "argument 0 (self)");
}

// src broadcast to self's shape.
ET_KERNEL_OP("aten::copy.out", copy_out,
             "(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out) -> Tensor(a!)")
void copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* out = src ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (!resize_out(ctx, *out, shape_of(*self))) return;
  broadcast_copy(ctx, *src, *out, "the output");
}

ET_KERNEL_OP(
    "aten::_to_copy.out", to_copy_out,
    "(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)")
void to_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  bool nb;
  if (!in || !arg_bool(ctx, args, 1, &nb)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  same_shape_copy(ctx, *in, *out);
}

namespace {
// The dim_order_ops' arguments (Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out).
bool dim_order_args(KernelRuntimeContext& ctx, Args args, const Tensor** in, const Tensor** out) {
  if (!check_nargs(ctx, args, 4)) return false;
  *in = arg_tensor(ctx, args, 0);
  bool nb;
  if (!*in || !arg_opt_bool(ctx, args, 1, &nb, false)) return false;
  *out = arg_tensor(ctx, args, 3);
  return *out && check_dim_order_arg(ctx, args, 2, **out);
}
}  // namespace

ET_KERNEL_OP("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out,
             "(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)")
void to_dim_order_copy_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  if (!dim_order_args(ctx, args, &in, &out)) return;
  same_shape_copy(ctx, *in, *out);
}

ET_KERNEL_OP("dim_order_ops::_clone_dim_order.out", clone_dim_order_out,
             "(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)")
void clone_dim_order_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  if (!dim_order_args(ctx, args, &in, &out)) return;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s; expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  same_shape_copy(ctx, *in, *out);
}

ET_KERNEL_OP("aten::alias_copy.out", alias_copy_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::detach_copy.out", alias_copy_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::lift_fresh_copy.out", alias_copy_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void alias_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s; expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  same_shape_copy(ctx, *in, *out);
}

}  // namespace etk
