// Unary math: abs, neg, sign, exponentials and logarithms, roots, rounding.
#include "pointwise.h"

namespace etk {

ET_KERNEL_OP("aten::abs.out", abs_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void abs_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_floating_point<T>::value)
      return std::fabs(a);
    else if constexpr (std::is_signed<T>::value)
      return a < T(0) ? w_sub(T(0), a) : a;
    else
      return a;
  });
}
ET_KERNEL_OP("aten::neg.out", neg_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void neg_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_floating_point<T>::value)
      return -a;
    else
      return w_sub(T(0), a);
  });
}
ET_KERNEL_OP("aten::sign.out", sign_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void sign_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if (is_nan(a)) return a;
    if constexpr (std::is_unsigned<T>::value)
      return static_cast<T>(a > T(0) ? 1 : 0);
    else
      return static_cast<T>((T(0) < a) - (a < T(0)));
  });
}

ET_KERNEL_OP("aten::exp.out", exp_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(exp, std::exp(x))
ET_KERNEL_OP("aten::log.out", log_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(log, std::log(x))
ET_KERNEL_OP("aten::sqrt.out", sqrt_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(sqrt, std::sqrt(x))
ET_KERNEL_OP("aten::rsqrt.out", rsqrt_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(rsqrt, T(1) / std::sqrt(x))
ET_KERNEL_OP("aten::erf.out", erf_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(erf, std::erf(x))
ET_KERNEL_OP("aten::reciprocal.out", reciprocal_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(reciprocal, T(1) / x)
ET_KERNEL_OP("aten::floor.out", floor_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(floor, std::floor(x))
ET_KERNEL_OP("aten::ceil.out", ceil_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(ceil, std::ceil(x))
ET_KERNEL_OP("aten::round.out", round_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(round, std::nearbyint(x))
ET_KERNEL_OP("aten::log1p.out", log1p_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(log1p, std::log1p(x))
ET_KERNEL_OP("aten::expm1.out", expm1_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(expm1, std::expm1(x))
ET_KERNEL_OP("aten::log2.out", log2_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(log2, std::log2(x))
ET_KERNEL_OP("aten::log10.out", log10_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(log10, std::log10(x))
ET_KERNEL_OP("aten::trunc.out", trunc_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(trunc, std::trunc(x))
#undef ETK_UNARY_FLOAT

}  // namespace etk
