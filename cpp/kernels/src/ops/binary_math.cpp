// Maximum / minimum, powers, remainder / fmod / floor division, atan2.
#include "pointwise.h"

#include <atomic>

namespace etk {

ET_KERNEL_OP("aten::maximum.out", maximum_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void maximum_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) {
    return is_nan(a) ? a : is_nan(b) ? b : (a > b ? a : b);
  });
}
ET_KERNEL_OP("aten::minimum.out", minimum_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void minimum_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) {
    return is_nan(a) ? a : is_nan(b) ? b : (a < b ? a : b);
  });
}
ET_KERNEL_OP("aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out,
             "(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)")
void pow_tensor_scalar_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  Scalar e;
  if (!arg_scalar(ctx, args, 1, &e)) return;
  const double ex = e.to_double();
  if (ex == 2.0) return unary<MapKind::kFloat>(ctx, args, 2, [](auto a) { return a * a; });
  unary<MapKind::kFloat>(ctx, args, 2, [ex](auto a) {
    using T = decltype(a);
    return static_cast<T>(std::pow(a, static_cast<T>(ex)));
  });
}

namespace {
template <typename T>
T pow_of(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::pow(a, b);
  } else {
    // Integer power by squaring with wrapping; negative exponents give 0 except for bases 1 and -1.
    int64_t base = static_cast<int64_t>(a), e = static_cast<int64_t>(b);
    if (e < 0) return base == 1 ? T(1) : base == -1 ? ((e & 1) ? T(-1) : T(1)) : T(0);
    uint64_t r = 1, x = static_cast<uint64_t>(base);
    while (e > 0) {
      if (e & 1) r *= x;
      x *= x;
      e >>= 1;
    }
    return static_cast<T>(r);
  }
}
struct PowF {
  template <typename T>
  T operator()(T a, T b) const {
    return pow_of(a, b);
  }
};
}  // namespace

ET_KERNEL_OP("aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out,
             "(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)")
void pow_tensor_tensor_out(KernelRuntimeContext& ctx, Args args) { binary_tt<MapKind::kArith>(ctx, args, 2, PowF{}); }
ET_KERNEL_OP("aten::pow.Scalar_out", pow_scalar_out, "(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)")
void pow_scalar_out(KernelRuntimeContext& ctx, Args args) { binary_st<MapKind::kArith>(ctx, args, 2, PowF{}); }

namespace {
// Integer division by zero is an error (as in PyTorch); it is reported after the loop.
struct DivZero {
  std::atomic<bool>* flag;
  void set() const { flag->store(true, std::memory_order_relaxed); }
};
struct RemainderF {
  DivZero z;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      T m = std::fmod(a, b);
      if (m != T(0) && ((b < T(0)) != (m < T(0)))) m += b;
      return m;
    } else {
      if (b == T(0)) {
        z.set();
        return T(0);
      }
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return T(0);
        T m = static_cast<T>(a % b);
        if (m != T(0) && ((b < T(0)) != (m < T(0)))) m = static_cast<T>(m + b);
        return m;
      } else {
        return static_cast<T>(a % b);
      }
    }
  }
};
struct FmodF {
  DivZero z;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      return std::fmod(a, b);
    } else {
      if (b == T(0)) {
        z.set();
        return T(0);
      }
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return T(0);
      }
      return static_cast<T>(a % b);
    }
  }
};
struct FloorDivF {
  DivZero z;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      if (b == T(0)) return a / b;
      T m = std::fmod(a, b);
      T d = (a - m) / b;
      if (m != T(0) && ((b < T(0)) != (m < T(0)))) d -= T(1);
      return d;
    } else {
      if (b == T(0)) {
        z.set();
        return T(0);
      }
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return w_sub(T(0), a);
        T q = static_cast<T>(a / b);
        if ((a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
        return q;
      } else {
        return static_cast<T>(a / b);
      }
    }
  }
};

template <typename F>
void int_div_family(KernelRuntimeContext& ctx, Args args, bool scalar_other) {
  std::atomic<bool> zero{false};
  F f{DivZero{&zero}};
  if (scalar_other)
    binary_ts<MapKind::kArith>(ctx, args, 2, f);
  else
    binary_tt<MapKind::kArith>(ctx, args, 2, f);
  if (zero.load()) fail(ctx, Error::InvalidArgument, "integer division by zero: argument 1 holds 0");
}
}  // namespace

ET_KERNEL_OP("aten::remainder.Tensor_out", remainder_tensor_out,
             "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void remainder_tensor_out(KernelRuntimeContext& ctx, Args args) { int_div_family<RemainderF>(ctx, args, false); }
ET_KERNEL_OP("aten::remainder.Scalar_out", remainder_scalar_out,
             "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
void remainder_scalar_out(KernelRuntimeContext& ctx, Args args) { int_div_family<RemainderF>(ctx, args, true); }
ET_KERNEL_OP("aten::fmod.Tensor_out", fmod_tensor_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void fmod_tensor_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FmodF>(ctx, args, false); }
ET_KERNEL_OP("aten::fmod.Scalar_out", fmod_scalar_out, "(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)")
void fmod_scalar_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FmodF>(ctx, args, true); }
ET_KERNEL_OP("aten::floor_divide.out", floor_divide_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void floor_divide_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FloorDivF>(ctx, args, false); }

ET_KERNEL_OP("aten::atan2.out", atan2_out, "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void atan2_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kFloat>(ctx, args, 2, [](auto a, auto b) { return std::atan2(a, b); });
}

}  // namespace etk
