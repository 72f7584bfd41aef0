// gather: elements picked along one dim by an index tensor of the input's rank.
#include "copy_util.h"
#include "index_util.h"

namespace etk {

ET_KERNEL_OP("aten::gather.out", gather_out,
             "(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) -> Tensor(a!)")
void gather_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* index = arg_tensor(ctx, args, 2);
  bool sparse;
  if (!index || !arg_bool(ctx, args, 3, &sparse)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int ind = static_cast<int>(index->dim());
  if (!(ind == nd || (nd == 0 && ind <= 1) || (ind == 0 && nd <= 1)))
    return fail(ctx, Error::InvalidArgument, "argument 2 (index) is %d-d, argument 0 %d-d: expected the same rank", ind,
                nd);
  if (nd > 0 && ind == nd)
    for (int k = 0; k < nd; ++k)
      if (k != d && index->size(k) > in->size(k))
        return fail(ctx, Error::InvalidArgument,
                    "argument 2 (index) has shape %s, larger than argument 0 (%s) at dim %d",
                    shape_string(*index).c_str(), shape_string(*in).c_str(), k);
  std::vector<int64_t> ids;
  if (!read_indices(ctx, *index, &ids, "argument 2 (index)")) return;
  if (!resize_out(ctx, *out, shape_of(*index))) return;
  const int64_t n = index->numel();
  if (n == 0) return;
  const int64_t len = nd == 0 ? 1 : in->size(d);
  std::vector<int64_t> ooffs;
  tensor_offsets(*out, &ooffs);
  const Operand oi = operand_of(*in);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = ids[static_cast<size_t>(i)];
    if (v < -len || v >= len)
      return fail(ctx, Error::InvalidArgument, "index (argument 2) holds %lld, out of range for size %lld", ll(v),
                  ll(len));
    if (v < 0) v += len;
    int64_t rem = i, off = 0;
    for (int j = ind - 1; j >= 0; --j) {
      const int64_t c = rem % index->size(j);
      rem /= index->size(j);
      if (nd == 0) continue;
      off += (j == d ? v : c) * oi.strides[j];
    }
    if (ind == 0 && nd == 1) off = v * oi.strides[0];
    copy_elem(ob, ooffs[static_cast<size_t>(i)], ib, off, es);
  }
}

}  // namespace etk
