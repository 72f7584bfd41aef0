// CudaBackend's device kernels: few templates over small functors, so the multi-architecture build stays short.
// Every kernel uses a grid-stride loop over 64-bit indices (any size runs with a bounded grid) or one block per
// row for the reductions (softmax, layer norm), with a power-of-two block and a shared-memory tree reduction.
#include <cuda_runtime.h>

#include <math.h>

#include "elementwise.h"
#include "kernels.h"

namespace etcuda {
// A named namespace, not an anonymous one: nvcc names anonymous-namespace entities after a hash of the source
// file's absolute path, which would make the library depend on where the checkout lives (reproducible builds).
// The library's version script keeps these symbols local anyway.
namespace device {

constexpr int kThreads = 256;  // a power of two (the reductions rely on it)
constexpr int64_t kMaxBlocks = 65535;

unsigned grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > kMaxBlocks) b = kMaxBlocks;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b);
}

// ---- elementwise (the functors of ops.def, elementwise.h) ------------------------------------------------------

template <typename F>
__global__ void binary_kernel(float* out, const float* a, const float* b, bool b_is_scalar, float scalar, float alpha,
                              BinaryDesc d, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < d.n; idx += step) {
    int64_t oa, ob;
    strided_offsets(idx, d.ndim, d.size, d.a_stride, d.b_stride, &oa, &ob);
    out[idx] = f(a[oa], b_is_scalar ? scalar : b[ob], alpha);
  }
}

template <typename F>
cudaError_t run_binary(F f, float alpha, float* out, const float* a, const float* b, bool b_is_scalar, float scalar,
                       const BinaryDesc& d, cudaStream_t stream) {
  binary_kernel<F><<<grid_for(d.n), kThreads, 0, stream>>>(out, a, b, b_is_scalar, scalar, alpha, d, f);
  return cudaGetLastError();
}

template <typename F>
__global__ void unary_kernel(float* out, const float* in, int64_t n, float lo, float hi, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = f(in[i], lo, hi);
  }
}

template <typename F>
cudaError_t run_unary(F f, float lo, float hi, float* out, const float* in, int64_t n, cudaStream_t stream) {
  unary_kernel<F><<<grid_for(n), kThreads, 0, stream>>>(out, in, n, lo, hi, f);
  return cudaGetLastError();
}

// ---- block reductions (blockDim.x == kThreads) -------------------------------------------------------------------

__device__ float block_sum(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();  // red is reused by the next reduction
  return r;
}

__device__ float block_max(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();
  return r;
}

// One block per row (o, i) of a contiguous [outer, len, inner] tensor; element k of the row is at
// (o * len + k) * inner + i.
__global__ void softmax_kernel(float* out, const float* in, int64_t len, int64_t inner, bool log) {
  __shared__ float red[kThreads];
  const int64_t row = blockIdx.x;
  const int64_t o = row / inner, i = row % inner;
  const float* x = in + o * len * inner + i;
  float* y = out + o * len * inner + i;
  float m = -INFINITY;
  for (int64_t k = threadIdx.x; k < len; k += blockDim.x) m = fmaxf(m, x[k * inner]);
  m = block_max(m, red);
  float s = 0.f;
  for (int64_t k = threadIdx.x; k < len; k += blockDim.x) s += expf(x[k * inner] - m);
  s = block_sum(s, red);
  if (log) {
    const float ls = logf(s);
    for (int64_t k = threadIdx.x; k < len; k += blockDim.x) y[k * inner] = x[k * inner] - m - ls;
  } else {
    for (int64_t k = threadIdx.x; k < len; k += blockDim.x) y[k * inner] = expf(x[k * inner] - m) / s;
  }
}

// One block per row of `cols` elements; two passes (mean, then the centred sum of squares) for accuracy.
__global__ void layer_norm_kernel(float* out, float* mean, float* rstd, const float* in, const float* w, const float* b,
                                  int64_t cols, float eps) {
  __shared__ float red[kThreads];
  const int64_t row = blockIdx.x;
  const float* x = in + row * cols;
  float* y = out + row * cols;
  float s = 0.f;
  for (int64_t k = threadIdx.x; k < cols; k += blockDim.x) s += x[k];
  const float mu = block_sum(s, red) / static_cast<float>(cols);
  float q = 0.f;
  for (int64_t k = threadIdx.x; k < cols; k += blockDim.x) {
    const float c = x[k] - mu;
    q += c * c;
  }
  const float var = block_sum(q, red) / static_cast<float>(cols);
  const float r = rsqrtf(var + eps);
  for (int64_t k = threadIdx.x; k < cols; k += blockDim.x) {
    float v = (x[k] - mu) * r;
    if (w != nullptr) v *= w[k];
    if (b != nullptr) v += b[k];
    y[k] = v;
  }
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
}

// ---- strided copy ----------------------------------------------------------------------------------------------

__global__ void copy_kernel(float* dst, const float* src, CopyDesc d) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < d.n; idx += step) {
    int64_t os, od;
    strided_offsets(idx, d.ndim, d.size, d.src_stride, d.dst_stride, &os, &od);
    dst[od] = src[os];
  }
}

}  // namespace device

using namespace device;

cudaError_t launch_binary(Fn op, float alpha, float* out, const float* a, const float* b, bool b_is_scalar,
                          float scalar, const BinaryDesc& d, cudaStream_t stream) {
  if (d.n <= 0) return cudaSuccess;
  return with_binary_fn(op, cudaErrorInvalidValue,
                        [&](auto f) { return run_binary(f, alpha, out, a, b, b_is_scalar, scalar, d, stream); });
}

cudaError_t launch_unary(Fn op, float lo, float hi, float* out, const float* in, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return with_unary_fn(op, cudaErrorInvalidValue, [&](auto f) { return run_unary(f, lo, hi, out, in, n, stream); });
}

cudaError_t launch_softmax(float* out, const float* in, int64_t outer, int64_t len, int64_t inner, bool log,
                           cudaStream_t stream) {
  const int64_t rows = outer * inner;
  if (rows <= 0 || len <= 0) return cudaSuccess;
  if (rows > 0x7fffffff) return cudaErrorInvalidConfiguration;
  softmax_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(out, in, len, inner, log);
  return cudaGetLastError();
}

cudaError_t launch_layer_norm(float* out, float* mean, float* rstd, const float* in, const float* w, const float* b,
                              int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  if (rows > 0x7fffffff) return cudaErrorInvalidConfiguration;
  layer_norm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(out, mean, rstd, in, w, b, cols, eps);
  return cudaGetLastError();
}

cudaError_t launch_copy(float* dst, const float* src, const CopyDesc& d, cudaStream_t stream) {
  if (d.n <= 0) return cudaSuccess;
  copy_kernel<<<grid_for(d.n), kThreads, 0, stream>>>(dst, src, d);
  return cudaGetLastError();
}

}  // namespace etcuda
