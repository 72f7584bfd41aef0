#pragma once
// Fully connected layers with blockwise 4-bit weights (torchao / XNNPACK 8da4w: int4 weights [out, in] with one
// scale per group of `group` input channels): the weights stay 4-bit in memory (a row of K weights is K / 2
// bytes) and are expanded to fp32 a row (or a block of rows) at a time inside the product, so a decode step reads
// an eighth of the bytes fp32 weights would take. Part of executorch_cpu (see gemm.h).
#include <cstdint>
#include <vector>

#include "gemm.h"

namespace etk {

struct PackedQB4 {
  int64_t K = 0, N = 0, group = 0;
  // Row layout (rows): N rows of K / 2 bytes; within each run of 32 weights w[0..31] of a row, byte i (0..15) holds
  // w[i] + 8 in its low nibble and w[16 + i] + 8 in its high one (so both halves expand to contiguous floats).
  // Panel layout (panels, for the int8 kernel): 16-column panels, each K / 8 blocks of 64 bytes; in block b, byte
  // 4c + r holds w(col c, 8b + r) + 8 in its low nibble and w(col c, 8b + 4 + r) + 8 in its high one (vpdpbusd's
  // [4 k][16 columns] order), columns past N zero.
  bool panels = false;
  aligned_vector<uint8_t> q;
  // rows: N x (K / group); panels: per panel, per group, 16 columns (empty where scales_bf16 holds them)
  aligned_vector<float> scales;
  // panels, when every scale is a bfloat16 value (XNNPACK's blockwise scales are): the same order, as bf16 bits, so
  // a decode step reads 4.5 bits a weight (the group sums of w + 8 the kernel needs are taken on the fly)
  aligned_vector<uint16_t> scales_bf16;
  aligned_vector<float> bias;  // N (rows) or the panels' padded width, or empty
};

// True where qb4_gemm_dynamic has a kernel (x86-64: AVX2, AVX-512 VNNI; aarch64: dotprod, UDOT); elsewhere the
// callers keep the float kernel (the row layout) for dynamically quantized rows.
bool qb4_dynamic_available();

// Packs W (N x K, row-major: the dequantized values (q - 8) * scale(n, k / group)) back to 4 bits, in the panel
// layout when `panels` (the int8 kernel: only where qb4_dynamic_available()), else the row layout. False (nothing
// packed) when K or group is not a multiple of 32, group exceeds kMaxQB4Group, or a value is not an integer in
// [-8, 7] times its scale.
inline constexpr int64_t kMaxQB4Group = int64_t{1} << 16;
bool pack_qb4(int64_t K, int64_t N, const float* W, const float* scales, int64_t group, const float* bias,
              PackedQB4* out, bool panels = false);

// C(i, j) = clamp(sum_k A(i, k) * W(j, k) + bias(j), lo, hi), A(i, k) = A[i * rsa + k], C(i, j) = C[i * rsc + j];
// W(j, k) = (q(j, k) - 8) * scale(j, k / group). Few rows (decode): one pass over the 4-bit weights; more rows:
// blocks of weights expanded to fp32 and multiplied with the fp32 GEMM. Split over the pool.
// Row layout only.
void qb4_gemm(int64_t M, const float* A, int64_t rsa, const PackedQB4& B, float* C, int64_t rsc, float lo, float hi);

// Dynamically quantized rows (qd8 x qb4w, as XNNPACK's), panel layout only: A(i, k) integers (q - zero point) with
// A(i, k) + row_offset(i) in [0, 255]; C(i, j) = clamp(row_scale(i) * sum_g scale(j, g) * sum_{k in g} A(i, k) *
// (q(j, k) - 8) + bias(j), lo, hi), the group sums in int32 (AVX-512 VNNI; AVX2 vpmaddubsw + vpmaddwd; aarch64
// UDOT), exact, and the same results on each.
void qb4_gemm_dynamic(int64_t M, const float* A, int64_t rsa, const float* row_offset, const float* row_scale,
                      const PackedQB4& B, float* C, int64_t rsc, float lo, float hi);

}  // namespace etk
