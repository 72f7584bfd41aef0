#pragma once
// The element-wise engine of quantize / dequantize: one output element per input element, with parameters chosen
// by a channel (per tensor: one channel; per channel: the index along an axis; per token: the flattened index of
// every dim but the last). Contiguous tensors, and tensors laid out alike when the channel is one dim, run over
// their storage in order, in runs that share a channel (or rows whose channel is the position in the row); other
// layouts walk the logical indices.
#include "qutils.h"

namespace etq {

// 16-bit float element types, held as their bit patterns.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};
inline float to_float(float v) { return v; }
inline float to_float(Half v) { return half_to_float(v.bits); }
inline float to_float(BFloat16 v) { return bf16_to_float(v.bits); }
template <typename T>
inline T from_float(float f);
template <>
inline float from_float<float>(float f) {
  return f;
}
template <>
inline double from_float<double>(float f) {
  return f;
}
template <>
inline Half from_float<Half>(float f) {
  return Half{float_to_half(f)};
}
template <>
inline BFloat16 from_float<BFloat16>(float f) {
  return BFloat16{float_to_bf16(f)};
}

// Calls f(T{}) for the floating types Float, Double, Half (upstream's FLOATH set); false for others.
template <typename F>
bool dispatch_floath(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Double: f(double{}); return true;
    case ScalarType::Half: f(Half{}); return true;
    default: return false;
  }
}
// Float, Half, BFloat16 (the embedding kernels' parameter and output types).
template <typename F>
bool dispatch_fhb(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Half: f(Half{}); return true;
    case ScalarType::BFloat16: f(BFloat16{}); return true;
    default: return false;
  }
}
// The quantized integer types: Byte, Char, Short, Int, UInt16 / Bits16.
template <typename F>
bool dispatch_quant(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(uint8_t{}); return true;
    case ScalarType::Char: f(int8_t{}); return true;
    case ScalarType::Short: f(int16_t{}); return true;
    case ScalarType::Int: f(int32_t{}); return true;
    case ScalarType::UInt16:
    case ScalarType::Bits16: f(uint16_t{}); return true;
    default: return false;
  }
}

// Channels of dims [d0, d1) of a tensor: the element with row-major logical index i has channel (i / inner) % nch.
struct ChannelDims {
  int d0 = 0;
  int d1 = 0;
};

// Runs `op` from `in` (element type I) to `out` (element type O), both of the same shape. Op has:
//   void row(const I* s, O* d, int64_t n, int64_t ch)    n elements of channel ch
//   void rowc(const I* s, O* d, int64_t n, int64_t ch0)  element k has channel ch0 + k
//   O one(I v, int64_t ch)
template <typename I, typename O, typename Op>
void run_affine(const Tensor& in, const Tensor& out, ChannelDims cd, const Op& op) {
  const int64_t n = in.numel();
  if (n == 0) return;
  const I* s = in.const_data_ptr<I>();
  O* d = out.mutable_data_ptr<O>();
  int64_t nch = 1, inner = 1;
  for (int k = cd.d0; k < cd.d1; ++k) nch *= in.size(k);
  for (ssize_t k = cd.d1; k < in.dim(); ++k) inner *= in.size(k);
  bool flat = is_contiguous(in) && is_contiguous(out);
  if (!flat && same_layout(in, out) && (nch == 1 || cd.d1 - cd.d0 == 1)) {
    // The same permuted layout: channel = (storage offset / stride[axis]) % size[axis].
    flat = true;
    if (nch > 1) inner = in.strides()[cd.d0];
  }
  if (!flat) {
    parallel(n, kParallelGrain, [&](int64_t b, int64_t e) {
      Walker wi(in, b), wo(out, b);
      for (int64_t i = b; i < e; ++i) {
        d[wo.off] = op.one(s[wi.off], (i / inner) % nch);
        wi.next();
        wo.next();
      }
    });
    return;
  }
  parallel(n, kParallelGrain, [&](int64_t b, int64_t e) {
    if (nch == 1) {
      op.row(s + b, d + b, e - b, 0);
      return;
    }
    int64_t i = b;
    if (inner == 1) {
      while (i < e) {
        const int64_t ch0 = i % nch;
        const int64_t len = std::min(e - i, nch - ch0);
        op.rowc(s + i, d + i, len, ch0);
        i += len;
      }
      return;
    }
    while (i < e) {
      const int64_t blk = i / inner;
      const int64_t len = std::min(e, (blk + 1) * inner) - i;
      op.row(s + i, d + i, len, blk % nch);
      i += len;
    }
  });
}

}  // namespace etq
