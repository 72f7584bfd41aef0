// argmax / argmin (the index of the first largest / smallest value, a NaN winning) and max.dim / min.dim (the
// values with those indices).
#include "reduce_util.h"

namespace etk {

namespace {

// argmax / argmin (dim optional: flatten).
void argmax_argmin(KernelRuntimeContext& ctx, Args args, bool is_max) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim = 0;
  bool has_dim = false, keepdim = false;
  if (!arg_opt_int(ctx, args, 1, &dim, &has_dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (out->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType, "the output has dtype %s, expected Long", dtype_name(out->scalar_type()));
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t) || t == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, expected a numeric non-Bool dtype", dtype_name(t));
  if (in->numel() == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is empty", shape_string(*in).c_str());
  ReducePlan p;
  std::vector<int64_t> dims;
  if (has_dim) dims.push_back(dim);
  if (!has_dim && keepdim) {
    // keepdim with dim=None keeps every dim as 1.
    if (!make_plan(ctx, *in, *out, dims, true, true, &p)) return;
  } else if (!make_plan(ctx, *in, *out, dims, !has_dim, keepdim, &p)) {
    return;
  }
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  // The reduced loop runs in logical order (no reordering), so counting calls gives the logical index.
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    int64_t* ob = out->mutable_data_ptr<int64_t>();
    for_each_output(
        p, [=](int64_t oo, auto reduce) { arg_best<T>(ib, reduce, is_max, nullptr, ob + oo); }, p.inner.numel);
  });
}

// max.dim_max / min.dim_min: values and indices along one dim.
void max_min_dim(KernelRuntimeContext& ctx, Args args, bool is_max) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  bool keepdim;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* vals = arg_tensor(ctx, args, 3);
  const Tensor* idxs = vals ? arg_tensor(ctx, args, 4) : nullptr;
  if (!idxs) return;
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t) || t == ScalarType::Bool || vals->scalar_type() != t ||
      idxs->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType,
                "self, values, indices (arguments 0, 3, 4) have dtypes %s, %s, %s; expected numeric, the same, Long",
                dtype_name(t), dtype_name(vals->scalar_type()), dtype_name(idxs->scalar_type()));
  ReducePlan p;
  if (!make_plan(ctx, *in, *vals, {dim}, false, keepdim, &p)) return;
  if (!resize_out(ctx, *idxs, p.out_shape)) return;
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  // The indices output may have another dim order than the values: map value offsets to index offsets
  // through a second plan over the same input.
  ReducePlan pi;
  if (!make_plan(ctx, *in, *idxs, {dim}, false, keepdim, &pi)) return;
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* vb = vals->mutable_data_ptr<T>();
    int64_t* xb = idxs->mutable_data_ptr<int64_t>();
    for_each_output(
        p, [=](int64_t oo, auto reduce) { arg_best<T>(ib, reduce, is_max, vb + oo, nullptr); }, p.inner.numel);
    for_each_output(
        pi, [=](int64_t oo, auto reduce) { arg_best<T>(ib, reduce, is_max, nullptr, xb + oo); }, pi.inner.numel);
  });
}

}  // namespace

ET_KERNEL_OP("aten::argmax.out", argmax_out,
             "(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void argmax_out(KernelRuntimeContext& ctx, Args args) { argmax_argmin(ctx, args, true); }

ET_KERNEL_OP("aten::argmin.out", argmin_out,
             "(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void argmin_out(KernelRuntimeContext& ctx, Args args) { argmax_argmin(ctx, args, false); }

ET_KERNEL_OP("aten::max.dim_max", max_dim_max,
             "(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) "
             "values, Tensor(b!) indices)")
void max_dim_max(KernelRuntimeContext& ctx, Args args) { max_min_dim(ctx, args, true); }

ET_KERNEL_OP("aten::min.dim_min", min_dim_min,
             "(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, Tensor(b!) min_indices) -> (Tensor(a!) "
             "values, Tensor(b!) indices)")
void min_dim_min(KernelRuntimeContext& ctx, Args args) { max_min_dim(ctx, args, false); }

}  // namespace etk
