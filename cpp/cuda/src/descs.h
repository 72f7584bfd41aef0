// Kernel parameter blocks shared by the host planner (payload.cpp) and the device code (kernels.cu).
#pragma once
#include <cstdint>

namespace etcuda {

constexpr int kMaxDim = 8;  // tensor rank limit of the delegate (kernel parameter arrays)

enum class BinaryOp : int { Add, Sub, Mul, Div };  // Add: a + alpha*b, Sub: a - alpha*b
enum class UnaryOp : int { Relu, GeluErf, GeluTanh, Sigmoid, Tanh, Clamp };

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

}  // namespace etcuda
