// Element-wise kernels: arithmetic, comparisons, activations, where.
#include "elementwise.h"
#include "fast_math.h"
#include "ops.h"

#include <algorithm>
#include <atomic>
#include <initializer_list>

namespace etk {
namespace {

// A 0-dim tensor operand next to a tensor of another dtype takes that dtype (as PyTorch treats 0-dim tensors
// like scalars), so the fast typed path applies.
void harmonize(Operand* a, Operand* b, ScalarType out_t, void* sa, void* sb) {
  if (a->dtype == b->dtype) return;
  auto conv = [](Operand* o, ScalarType to, void* st) {
    double v = load_as<double>(o->data, o->dtype);
    int64_t iv = load_as<int64_t>(o->data, o->dtype);
    Operand n = *o;
    n.data = static_cast<char*>(st);
    n.dtype = to;
    n.esize = static_cast<int64_t>(rt::etensor::elementSize(to));
    std::memset(st, 0, 8);
    if (is_floating(to) || is_floating(o->dtype))
      store_as<double>(n.data, to, v);
    else
      store_as<int64_t>(n.data, to, iv);
    // All strides are irrelevant for a single element.
    for (int d = 0; d < n.ndim; ++d) n.strides[d] = 0;
    *o = n;
  };
  auto dominates = [](ScalarType big, ScalarType small) {
    if (is_floating(big)) return !is_floating(small) || big == ScalarType::Float;
    if (is_integral(big, false)) return is_integral(small, true) && small != ScalarType::Long;
    return false;
  };
  if (b->numel() == 1 && b->ndim == 0 && a->numel() > 0 && dominates(a->dtype, b->dtype) && out_t == a->dtype) {
    conv(b, a->dtype, sb);
  } else if (a->numel() == 1 && a->ndim == 0 && b->numel() > 0 && dominates(b->dtype, a->dtype) && out_t == b->dtype) {
    conv(a, b->dtype, sa);
  }
}

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
  if constexpr (kind != MapKind::kCompare) harmonize(&oa, &ob, out->scalar_type(), sa, sb);
  else harmonize(&oa, &ob, oa.numel() == 1 && oa.ndim == 0 ? ob.dtype : oa.dtype, sa, sb);
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

double alpha_arg(KernelRuntimeContext& ctx, Args args, size_t i, bool* ok) {
  Scalar s;
  *ok = arg_scalar(ctx, args, i, &s);
  return s.to_double();
}

}  // namespace

// ---- arithmetic
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
void mul_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) { return w_mul(a, b); });
}
void mul_scalar_out(KernelRuntimeContext& ctx, Args args) {
  binary_ts<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) { return w_mul(a, b); });
}
void div_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kFloat>(ctx, args, 2, [](auto a, auto b) { return a / b; });
}
void div_scalar_out(KernelRuntimeContext& ctx, Args args) {
  binary_ts<MapKind::kFloat>(ctx, args, 2, [](auto a, auto b) { return a / b; });
}
void div_out_mode(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  std::string_view mode;
  bool has = false;
  if (!arg_opt_string(ctx, args, 2, &mode, &has)) return;
  if (!has) return binary_tt<MapKind::kFloat>(ctx, args, 3, [](auto a, auto b) { return a / b; });
  if (mode == "trunc") {
    return binary_tt<MapKind::kFloat>(ctx, args, 3, [](auto a, auto b) { return std::trunc(a / b); });
  }
  if (mode == "floor") {
    return binary_tt<MapKind::kFloat>(ctx, args, 3, [](auto a, auto b) { return std::floor(a / b); });
  }
  fail(ctx, Error::InvalidArgument);
}
void maximum_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2,
            [](auto a, auto b) { return is_nan(a) ? a : is_nan(b) ? b : (a > b ? a : b); });
}
void minimum_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2,
            [](auto a, auto b) { return is_nan(a) ? a : is_nan(b) ? b : (a < b ? a : b); });
}
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

// ---- comparisons
#define ETK_CMP(name, op)                                                                              \
  void name##_tensor_out(KernelRuntimeContext& ctx, Args args) {                                      \
    binary_tt<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return static_cast<bool>(a op b); }); \
  }                                                                                                    \
  void name##_scalar_out(KernelRuntimeContext& ctx, Args args) {                                      \
    binary_ts<MapKind::kCompare>(ctx, args, 2, [](auto a, auto b) { return static_cast<bool>(a op b); }); \
  }
