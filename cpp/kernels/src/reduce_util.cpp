// Reduction plans (reduce_util.h).
#include "reduce_util.h"

namespace etk {

bool make_plan(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
               bool all, bool keepdim, ReducePlan* p) {
  const int nd = static_cast<int>(in.dim());
  bool red[kMaxDim] = {};
  if (all) {
    for (int d = 0; d < nd; ++d) red[d] = true;
  } else {
    for (int64_t d : dims) {
      int64_t nd2;
      if (!norm_dim(d, nd, &nd2)) {
        fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range for a %d-d tensor", ll(d), nd);
        return false;
      }
      if (nd == 0) continue;
      if (red[nd2]) {
        fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is given more than once", ll(d));
        return false;
      }
      red[nd2] = true;
    }
  }
  Operand oin = operand_of(in);
  Shape& os = p->out_shape;
  os.ndim = 0;
  Operand kin = oin;  // kept view of in
  kin.ndim = 0;
  Operand rin = oin;  // reduced view of in
  rin.ndim = 0;
  Shape kshape, rshape;
  for (int d = 0; d < nd; ++d) {
    if (red[d]) {
      if (keepdim) os.d[os.ndim++] = 1;
      rin.sizes[rin.ndim] = oin.sizes[d];
      rin.strides[rin.ndim] = oin.strides[d];
      rshape.d[rin.ndim] = oin.sizes[d];
      rin.ndim++;
    } else {
      os.d[os.ndim++] = oin.sizes[d];
      kin.sizes[kin.ndim] = oin.sizes[d];
      kin.strides[kin.ndim] = oin.strides[d];
      kshape.d[kin.ndim] = oin.sizes[d];
      kin.ndim++;
    }
  }
  kshape.ndim = kin.ndim;
  rshape.ndim = rin.ndim;
  if (!resize_out(ctx, out, os)) return false;
  Operand oout = operand_of(out);
  Operand kout = oout;  // out restricted to kept dims
  kout.ndim = 0;
  for (int d = 0, j = 0; d < nd; ++d) {
    if (red[d]) {
      if (keepdim) ++j;
      continue;
    }
    kout.sizes[kout.ndim] = oout.sizes[j];
    kout.strides[kout.ndim] = oout.strides[j];
    kout.ndim++;
    ++j;
  }
  const Operand* ops2[2] = {&kout, &kin};
  const Operand* ops1[1] = {&rin};
  if (!p->outer.init(kshape, ops2) || !p->inner.init(rshape, ops1, /*reorder=*/false)) {
    fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is too large to reduce", shape_string(in).c_str());
    return false;
  }
  return true;
}

bool dims_arg(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* dims, bool* all) {
  bool has = false;
  if (!arg_opt_int_list(ctx, args, i, dims, &has)) return false;
  *all = !has || dims->empty();
  return true;
}

bool dims_keepdim_args(KernelRuntimeContext& ctx, Args args, DimsArgs* a) {
  if (!check_nargs(ctx, args, 4)) return false;
  a->in = arg_tensor(ctx, args, 0);
  if (!a->in) return false;
  if (!dims_arg(ctx, args, 1, &a->dims, &a->all) || !arg_bool(ctx, args, 2, &a->keepdim)) return false;
  a->out = arg_tensor(ctx, args, 3);
  return a->out != nullptr;
}

}  // namespace etk
