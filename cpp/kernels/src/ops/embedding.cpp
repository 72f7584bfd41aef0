// embedding: rows of a weight picked by indices.
#include "copy_util.h"
#include "index_util.h"

#include <algorithm>

namespace etk {

ET_KERNEL_OP("aten::embedding.out", embedding_out,
             "(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False, "
             "*, Tensor(a!) out) -> Tensor(a!)")
void embedding_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* w = arg_tensor(ctx, args, 0);
  const Tensor* idx = w ? arg_tensor(ctx, args, 1) : nullptr;
  if (!idx) return;
  int64_t padding_idx;
  bool sgbf, sparse;
  if (!arg_int(ctx, args, 2, &padding_idx) || !arg_bool(ctx, args, 3, &sgbf) || !arg_bool(ctx, args, 4, &sparse))
    return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  if (w->dim() != 2)
    return fail(ctx, Error::InvalidArgument, "argument 0 (weight) is %d-d, expected 2-d", static_cast<int>(w->dim()));
  const ScalarType it = idx->scalar_type();
  if (it != ScalarType::Long && it != ScalarType::Int)
    return fail(ctx, Error::InvalidType, "argument 1 (indices) has dtype %s, expected Long or Int", dtype_name(it));
  if (!dtypes_copyable(w->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0 (weight)", w->scalar_type(), out->scalar_type());
  if (idx->dim() + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 1 (indices) is %d-d, at most %d-d is supported",
                static_cast<int>(idx->dim()), kMaxDim - 1);
  const int64_t V = w->size(0), D = w->size(1);
  Shape s = shape_of(*idx);
  s.d[s.ndim++] = D;
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = idx->numel();
  // The indices in logical order, each validated.
  std::vector<int64_t> ids;
  if (!read_indices(ctx, *idx, &ids, "argument 1 (indices)")) return;
  for (int64_t v : ids)
    if (v < 0 || v >= V)
      return fail(ctx, Error::InvalidArgument,
                  "indices (argument 1) hold %lld, out of range for %lld rows of the weight (argument 0)", ll(v),
                  ll(V));
  if (n == 0 || D == 0) return;
  Operand ow = operand_of(*w), oo = operand_of(*out);
  const bool fast = w->scalar_type() == out->scalar_type() && is_contiguous(ow) && is_contiguous(oo);
  const size_t row_bytes = static_cast<size_t>(D) * static_cast<size_t>(ow.esize);
  const char* wb = ow.data;
  char* obase = oo.data;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t r = ids[static_cast<size_t>(i)];
      if (fast) {
        std::memmove(obase + i * row_bytes, wb + r * row_bytes, row_bytes);
      } else {
        // Row r of the weight -> element i of the output's leading (flattened) dims.
        Operand src;
        src.data = ow.data + r * ow.strides[0] * ow.esize;
        src.dtype = ow.dtype;
        src.esize = ow.esize;
        src.ndim = 1;
        src.sizes[0] = D;
        src.strides[0] = ow.strides[1];
        Operand dst;
        int64_t off = 0, rem = i;
        for (int k = oo.ndim - 2; k >= 0; --k) {
          off += (rem % oo.sizes[k]) * oo.strides[k];
          rem /= oo.sizes[k];
        }
        dst.data = oo.data + off * oo.esize;
        dst.dtype = oo.dtype;
        dst.esize = oo.esize;
        dst.ndim = 1;
        dst.sizes[0] = D;
        dst.strides[0] = oo.strides[oo.ndim - 1];
        Shape sh;
        sh.ndim = 1;
        sh.d[0] = D;
        copy_operand(dst, src, sh);
      }
    }
  };
  if (n * D < kParallelGrain)
    body(0, n);
  else
    ::executorch::extension::parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / D), body);
}

}  // namespace etk
