// Add, subtract, multiply, divide (tensor and scalar forms).
#include "pointwise.h"

namespace etk {

namespace {

struct AddF {
  double alpha;
  template <typename T>
  T operator()(T a, T b) const {
    return alpha == 1.0 ? w_add(a, b) : w_add(a, w_mul(param_as<T>(alpha), b));
  }
};
struct SubF {
  double alpha;
  template <typename T>
  T operator()(T a, T b) const {
    return alpha == 1.0 ? w_sub(a, b) : w_sub(a, w_mul(param_as<T>(alpha), b));
  }
};
struct RSubF {
  double alpha;
  template <typename T>
  T operator()(T a, T b) const {
    return alpha == 1.0 ? w_sub(b, a) : w_sub(b, w_mul(param_as<T>(alpha), a));
  }
};

struct MulF {
  template <typename T>
  T operator()(T a, T b) const {
    return w_mul(a, b);
  }
};
struct DivF {
  template <typename T>
  T operator()(T a, T b) const {
    return a / b;
  }
};

double alpha_arg(KernelRuntimeContext& ctx, Args args, size_t i, bool* ok) {
  Scalar s;
  *ok = arg_scalar(ctx, args, i, &s);
  return s.to_double();
}

}  // namespace

ET_KERNEL_OP("aten::add.out", add_out, "(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
void add_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_tt<MapKind::kArith>(ctx, args, 3, AddF{alpha});
}
ET_KERNEL_OP("aten::add.Scalar_out", add_scalar_out,
             "(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")
void add_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, AddF{alpha});
}
ET_KERNEL_OP("aten::sub.out", sub_out, "(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
void sub_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_tt<MapKind::kArith>(ctx, args, 3, SubF{alpha});
}
ET_KERNEL_OP("aten::sub.Scalar_out", sub_scalar_out,
             "(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")
void sub_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, SubF{alpha});
}
ET_KERNEL_OP("aten::rsub.Scalar_out", rsub_scalar_out,
             "(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)")
void rsub_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, RSubF{alpha});
}
ET_KERNEL_OP("aten::mul.out", mul_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void mul_out(KernelRuntimeContext& ctx, Args args) { binary_tt<MapKind::kArith>(ctx, args, 2, MulF{}); }
ET_KERNEL_OP("aten::mul.Scalar_out", mul_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
void mul_scalar_out(KernelRuntimeContext& ctx, Args args) { binary_ts<MapKind::kArith>(ctx, args, 2, MulF{}); }
ET_KERNEL_OP("aten::div.out", div_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void div_out(KernelRuntimeContext& ctx, Args args) { binary_tt<MapKind::kFloat>(ctx, args, 2, DivF{}); }
ET_KERNEL_OP("aten::div.Scalar_out", div_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
void div_scalar_out(KernelRuntimeContext& ctx, Args args) { binary_ts<MapKind::kFloat>(ctx, args, 2, DivF{}); }
ET_KERNEL_OP("aten::div.out_mode", div_out_mode,
             "(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)")
void div_out_mode(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  std::string_view mode;
  bool has = false;
  if (!arg_opt_string(ctx, args, 2, &mode, &has)) return;
  if (!has) return binary_tt<MapKind::kFloat>(ctx, args, 3, DivF{});
  if (mode == "trunc") {
    return binary_tt<MapKind::kFloat>(ctx, args, 3, [](auto a, auto b) { return std::trunc(a / b); });
  }
  if (mode == "floor") {
    return binary_tt<MapKind::kFloat>(ctx, args, 3, [](auto a, auto b) { return std::floor(a / b); });
  }
  fail(ctx, Error::InvalidArgument, "argument 2 (rounding_mode) is '%.*s', expected None, 'trunc' or 'floor'",
       static_cast<int>(mode.size()), mode.data());
}

}  // namespace etk
