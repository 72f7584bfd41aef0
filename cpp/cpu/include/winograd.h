#pragma once
// 3x3 convolutions (stride 1, no dilation, one group) by Winograd's minimal filtering F(4x4, 3x3) (Lavin & Gray,
// 2015): each 4x4 block of output pixels comes from the 6x6 input patch around it with 36 products per channel pair
// instead of 144. Per block of output tiles: the input patches transformed (B^T d B, 36 rows of channels per tile),
// 36 GEMMs against the filter transformed once at pack time (G g G^T), and the products transformed back
// (A^T m A) with the bias, the clamp and the post-op. The transforms are exact in real arithmetic; in fp32 they add
// rounding a little above the direct sum's (the points 0, +-1, +-2, +-1/2).
#include <cstdint>
#include <vector>

#include "gemm.h"

namespace etk {

struct PackedWinograd {
  int64_t IC = 0, OC = 0;
  std::vector<PackedB> u;      // 36 transformed filters (xi = 6 * row + column of the 6x6 tile), IC x OC each
  aligned_vector<float> bias;  // OC (zeros without a bias)
};

// Transforms and packs an OHWI filter [OC][3][3][IC] (and bias [OC], or null).
void pack_winograd(int64_t IC, int64_t OC, const float* w, const float* bias, PackedWinograd* out);

// x: NHWC [N, H, W, C] with C == IC; the output [N, OH, OW, OC] (rows of ldy floats), OH / OW given by the
// caller's padding (the pixels a 3x3 window at stride 1 reaches: OH = H + pad_t + pad_b - 2). Each output
// y = clamp(conv + bias, lo, hi), then `post` (gemm.h) on each pixel's OC outputs.
struct WinogradParams {
  int64_t N, H, W, C, OH, OW, pad_t, pad_l;
};
void winograd_conv3x3(const WinogradParams& p, const float* x, const PackedWinograd& w, float* y, int64_t ldy, float lo,
                      float hi, bool parallel = true, const PostOp* post = nullptr);

// Pixel pointers of tile t (of TW across, per_image per image) for an F(m x m, 3x3) kernel: px[n * i + j] the input
// pixel at row i, column j of its n x n patch (n = m + 2; null outside the input), py[m * r + k] output pixel
// (r, k) of the tile (rows of ldy floats; null outside the output). Either array may be null (not computed).
template <int M>
inline void winograd_tile_pixels(const WinogradParams& p, const float* x, float* y, int64_t ldy, int64_t t, int64_t TW,
                                 int64_t per_image, const float** px, float** py) {
  constexpr int N = M + 2;
  const int64_t b = t / per_image, ty = (t % per_image) / TW, tx = t % TW;
  for (int i = 0; px != nullptr && i < N; ++i) {
    const int64_t iy = ty * M + i - p.pad_t;
    for (int j = 0; j < N; ++j) {
      const int64_t ix = tx * M + j - p.pad_l;
      px[N * i + j] = iy >= 0 && iy < p.H && ix >= 0 && ix < p.W ? x + ((b * p.H + iy) * p.W + ix) * p.C : nullptr;
    }
  }
  for (int r = 0; py != nullptr && r < M; ++r) {
    const int64_t oy = ty * M + r;
    for (int k = 0; k < M; ++k) {
      const int64_t ox = tx * M + k;
      py[M * r + k] = oy < p.OH && ox < p.OW ? y + ((b * p.OH + oy) * p.OW + ox) * ldy : nullptr;
    }
  }
}

// Tiles per block of a Winograd call over T tiles: blocks of about block_bytes of transformed patches and products
// (tile_bytes per tile), a multiple of the threads, each of about the same size (both Winograd kernels).
int64_t winograd_block_tiles(int64_t T, int64_t threads, double tile_bytes, double block_bytes);

// Static int8 3x3 convolutions (stride 1, no dilation, one group) by F(2x2, 3x3) in integer arithmetic, for CPUs
// whose int8 GEMM multiplies 16-bit pairs (x86-64 AVX2 without AVX-512 VNNI): each 2x2 block of outputs from the
// 4x4 patch around it with 16 products per channel pair instead of 36. The input transform B^T d B has entries 0
// and +-1, the filter transform is taken at twice G (entries 0, +-1, 2: integers), the output transform A^T m A
// has entries 0 and +-1, so everything is an integer: patches of centered int8 values (|d| <= 255) transform into
// int16 (|v| <= 1020), filters into int16 (|u| <= 9 * 128), their products pair-summed by vpmaddwd into int32, and
// the result is exactly 4 times the direct convolution's sum (sums past int32 wrap and come back: the result fits).
// The epilogue is the int8 GEMM's (qgemm.h) on that sum: bit for bit the direct convolution's output.
struct PackedWinogradQ8 {
  int64_t IC = 0, OC = 0, ICp = 0, OCp = 0;  // ICp: IC rounded up to a pair, OCp: OC to a 16-column panel
  aligned_vector<int16_t> u;                 // [16 xi][OCp / 16 panels][ICp / 2 pairs][16 columns][2]
  aligned_vector<int32_t> bias;              // OCp (zeros without a bias)
  aligned_vector<float> scale;               // OCp: the requantization scale per output channel
};

// Whether the kernel runs here (x86-64 with AVX2). Callers take it where the int8 GEMM has no 8-bit dot products
// (int8_dot_products_available() false): against VNNI's 4-byte dot products the 16-bit pairs save nothing.
bool winograd_q8_available();

// w: OHWI [OC][3][3][IC] integers in [-128, 127]; bias: integer-valued floats or null; scale: OC.
void pack_winograd_q8(int64_t IC, int64_t OC, const float* w, const float* bias, const float* scale,
                      PackedWinogradQ8* out);
void pack_winograd_q8(int64_t IC, int64_t OC, const int8_t* w, const float* bias, const float* scale,
                      PackedWinogradQ8* out);

// x: NHWC centered integers (q - zero_point, as floats; padding reads 0) or, with in_mult nonzero, fp32 values
// quantized on the way in as the int8 GEMM does (qgemm.h: round_even(clamp(x * in_mult, in_lo, in_hi))). Output
// (rows of ldy floats): round_even(clamp((conv + bias) * scale, lo, hi)), times out_scale when nonzero.
struct WinogradQ8Io {
  float lo, hi, out_scale, in_mult, in_lo, in_hi;
};
void winograd_conv3x3_q8(const WinogradParams& p, const float* x, const PackedWinogradQ8& w, float* y, int64_t ldy,
                         const WinogradQ8Io& io, bool parallel = true);

}  // namespace etk