ETK_CMP(eq, ==)
ETK_CMP(ne, !=)
ETK_CMP(lt, <)
ETK_CMP(le, <=)
ETK_CMP(gt, >)
ETK_CMP(ge, >=)
#undef ETK_CMP

void logical_not_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kCompare>(ctx, args, 1, [](auto a) { return a == decltype(a)(0); });
}
void logical_and_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2,
            [](auto a, auto b) { return a != decltype(a)(0) && b != decltype(b)(0); });
}
void logical_or_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2,
            [](auto a, auto b) { return a != decltype(a)(0) || b != decltype(b)(0); });
}

// ---- unary, same type
void abs_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_floating_point<T>::value)
      return std::fabs(a);
    else if constexpr (std::is_signed<T>::value)
      return a < T(0) ? w_sub(T(0), a) : a;
    else
      return a;
  });
}
void neg_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if constexpr (std::is_floating_point<T>::value)
      return -a;
    else
      return w_sub(T(0), a);
  });
}
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

void clamp_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  Scalar lo, hi;
  bool has_lo = false, has_hi = false;
  if (!arg_opt_scalar(ctx, args, 1, &lo, &has_lo) || !arg_opt_scalar(ctx, args, 2, &hi, &has_hi)) return;
  clamp_impl(ctx, args, has_lo, lo.to_double(), has_hi, hi.to_double());
}
void hardtanh_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  double lo, hi;
  if (!arg_double(ctx, args, 1, &lo) || !arg_double(ctx, args, 2, &hi)) return;
  clamp_impl(ctx, args, true, lo, true, hi);
}

// ---- unary, floating
#define ETK_UNARY_FLOAT(name, expr)                                 \
  void name##_out(KernelRuntimeContext& ctx, Args args) {           \
    unary<MapKind::kFloat>(ctx, args, 1, [](auto x) {               \
      using T = decltype(x);                                        \
      (void)sizeof(T);                                              \
      return static_cast<T>(expr);                                  \
    });                                                             \
  }
ETK_UNARY_FLOAT(exp, std::exp(x))
ETK_UNARY_FLOAT(log, std::log(x))
ETK_UNARY_FLOAT(sqrt, std::sqrt(x))
ETK_UNARY_FLOAT(rsqrt, T(1) / std::sqrt(x))
ETK_UNARY_FLOAT(tanh, std::tanh(x))
ETK_UNARY_FLOAT(sigmoid, T(1) / (T(1) + exp_of(-x)))
ETK_UNARY_FLOAT(silu, x / (T(1) + exp_of(-x)))
ETK_UNARY_FLOAT(sin, std::sin(x))
ETK_UNARY_FLOAT(cos, std::cos(x))
ETK_UNARY_FLOAT(erf, std::erf(x))
ETK_UNARY_FLOAT(reciprocal, T(1) / x)
ETK_UNARY_FLOAT(floor, std::floor(x))
ETK_UNARY_FLOAT(ceil, std::ceil(x))
ETK_UNARY_FLOAT(round, std::nearbyint(x))
ETK_UNARY_FLOAT(hardswish, x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
ETK_UNARY_FLOAT(hardsigmoid, std::min(std::max(x + T(3), T(0)), T(6)) / T(6))
#undef ETK_UNARY_FLOAT

void leaky_relu_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  double slope;
  if (!arg_double(ctx, args, 1, &slope)) return;
  unary<MapKind::kFloat>(ctx, args, 2, [slope](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : x * static_cast<T>(slope);
  });
}

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
    fail(ctx, Error::InvalidArgument);
  }
}

