// _softmax / _log_softmax along one dim.
#include "reduce_util.h"

#include <algorithm>

namespace etk {

namespace {

// softmax / log_softmax along one dim.
void softmax_impl(KernelRuntimeContext& ctx, Args args, bool log) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (!in) return;
  int64_t dim;
  bool half_to_float;
  if (!arg_int(ctx, args, 1, &dim) || !arg_bool(ctx, args, 2, &half_to_float)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (half_to_float)
    return fail(ctx, Error::NotSupported, "half_to_float (argument 2) is true, which is not supported");
  const ScalarType t = in->scalar_type();
  if (!is_floating(t) || out->scalar_type() != t)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected Float or Double, the same",
                dtype_name(t), dtype_name(out->scalar_type()));
  int64_t d;
  if (!norm_dim(dim, in->dim(), &d))
    return fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range for a %d-d tensor", ll(dim),
                static_cast<int>(in->dim()));
  const Shape shape = shape_of(*in);
  if (!resize_out(ctx, *out, shape)) return;
  if (in->numel() == 0) return;
  Operand oi = operand_of(*in), oo = operand_of(*out);
  int64_t len = 1, si = 0, so = 0;
  if (in->dim() > 0) {
    len = oi.sizes[d];
    si = oi.strides[d];
    so = oo.strides[d];
    // View the dim as size 1 for the outer loop.
    oi.sizes[d] = 1;
    oo.sizes[d] = 1;
  }
  Shape outer = shape;
  if (outer.ndim > 0) outer.d[d] = 1;
  Loop<2> L;
  const Operand* ops[2] = {&oo, &oi};
  if (!L.init(outer, ops))
    return fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) is too large", shape_string(*in).c_str());
  dispatch_float(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* ob = out->mutable_data_ptr<T>();
    auto body = [=](int64_t n, const int64_t* off, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const T* x = ib + off[1] + i * st[1];
        T* y = ob + off[0] + i * st[0];
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, x[k * si]);
        if (mx != mx) mx = 0;  // NaN input: the NaN propagates through the sum anyway
        if (std::isinf(mx)) mx = 0;
        double sum = 0;
        if (log) {
          for (int64_t k = 0; k < len; ++k) sum += std::exp(static_cast<double>(x[k * si] - mx));
          const T ls = static_cast<T>(std::log(sum));
          for (int64_t k = 0; k < len; ++k) y[k * so] = x[k * si] - mx - ls;
        } else {
          for (int64_t k = 0; k < len; ++k) {
            const T e = std::exp(x[k * si] - mx);
            y[k * so] = e;
            sum += e;
          }
          const T inv = static_cast<T>(1.0 / sum);
          for (int64_t k = 0; k < len; ++k) y[k * so] *= inv;
        }
      }
    };
    L.run(body, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, len)));
  });
}

}  // namespace

ET_KERNEL_OP("aten::_softmax.out", softmax_out,
             "(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)")
void softmax_out(KernelRuntimeContext& ctx, Args args) { softmax_impl(ctx, args, false); }

ET_KERNEL_OP("aten::_log_softmax.out", log_softmax_out,
             "(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)")
void log_softmax_out(KernelRuntimeContext& ctx, Args args) { softmax_impl(ctx, args, true); }

}  // namespace etk
