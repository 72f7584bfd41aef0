#pragma once
// The drivers every element-wise kernel file shares: argument unpacking for (tensor, tensor), (tensor, scalar),
// (scalar, tensor) and unary operators over the broadcasting map of elementwise.h, and small math helpers.
#include "elementwise.h"
#include "fast_math.h"

#include <cmath>
#include <type_traits>

namespace etk {

// A 0-dim tensor operand next to a tensor of another dtype takes that dtype (as PyTorch treats 0-dim tensors
// like scalars), so the fast typed path applies. `sa` / `sb` are 8-byte scratch for the converted values.
void harmonize(Operand* a, Operand* b, ScalarType out_t, void* sa, void* sb);

// Binary driver over (tensor, tensor).
template <MapKind kind, typename F>
void binary_tt(KernelRuntimeContext& ctx, Args args, size_t out_idx, const F& f) {
  if (!check_nargs(ctx, args, out_idx + 1)) return;
  const Tensor* a = arg_tensor(ctx, args, 0);
  const Tensor* b = a ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* out = b ? arg_tensor(ctx, args, out_idx) : nullptr;
  if (!out) return;
  Operand oa = operand_of(*a), ob = operand_of(*b);
  alignas(8) char sa[8], sb[8];
  if constexpr (kind != MapKind::kCompare)
    harmonize(&oa, &ob, out->scalar_type(), sa, sb);
  else
    harmonize(&oa, &ob, oa.numel() == 1 && oa.ndim == 0 ? ob.dtype : oa.dtype, sa, sb);
  const Operand* ins[2] = {&oa, &ob};
  elementwise<kind, 2>(ctx, *out, ins, f);
}

// Binary driver over (tensor, scalar at index 1).
template <MapKind kind, typename F>
void binary_ts(KernelRuntimeContext& ctx, Args args, size_t out_idx, const F& f) {
  if (!check_nargs(ctx, args, out_idx + 1)) return;
  const Tensor* a = arg_tensor(ctx, args, 0);
  if (!a) return;
  Scalar s;
  if (!arg_scalar(ctx, args, 1, &s)) return;
  const Tensor* out = arg_tensor(ctx, args, out_idx);
  if (!out) return;
  Operand oa = operand_of(*a);
  alignas(8) char sb[8];
  Operand ob = scalar_operand(s, scalar_dtype_next_to(a->scalar_type(), s), sb);
  const Operand* ins[2] = {&oa, &ob};
  elementwise<kind, 2>(ctx, *out, ins, f);
}

// Binary driver over (scalar at index 0, tensor at index 1).
template <MapKind kind, typename F>
void binary_st(KernelRuntimeContext& ctx, Args args, size_t out_idx, const F& f) {
  if (!check_nargs(ctx, args, out_idx + 1)) return;
  Scalar s;
  if (!arg_scalar(ctx, args, 0, &s)) return;
  const Tensor* b = arg_tensor(ctx, args, 1);
  const Tensor* out = b ? arg_tensor(ctx, args, out_idx) : nullptr;
  if (!out) return;
  alignas(8) char sa[8];
  Operand oa = scalar_operand(s, scalar_dtype_next_to(b->scalar_type(), s), sa);
  Operand ob = operand_of(*b);
  const Operand* ins[2] = {&oa, &ob};
  elementwise<kind, 2>(ctx, *out, ins, f);
}

template <MapKind kind, typename F>
void unary(KernelRuntimeContext& ctx, Args args, size_t out_idx, const F& f) {
  if (!check_nargs(ctx, args, out_idx + 1)) return;
  const Tensor* a = arg_tensor(ctx, args, 0);
  const Tensor* out = a ? arg_tensor(ctx, args, out_idx) : nullptr;
  if (!out) return;
  Operand oa = operand_of(*a);
  const Operand* ins[1] = {&oa};
  elementwise<kind, 1>(ctx, *out, ins, f);
}

template <typename T>
inline T exp_of(T x) {
  if constexpr (std::is_same<T, float>::value)
    return fast_expf(x);
  else
    return std::exp(x);
}
template <typename T>
inline T expm1_of(T x) {
  // Near 0 the subtraction would lose relative precision: a Taylor polynomial there (error < 1e-8 relative).
  if constexpr (std::is_same<T, float>::value) {
    const float e = fast_expf(x) - 1.f;
    const float q =
        x * (1.f + x * (0.5f + x * (1.f / 6 + x * (1.f / 24 + x * (1.f / 120 + x * (1.f / 720 + x * (1.f / 5040)))))));
    return (x > -0.25f && x < 0.25f) ? q : e;
  } else
    return std::expm1(x);
}

template <typename T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value)
    return v != v;
  else
    return false;
}

// name##_out for a floating-point unary operator: `expr` in terms of x (of type T).
#define ETK_UNARY_FLOAT(name, expr)                       \
  void name##_out(KernelRuntimeContext& ctx, Args args) { \
    unary<MapKind::kFloat>(ctx, args, 1, [](auto x) {     \
      using T = decltype(x);                              \
      (void)sizeof(T);                                    \
      return static_cast<T>(expr);                        \
    });                                                   \
  }

}  // namespace etk
