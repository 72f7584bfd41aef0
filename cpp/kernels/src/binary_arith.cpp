// Add, subtract, multiply, divide (tensor and scalar forms).
#include "ops.h"
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

void add_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_tt<MapKind::kArith>(ctx, args, 3, AddF{alpha});
}
void add_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, AddF{alpha});
}
void sub_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_tt<MapKind::kArith>(ctx, args, 3, SubF{alpha});
}
void sub_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, SubF{alpha});
}
void rsub_scalar_out(KernelRuntimeContext& ctx, Args args) {
  bool ok;
  if (!check_nargs(ctx, args, 4)) return;
  double alpha = alpha_arg(ctx, args, 2, &ok);
  if (ok) binary_ts<MapKind::kArith>(ctx, args, 3, RSubF{alpha});
}
void mul_out(KernelRuntimeContext& ctx, Args args) { binary_tt<MapKind::kArith>(ctx, args, 2, MulF{}); }
void mul_scalar_out(KernelRuntimeContext& ctx, Args args) { binary_ts<MapKind::kArith>(ctx, args, 2, MulF{}); }
void div_out(KernelRuntimeContext& ctx, Args args) { binary_tt<MapKind::kFloat>(ctx, args, 2, DivF{}); }
void div_scalar_out(KernelRuntimeContext& ctx, Args args) { binary_ts<MapKind::kFloat>(ctx, args, 2, DivF{}); }
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
