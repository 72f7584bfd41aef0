// constant_pad_nd: padding (or cropping, for negative pads) with a constant.
#include "copy_util.h"

#include <algorithm>

namespace etk {

ET_KERNEL_OP("aten::constant_pad_nd.out", constant_pad_nd_out,
             "(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) -> Tensor(a!)")
void constant_pad_nd_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> pad;
  Scalar v;
  if (!in || !arg_int_list(ctx, args, 1, &pad) || !arg_scalar(ctx, args, 2, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()) || !is_supported_dtype(out->scalar_type()))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: not supported",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  const int nd = static_cast<int>(in->dim());
  if (pad.size() % 2 != 0 || static_cast<int>(pad.size() / 2) > nd)
    return fail(ctx, Error::InvalidArgument,
                "argument 1 (pad) has %zu entries, expected an even count of at most %d (2 per dim)", pad.size(),
                2 * nd);
  Shape s = shape_of(*in);
  int64_t lo[kMaxDim] = {}, hi[kMaxDim] = {};
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int d = nd - 1 - static_cast<int>(k);
    lo[d] = pad[2 * k];
    hi[d] = pad[2 * k + 1];
    if (lo[d] < -kMaxSize || lo[d] > kMaxSize || hi[d] < -kMaxSize || hi[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "argument 1 (pad) holds %lld, %lld for dim %d: too large", ll(lo[d]),
                  ll(hi[d]), d);
    s.d[d] = in->size(d) + lo[d] + hi[d];
    if (s.d[d] < 0 || s.d[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "padding dim %d (size %lld) by %lld, %lld gives %lld: out of range", d,
                  ll(in->size(d)), ll(lo[d]), ll(hi[d]), ll(s.d[d]));
  }
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  fill_scalar(*out, v);
  const Operand oo = operand_of(*out);
  // Copy the overlapping region.
  Operand src = operand_of(*in), dst = oo;
  Shape cs;
  cs.ndim = nd;
  for (int d = 0; d < nd; ++d) {
    int64_t in_start = lo[d] < 0 ? -lo[d] : 0;
    int64_t out_start = lo[d] > 0 ? lo[d] : 0;
    int64_t len = std::min(in->size(d) - in_start, s.d[d] - out_start);
    if (len <= 0) return;
    src.data += in_start * src.strides[d] * src.esize;
    dst.data += out_start * dst.strides[d] * dst.esize;
    src.sizes[d] = len;
    dst.sizes[d] = len;
    cs.d[d] = len;
  }
  copy_operand(dst, src, cs);
}

}  // namespace etk
