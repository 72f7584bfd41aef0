// Blockwise 4-bit fully connected layers: see qb4gemm.h.
#include "qb4gemm.h"

#include <algorithm>
#include <cmath>

#include <executorch/extension/parallel/thread_parallel.h>

#include "gemm.h"
#include "isa.h"

namespace etk {

bool pack_qb4(int64_t K, int64_t N, const float* W, const float* scales, int64_t group, const float* bias,
              PackedQB4* out) {
  if (K <= 0 || N <= 0 || group <= 0 || K % 32 != 0 || group % 32 != 0 || K % group != 0) return false;
  const int64_t G = K / group;
  PackedQB4 p;
  p.K = K;
  p.N = N;
  p.group = group;
  p.q.assign(static_cast<size_t>(N * K / 2), 0);
  p.scales.assign(scales, scales + N * G);
  if (bias != nullptr) p.bias.assign(bias, bias + N);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) {
      const float s = scales[n * G + k / group];
      const float w = W[n * K + k];
      const float q = s != 0.f ? std::nearbyint(w / s) : 0.f;
      if (!(q >= -8.f && q <= 7.f) || q * s != w) return false;
      const auto nib = static_cast<uint8_t>(static_cast<int>(q) + 8);
      const int64_t blk = k / 32, i = k % 32;
      uint8_t& b = p.q[static_cast<size_t>(n * K / 2 + blk * 16 + (i % 16))];
      b = static_cast<uint8_t>(i < 16 ? (b & 0xF0) | nib : (b & 0x0F) | (nib << 4));
    }
  }
  *out = std::move(p);
  return true;
}

namespace {

// Row n of the weights as floats: (nibble - 8) * scale, 32 at a time.
template <typename F>
inline __attribute__((always_inline)) void expand_row_impl(const PackedQB4& B, int64_t n, float* w, F) {
  const int64_t K = B.K, G = K / B.group, per_group = B.group / 32;
  const uint8_t* q = B.q.data() + n * K / 2;
  const float* s = B.scales.data() + n * G;
  for (int64_t blk = 0; blk < K / 32; ++blk) {
    const float sc = s[blk / per_group];
    const uint8_t* b = q + blk * 16;
    float* o = w + blk * 32;
    for (int i = 0; i < 16; ++i) {
      o[i] = static_cast<float>(static_cast<int>(b[i] & 15) - 8) * sc;
      o[16 + i] = static_cast<float>(static_cast<int>(b[i] >> 4) - 8) * sc;
    }
  }
}
ETK_ISA_DISPATCH(expand_row, (const PackedQB4& B, int64_t n, float* w, F f), (B, n, w, f))

template <typename F>
inline __attribute__((always_inline)) float dot_impl(const float* a, const float* b, int64_t K, F) {
  float acc[16] = {};
  for (int64_t k = 0; k < K; k += 16)
    for (int i = 0; i < 16; ++i) acc[i] += a[k + i] * b[k + i];
  float s = 0.f;
  for (float v : acc) s += v;
  return s;
}
template <typename F>
inline __attribute__((always_inline)) void dot_rows_impl(int64_t M, const float* A, int64_t rsa, const float* w,
                                                         int64_t K, float* out, int64_t rsc, F f) {
  for (int64_t m = 0; m < M; ++m) out[m * rsc] = dot_impl(A + m * rsa, w, K, f);
}
ETK_ISA_DISPATCH(dot_rows,
                 (int64_t M, const float* A, int64_t rsa, const float* w, int64_t K, float* out, int64_t rsc, F f),
                 (M, A, rsa, w, K, out, rsc, f))

// Rows of A up to which the decode pass (a dot product per output) beats expanding blocks for the fp32 GEMM.
constexpr int64_t kDotRows = 4;
// Output columns expanded per block for the GEMM path.
constexpr int64_t kBlock = 64;

}  // namespace

void qb4_gemm(int64_t M, const float* A, int64_t rsa, const PackedQB4& B, float* C, int64_t rsc, float lo, float hi) {
  const int64_t N = B.N, K = B.K;
  if (M <= 0 || N <= 0) return;
  auto epilogue = [&](int64_t n0, int64_t n1) {
    for (int64_t m = 0; m < M; ++m) {
      float* row = C + m * rsc;
      for (int64_t n = n0; n < n1; ++n) {
        const float v = row[n] + (B.bias.empty() ? 0.f : B.bias[static_cast<size_t>(n)]);
        row[n] = std::min(std::max(v, lo), hi);
      }
    }
  };
  if (M <= kDotRows) {
    const int64_t grain = std::max<int64_t>(1, 16384 / K);
    ::executorch::extension::parallel_for(0, N, grain, [&](int64_t n0, int64_t n1) {
      std::vector<float> w(static_cast<size_t>(K));
      for (int64_t n = n0; n < n1; ++n) {
        expand_row(B, n, w.data(), 0);
        dot_rows(M, A, rsa, w.data(), K, C + n, rsc, 0);
      }
      epilogue(n0, n1);
    });
    return;
  }
  const int64_t blocks = (N + kBlock - 1) / kBlock;
  ::executorch::extension::parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> w(static_cast<size_t>(kBlock * K));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t n0 = b * kBlock, n1 = std::min(N, n0 + kBlock);
      for (int64_t n = n0; n < n1; ++n) expand_row(B, n, w.data() + (n - n0) * K, 0);
      // B(k, j) = w[j * K + k]: the expanded rows are the GEMM's columns.
      sgemm(M, n1 - n0, K, 1.f, A, rsa, 1, w.data(), 1, K, 0.f, C + n0, rsc, 1, /*parallel=*/false);
      epilogue(n0, n1);
    }
  });
}

}  // namespace etk
