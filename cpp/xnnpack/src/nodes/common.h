#pragma once
// What the node families' kernels share: splitting work over the pool, the elementwise loop compiled per ISA
// level, clamping, and the output size of a sliding window.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <executorch/extension/parallel/thread_parallel.h>

#include "isa.h"
#include "node_table.h"

namespace etxnn {

// Work (rows x work_per_row) a split over the pool needs, and the least work of each chunk: about 8 K simple
// elementwise operations (kElementwiseCost each) or 2 K sigmoids, a microsecond or two on one core. A split costs
// moving operands between the cores' caches, but so does not splitting: the layer before was split, and the calling
// thread alone reads the other core's half (an Add after a split convolution ran slower on two threads than on one).
// At 64 K operations the MobileNet-V2 and SqueezeNet fixtures ran 2-4 % slower; smaller thresholds measured no
// better. (With a pool that slept between nodes, a split had cost more than it saved below 64 K.)
constexpr int64_t kParallelRowsWork = int64_t{1} << 15;

// Runs f(begin, end) over [0, n) on the pool when the work is big enough.
template <typename F>
void parallel_rows(int64_t n, int64_t work_per_row, F&& f) {
  const int64_t grain = std::max<int64_t>(1, kParallelRowsWork / std::max<int64_t>(1, work_per_row));
  if (n <= grain) {
    f(int64_t{0}, n);
    return;
  }
  executorch::extension::parallel_for(0, n, grain, [&](int64_t b, int64_t e) { f(b, e); });
}

inline float clampf(float x, float lo, float hi) { return std::min(std::max(x, lo), hi); }

inline float hardswish(float v) { return v * std::min(std::max(v + 3.f, 0.f), 6.f) * (1.f / 6.f); }

// Round to nearest, ties to even (the default rounding mode, as lrintf), for |x| < 2^22: vectorizes, unlike
// nearbyintf without SSE4.1.
inline float round_even(float x) { return (x + 12582912.f) - 12582912.f; }

// A Convert from fp32 to a per-tensor quantized value, folded into the node before it (Node::quant_inv): the node's
// outputs y become round_even(clamp(y * inv, qlo, qhi)) (centered, q - zero_point), as the Convert computed them.
inline float quantize_like_convert(float y, float inv, float qlo, float qhi) {
  return round_even(clampf(y * inv, qlo, qhi));
}

// Nodes that carry an output range get it applied after their kernel (the binary kernels applied it already;
// harmless twice). The kernels that fuse the range into their own store skip this.
inline Error apply_output_range(const Node& n, float* y, int64_t total) {
  const float lo = n.out_min, hi = n.out_max;
  if (n.has_min_max && (lo > -INFINITY || hi < INFINITY)) {
    for (int64_t i = 0; i < total; ++i) y[i] = clampf(y[i], lo, hi);
  }
  return Error::Ok;
}

// Elementwise loops are compiled once per ISA level (ETK_ISA_DISPATCH, cpp/cpu/include/isa.h) and picked at run
// time like the GEMM's micro-kernels; the lambdas inline into each.
template <typename F>
inline __attribute__((always_inline)) void unary_impl(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}
ETK_ISA_DISPATCH(unary, (const float* x, float* y, int64_t n, F f), (x, y, n, f))

// Elementwise work is split over the pool above about 64 K elements (16 K for transcendental functions: `cost`).
constexpr int64_t kElementwiseCost = 4;
constexpr int64_t kTranscendentalCost = 16;

template <typename F>
void unary_par(const float* x, float* y, int64_t n, F f, int64_t cost = kElementwiseCost) {
  parallel_rows(n, cost, [&](int64_t b, int64_t e) { unary(x + b, y + b, e - b, f); });
}

// The per-channel sums over `pixels` NHWC pixels of C channels (one image), each in pixel order, or split by pixel
// ranges over the pool (32 K floats or more; the ranges' sums added in order, partial sums in *scratch).
void pixel_sums(const float* x, int64_t pixels, int64_t C, float* sums, etk::aligned_vector<float>* scratch);

// Output size of a convolution or pooling window along one dim.
inline Error conv_out(const Node& n, int64_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t s, uint32_t d,
                      int64_t* out) {
  const int64_t eff = (static_cast<int64_t>(k) - 1) * d + 1;
  const int64_t padded = in + pad0 + pad1;
  if (padded < eff) return node_fail(n, "kernel larger than the padded input");
  *out = (padded - eff) / s + 1;
  return Error::Ok;
}

}  // namespace etxnn
