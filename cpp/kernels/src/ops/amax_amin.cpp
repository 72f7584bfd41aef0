// amax / amin: the largest / smallest value over dims (a NaN wins).
#include "reduce_util.h"

namespace etk {

namespace {

// amax / amin.
void amax_amin(KernelRuntimeContext& ctx, Args args, bool is_max) {
  DimsArgs a;
  if (!dims_keepdim_args(ctx, args, &a)) return;
  const Tensor *in = a.in, *out = a.out;
  const std::vector<int64_t>& dims = a.dims;
  const bool all = a.all, keepdim = a.keepdim;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  ReducePlan p;
  const ScalarType t = in->scalar_type();
  if (!is_supported_dtype(t))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, not supported", dtype_name(t));
  if (!make_plan(ctx, *in, *out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  if (p.inner.numel == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s): cannot reduce over an empty dim",
                shape_string(*in).c_str());
  auto run = [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* ob = out->mutable_data_ptr<T>();
    for_each_output(
        p,
        [=](int64_t oo, auto reduce) {
          bool first = true;
          T best = T(0);
          reduce([&](int64_t off) {
            const T v = ib[off];
            if (first || nan_of(v) || (!nan_of(best) && (is_max ? v > best : v < best))) best = v;
            first = false;
          });
          ob[oo] = best;
        },
        p.inner.numel);
  };
  if (t == ScalarType::Bool) {
    run(uint8_t{});
  } else {
    dispatch_numeric(t, run);
  }
}

}  // namespace

ET_KERNEL_OP("aten::amax.out", amax_out,
             "(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void amax_out(KernelRuntimeContext& ctx, Args args) { amax_amin(ctx, args, true); }

ET_KERNEL_OP("aten::amin.out", amin_out,
             "(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void amin_out(KernelRuntimeContext& ctx, Args args) { amax_amin(ctx, args, false); }

}  // namespace etk