// ---- where
void where_self_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* c = arg_tensor(ctx, args, 0);
  const Tensor* a = c ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* b = a ? arg_tensor(ctx, args, 2) : nullptr;
  const Tensor* out = b ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (c->scalar_type() != ScalarType::Bool && c->scalar_type() != ScalarType::Byte)
    return fail(ctx, Error::InvalidType);
  Operand oc = operand_of(*c), oa = operand_of(*a), ob = operand_of(*b);
  alignas(8) char sa[8], sb[8];
  harmonize(&oa, &ob, out->scalar_type(), sa, sb);
  const ScalarType t = out->scalar_type();
  if (!is_supported_dtype(t) || !is_supported_dtype(oa.dtype) || !is_supported_dtype(ob.dtype))
    return fail(ctx, Error::InvalidType);
  const Operand* ins[3] = {&oc, &oa, &ob};
  Shape shape;
  if (!broadcast_shape(ins, 3, &shape)) return fail(ctx, Error::InvalidArgument);
  if (!resize_out(ctx, *out, shape)) return;
  Operand oo = operand_of(*out);
  const Operand* ops[4] = {&oo, &oc, &oa, &ob};
  Loop<4> L;
  if (!L.init(shape, ops)) return fail(ctx, Error::InvalidArgument);
  if (L.numel == 0) return;
  if (oa.dtype == t && ob.dtype == t) {
    const int64_t es = oo.esize;
    char* obase = oo.data;
    const char *cb = oc.data, *ab = oa.data, *bb = ob.data;
    L.run([=](int64_t n, const int64_t* off, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const bool cv = reinterpret_cast<const uint8_t*>(cb)[off[1] + i * st[1]] != 0;
        const char* src = cv ? ab + (off[2] + i * st[2]) * es : bb + (off[3] + i * st[3]) * es;
        std::memmove(obase + (off[0] + i * st[0]) * es, src, static_cast<size_t>(es));
      }
    });
    return;
  }
  const bool dbl = is_floating(t) || is_floating(oa.dtype) || is_floating(ob.dtype);
  auto run = [&](auto zero) {
    using C = decltype(zero);
    detail::map_slow<C, 3>(L, ops, [](C cv, C x, C y) { return cv != C(0) ? x : y; });
  };
  if (dbl)
    run(0.0);
  else
    run(int64_t{0});
}

// ---- more arithmetic
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
  T operator()(T a, T b) const { return pow_of(a, b); }
};
}  // namespace

// pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
void pow_tensor_tensor_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kArith>(ctx, args, 2, PowF{});
}
// pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
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
  if (zero.load()) fail(ctx, Error::InvalidArgument);
}
}  // namespace

void remainder_tensor_out(KernelRuntimeContext& ctx, Args args) { int_div_family<RemainderF>(ctx, args, false); }
void remainder_scalar_out(KernelRuntimeContext& ctx, Args args) { int_div_family<RemainderF>(ctx, args, true); }
void fmod_tensor_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FmodF>(ctx, args, false); }
void fmod_scalar_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FmodF>(ctx, args, true); }
void floor_divide_out(KernelRuntimeContext& ctx, Args args) { int_div_family<FloorDivF>(ctx, args, false); }

void atan2_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kFloat>(ctx, args, 2, [](auto a, auto b) { return std::atan2(a, b); });
}

// clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
void clamp_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor *lo = nullptr, *hi = nullptr;
  if (!x || !arg_opt_tensor(ctx, args, 1, &lo) || !arg_opt_tensor(ctx, args, 2, &hi)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!lo && !hi) return fail(ctx, Error::InvalidArgument);
  if (out->scalar_type() == ScalarType::Bool) return fail(ctx, Error::InvalidType);
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

// ---- bitwise (integer and bool types)
namespace {
bool integral_args(KernelRuntimeContext& ctx, Args args, std::initializer_list<size_t> idx) {
  for (size_t i : idx) {
    if (i >= args.size() || args[i] == nullptr || !args[i]->isTensor()) continue;  // checked by the driver
    if (!is_integral(args[i]->payload.as_tensor.scalar_type(), true)) {
      fail(ctx, Error::InvalidType);
      return false;
    }
  }
  return true;
}
template <typename T>
T as_int_bits(T v) {
  return v;
}
}  // namespace

