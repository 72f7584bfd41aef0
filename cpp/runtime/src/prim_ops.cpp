// Primitive operators that every program may use (symbolic sizes and scalar arithmetic). They belong to the
// runtime itself, not to a kernel library, and are registered when libexecutorch loads.
#include <executorch/runtime/kernel/kernel_includes.h>

#include <cmath>

namespace executorch {
namespace runtime {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;

bool scalar(const EValue* v) { return v != nullptr && (v->isInt() || v->isDouble() || v->isBool()); }

// Writes the result of a binary scalar op: Int when both inputs are Int (or Bool), else Double.
template <typename IntOp, typename DoubleOp>
void binary_scalar(KernelRuntimeContext& ctx, Span<EValue*> args, IntOp int_op, DoubleOp double_op) {
  if (args.size() < 3 || !scalar(args[0]) || !scalar(args[1])) return ctx.fail(Error::InvalidArgument);
  const bool ints = !args[0]->isDouble() && !args[1]->isDouble();
  if (ints) {
    const int64_t a = args[0]->isBool() ? args[0]->toBool() : args[0]->toInt();
    const int64_t b = args[1]->isBool() ? args[1]->toBool() : args[1]->toInt();
    int64_t r = 0;
    if (!int_op(a, b, &r)) return ctx.fail(Error::InvalidArgument);
    *args[2] = EValue(r);
  } else {
    *args[2] = EValue(double_op(args[0]->toScalarDouble(), args[1]->toScalarDouble()));
  }
}

template <typename Cmp>
void compare_scalar(KernelRuntimeContext& ctx, Span<EValue*> args, Cmp cmp) {
  if (args.size() < 3 || !scalar(args[0]) || !scalar(args[1])) return ctx.fail(Error::InvalidArgument);
  *args[2] = EValue(static_cast<bool>(cmp(args[0]->toScalarDouble(), args[1]->toScalarDouble())));
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

void sym_size(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 3 || !args[0]->isTensor() || !args[1]->isInt()) return ctx.fail(Error::InvalidArgument);
  const Tensor& t = args[0]->toTensor();
  int64_t d = args[1]->toInt();
  if (d < 0) d += t.dim();
  if (d < 0 || d >= t.dim()) return ctx.fail(Error::InvalidArgument);
  *args[2] = EValue(static_cast<int64_t>(t.size(d)));
}

void sym_numel(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 2 || !args[0]->isTensor()) return ctx.fail(Error::InvalidArgument);
  *args[1] = EValue(static_cast<int64_t>(args[0]->toTensor().numel()));
}

void local_scalar_dense(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 2 || !args[0]->isTensor()) return ctx.fail(Error::InvalidArgument);
  const Tensor& t = args[0]->toTensor();
  if (t.numel() != 1 || t.const_data_ptr() == nullptr) return ctx.fail(Error::InvalidArgument);
  switch (t.scalar_type()) {
    case ScalarType::Float: *args[1] = EValue(static_cast<double>(*t.const_data_ptr<float>())); break;
    case ScalarType::Double: *args[1] = EValue(*t.const_data_ptr<double>()); break;
    case ScalarType::Long: *args[1] = EValue(*t.const_data_ptr<int64_t>()); break;
    case ScalarType::Int: *args[1] = EValue(static_cast<int64_t>(*t.const_data_ptr<int32_t>())); break;
    case ScalarType::Bool: *args[1] = EValue(*t.const_data_ptr<uint8_t>() != 0); break;
    default: return ctx.fail(Error::InvalidType);
  }
}

void neg_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (args.size() < 2 || !scalar(args[0])) return ctx.fail(Error::InvalidArgument);
  if (args[0]->isInt()) {
    *args[1] = EValue(-args[0]->toInt());
  } else {
    *args[1] = EValue(-args[0]->toScalarDouble());
  }
}

