// Comparisons (bool result).
#include "pointwise.h"

namespace etk {

// One functor per comparison, shared by the Tensor and Scalar forms (one instantiation of the map for both).
#define ETK_CMP(name, op)                                        \
  namespace {                                                    \
  struct name##_f {                                              \
    template <typename T>                                        \
    bool operator()(T a, T b) const {                            \
      return static_cast<bool>(a op b);                          \
    }                                                            \
  };                                                             \
  }                                                              \
  void name##_tensor_out(KernelRuntimeContext& ctx, Args args) { \
    binary_tt<MapKind::kCompare>(ctx, args, 2, name##_f{});      \
  }                                                              \
  void name##_scalar_out(KernelRuntimeContext& ctx, Args args) { \
    binary_ts<MapKind::kCompare>(ctx, args, 2, name##_f{});      \
  }
ET_KERNEL_OP("aten::eq.Tensor_out", eq_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::eq.Scalar_out", eq_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(eq, ==)
ET_KERNEL_OP("aten::ne.Tensor_out", ne_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::ne.Scalar_out", ne_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(ne, !=)
ET_KERNEL_OP("aten::lt.Tensor_out", lt_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::lt.Scalar_out", lt_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(lt, <)
ET_KERNEL_OP("aten::le.Tensor_out", le_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::le.Scalar_out", le_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(le, <=)
ET_KERNEL_OP("aten::gt.Tensor_out", gt_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::gt.Scalar_out", gt_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(gt, >)
ET_KERNEL_OP("aten::ge.Tensor_out", ge_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
ET_KERNEL_OP("aten::ge.Scalar_out", ge_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
ETK_CMP(ge, >=)
#undef ETK_CMP
}  // namespace etk
