// Unary math: abs, neg, sign, exponentials and logarithms, roots, rounding.
#include "ops.h"
#include "pointwise.h"

namespace etk {

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
void neg_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_floating_point<T>::value)
      return -a;
    else
      return w_sub(T(0), a);
  });
}
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

ETK_UNARY_FLOAT(exp, std::exp(x))
ETK_UNARY_FLOAT(log, std::log(x))
ETK_UNARY_FLOAT(sqrt, std::sqrt(x))
ETK_UNARY_FLOAT(rsqrt, T(1) / std::sqrt(x))
ETK_UNARY_FLOAT(erf, std::erf(x))
ETK_UNARY_FLOAT(reciprocal, T(1) / x)
ETK_UNARY_FLOAT(floor, std::floor(x))
ETK_UNARY_FLOAT(ceil, std::ceil(x))
ETK_UNARY_FLOAT(round, std::nearbyint(x))
ETK_UNARY_FLOAT(log1p, std::log1p(x))
ETK_UNARY_FLOAT(expm1, std::expm1(x))
ETK_UNARY_FLOAT(log2, std::log2(x))
ETK_UNARY_FLOAT(log10, std::log10(x))
ETK_UNARY_FLOAT(trunc, std::trunc(x))
#undef ETK_UNARY_FLOAT

}  // namespace etk
