// Bitwise (integer and bool types) and logical operators.
#include "ops.h"
#include "pointwise.h"

#include <initializer_list>

namespace etk {

namespace {
bool integral_args(KernelRuntimeContext& ctx, Args args, std::initializer_list<size_t> idx) {
  for (size_t i : idx) {
    if (i >= args.size() || args[i] == nullptr || !args[i]->isTensor()) continue;  // checked by the driver
    const ScalarType t = args[i]->payload.as_tensor.scalar_type();
    if (!is_integral(t, true)) {
      fail(ctx, Error::InvalidType, "argument %zu has dtype %s, expected an integer or Bool dtype", i, dtype_name(t));
      return false;
    }
  }
  return true;
}
}  // namespace

// One functor per operator, shared by the Tensor and Scalar forms.
#define ETK_BITWISE(name, op)                                                                                        \
  namespace {                                                                                                        \
  struct bitwise_##name##_f {                                                                                        \
    template <typename T>                                                                                            \
    T operator()(T a, T b) const {                                                                                   \
      if constexpr (std::is_integral<T>::value)                                                                      \
        return static_cast<T>(a op b);                                                                               \
      else                                                                                                           \
        return a;                                                                                                    \
    }                                                                                                                \
  };                                                                                                                 \
  }                                                                                                                  \
  void bitwise_##name##_tensor_out(KernelRuntimeContext& ctx, Args args) {                                           \
    if (!check_nargs(ctx, args, 3) || !integral_args(ctx, args, {0, 1, 2})) return;                                  \
    binary_tt<MapKind::kArith>(ctx, args, 2, bitwise_##name##_f{});                                                  \
  }                                                                                                                  \
  void bitwise_##name##_scalar_out(KernelRuntimeContext& ctx, Args args) {                                           \
    if (!check_nargs(ctx, args, 3) || !integral_args(ctx, args, {0, 2})) return;                                     \
    if (args[1]->isDouble()) return fail(ctx, Error::InvalidType, "argument 1 is a float, expected an int or bool"); \
    binary_ts<MapKind::kArith>(ctx, args, 2, bitwise_##name##_f{});                                                  \
  }
ETK_BITWISE(and, &)
ETK_BITWISE(or, |)
ETK_BITWISE(xor, ^)
#undef ETK_BITWISE

void bitwise_not_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2) || !integral_args(ctx, args, {0, 1})) return;
  if (args[0]->isTensor() && args[0]->payload.as_tensor.scalar_type() == ScalarType::Bool)
    return unary<MapKind::kCompare>(ctx, args, 1, [](auto a) { return a == decltype(a)(0); });
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_integral<T>::value)
      return static_cast<T>(~a);
    else
      return a;
  });
}

void logical_not_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kCompare>(ctx, args, 1, [](auto a) { return a == decltype(a)(0); });
}
void logical_and_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return a != decltype(a)(0) && b != decltype(b)(0); });
}
void logical_or_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return a != decltype(a)(0) || b != decltype(b)(0); });
}
void logical_xor_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2,
                               [](auto a, auto b) { return (a != decltype(a)(0)) != (b != decltype(b)(0)); });
}

}  // namespace etk
