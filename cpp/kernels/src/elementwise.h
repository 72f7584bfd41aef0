#pragma once
// Broadcasting element-wise map driver.
#include "kernel_utils.h"

namespace etk {

// Fails ctx unless the output and every input have a dtype the element-wise maps take, naming the first that does
// not; input k is named as argument k (the drivers pass arguments in schema order).
bool elementwise_check(KernelRuntimeContext& ctx, const Tensor& out, const Operand* const* ins, int nin);
// Fails ctx: the inputs' shapes do not broadcast (naming them).
void fail_broadcast(KernelRuntimeContext& ctx, const Operand* const* ins, int nin);

enum class MapKind {
  kArith,    // result in the operands' type; fast path when inputs and output share a non-bool type
  kFloat,    // floating-point math; fast path for float/double when inputs and output share the type
  kCompare,  // bool result; fast path when inputs share a numeric type and the output is Bool
};

namespace detail {
// The dtypes with typed (vectorizable) loops; the others take map_slow's converting loop. Every typed dtype
// multiplies the code of every element-wise operator, so only the common ones have one.
template <typename F>
inline bool dispatch_typed(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Double: f(double{}); return true;
    case ScalarType::Long: f(int64_t{}); return true;
    case ScalarType::Int: f(int32_t{}); return true;
    default: return false;
  }
}

template <typename TO, typename TI, int NIN, typename F>
void map_typed(const Loop<NIN + 1>& L, const Operand* const* ops, const F& f) {
  char* ob = ops[0]->data;
  const char* ib[NIN];
  for (int k = 0; k < NIN; ++k) ib[k] = ops[k + 1]->data;
  L.run([&f, ob, ib](int64_t n, const int64_t* off, const int64_t* st) {
    TO* o = reinterpret_cast<TO*>(ob) + off[0];
    const TI* p[NIN];
    bool contig = st[0] == 1;
    for (int k = 0; k < NIN; ++k) {
      p[k] = reinterpret_cast<const TI*>(ib[k]) + off[k + 1];
      contig = contig && st[k + 1] == 1;
    }
    if constexpr (NIN == 1) {
      const TI* a = p[0];
      if (contig) {
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TO>(f(a[i]));
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = static_cast<TO>(f(a[i * st[1]]));
      }
    } else if constexpr (NIN == 2) {
      const TI* a = p[0];
      const TI* b = p[1];
      if (contig) {
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TO>(f(a[i], b[i]));
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
        const TI bv = *b;
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TO>(f(a[i], bv));
      } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
        const TI av = *a;
        for (int64_t i = 0; i < n; ++i) o[i] = static_cast<TO>(f(av, b[i]));
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = static_cast<TO>(f(a[i * st[1]], b[i * st[2]]));
      }
    } else {
      static_assert(NIN == 3, "1..3 inputs");
      for (int64_t i = 0; i < n; ++i)
        o[i * st[0]] = static_cast<TO>(f(p[0][i * st[1]], p[1][i * st[2]], p[2][i * st[3]]));
    }
  });
}

