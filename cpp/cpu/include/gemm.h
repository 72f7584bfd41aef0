#pragma once
// The fp32 GEMM shared by libexecutorch_kernels and libexecutorch_xnnpack: an OBJECT library (executorch_cpu)
// compiled into both with hidden visibility, so neither exports any of it. Micro-kernels per ISA level
// (AVX-512, AVX2+FMA, baseline), chosen at run time; work is spread over the process-wide pool.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace etk {

// A std::vector allocator that starts every buffer on a 64-byte cache line (glibc's malloc gives 16): a 64-byte
// vector load or store at a multiple of 16 floats from the start then never spans two lines.
template <typename T>
struct LineAligned {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  LineAligned() = default;
  template <typename U>
  LineAligned(const LineAligned<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, kAlign); }
  template <typename U>
  bool operator==(const LineAligned<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const LineAligned<U>&) const noexcept {
    return false;
  }
};
template <typename T>
using aligned_vector = std::vector<T, LineAligned<T>>;

// C = alpha * A * B + beta * C for fp32, with arbitrary element strides:
//   A(i, k) = A[i * rsa + k * csa]   (M x K)
//   B(k, j) = B[k * rsb + j * csb]   (K x N)
//   C(i, j) = C[i * rsc + j * csc]   (M x N)
// beta == 0 never reads C. `parallel` allows the shared thread pool.
void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t rsa, int64_t csa, const float* B,
           int64_t rsb, int64_t csb, float beta, float* C, int64_t rsc, int64_t csc, bool parallel = true);

// A K x N right-hand side (weights) packed once, with its bias, for many products: NR-wide column panels, each
// [K][NR] contiguous; NR and the micro-kernel are picked from N and the CPU at pack time.
struct PackedB {
  int64_t K = 0, N = 0;
  int64_t seg = 0;             // segment length the packing assumes (igemm's L; K for a dense A)
  int kind = 0;                // micro-kernel variant
  int nr = 0;                  // panel width
  aligned_vector<float> data;  // ceil(N / nr) panels of K x nr
  aligned_vector<float> bias;  // ceil(N / nr) * nr (zeros without a bias)
};

// B(k, j) = B[k * rsb + j * csb]; bias may be null. `seg`: the segment length L igemm will be called with (K / L
// segments per row; 0 = K, a dense A); some micro-kernels pack per segment.
void pack_b(int64_t K, int64_t N, const float* B, int64_t rsb, int64_t csb, const float* bias, PackedB* out,
            int64_t seg = 0);

// An elementwise function a kernel applies in place to each block of its output once the block is final (after the
// clamp), on the thread that computed it, while the block is still in that core's cache: an activation or a
// residual addition after a convolution, instead of a pass of its own over the whole output (half of it from the
// other core's cache when the convolution was split). fn(y, o, n, lo, hi) gets the block's n outputs and, with a
// second operand, the same n elements of it: row i, column j of the output pairs with other[i * ld + j] (the
// kernels pass o = nullptr without one).
struct PostOp {
  void (*fn)(float* y, const float* o, int64_t n, float lo, float hi) = nullptr;
  float lo = 0.f, hi = 0.f;      // passed to fn (the fused node's own output range)
  const float* other = nullptr;  // the second operand, laid out as rows of ld floats, or none
  int64_t ld = 0;
};

// Returns the addresses of the segments of rows m0 .. m0 + mr - 1 of A (L contiguous floats each), row-major:
// [i * T + t]; either `scratch` (room for mr * T pointers) filled, or a precomputed table.
using RowSegments = const float* const* (*)(const void* ctx, int64_t m0, int64_t mr, const float** scratch);

// Indirect GEMM: row i of A is the concatenation of T segments of L floats each (K = T * L), given by `rows`
// (convolutions point the segments at input pixels, or at zeros for padding, without an im2col copy).
//   C(i, j) = clamp(sum_k A(i, k) * B(k, j) + bias(j), lo, hi),  C(i, j) = C[i * rsc + j].
// `post`: see PostOp.
void igemm(int64_t M, int64_t T, int64_t L, RowSegments rows, const void* ctx, const PackedB& B, float* C, int64_t rsc,
           float lo, float hi, bool parallel = true, const struct PostOp* post = nullptr);

// Dense A: A(i, k) = A[i * rsa + k]. Same epilogue as igemm.
void gemm_packed(int64_t M, const float* A, int64_t rsa, const PackedB& B, float* C, int64_t rsc, float lo, float hi,
                 bool parallel = true, const struct PostOp* post = nullptr);

// Depthwise 2-D convolution over NHWC (channel multiplier 1): x [N, H, W, C], w [KH, KW, C], bias [C] or null,
// y [N, OH, OW, C], clamped to [lo, hi]. Vectorized over channels.
struct DwParams {
  int64_t N, H, W, C, OH, OW, KH, KW, sh, sw, dh, dw, pad_t, pad_l;
};
void dwconv_nhwc(const DwParams& p, const float* x, const float* w, const float* bias, float* y, float lo, float hi,
                 bool parallel = true);

// Depthwise convolution over an indirection table (channel multiplier 1): output row m (a pixel, C channels)
// = clamp(bias + sum_t taps[m * T + t][c] * w[t * C + c], lo, hi); taps point at input pixels or at zeros. With
// `requant` (per channel): round_to_nearest_even(clamp((bias + sum) * requant[c], lo, hi)) (quantized outputs),
// times `out_scale` when nonzero (those outputs dequantized to fp32 as they are stored).
void dwconv_indirect(int64_t M, int64_t T, int64_t C, const float* const* taps, const float* w, const float* bias,
                     float* y, float lo, float hi, bool parallel = true, const float* requant = nullptr,
                     float out_scale = 0.f, const PostOp* post = nullptr);

// Work (in multiply-adds) below which igemm / gemm_packed / dwconv_nhwc run on the calling thread: 2e5 by
// default (about 8 us of one core; the pool's workers spin between runs, so a split costs ~1 us, but smaller
// layers lose more to the shared tail than they gain; igemm / gemm_packed with fewer than 256 rows need 5 times as
// much), EXECUTORCH_GEMM_PARALLEL_MIN=<multiply-adds> overrides it (read once; 0 = always split).
double parallel_min_flops();

}  // namespace etk
