// roll: elements shifted cyclically along dims (or the flattened tensor).
#include "copy_util.h"
#include "index_util.h"

namespace etk {

ET_KERNEL_OP("aten::roll.out", roll_out,
             "(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out) -> Tensor(a!)")
void roll_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> shifts, dims;
  if (!in || !arg_int_list(ctx, args, 1, &shifts) || !arg_int_list(ctx, args, 2, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  int64_t sh[kMaxDim] = {};
  const bool flat = dims.empty();
  int64_t flat_shift = 0;
  if (flat) {
    if (shifts.size() != 1)
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (shifts) has %zu entries, expected 1 when argument 2 (dims) is empty", shifts.size());
    flat_shift = n > 0 ? ((shifts[0] % n) + n) % n : 0;
  } else {
    if (shifts.size() != dims.size())
      return fail(ctx, Error::InvalidArgument, "argument 1 (shifts) has %zu entries, argument 2 (dims) %zu",
                  shifts.size(), dims.size());
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t d;
      if (nd == 0)
        return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, it has no dim %lld to roll", ll(dims[k]));
      if (!norm_dim(dims[k], nd, &d)) return fail_dim(ctx, dims[k], 2, nd);
      const int64_t len = in->size(d);
      if (len > 0) sh[d] = (((sh[d] + shifts[k]) % len) + len) % len;
    }
  }
  if (n == 0) return;
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t srci;
    if (flat) {
      srci = (i - flat_shift + n) % n;
    } else {
      int64_t rem = i, mul = 1;
      srci = 0;
      for (int d = nd - 1; d >= 0; --d) {
        const int64_t len = s.d[d];
        const int64_t c = rem % len;
        rem /= len;
        srci += ((c - sh[d] + len) % len) * mul;
        mul *= len;
      }
    }
    copy_elem(ob, ooffs[static_cast<size_t>(i)], ib, ioffs[static_cast<size_t>(srci)], es);
  }
}

}  // namespace etk
