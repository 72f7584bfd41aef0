// cumsum: running sums along one dim.
#include "copy_util.h"
#include "index_util.h"

namespace etk {

ET_KERNEL_OP("aten::cumsum.out", cumsum_out,
             "(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void cumsum_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  ScalarType dt;
  bool has_dt = false;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_opt_dtype(ctx, args, 2, &dt, &has_dt)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  const ScalarType it = in->scalar_type(), ot = out->scalar_type();
  if (!is_supported_dtype(it) || !is_supported_dtype(ot) || ot == ScalarType::Bool)
    return fail(ctx, Error::InvalidType,
                "argument 0 has dtype %s, the output %s: expected numeric dtypes, a non-Bool output", dtype_name(it),
                dtype_name(ot));
  if (has_dt && dt != ot)
    return fail(ctx, Error::InvalidType, "argument 2 (dtype) is %s, the output %s: expected the same", dtype_name(dt),
                dtype_name(ot));
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  if (n == 0) return;
  const int64_t len = nd == 0 ? 1 : s.d[d];
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  int64_t inner = 1;
  for (int k = static_cast<int>(d) + 1; k < nd; ++k) inner *= s.d[k];
  const int64_t outer = n / (len * inner);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const int64_t ies = in->element_size(), oes = out->element_size();
  const bool fp = is_floating(it) || is_floating(ot);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t q = 0; q < inner; ++q) {
      double facc = 0;
      uint64_t iacc = 0;
      for (int64_t k = 0; k < len; ++k) {
        const size_t li = static_cast<size_t>((o * len + k) * inner + q);
        const char* src = ib + ioffs[li] * ies;
        char* dst = ob + ooffs[li] * oes;
        if (fp) {
          facc += load_as<double>(src, it);
          store_as<double>(dst, ot, facc);
        } else {
          iacc += static_cast<uint64_t>(load_as<int64_t>(src, it));
          store_as<int64_t>(dst, ot, static_cast<int64_t>(iacc));
        }
      }
    }
  }
}

}  // namespace etk
