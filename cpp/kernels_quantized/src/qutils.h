#pragma once
// Internal helpers of libexecutorch_kernels_quantized (arguments, failing and registration come from the kernel
// base): layout queries, Half / BFloat16 conversions and the work splitter. Nothing here is
// exported from the library (hidden visibility, and the version script exports only the component descriptor).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <float16.h>
#include <kernel_base.h>

namespace etq {

using namespace ::etkb;  // NOLINT: the kernel-authoring base (cpp/kernel_base/include/kernel_base.h)
// The call policy of this library's ET_KERNEL_OPs: each kernel runs as it is (Half is handled by the kernels).
using KernelPolicy = ::etkb::DirectCall;

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
// Dtypes. Half and BFloat16 travel as their 16-bit patterns (conversions: the shared float16.h).
using etkb::bf16_to_float;
using etkb::f32_bits;
using etkb::f32_from_bits;
using etkb::float_to_bf16;
using etkb::float_to_half;
using etkb::half_to_float;
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