template <typename C, int NIN, typename F>
void map_slow(const Loop<NIN + 1>& L, const Operand* const* ops, const F& f) {
  char* ob = ops[0]->data;
  const ScalarType odt = ops[0]->dtype;
  const int64_t oes = ops[0]->esize;
  const char* ib[NIN];
  ScalarType idt[NIN];
  int64_t ies[NIN];
  for (int k = 0; k < NIN; ++k) {
    ib[k] = ops[k + 1]->data;
    idt[k] = ops[k + 1]->dtype;
    ies[k] = ops[k + 1]->esize;
  }
  L.run([&f, ob, odt, oes, ib, idt, ies](int64_t n, const int64_t* off, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i) {
      C v[NIN];
      for (int k = 0; k < NIN; ++k) v[k] = load_as<C>(ib[k] + (off[k + 1] + i * st[k + 1]) * ies[k], idt[k]);
      char* o = ob + (off[0] + i * st[0]) * oes;
      if constexpr (NIN == 1) {
        store_as(o, odt, f(v[0]));
      } else if constexpr (NIN == 2) {
        store_as(o, odt, f(v[0], v[1]));
      } else {
        store_as(o, odt, f(v[0], v[1], v[2]));
      }
    }
  });
}
// Flat loop over contiguous operands; full[k] false means input k is a single element. The output may be one of
// the inputs (in place) but never partially overlaps one, so the loops carry no dependence.
// (Out of line: flat_run's serial and parallel paths share one copy.)
template <typename TO, typename TI, int NIN, typename F>
__attribute__((noinline)) void flat_range(TO* o, const TI* const* in, const bool* full, int64_t b, int64_t e,
                                          const F& f) {
  if constexpr (NIN == 1) {
    const TI* a = in[0];
    if (full[0]) {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<TO>(f(a[i]));
    } else {
      const TO v = static_cast<TO>(f(a[0]));
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = v;
    }
  } else if constexpr (NIN == 2) {
    const TI* a = in[0];
    const TI* c = in[1];
    if (full[0] && full[1]) {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<TO>(f(a[i], c[i]));
    } else if (full[0]) {
      const TI cv = c[0];
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<TO>(f(a[i], cv));
    } else if (full[1]) {
      const TI av = a[0];
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<TO>(f(av, c[i]));
    } else {
      const TO v = static_cast<TO>(f(a[0], c[0]));
#pragma omp simd
      for (int64_t i = b; i < e; ++i) o[i] = v;
    }
  } else {
    const int64_t s0 = full[0], s1 = full[1], s2 = full[2];
#pragma omp simd
    for (int64_t i = b; i < e; ++i) o[i] = static_cast<TO>(f(in[0][i * s0], in[1][i * s1], in[2][i * s2]));
  }
}

template <typename TO, typename TI, int NIN, typename F>
void flat_run(const Tensor& out, const Operand* const* ins, const bool* full, int64_t n, const F& f) {
  TO* o = static_cast<TO*>(out.mutable_data_ptr());
  const TI* in[NIN];
  for (int k = 0; k < NIN; ++k) in[k] = reinterpret_cast<const TI*>(ins[k]->data);
  if (n <= kParallelGrain) {
    flat_range<TO, TI, NIN>(o, in, full, 0, n, f);
    return;
  }
  ::executorch::extension::parallel_for(0, n, kParallelGrain / 2,
                                        [&](int64_t b, int64_t e) { flat_range<TO, TI, NIN>(o, in, full, b, e, f); });
}

// True when the output is contiguous and every input is either contiguous with the output's element count or a
// single element, all in one dtype that fits the kind; then runs f over flat arrays and returns true.
template <MapKind kind, int NIN, typename F>
bool try_flat(const Tensor& out, const Operand* const* ins, const Shape& shape, const F& f) {
  const ScalarType it = ins[0]->dtype, ot = out.scalar_type();
  if (kind == MapKind::kCompare ? ot != ScalarType::Bool : ot != it) return false;
  const int64_t n = shape.numel();
  if (n == 0) return true;
  bool full[NIN > 0 ? NIN : 1];
  for (int k = 0; k < NIN; ++k) {
    const Operand& op = *ins[k];
    if (op.dtype != it) return false;
    const int64_t m = op.numel();
    if (m == n && is_contiguous(op)) {
      full[k] = n != 1;
    } else if (m == 1) {
      full[k] = false;
    } else {
      return false;
    }
  }
  if (!is_contiguous(out)) return false;
  if constexpr (kind == MapKind::kCompare) {
    if (it == ScalarType::Bool) {  // logical operators on masks: read as bytes (any nonzero byte is true)
      flat_run<bool, uint8_t, NIN>(out, ins, full, n, f);
      return true;
    }
    return dispatch_typed(it, [&](auto t) {
      using T = decltype(t);
      flat_run<bool, T, NIN>(out, ins, full, n, f);
    });
  } else if constexpr (kind == MapKind::kFloat) {
    return dispatch_float(it, [&](auto t) {
      using T = decltype(t);
      flat_run<T, T, NIN>(out, ins, full, n, f);
    });
  } else {
    return dispatch_typed(it, [&](auto t) {
      using T = decltype(t);
      flat_run<T, T, NIN>(out, ins, full, n, f);
    });
  }
}
}  // namespace detail

