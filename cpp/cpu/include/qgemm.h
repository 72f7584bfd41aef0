#pragma once
// The int8 GEMM with XNNPACK-style requantization, for quantized fully connected layers and convolutions:
// unsigned 8-bit activations times signed 8-bit weights accumulated in int32 (AVX-512 VNNI `vpdpbusd`; AVX2
// `vpmaddwd` on both widened to 16 bits; aarch64 `sdot` on activations shifted to s8), then per output channel
// (acc + bias) * scale in float, clamped and rounded to nearest even: the same integers on every kernel. Part of
// executorch_cpu (see gemm.h); the caller keeps its fp32 path where qgemm_available() is false.
#include <cstdint>
#include <vector>

#include "gemm.h"

namespace etk {

// x clamped to [lo, hi] with NaN taken as lo (std::min / std::max would pass it on): for values about to become
// integers, where a NaN from a damaged program's infinities would make the conversion undefined.
inline float clamp_nan_low(float x, float lo, float hi) { return x >= lo ? (x <= hi ? x : hi) : lo; }

// True when this CPU has an int8 GEMM kernel (x86-64: AVX2, or AVX-512 VNNI; aarch64: dotprod, SDOT) and
// EXECUTORCH_GEMM_ISA does not cap it.
bool qgemm_available();

// True when that kernel is an int8 dot product (x86-64: AVX-512 VNNI, not capped; aarch64: qgemm_available()), which
// the 4-bit kernels (qb4gemm.h) need.
bool int8_dot_products_available();

// K x N int8 weights packed once with their per-column epilogue: 16-column panels of K/4 groups of 4 bytes per
// column (the layout vpdpbusd reads; AVX2 widens 4 columns' groups at a time), K padded to a multiple of 4 with
// zeros.
struct PackedQB {
  int64_t K = 0, Kp = 0, N = 0, Np = 0;
  aligned_vector<int8_t> data;     // Np / 16 panels of [Kp / 4][16][4]
  aligned_vector<int32_t> corr;    // Np: bias(j) - a_offset * sum_k B(k, j)
  aligned_vector<int32_t> colsum;  // Np: sum_k B(k, j) (dynamic rows bring their own offsets)
  aligned_vector<float> scale;     // Np: the requantization scale of column j
  float a_offset = 0;              // the activations' u8 = A + a_offset
  // Requantized outputs (qgemm, qigemm) times this as they are stored when nonzero: the output dequantized to fp32
  // (q - zero_point) * out_scale, a Convert after the layer folded into it.
  float out_scale = 0;
  // When nonzero, the activations are given as fp32 and quantized as they are converted: the GEMM's byte of x is
  // round_even(clamp(x * in_mult, in_lo, in_hi)) + a_offset (a Convert to the input's per-tensor quantization
  // before the layer folded into it; in_lo / in_hi the centered range, qmin / qmax - zero_point).
  float in_mult = 0, in_lo = 0, in_hi = 0;
};

// B(k, j) = B[k * rsb + j * csb]: integer-valued floats in [-128, 127]. bias(j): integer-valued floats or null.
// The activations A will be integers with A + a_offset in [0, 255].
void pack_qb(int64_t K, int64_t N, const float* B, int64_t rsb, int64_t csb, const float* bias, const float* scale,
             float a_offset, PackedQB* out);
// The same from int8 weights as loaded (B(k, j) = B[k * rsb + j * csb]).
void pack_qb(int64_t K, int64_t N, const int8_t* B, int64_t rsb, int64_t csb, const float* bias, const float* scale,
             float a_offset, PackedQB* out);

// C(i, j) = round_even(clamp((sum_k A(i, k) * B(k, j) + bias(j)) * scale(j), lo, hi)) for A(i, k) = A[i * rsa + k]
// (integer-valued floats, as packed for), C(i, j) = C[i * rsc + j]. Only when qgemm_available().
void qgemm(int64_t M, const float* A, int64_t rsa, const PackedQB& B, float lo, float hi, float* C, int64_t rsc,
           bool parallel = true);

// Dynamically quantized rows (qd8 x qc8w), fp32 out: C(i, j) = clamp((sum_k A(i, k) * B(k, j)) * row_scale(i) *
// col_scale(j) + bias(j), lo, hi), A(i, k) integers with A(i, k) + row_offset(i) in [0, 255]; B packed with any
// a_offset (the rows bring theirs); bias may be null.
void qgemm_dynamic(int64_t M, const float* A, int64_t rsa, const float* row_offset, const float* row_scale,
                   const PackedQB& B, const float* col_scale, const float* bias, float lo, float hi, float* C,
                   int64_t rsc, bool parallel = true);

// XNNPACK's f32 -> qd8 quantization of one row of `len` floats: the range [min(0, min x), max(0, max x)] onto
// [-128, 127] with a nudged integer zero point. The row's q = round_even(clamp(x * mult, -128 - zero_point,
// 127 - zero_point)) + zero_point, its scale 1 / mult (mult = 1 for a row of zeros).
void qd8_row_params(const float* row, int64_t len, float* mult, float* zero_point);

// qgemm_dynamic on fp32 rows A(i, k) = A[i * rsa + k], each quantized as qd8_row_params says while it is converted
// for the kernel: a dynamic quantization folded into the GEMM, with the result of quantizing the rows first (one
// pass over them and their float copy less). Only when qgemm_available().
void qgemm_dynamic_f32(int64_t M, const float* A, int64_t rsa, const PackedQB& B, const float* col_scale,
                       const float* bias, float lo, float hi, float* C, int64_t rsc, bool parallel = true);

// A convolution's input converted once to the int8 GEMM's activation bytes (convert_activations), so that qigemm
// copies each tap's bytes instead of converting the same floats once per tap (9 times for a 3x3 filter).
struct QActivations {
  const float* base = nullptr;  // the floats the segments point into
  int64_t n = 0;
  aligned_vector<uint8_t> bytes;  // n bytes, then padding (segments are copied 16 bytes at a time)
  uint8_t zero = 0;               // the byte of value 0 (the zero point), for segments outside [base, base + n)
  aligned_vector<uint8_t> zeros;  // B.K bytes of `zero` (such segments read in place)
  // Optional, for a segment table that stays the same between calls (a convolution's): the bytes of each of its
  // segments, from translate_taps; qigemm then reads them instead of translating the table itself.
  std::vector<const uint8_t*> taps;
  const uint8_t* taps_bytes = nullptr;  // bytes.data() when taps were translated
};

// Converts x[0 .. n) (integers with x + B.a_offset in [0, 255], as packed for) for qigemm with B. Only when
// qgemm_available().
void convert_activations(const float* x, int64_t n, const PackedQB& B, QActivations* out);

// Translates `count` segment pointers (into out->base, or zeros outside it) to out->taps, after convert_activations;
// the caller redoes it when the table changes or out->bytes moved (out->taps_bytes != out->bytes.data()).
void translate_taps(const float* const* table, int64_t count, QActivations* out);

// The same with row i of A the concatenation of T segments of L floats (K = T * L), given by `segments` as for
// igemm (gemm.h): convolutions over their tap tables, padding taps pointing at zeros (the zero point). With `act`,
// segments inside act->base are read from its bytes, any other segment is the zero point.
void qigemm(int64_t M, int64_t T, int64_t L, RowSegments segments, const void* ctx, const PackedQB& B, float lo,
            float hi, float* C, int64_t rsc, bool parallel = true, const QActivations* act = nullptr);

}  // namespace etk
