// expand_copy and repeat: a tensor broadcast to a larger shape, or tiled.
#include "copy_util.h"

namespace etk {

ET_KERNEL_OP("aten::expand_copy.out", expand_copy_out,
             "(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) -> Tensor(a!)")
void expand_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> size;
  bool implicit;
  if (!in || !arg_int_list(ctx, args, 1, &size) || !arg_bool(ctx, args, 2, &implicit)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(size.size());
  const int ind = static_cast<int>(in->dim());
  if (nd > kMaxDim || nd < ind)
    return fail(ctx, Error::InvalidArgument, "argument 1 (size) has %d dims, expected %d (argument 0's rank) to %d", nd,
                ind, kMaxDim);
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) {
    const int id = k - (nd - ind);
    int64_t v = size[k];
    if (v == -1) {
      if (id < 0)
        return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s has -1 at new leading dim %d",
                    shape_string(size.data(), nd).c_str(), k);
      v = in->size(id);
    }
    if (v < 0 || v > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s: entry %d (%lld) is negative or too large",
                  shape_string(size.data(), nd).c_str(), k, ll(v));
    if (id >= 0 && in->size(id) != v && in->size(id) != 1)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s cannot expand argument 0 (shape %s) at dim %d",
                  shape_string(size.data(), nd).c_str(), shape_string(*in).c_str(), k);
    s.d[k] = v;
  }
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), operand_of(*in), s);
}

ET_KERNEL_OP("aten::repeat.out", repeat_out, "(Tensor self, SymInt[] repeats, *, Tensor(a!) out) -> Tensor(a!)")
void repeat_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> reps;
  if (!in || !arg_int_list(ctx, args, 1, &reps)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(reps.size());
  const int ind = static_cast<int>(in->dim());
  if (nd < ind || nd > kMaxDim)
    return fail(ctx, Error::InvalidArgument,
                "argument 1 (repeats) has %d entries, expected %d (argument 0's rank) to %d", nd, ind, kMaxDim);
  Shape s;
  s.ndim = nd;
  Operand src;  // the input viewed with nd dims
  Operand oi = operand_of(*in);
  src.ndim = nd;
  src.dtype = oi.dtype;
  src.esize = oi.esize;
  src.data = oi.data;
  for (int k = 0; k < nd; ++k) {
    const int id = k - (nd - ind);
    const int64_t isz = id >= 0 ? oi.sizes[id] : 1;
    if (reps[static_cast<size_t>(k)] < 0)
      return fail(ctx, Error::InvalidArgument, "argument 1 (repeats) holds %lld, expected >= 0",
                  ll(reps[static_cast<size_t>(k)]));
    int64_t v;
    if (!checked_mul(isz, reps[static_cast<size_t>(k)], &v) || v > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "repeating dim %d (size %lld) %lld times is too large", k, ll(isz),
                  ll(reps[static_cast<size_t>(k)]));
    s.d[k] = v;
    src.sizes[k] = isz;
    src.strides[k] = id >= 0 ? oi.strides[id] : 0;
  }
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  // Copy the input into every tile: iterate tiles as a loop over the repeat counts.
  Operand oo = operand_of(*out);
  Shape ts;
  ts.ndim = nd;
  for (int k = 0; k < nd; ++k) ts.d[k] = src.sizes[k];
  int64_t tiles = 1;
  for (int k = 0; k < nd; ++k) tiles *= reps[static_cast<size_t>(k)];
  for (int64_t t = 0; t < tiles; ++t) {
    Operand dst = oo;
    int64_t rem = t;
    for (int k = nd - 1; k >= 0; --k) {
      const int64_t r = reps[static_cast<size_t>(k)];
      const int64_t c = rem % r;
      rem /= r;
      dst.data += c * src.sizes[k] * oo.strides[k] * oo.esize;
      dst.sizes[k] = src.sizes[k];
    }
    copy_operand(dst, src, ts);
  }
}

}  // namespace etk
