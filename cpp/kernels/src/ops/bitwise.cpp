// Bitwise (integer and bool types) and logical operators.
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
ET_KERNEL_OP("aten::bitwise_and.Tensor_out", bitwise_and_tensor_out,
             "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::bitwise_and.Scalar_out", bitwise_and_scalar_out,
             "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_BITWISE(and, &)
ET_KERNEL_OP("aten::bitwise_or.Tensor_out", bitwise_or_tensor_out,
             "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::bitwise_or.Scalar_out", bitwise_or_scalar_out,
             "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_BITWISE(or, |)
ET_KERNEL_OP("aten::bitwise_xor.Tensor_out", bitwise_xor_tensor_out,
             "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::bitwise_xor.Scalar_out", bitwise_xor_scalar_out,
             "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_BITWISE(xor, ^)
#undef ETK_BITWISE

ET_KERNEL_OP("aten::bitwise_not.out", bitwise_not_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
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

ET_KERNEL_OP("aten::logical_not.out", logical_not_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void logical_not_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kCompare>(ctx, args, 1, [](auto a) { return a == decltype(a)(0); });
}
ET_KERNEL_OP("aten::logical_and.out", logical_and_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void logical_and_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return a != decltype(a)(0) && b != decltype(b)(0); });
}
ET_KERNEL_OP("aten::logical_or.out", logical_or_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void logical_or_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return a != decltype(a)(0) || b != decltype(b)(0); });
}
ET_KERNEL_OP("aten::logical_xor.out", logical_xor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void logical_xor_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2,
                               [](auto a, auto b) { return (a != decltype(a)(0)) != (b != decltype(b)(0)); });
}

}  // namespace etk
