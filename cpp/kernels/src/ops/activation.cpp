// Activations: relu, clamp / hardtanh, sigmoid-based, hard-, leaky relu, gelu, elu, logit.
#include "pointwise.h"

namespace etk {

ET_KERNEL_OP("aten::relu.out", relu_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
void relu_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_unsigned<T>::value)
      return a;
    else
      return a < T(0) ? T(0) : a;
  });
}

namespace {
void clamp_impl(KernelRuntimeContext& ctx, Args args, bool has_lo, double lo, bool has_hi, double hi) {
  // Floating types compare in their own type (as PyTorch casts the bounds to the tensor's type), which keeps the
  // loop vectorizable; a NaN input stays NaN since both comparisons are false.
  auto generic = [=](auto a) {
    using T = decltype(a);
    T r = a;
    if constexpr (std::is_floating_point<T>::value) {
      if (has_lo && r < static_cast<T>(lo)) r = static_cast<T>(lo);
      if (has_hi && r > static_cast<T>(hi)) r = static_cast<T>(hi);
    } else {
      if (has_lo && static_cast<double>(r) < lo) r = param_as<T>(lo);
      if (has_hi && static_cast<double>(r) > hi) r = param_as<T>(hi);
    }
    return r;
  };
  const Tensor* a = args.size() > 0 && args[0] && args[0]->isTensor() ? &args[0]->payload.as_tensor : nullptr;
  if (a && a->scalar_type() == ScalarType::Float && has_lo && has_hi && !(lo != lo) && !(hi != hi)) {
    const float l = static_cast<float>(lo), h = static_cast<float>(hi);
    return unary<MapKind::kArith>(ctx, args, 3, [=](auto x) {
      using T = decltype(x);
      if constexpr (std::is_same<T, float>::value) {
        const float r = x < l ? l : x;
        return r > h ? h : r;
      } else {
        return generic(x);
      }
    });
  }
  unary<MapKind::kArith>(ctx, args, 3, generic);
}
}  // namespace

ET_KERNEL_OP("aten::clamp.out", clamp_out,
             "(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)")
void clamp_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  Scalar lo, hi;
  bool has_lo = false, has_hi = false;
  if (!arg_opt_scalar(ctx, args, 1, &lo, &has_lo) || !arg_opt_scalar(ctx, args, 2, &hi, &has_hi)) return;
  clamp_impl(ctx, args, has_lo, lo.to_double(), has_hi, hi.to_double());
}
ET_KERNEL_OP("aten::hardtanh.out", hardtanh_out,
             "(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)")
void hardtanh_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  double lo, hi;
  if (!arg_double(ctx, args, 1, &lo) || !arg_double(ctx, args, 2, &hi)) return;
  clamp_impl(ctx, args, true, lo, true, hi);
}

ET_KERNEL_OP("aten::clamp.Tensor_out", clamp_tensor_out,
             "(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)")
void clamp_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor *lo = nullptr, *hi = nullptr;
  if (!x || !arg_opt_tensor(ctx, args, 1, &lo) || !arg_opt_tensor(ctx, args, 2, &hi)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!lo && !hi) return fail(ctx, Error::InvalidArgument, "min and max (arguments 1, 2) are both None");
  if (out->scalar_type() == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "the output has dtype Bool, expected a numeric dtype");
  Operand ox = operand_of(*x);
  Operand olo = lo ? operand_of(*lo) : ox, ohi = hi ? operand_of(*hi) : ox;
  auto lower = [](auto a, auto l) { return is_nan(a) ? a : is_nan(l) ? l : (a < l ? l : a); };
  auto upper = [](auto a, auto h) { return is_nan(a) ? a : is_nan(h) ? h : (a > h ? h : a); };
  if (lo && hi) {
    const Operand* ins[3] = {&ox, &olo, &ohi};
    elementwise<MapKind::kArith, 3>(ctx, *out, ins, [=](auto a, auto l, auto h) { return upper(lower(a, l), h); });
  } else if (lo) {
    const Operand* ins[2] = {&ox, &olo};
    elementwise<MapKind::kArith, 2>(ctx, *out, ins, lower);
  } else {
    const Operand* ins[2] = {&ox, &ohi};
    elementwise<MapKind::kArith, 2>(ctx, *out, ins, upper);
  }
}

ET_KERNEL_OP("aten::sigmoid.out", sigmoid_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(sigmoid, T(1) / (T(1) + exp_of(-x)))
ET_KERNEL_OP("aten::silu.out", silu_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(silu, x / (T(1) + exp_of(-x)))
ET_KERNEL_OP("aten::hardswish.out", hardswish_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(hardswish, x* std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
ET_KERNEL_OP("aten::hardsigmoid.out", hardsigmoid_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(hardsigmoid, std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
#undef ETK_UNARY_FLOAT

ET_KERNEL_OP("aten::leaky_relu.out", leaky_relu_out,
             "(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)")
void leaky_relu_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  double slope;
  if (!arg_double(ctx, args, 1, &slope)) return;
  unary<MapKind::kFloat>(ctx, args, 2, [slope](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : x * static_cast<T>(slope);
  });
}

ET_KERNEL_OP("aten::gelu.out", gelu_out, "(Tensor self, *, str approximate=\"none\", Tensor(a!) out) -> Tensor(a!)")
void gelu_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  std::string_view mode = "none";
  bool has = false;
  if (!arg_opt_string(ctx, args, 1, &mode, &has)) return;
  if (!has || mode == "none") {
    unary<MapKind::kFloat>(ctx, args, 2, [](auto x) {
      using T = decltype(x);
      return static_cast<T>(T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(M_SQRT1_2))));
    });
  } else if (mode == "tanh") {
    unary<MapKind::kFloat>(ctx, args, 2, [](auto x) {
      using T = decltype(x);
      const T k = static_cast<T>(0.7978845608028654);
      return static_cast<T>(T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x))));
    });
  } else {
    fail(ctx, Error::InvalidArgument, "argument 1 (approximate) is '%.*s', expected 'none' or 'tanh'",
         static_cast<int>(mode.size()), mode.data());
  }
}

ET_KERNEL_OP("aten::elu.out", elu_out,
             "(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out) -> Tensor(a!)")
void elu_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  double alpha, scale, in_scale;
  if (!arg_double(ctx, args, 1, &alpha) || !arg_double(ctx, args, 2, &scale) || !arg_double(ctx, args, 3, &in_scale))
    return;
  unary<MapKind::kFloat>(ctx, args, 4, [=](auto x) {
    using T = decltype(x);
    const T neg = static_cast<T>(static_cast<T>(scale * alpha) * expm1_of(x * static_cast<T>(in_scale)));
    return x > T(0) ? static_cast<T>(x * static_cast<T>(scale)) : neg;
  });
}

ET_KERNEL_OP("aten::logit.out", logit_out, "(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)")
void logit_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  double eps = 0;
  bool has = false;
  if (!arg_opt_double(ctx, args, 1, &eps, &has)) return;
  unary<MapKind::kFloat>(ctx, args, 2, [=](auto x) {
    using T = decltype(x);
    if (has && !is_nan(x)) {
      const T lo = static_cast<T>(eps), hi = static_cast<T>(1.0 - eps);
      x = x < lo ? lo : x > hi ? hi : x;
    }
    return static_cast<T>(std::log(x / (T(1) - x)));
  });
}

}  // namespace etk
