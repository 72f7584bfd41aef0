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

}  // namespace etk
