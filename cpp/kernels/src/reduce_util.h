#pragma once
// Shared by the reduction kernels (src/ops/: sum / mean, amax / amin, argmax / argmin, max / min.dim, any, var): the
// split of an input into kept and reduced dims, and a driver over every output element.
#include <algorithm>

#include "kernel_utils.h"

namespace etk {

// Splits an input's dims into kept and reduced ones and drives a loop over the output with an inner loop
// over the reduced sub-space.
struct ReducePlan {
  Shape out_shape;
  Loop<2> outer;  // operands: out, in (over the kept dims)
  Loop<1> inner;  // operand: in (over the reduced dims)
};

// Plans a reduction of `in` over `dims` (all of them when `all`) into `out` (resized to the result's shape, with
// the reduced dims kept as size 1 when `keepdim`); false after failing ctx. Dims are schema argument 1.
bool make_plan(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const std::vector<int64_t>& dims,
               bool all, bool keepdim, ReducePlan* p);

// Calls f(out_offset, reduce) for every output element, where reduce(g) calls g(in_offset) over the reduced
// sub-space (element offsets).
template <typename F>
void for_each_output(const ReducePlan& p, F f, int64_t work_per_out) {
  auto body = [&p, &f](int64_t n, const int64_t* off, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t oo = off[0] + i * st[0];
      const int64_t base = off[1] + i * st[1];
      auto reduce = [&p, base](auto&& g) {
        auto inner = [&g, base](int64_t m, const int64_t* o2, const int64_t* s2) {
          const int64_t b = base + o2[0];
          const int64_t s = s2[0];
          for (int64_t k = 0; k < m; ++k) g(b + k * s);
        };
        p.inner.run_range(0, p.inner.numel, inner);
      };
      f(oo, reduce);
    }
  };
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, work_per_out));
  p.outer.run(body, grain);
}

// The optional int list of dims at argument i: None or empty means all dims.
bool dims_arg(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* dims, bool* all);

// The arguments (Tensor self, int[]? dim, bool keepdim=False, *, Tensor(a!) out) of amax / amin / any.dims.
struct DimsArgs {
  const Tensor* in = nullptr;
  const Tensor* out = nullptr;
  std::vector<int64_t> dims;
  bool all = false, keepdim = false;
};
bool dims_keepdim_args(KernelRuntimeContext& ctx, Args args, DimsArgs* a);

template <typename T>
inline bool nan_of(T v) {
  if constexpr (std::is_floating_point<T>::value)
    return v != v;
  else
    return false;
}

// The first element (in the reduced loop's logical order) that is largest (is_max) or smallest, a NaN winning:
// argmax / argmin and max.dim / min.dim. `reduce` is for_each_output's.
template <typename T, typename Reduce>
inline void arg_best(const T* ib, const Reduce& reduce, bool is_max, T* best_out, int64_t* idx_out) {
  bool first = true;
  T best = T(0);
  int64_t bi = 0, k = 0;
  reduce([&](int64_t off) {
    const T v = ib[off];
    if (first || (!nan_of(best) && (nan_of(v) || (is_max ? v > best : v < best)))) {
      best = v;
      bi = k;
    }
    first = false;
    ++k;
  });
  if (best_out) *best_out = best;
  if (idx_out) *idx_out = bi;
}

}  // namespace etk
