// glu: the gated linear unit. self is split in two halves a, b along dim; out = a * sigmoid(b), with dim halved.
#include "pointwise.h"

namespace etk {

ET_KERNEL_OP("aten::glu.out", glu_out, "(Tensor self, int dim=-1, *, Tensor(a!) out) -> Tensor(a!)")
void glu_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!self || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const ScalarType t = self->scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, is_floating(t) && out->scalar_type() == t, InvalidType, ,
                      "argument 0 (self) has dtype %s, the output %s: expected Float or Double, the same",
                      dtype_name(t), dtype_name(out->scalar_type()));
  const int nd = static_cast<int>(self->dim());
  int64_t d;
  ET_KERNEL_CHECK_MSG(ctx, nd > 0 && norm_dim(dim, nd, &d), InvalidArgument, ,
                      "dim %lld (argument 1) is out of range for the %d-d argument 0 (self)", ll(dim), nd);
  const int64_t len = self->size(d);
  ET_KERNEL_CHECK_MSG(ctx, len % 2 == 0, InvalidArgument, ,
                      "argument 0 (self) has shape %s: its size %lld at dim %lld must be even to halve it",
                      shape_string(*self).c_str(), ll(len), ll(d));
  // The two halves, as views of self with dim d halved.
  Operand a = operand_of(*self);
  a.sizes[d] = len / 2;
  Operand b = a;
  b.data += (len / 2) * b.strides[d] * b.esize;
  const Operand* ins[2] = {&a, &b};
  elementwise<MapKind::kFloat, 2>(ctx, *out, ins, [](auto x, auto y) {
    using T = decltype(x);
    return static_cast<T>(x / (T(1) + exp_of(-y)));
  });
}

}  // namespace etk
