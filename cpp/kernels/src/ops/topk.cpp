// topk: the k largest (or smallest) values along a dim, with their indices.
#include "copy_util.h"
#include "index_util.h"

#include <algorithm>

namespace etk {

ET_KERNEL_OP("aten::topk.values", topk_values,
             "(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, "
             "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)")
void topk_values(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 7)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t k, dim;
  bool largest, sorted;
  if (!in || !arg_int(ctx, args, 1, &k) || !arg_int(ctx, args, 2, &dim) || !arg_bool(ctx, args, 3, &largest) ||
      !arg_bool(ctx, args, 4, &sorted))
    return;
  const Tensor* vals = arg_tensor(ctx, args, 5);
  const Tensor* idxs = vals ? arg_tensor(ctx, args, 6) : nullptr;
  if (!idxs) return;
  const ScalarType t = in->scalar_type();
  if (!same_or_fail(ctx, t, vals->scalar_type())) return;
  if (t == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype Bool, expected a numeric dtype");
  if (idxs->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType, "argument 6 (indices) has dtype %s, expected Long",
                dtype_name(idxs->scalar_type()));
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  Shape s = shape_of(*in);
  const int64_t len = nd == 0 ? 1 : s.d[d];
  if (k < 0 || k > len)
    return fail(ctx, Error::InvalidArgument, "k %lld (argument 1) is out of range [0, %lld]", ll(k), ll(len));
  if (nd > 0) s.d[d] = k;
  if (!resize_out(ctx, *vals, s) || !resize_out(ctx, *idxs, s)) return;
  if (vals->numel() == 0) return;
  std::vector<int64_t> ioffs, voffs, xoffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*vals, &voffs);
  tensor_offsets(*idxs, &xoffs);
  int64_t inner = 1;
  for (int q = static_cast<int>(d) + 1; q < nd; ++q) inner *= s.d[q];
  const int64_t outer = in->numel() / (len * inner);
  int64_t* xb = idxs->mutable_data_ptr<int64_t>();
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* vb = vals->mutable_data_ptr<T>();
    std::vector<std::pair<T, int64_t>> lane(static_cast<size_t>(len));
    // NaN counts as the largest value (PyTorch's order).
    auto greater = [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool an = a.first != a.first, bn = b.first != b.first;
      if (an || bn) return an && !bn ? true : (an && bn ? a.second < b.second : false);
      if (a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    };
    auto less = [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool an = a.first != a.first, bn = b.first != b.first;
      if (an || bn) return !an && bn ? true : (an && bn ? a.second < b.second : false);
      if (a.first != b.first) return a.first < b.first;
      return a.second < b.second;
    };
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t q = 0; q < inner; ++q) {
        for (int64_t j = 0; j < len; ++j)
          lane[static_cast<size_t>(j)] = {ib[ioffs[static_cast<size_t>((o * len + j) * inner + q)]], j};
        if (largest)
          std::partial_sort(lane.begin(), lane.begin() + k, lane.end(), greater);
        else
          std::partial_sort(lane.begin(), lane.begin() + k, lane.end(), less);
        for (int64_t j = 0; j < k; ++j) {
          const size_t li = static_cast<size_t>((o * k + j) * inner + q);
          vb[voffs[li]] = lane[static_cast<size_t>(j)].first;
          xb[xoffs[li]] = lane[static_cast<size_t>(j)].second;
        }
      }
    }
  });
}

}  // namespace etk