// out = f(ins...) with broadcasting; resizes out. Fails ctx on any problem.
template <MapKind kind, int NIN, typename F>
void elementwise(KernelRuntimeContext& ctx, const Tensor& out, const Operand* const* ins, const F& f) {
  if (!elementwise_check(ctx, out, ins, NIN)) return;
  Shape shape;
  if (!broadcast_shape(ins, NIN, &shape)) return fail_broadcast(ctx, ins, NIN);
  if (!resize_out(ctx, out, shape)) return;
  if (detail::try_flat<kind, NIN>(out, ins, shape, f)) return;
  Operand o = operand_of(out);
  const Operand* ops[NIN + 1];
  ops[0] = &o;
  for (int k = 0; k < NIN; ++k) ops[k + 1] = ins[k];
  Loop<NIN + 1> L;
  if (!L.init(shape, ops))
    return fail(ctx, Error::InvalidArgument, "the operands do not broadcast to the result shape %s",
                shape_string(shape.d, shape.ndim).c_str());
  if (L.numel == 0) return;

  bool same_in = true;
  bool any_float = is_floating(out.scalar_type());
  for (int k = 0; k < NIN; ++k) {
    same_in = same_in && ins[k]->dtype == ins[0]->dtype;
    any_float = any_float || is_floating(ins[k]->dtype);
  }
  const ScalarType it = ins[0]->dtype;
  if (same_in) {
    bool done = false;
    if constexpr (kind == MapKind::kArith) {
      if (it == out.scalar_type())
        done = detail::dispatch_typed(it, [&](auto t) {
          using T = decltype(t);
          detail::map_typed<T, T, NIN>(L, ops, f);
        });
    } else if constexpr (kind == MapKind::kFloat) {
      if (it == out.scalar_type())
        done = dispatch_float(it, [&](auto t) {
          using T = decltype(t);
          detail::map_typed<T, T, NIN>(L, ops, f);
        });
    } else if (out.scalar_type() == ScalarType::Bool && it == ScalarType::Bool) {
      detail::map_typed<bool, uint8_t, NIN>(L, ops, f);
      done = true;
    } else {
      if (out.scalar_type() == ScalarType::Bool)
        done = detail::dispatch_typed(it, [&](auto t) {
          using T = decltype(t);
          detail::map_typed<bool, T, NIN>(L, ops, f);
        });
    }
    if (done) return;
  }
  if constexpr (kind == MapKind::kFloat) {
    (void)any_float;
    detail::map_slow<double, NIN>(L, ops, f);
  } else {
    bool use_double = any_float;
    if (kind == MapKind::kCompare) {
      use_double = false;
      for (int k = 0; k < NIN; ++k) use_double = use_double || is_floating(ins[k]->dtype);
    }
    if (use_double) {
      detail::map_slow<double, NIN>(L, ops, f);
    } else {
      detail::map_slow<int64_t, NIN>(L, ops, f);
    }
  }
}

// Wrapping integer arithmetic (no signed-overflow UB); plain arithmetic for floating types.
template <typename T>
inline T w_add(T a, T b) {
  if constexpr (std::is_integral<T>::value)
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <typename T>
inline T w_sub(T a, T b) {
  if constexpr (std::is_integral<T>::value)
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  else
    return a - b;
}
template <typename T>
inline T w_mul(T a, T b) {
  if constexpr (std::is_integral<T>::value)
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}
// A double parameter in type T (saturating for integers).
template <typename T>
inline T param_as(double v) {
  if constexpr (std::is_integral<T>::value)
    return sat_cast<T>(v);
  else
    return static_cast<T>(v);
}

}  // namespace etk
