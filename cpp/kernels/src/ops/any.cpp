// any: whether any element is nonzero, over one dim, some dims or all.
#include "reduce_util.h"

namespace etk {

namespace {

// any over dims.
void any_impl(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
              bool all, bool keepdim) {
  const ScalarType it = in.scalar_type(), ot = out.scalar_type();
  if (!is_supported_dtype(it) || !is_supported_dtype(ot))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: not supported", dtype_name(it),
                dtype_name(ot));
  ReducePlan p;
  if (!make_plan(ctx, in, out, dims, all, keepdim, &p)) return;
  if (p.outer.numel == 0) return;
  const char* ib = static_cast<const char*>(in.const_data_ptr());
  char* ob = static_cast<char*>(out.mutable_data_ptr());
  const int64_t ies = in.element_size(), oes = out.element_size();
  for_each_output(
      p,
      [=](int64_t oo, auto reduce) {
        bool acc = false;
        if (ies == 1 && (it == ScalarType::Bool || it == ScalarType::Byte || it == ScalarType::Char)) {  // masks
          reduce([&](int64_t off) { acc = acc | (ib[off] != 0); });  // no branch: the loop vectorizes
        } else if (is_floating(it)) {
          reduce([&](int64_t off) { acc = acc || load_as<double>(ib + off * ies, it) != 0.0; });
        } else {
          reduce([&](int64_t off) { acc = acc || load_as<int64_t>(ib + off * ies, it) != 0; });
        }
        store_as<int64_t>(ob + oo * oes, ot, acc ? 1 : 0);
      },
      p.inner.numel);
}

}  // namespace

ET_KERNEL_OP("aten::any.out", any_out, "(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void any_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim;
  bool keepdim;
  if (!arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &keepdim)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  any_impl(ctx, *in, *out, std::vector<int64_t>{dim}, false, keepdim);
}

ET_KERNEL_OP("aten::any.dims_out", any_dims_out,
             "(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)")
void any_dims_out(KernelRuntimeContext& ctx, Args args) {
  DimsArgs a;
  if (dims_keepdim_args(ctx, args, &a)) any_impl(ctx, *a.in, *a.out, a.dims, a.all, a.keepdim);
}

ET_KERNEL_OP("aten::any.all_out", any_all_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void any_all_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  any_impl(ctx, *in, *out, {}, true, false);
}

}  // namespace etk
