// Launchers of CudaBackend's device kernels (kernels.cu). All tensors are dense fp32 device buffers; every
// launcher enqueues on `stream` and returns the launch error (cudaSuccess when nothing needed launching).
#pragma once
#include <cstdint>

#include <cuda_runtime_api.h>

#include "descs.h"

namespace etcuda {

// out (contiguous, d.size) = op(a, b, alpha) with a and b read through d's strides; b_is_scalar: b is `scalar`. op
// is an ETCUDA_BINARY_FN of ops.def (another Fn: cudaErrorInvalidValue).
cudaError_t launch_binary(Fn op, float alpha, float* out, const float* a, const float* b, bool b_is_scalar,
                          float scalar, const BinaryDesc& d, cudaStream_t stream);
// out[i] = op(in[i], lo, hi) for i < n, op an ETCUDA_UNARY_FN of ops.def (Clamp: min(max(x, lo), hi), NaN stays
// NaN). out may equal in.
cudaError_t launch_unary(Fn op, float lo, float hi, float* out, const float* in, int64_t n, cudaStream_t stream);
// Softmax over the middle dim of a contiguous [outer, len, inner] tensor.
cudaError_t launch_softmax(float* out, const float* in, int64_t outer, int64_t len, int64_t inner, bool log,
                           cudaStream_t stream);
// Layer norm over rows of `cols` elements: out = (x - mean) * rstd * w + b; mean/rstd per row. w, b may be null.
cudaError_t launch_layer_norm(float* out, float* mean, float* rstd, const float* in, const float* w, const float* b,
                              int64_t rows, int64_t cols, float eps, cudaStream_t stream);
// dst[sum i*dst_stride] = src[sum i*src_stride] over d.size.
cudaError_t launch_copy(float* dst, const float* src, const CopyDesc& d, cudaStream_t stream);

}  // namespace etcuda
