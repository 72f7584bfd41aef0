// triu / tril: the upper / lower triangle of the last two dims, the rest zeroed.
#include "copy_util.h"
#include "index_util.h"

namespace etk {

namespace {
void tri_impl(KernelRuntimeContext& ctx, Args args, bool upper) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t diag;
  if (!in || !arg_int(ctx, args, 1, &diag)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  if (nd < 2) return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d, expected at least 2-d", nd);
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  if (n == 0) return;
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  const int64_t R = s.d[nd - 2], C = s.d[nd - 1];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = i % C, r = (i / C) % R;
    const bool keep = upper ? (c - r >= diag) : (c - r <= diag);
    char* dst = ob + ooffs[static_cast<size_t>(i)] * static_cast<int64_t>(es);
    if (keep)
      std::memcpy(dst, ib + ioffs[static_cast<size_t>(i)] * static_cast<int64_t>(es), es);
    else
      std::memset(dst, 0, es);
  }
}
}  // namespace

ET_KERNEL_OP("aten::triu.out", triu_out, "(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)")
void triu_out(KernelRuntimeContext& ctx, Args args) { tri_impl(ctx, args, true); }

ET_KERNEL_OP("aten::tril.out", tril_out, "(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)")
void tril_out(KernelRuntimeContext& ctx, Args args) { tri_impl(ctx, args, false); }

}  // namespace etk
