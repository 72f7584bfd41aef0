// 2-D float transposes (transpose.h).
#include "transpose.h"

#include <algorithm>

#include <executorch/extension/parallel/thread_parallel.h>

#include "isa.h"
#include "x86_intrinsics.h"

namespace etk {

namespace {

// Columns [c0, c1) of the transpose, plainly.
void transpose_plain(const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = 0; r < rows; ++r) y[c * ldy + r] = x[r * ldx + c];
}

#if defined(__x86_64__)
// 8 x 8 tiles (rows r0 .. r0 + 7 of x, columns c .. c + 7) through the unpack / shuffle / lane-permute network.
__attribute__((target("avx2,fma"))) void transpose_avx2(const float* x, int64_t rows, int64_t ldx, float* y,
                                                        int64_t ldy, int64_t c0, int64_t c1) {
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      __m256 v[8];
      for (int k = 0; k < 8; ++k) v[k] = _mm256_loadu_ps(x + (r + k) * ldx + c);
      const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
      const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
      const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
      const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
      const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
      const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      const __m256 o[8] = {_mm256_permute2f128_ps(s0, s4, 0x20), _mm256_permute2f128_ps(s1, s5, 0x20),
                           _mm256_permute2f128_ps(s2, s6, 0x20), _mm256_permute2f128_ps(s3, s7, 0x20),
                           _mm256_permute2f128_ps(s0, s4, 0x31), _mm256_permute2f128_ps(s1, s5, 0x31),
                           _mm256_permute2f128_ps(s2, s6, 0x31), _mm256_permute2f128_ps(s3, s7, 0x31)};
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(y + (c + k) * ldy + r, o[k]);
    }
    for (; r < rows; ++r)
      for (int k = 0; k < 8; ++k) y[(c + k) * ldy + r] = x[r * ldx + c + k];
  }
  transpose_plain(x, rows, ldx, y, ldy, c, c1);
}

// 3 rows into a dense output (ldy == 3): 16 columns of each row interleaved into 48 floats by two-source permutes.
__attribute__((target("avx512f"))) void interleave3_avx512(const float* x, int64_t ldx, float* y, int64_t c0,
                                                           int64_t c1) {
  // Output chunk k (floats 16k .. 16k + 15), position p: global g = 16k + p is row g % 3, column g / 3. First a and b
  // into place (index i < 16: a[i], 16 + i: b[i]), then c over the third rows (16 + i: c[i], else t[p]).
  alignas(64) int32_t ab[3][16], tc[3][16];
  for (int k = 0; k < 3; ++k) {
    for (int p = 0; p < 16; ++p) {
      const int g = 16 * k + p, row = g % 3, col = g / 3;
      ab[k][p] = row == 1 ? 16 + col : col;  // row 2's slots are filled below
      tc[k][p] = row == 2 ? 16 + col : p;
    }
  }
  __m512i iab[3], itc[3];
  for (int k = 0; k < 3; ++k) {
    iab[k] = _mm512_load_si512(ab[k]);
    itc[k] = _mm512_load_si512(tc[k]);
  }
  int64_t c = c0;
  for (; c + 16 <= c1; c += 16) {
    const __m512 a = _mm512_loadu_ps(x + c), b = _mm512_loadu_ps(x + ldx + c), d = _mm512_loadu_ps(x + 2 * ldx + c);
    for (int k = 0; k < 3; ++k) {
      const __m512 t = _mm512_permutex2var_ps(a, iab[k], b);
      _mm512_storeu_ps(y + 3 * c + 16 * k, _mm512_permutex2var_ps(t, itc[k], d));
    }
  }
  transpose_plain(x, 3, ldx, y, 3, c, c1);
}
#endif

void transpose_range(const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy, int64_t c0, int64_t c1) {
#if defined(__x86_64__)
  if (rows == 3 && ldy == 3 && isa_level() == 2) {
    interleave3_avx512(x, ldx, y, c0, c1);
    return;
  }
  if (rows >= 8 && isa_level() >= 1) {
    transpose_avx2(x, rows, ldx, y, ldy, c0, c1);
    return;
  }
#endif
  transpose_plain(x, rows, ldx, y, ldy, c0, c1);
}

}  // namespace

void transpose_2d(const float* x, int64_t rows, int64_t cols, int64_t ldx, float* y, int64_t ldy) {
  if (rows <= 0 || cols <= 0) return;
  // Split by columns (output rows) above 32 K floats, in multiples of 16.
  if (rows * cols < (int64_t{1} << 15) || ::executorch::extension::get_thread_count() <= 1) {
    transpose_range(x, rows, ldx, y, ldy, 0, cols);
    return;
  }
  const int64_t blocks = (cols + 15) / 16;
  ::executorch::extension::parallel_for(
      0, blocks, std::max<int64_t>(1, (int64_t{1} << 14) / (16 * rows)),
      [&](int64_t b, int64_t e) { transpose_range(x, rows, ldx, y, ldy, b * 16, std::min(cols, e * 16)); });
}

}  // namespace etk