void et_view(KernelRuntimeContext& ctx, Span<EValue*> args) {
  // et_view.default(Tensor self, int[] size) -> Tensor: the output shares self's data. One size may be -1 (the
  // number of elements left), as in view_copy; sizes may be symbolic (values computed earlier in the program).
  if (args.size() < 3 || !args[0]->isTensor() || !args[1]->isIntList() || !args[2]->isTensor()) {
    return ctx.fail(Error::InvalidArgument, "et_view: expected (Tensor self, int[] size) -> Tensor");
  }
  const Tensor& self = args[0]->toTensor();
  Tensor out = args[2]->toTensor();
  auto size = args[1]->toIntList();
  if (static_cast<ssize_t>(size.size()) != out.dim() || out.scalar_type() != self.scalar_type() || size.size() > 16) {
    return ctx.fail(Error::InvalidArgument, "et_view: %zu sizes for a %zd-d output (self's dtype must be the output's)",
                    size.size(), static_cast<ssize_t>(out.dim()));
  }
  executorch::aten::SizesType sizes[16];
  int64_t n = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
      continue;
    }
    if (size[i] < 0 || size[i] > INT32_MAX) {
      return ctx.fail(Error::InvalidArgument, "et_view: size %zu is %lld", i, static_cast<long long>(size[i]));
    }
    sizes[i] = static_cast<executorch::aten::SizesType>(size[i]);
    n *= size[i];
  }
  if (infer >= 0) {
    if (n == 0 || self.numel() % n != 0) {
      return ctx.fail(Error::InvalidArgument, "et_view: cannot infer size %d: %zd elements, %lld in the other sizes",
                      infer, static_cast<ssize_t>(self.numel()), static_cast<long long>(n));
    }
    sizes[infer] = static_cast<executorch::aten::SizesType>(self.numel() / n);
    n = self.numel();
  }
  if (n != self.numel()) {
    return ctx.fail(Error::InvalidArgument, "et_view: the sizes hold %lld elements, self %zd",
                    static_cast<long long>(n), static_cast<ssize_t>(self.numel()));
  }
  if (resize_tensor(out, ArrayRef<executorch::aten::SizesType>(sizes, size.size())) != Error::Ok) {
    return ctx.fail(Error::InvalidArgument, "et_view: the output cannot take the new sizes (beyond its bound)");
  }
  out.unsafeGetTensorImpl()->set_data(self.mutable_data_ptr());
}

#define ET_BIN(name, int_expr, dbl_expr)                                                         \
  Kernel("executorch_prim::" name ".Scalar", [](KernelRuntimeContext& ctx, Span<EValue*> args) { \
    binary_scalar(                                                                               \
        ctx, args, [](int64_t a, int64_t b, int64_t* r) { return int_expr; },                    \
        [](double a, double b) { return dbl_expr; });                                            \
  })
#define ET_CMP(name, op)                                                                         \
  Kernel("executorch_prim::" name ".Scalar", [](KernelRuntimeContext& ctx, Span<EValue*> args) { \
    compare_scalar(ctx, args, [](double a, double b) { return a op b; });                        \
  })

const Kernel kPrimOps[] = {
    Kernel("aten::sym_size.int", sym_size),
    Kernel("aten::sym_numel", sym_numel),
    Kernel("aten::_local_scalar_dense", local_scalar_dense),
    ET_BIN("add", !__builtin_add_overflow(a, b, r), a + b),
    ET_BIN("sub", !__builtin_sub_overflow(a, b, r), a - b),
    ET_BIN("mul", !__builtin_mul_overflow(a, b, r), a* b),
    ET_BIN("floordiv", (b != 0 && !(a == INT64_MIN && b == -1)) && ((*r = floor_div(a, b)), true), std::floor(a / b)),
    ET_BIN("mod", (b != 0 && !(a == INT64_MIN && b == -1)) && ((*r = a - floor_div(a, b) * b), true),
           a - std::floor(a / b) * b),
    ET_BIN("sym_max", ((*r = a > b ? a : b), true), a > b ? a : b),
    ET_BIN("sym_min", ((*r = a < b ? a : b), true), a < b ? a : b),
    Kernel("executorch_prim::truediv.Scalar",
           [](KernelRuntimeContext& ctx, Span<EValue*> args) {
             if (args.size() < 3 || !scalar(args[0]) || !scalar(args[1])) return ctx.fail(Error::InvalidArgument);
             *args[2] = EValue(args[0]->toScalarDouble() / args[1]->toScalarDouble());
           }),
    ET_CMP("eq", ==),
    ET_CMP("gt", >),
    ET_CMP("lt", <),
    ET_CMP("ge", >=),
    ET_CMP("le", <=),
    Kernel("executorch_prim::neg.Scalar", neg_scalar),
    Kernel("executorch_prim::floordiv.int",
           [](KernelRuntimeContext& ctx, Span<EValue*> args) {
             if (args.size() < 3 || !args[0]->isInt() || !args[1]->isInt()) return ctx.fail(Error::InvalidArgument);
             const int64_t a = args[0]->toInt(), b = args[1]->toInt();
             if (b == 0 || (a == INT64_MIN && b == -1)) return ctx.fail(Error::InvalidArgument);
             *args[2] = EValue(floor_div(a, b));
           }),
    Kernel("executorch_prim::mod.int",
           [](KernelRuntimeContext& ctx, Span<EValue*> args) {
             if (args.size() < 3 || !args[0]->isInt() || !args[1]->isInt()) return ctx.fail(Error::InvalidArgument);
             const int64_t a = args[0]->toInt(), b = args[1]->toInt();
             if (b == 0 || (a == INT64_MIN && b == -1)) return ctx.fail(Error::InvalidArgument);
             *args[2] = EValue(a - floor_div(a, b) * b);
           }),
    Kernel("executorch_prim::et_view.default", et_view),
};

const bool kRegistered = [] {
  return register_kernels(Span<const Kernel>(kPrimOps, sizeof(kPrimOps) / sizeof(kPrimOps[0]))) == Error::Ok;
}();

}  // namespace
}  // namespace runtime
}  // namespace executorch
