// Kernel parameter blocks shared by the host planner (payload.cpp) and the device code (kernels.cu).
#pragma once
#include <cstdint>

// Functions compiled for the device and the host alike (the kernels and the tests' host emulation share them).
#if defined(__CUDACC__)
#define ETCUDA_HD __host__ __device__ __forceinline__
#else
#define ETCUDA_HD inline
#endif

namespace etcuda {

constexpr int kMaxDim = 8;  // tensor rank limit of the delegate (kernel parameter arrays)

// The elementwise functions of ops.def (ETCUDA_BINARY_FN, ETCUDA_UNARY_FN); None for the other operators.
enum class Fn : int {
  None,
#define ETCUDA_BINARY_FN(Name, ...) Name,
#define ETCUDA_UNARY_FN(Name, ...) Name,
#include "ops.def"
};

// Strided copy descriptor: element (i0..in) goes from src[src_off + sum i*src_stride] to dst[dst_off + ...].
struct CopyDesc {
  int ndim = 0;
  int64_t n = 0;
  int64_t size[kMaxDim] = {};
  int64_t src_stride[kMaxDim] = {};
  int64_t dst_stride[kMaxDim] = {};
};

// Broadcast binary descriptor: out is contiguous with shape `size`; a/b are read with their (0 = broadcast) strides.
struct BinaryDesc {
  int ndim = 0;
  int64_t n = 0;
  int64_t size[kMaxDim] = {};
  int64_t a_stride[kMaxDim] = {};
  int64_t b_stride[kMaxDim] = {};
};

// The offsets, in two operands read with strides s0 and s1, of element `idx` of a row-major walk over size[0..ndim):
// how the copy (src, dst) and binary (a, b) kernels find their operands.
ETCUDA_HD void strided_offsets(int64_t idx, int ndim, const int64_t* size, const int64_t* s0, const int64_t* s1,
                               int64_t* o0, int64_t* o1) {
  int64_t rem = idx, a = 0, b = 0;
  for (int k = ndim - 1; k >= 0; --k) {
    const int64_t c = rem % size[k];
    rem /= size[k];
    a += c * s0[k];
    b += c * s1[k];
  }
  *o0 = a;
  *o1 = b;
}

}  // namespace etcuda
