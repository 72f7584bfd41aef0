#pragma once
// 2-D float transposes for the layout changes of the CPU components (part of executorch_cpu): y[c * ldy + r] =
// x[r * ldx + c] for r < rows, c < cols. AVX-512 / AVX2 8 x 8 tiles, and an interleave for 2-4 rows (an NCHW -> NHWC
// image of 3 channels); split over the pool when large.
#include <cstdint>

namespace etk {

void transpose_2d(const float* x, int64_t rows, int64_t cols, int64_t ldx, float* y, int64_t ldy);

}  // namespace etk