#define ETK_BITWISE(name, op)                                                                        \
  void bitwise_##name##_tensor_out(KernelRuntimeContext& ctx, Args args) {                          \
    if (!check_nargs(ctx, args, 3) || !integral_args(ctx, args, {0, 1, 2})) return;                \
    binary_tt<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) {                                   \
      using T = decltype(a);                                                                        \
      if constexpr (std::is_integral<T>::value) return static_cast<T>(a op b);                      \
      else return a;                                                                                \
    });                                                                                             \
  }                                                                                                 \
  void bitwise_##name##_scalar_out(KernelRuntimeContext& ctx, Args args) {                          \
    if (!check_nargs(ctx, args, 3) || !integral_args(ctx, args, {0, 2})) return;                   \
    if (args[1]->isDouble()) return fail(ctx, Error::InvalidType);                                  \
    binary_ts<MapKind::kArith>(ctx, args, 2, [](auto a, auto b) {                                   \
      using T = decltype(a);                                                                        \
      if constexpr (std::is_integral<T>::value) return static_cast<T>(a op b);                      \
      else return a;                                                                                \
    });                                                                                             \
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

void logical_xor_out(KernelRuntimeContext& ctx, Args args) {
  binary_tt<MapKind::kCompare>(ctx, args, 2,
                               [](auto a, auto b) { return (a != decltype(a)(0)) != (b != decltype(b)(0)); });
}

// ---- more unary
void sign_out(KernelRuntimeContext& ctx, Args args) {
  unary<MapKind::kArith>(ctx, args, 1, [](auto a) {
    using T = decltype(a);
    if (is_nan(a)) return a;
    if constexpr (std::is_unsigned<T>::value)
      return static_cast<T>(a > T(0) ? 1 : 0);
    else
      return static_cast<T>((T(0) < a) - (a < T(0)));
  });
}

#define ETK_UNARY_FLOAT(name, expr)                                 \
  void name##_out(KernelRuntimeContext& ctx, Args args) {           \
    unary<MapKind::kFloat>(ctx, args, 1, [](auto x) {               \
      using T = decltype(x);                                        \
      (void)sizeof(T);                                              \
      return static_cast<T>(expr);                                  \
    });                                                             \
  }
ETK_UNARY_FLOAT(log1p, std::log1p(x))
ETK_UNARY_FLOAT(expm1, std::expm1(x))
ETK_UNARY_FLOAT(log2, std::log2(x))
ETK_UNARY_FLOAT(log10, std::log10(x))
ETK_UNARY_FLOAT(trunc, std::trunc(x))
ETK_UNARY_FLOAT(tan, std::tan(x))
ETK_UNARY_FLOAT(atan, std::atan(x))
ETK_UNARY_FLOAT(asin, std::asin(x))
ETK_UNARY_FLOAT(acos, std::acos(x))
ETK_UNARY_FLOAT(sinh, std::sinh(x))
ETK_UNARY_FLOAT(cosh, std::cosh(x))
ETK_UNARY_FLOAT(asinh, std::asinh(x))
ETK_UNARY_FLOAT(acosh, std::acosh(x))
ETK_UNARY_FLOAT(atanh, std::atanh(x))
#undef ETK_UNARY_FLOAT

// elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
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

// logit.out(Tensor self, float? eps=None, *, Tensor(a!) out)
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

// masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
void masked_fill_scalar_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor* m = x ? arg_tensor(ctx, args, 1) : nullptr;
  if (!m) return;
  Scalar v;
  if (!arg_scalar(ctx, args, 2, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (m->scalar_type() != ScalarType::Bool) return fail(ctx, Error::InvalidType);
  if (out->scalar_type() != x->scalar_type()) return fail(ctx, Error::InvalidType);
  Operand ox = operand_of(*x), om = operand_of(*m);
  alignas(8) char sv[8];
  Operand ov = scalar_operand(v, x->scalar_type(), sv);
  // Only the mask and self decide the shape (the mask must broadcast to self).
  const Operand* ins[3] = {&om, &ov, &ox};
  Shape s;
  if (!broadcast_shape(ins, 3, &s) || s.ndim != x->dim()) return fail(ctx, Error::InvalidArgument);
  for (int d = 0; d < s.ndim; ++d)
    if (s.d[d] != x->size(d)) return fail(ctx, Error::InvalidArgument);
  elementwise<MapKind::kArith, 3>(ctx, *out, ins, [](auto c, auto val, auto a) { return c != decltype(c)(0) ? val : a; });
}

}  // namespace etk
