// Comparisons (bool result).
#include "ops.h"
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
ETK_CMP(eq, ==)
ETK_CMP(ne, !=)
ETK_CMP(lt, <)
ETK_CMP(le, <=)
ETK_CMP(gt, >)
ETK_CMP(ge, >=)
#undef ETK_CMP
}  // namespace etk
