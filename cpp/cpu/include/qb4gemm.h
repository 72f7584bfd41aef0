#pragma once
// Fully connected layers with blockwise 4-bit weights (torchao / XNNPACK 8da4w: int4 weights [out, in] with one
// scale per group of `group` input channels): the weights stay 4-bit in memory (a row of K weights is K / 2
// bytes) and are expanded to fp32 a row (or a block of rows) at a time inside the product, so a decode step reads
// an eighth of the bytes fp32 weights would take. Part of executorch_cpu (see gemm.h).
#include <cstdint>
#include <vector>

namespace etk {

struct PackedQB4 {
  int64_t K = 0, N = 0, group = 0;
  // N rows of K / 2 bytes; within each run of 32 weights w[0..31] of a row, byte i (0..15) holds w[i] + 8 in its
  // low nibble and w[16 + i] + 8 in its high one (so both halves expand to contiguous floats).
  std::vector<uint8_t> q;
  std::vector<float> scales;  // N x (K / group)
  std::vector<float> bias;    // N, or empty
};

// Packs W (N x K, row-major: the dequantized values (q - 8) * scale(n, k / group)) back to 4 bits. False (nothing
// packed) when K or group is not a multiple of 32, or a value is not an integer in [-8, 7] times its scale.
bool pack_qb4(int64_t K, int64_t N, const float* W, const float* scales, int64_t group, const float* bias,
              PackedQB4* out);

// C(i, j) = clamp(sum_k A(i, k) * W(j, k) + bias(j), lo, hi), A(i, k) = A[i * rsa + k], C(i, j) = C[i * rsc + j];
// W(j, k) = (q(j, k) - 8) * scale(j, k / group). Few rows (decode): one pass over the 4-bit weights; more rows:
// blocks of weights expanded to fp32 and multiplied with the fp32 GEMM. Split over the pool.
void qb4_gemm(int64_t M, const float* A, int64_t rsa, const PackedQB4& B, float* C, int64_t rsc, float lo, float hi);

}  // namespace etk
