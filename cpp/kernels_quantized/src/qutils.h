#pragma once
// Internal helpers of libexecutorch_kernels_quantized: failing with a reason, argument access by schema index and
// name, tensor validation and layout queries, Half / BFloat16 conversions and the work splitter. Nothing here is
// exported from the library (hidden visibility, and the version script exports only the component descriptor).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <kernel_base.h>

namespace etq {

using namespace ::etkb;  // NOLINT: the shared kernel-authoring base (cpp/cpu/include/kernel_base.h)

// ---------------------------------------------------------------------------------------------------------
// Tensors.
bool same_shape(const Tensor& a, const Tensor& b);
// Same sizes and same strides: element k of one's storage is element k of the other's.
bool same_layout(const Tensor& a, const Tensor& b);
// Resizes `out` to `sizes` (its own rank), failing ctx with the reason.
bool resize_out(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const SizesType* sizes, int ndim,
                const char* name = "out");
bool resize_like(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const Tensor& like);
// Storage offset (in elements) of the element with row-major logical index `i`.
int64_t logical_offset(const Tensor& t, int64_t i);

// A walk over the logical (row-major) indices of a tensor that yields each element's storage offset: for the
// general-layout paths. Start at `begin`; next() advances by one.
struct Walker {
  int nd = 0;
  int64_t sizes[kMaxDim] = {};
  int64_t strides[kMaxDim] = {};
  int64_t idx[kMaxDim] = {};
  int64_t off = 0;
  Walker(const Tensor& t, int64_t begin);
  void next() {
    for (int d = nd - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < sizes[d]) return;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
};

// ---------------------------------------------------------------------------------------------------------
// Dtypes. Half and BFloat16 travel as their 16-bit patterns; these convert them exactly as c10::Half /
// c10::BFloat16 do (round to nearest even; NaN stays NaN).
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  // Subnormals (and zero): m * 2^-24, exact in float.
  const float sub = static_cast<float>(m) * 0x1p-24f;
  const uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const uint32_t special = 0x7f800000u | (m << 13);
  const uint32_t mag = e == 0 ? f32_bits(sub) : e == 31 ? special : normal;
  return f32_from_bits(sign | mag);
}
inline uint16_t float_to_half(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  // Normal range: drop 13 mantissa bits with round-half-even; a carry moves into the exponent, up to infinity.
  uint32_t normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  normal = normal > 0x7c00u ? 0x7c00u : normal;
  // Below 2^-14: the subnormal mantissa is round-half-even(|f| * 2^24), done by adding 2^23 in float.
  const uint32_t sub = f32_bits(f32_from_bits(a) * 0x1p24f + 0x1p23f) - 0x4b000000u;
  const uint32_t mag = a > 0x7f800000u ? 0x7e00u : a == 0x7f800000u ? 0x7c00u : a < 0x38800000u ? sub : normal;
  return static_cast<uint16_t>(sign | mag);
}
inline float bf16_to_float(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }
inline uint16_t float_to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  if (f != f) return 0x7fc0u;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// The value a float takes after a round trip through Half (what c10::Half arithmetic keeps of each result).
inline float round_half(float f) { return half_to_float(float_to_half(f)); }

// Round half to even without libm (vectorizes): adding 2^23 to |x| < 2^23 leaves an integer, rounded to even;
// larger magnitudes are integers already. The sign is kept (-0.4 -> -0.0), NaN stays NaN.
inline float round_even(float x) {
  const float ax = std::fabs(x);
  const float r = (ax + 0x1p23f) - 0x1p23f;
  return std::copysign(ax < 0x1p23f ? r : ax, x);
}

// Range of the integer type of a quantized dtype (Byte, Char, Short, Int, UInt16 / Bits16); false otherwise.
bool quant_range(ScalarType t, int64_t* lo, int64_t* hi);

// ---------------------------------------------------------------------------------------------------------
// Work splitting: f(begin, end) over [0, n), on the thread pool when n is larger than grain.
template <typename F>
void parallel(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (n <= grain) {
    f(int64_t{0}, n);
    return;
  }
  ::executorch::extension::parallel_for(0, n, grain, [&](int64_t b, int64_t e) { f(b, e); });
}

}  // namespace etq
