// The elementwise functions of ops.def as functors, for the device kernels (kernels.cu) and the host emulation of
// the tests: BinaryFn<Fn::Add>{}(a, b, alpha), UnaryFn<Fn::Relu>{}(x, lo, hi); with_binary_fn / with_unary_fn call
// a visitor with the functor of a run-time Fn.
#pragma once
#include <math.h>

#include "descs.h"

namespace etcuda {

// min(max(x, lo), hi) by comparisons, which are false for NaN: NaN stays NaN.
ETCUDA_HD float clamp_keep_nan(float x, float lo, float hi) {
  float r = x;
  if (r < lo) r = lo;
  if (r > hi) r = hi;
  return r;
}

template <Fn F>
struct BinaryFn;
template <Fn F>
struct UnaryFn;

#define ETCUDA_BINARY_FN(Name, ...)                                                                          \
  template <>                                                                                                \
  struct BinaryFn<Fn::Name> {                                                                                \
    ETCUDA_HD float operator()(float a, float b, [[maybe_unused]] float alpha) const { return __VA_ARGS__; } \
  };
#define ETCUDA_UNARY_FN(Name, ...)                                                                    \
  template <>                                                                                         \
  struct UnaryFn<Fn::Name> {                                                                          \
    ETCUDA_HD float operator()(float x, [[maybe_unused]] float lo, [[maybe_unused]] float hi) const { \
      return __VA_ARGS__;                                                                             \
    }                                                                                                 \
  };
#include "ops.def"

// visit(BinaryFn<f>{}), or `otherwise` when f is not a binary function.
template <typename R, typename Visit>
R with_binary_fn(Fn f, R otherwise, Visit&& visit) {
  switch (f) {
#define ETCUDA_BINARY_FN(Name, ...) \
  case Fn::Name: return visit(BinaryFn<Fn::Name>{});
#include "ops.def"
    default: return otherwise;
  }
}

// visit(UnaryFn<f>{}), or `otherwise` when f is not a unary function.
template <typename R, typename Visit>
R with_unary_fn(Fn f, R otherwise, Visit&& visit) {
  switch (f) {
#define ETCUDA_UNARY_FN(Name, ...) \
  case Fn::Name: return visit(UnaryFn<Fn::Name>{});
#include "ops.def"
    default: return otherwise;
  }
}

}  // namespace etcuda
