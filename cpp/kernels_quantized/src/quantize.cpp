// quantize_per_tensor (.out, .Tensor_out), quantize_per_channel.out, quantize_per_token.out.
//
// Upstream's arithmetic, element by element (kernels/quantized/cpu/op_quantize.cpp, the portable path):
//   inv = 1.0f / float(scale)                        (float reciprocal, not a division per element)
//   t   = float(int32(zero_point)) + nearbyint(float(inv * x))   (round half to even, in float)
//   q   = clamp(int64(t), quant_min, quant_max)
// where inv * x is a float product for Float / Half input and a double product rounded to float for Double input.
// A NaN input becomes quant_min (what x86 gives upstream); +-inf saturate to quant_max / quant_min.
#include <vector>

#include "affine.h"
#include "qparams.h"

namespace etq {
namespace {

template <typename I>
inline float scaled(I v, float inv) {
  if constexpr (std::is_same<I, double>::value) {
    return static_cast<float>(static_cast<double>(inv) * v);
  } else {
    return inv * to_float(v);
  }
}

template <typename I, typename Q>
struct QuantizeOp {
  const float* inv;  // per channel
  const float* zpf;  // float(int32(zero_point)) per channel
  float lo, hi;      // float(quant_min), float(quant_max)
  int64_t qlo, qhi;

  inline Q q1(I v, float iv, float z) const {
    float t = z + round_even(scaled(v, iv));
    t = t > lo ? t : lo;  // NaN -> quant_min
    t = t < hi ? t : hi;
    if constexpr (sizeof(Q) <= 2) {
      return static_cast<Q>(static_cast<int32_t>(t));
    } else {
      // float(quant_max) may round up past int32: convert through int64 and clamp exactly.
      int64_t q = static_cast<int64_t>(t);
      q = q < qlo ? qlo : q;
      q = q > qhi ? qhi : q;
      return static_cast<Q>(q);
    }
  }
  void row(const I* __restrict s, Q* __restrict d, int64_t n, int64_t ch) const {
    const float iv = inv[ch], z = zpf[ch];
    for (int64_t k = 0; k < n; ++k) d[k] = q1(s[k], iv, z);
  }
  void rowc(const I* __restrict s, Q* __restrict d, int64_t n, int64_t ch0) const {
    const float* __restrict iv = inv + ch0;
    const float* __restrict z = zpf + ch0;
    for (int64_t k = 0; k < n; ++k) d[k] = q1(s[k], iv[k], z[k]);
  }
  Q one(I v, int64_t ch) const { return q1(v, inv[ch], zpf[ch]); }
};

// Schema positions shared by the variants: input 0, quant_min / quant_max, dtype, out.
struct Layout {
  size_t qmin, dtype, out;
};

// Checks the input, the range and the out tensor, and resizes out like the input.
bool common(KernelRuntimeContext& ctx, Args args, const Layout& ix, const Tensor** in, const Tensor** out,
            int64_t* qmin, int64_t* qmax) {
  if (!check_nargs(ctx, args, ix.out + 1)) return false;
  *in = arg_tensor(ctx, args, 0);
  if (*in == nullptr) return false;
  ScalarType dtype;
  if (!arg_int(ctx, args, ix.qmin, qmin) || !arg_int(ctx, args, ix.qmin + 1, qmax) ||
      !arg_dtype(ctx, args, ix.dtype, &dtype))
    return false;
  *out = arg_tensor(ctx, args, ix.out);
  if (*out == nullptr) return false;
  const ScalarType it = (*in)->scalar_type();
  if (it != ScalarType::Float && it != ScalarType::Double && it != ScalarType::Half) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) has dtype %s, expected Float, Double or Half",
         dtype_name(it));
    return false;
  }
  int64_t lo, hi;
  if (!quant_range(dtype, &lo, &hi)) {
    fail(ctx, Error::InvalidArgument,
         "argument %zu (dtype) is %s; the quantized dtypes are Byte, Char, Short, Int, UInt16 and Bits16", ix.dtype,
         dtype_name(dtype));
    return false;
  }
  if ((*out)->scalar_type() != dtype) {
    fail(ctx, Error::InvalidArgument, "argument %zu (out) has dtype %s, but argument %zu (dtype) is %s", ix.out,
         dtype_name((*out)->scalar_type()), ix.dtype, dtype_name(dtype));
    return false;
  }
  if (!check_quant_minmax(ctx, ix.qmin, *qmin, *qmax, dtype, true)) return false;
  return resize_like(ctx, **out, ix.out, **in);
}

void run(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, ChannelDims cd, const std::vector<float>& inv,
         const std::vector<float>& zpf, int64_t qmin, int64_t qmax) {
  const bool ok = dispatch_floath(in.scalar_type(), [&](auto i_tag) {
    using I = decltype(i_tag);
    dispatch_quant(out.scalar_type(), [&](auto q_tag) {
      using Q = decltype(q_tag);
      const QuantizeOp<I, Q> op{inv.data(), zpf.data(), static_cast<float>(qmin), static_cast<float>(qmax), qmin, qmax};
      run_affine<I, Q>(in, out, cd, op);
    });
  });
  if (!ok) fail(ctx, Error::Internal, "unhandled dtype %s", dtype_name(in.scalar_type()));
}

// Per-channel parameters from tensors (Double scales, Long zero points), one per channel.
bool channel_params(KernelRuntimeContext& ctx, const Tensor& scales, size_t si, const Tensor& zps, size_t zi,
                    int64_t count, const char* count_what, int64_t qmin, int64_t qmax, std::vector<float>* inv,
                    std::vector<float>* zpf) {
  if (!check_param_tensor(ctx, si, "scales", scales, count, count_what, true, false) ||
      !check_param_tensor(ctx, zi, "zero_points", zps, count, count_what, false, false))
    return false;
  inv->resize(static_cast<size_t>(count));
  zpf->resize(static_cast<size_t>(count));
  for (int64_t c = 0; c < count; ++c) {
    const int64_t zp = read_int(zps, c);
    if (!check_quantize_scale(ctx, {si, "scales", c}, read_real(scales, c), &(*inv)[c]) ||
        !check_zero_point(ctx, {zi, "zero_points", c}, zp, qmin, qmax))
      return false;
    (*zpf)[c] = static_cast<float>(static_cast<int32_t>(zp));
  }
  return true;
}

// The per-tensor forms, once their scale (argument 1) and zero point (argument 2) are read.
void per_tensor(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, double scale, int64_t zp, int64_t qmin,
                int64_t qmax) {
  std::vector<float> inv(1), zpf(1);
  if (!check_quantize_scale(ctx, {1, "scale"}, scale, &inv[0]) ||
      !check_zero_point(ctx, {2, "zero_point"}, zp, qmin, qmax))
    return;
  zpf[0] = static_cast<float>(static_cast<int32_t>(zp));
  run(ctx, in, out, ChannelDims{}, inv, zpf, qmin, qmax);
}

}  // namespace

ET_KERNEL_OP("quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out,
             "(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
             "Tensor(a!) out) -> Tensor(a!)")
void quantize_per_tensor_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax, zp;
  double scale;
  if (!common(ctx, args, {3, 5, 6}, &in, &out, &qmin, &qmax)) return;
  if (!arg_double(ctx, args, 1, &scale) || !arg_int(ctx, args, 2, &zp)) return;
  per_tensor(ctx, *in, *out, scale, zp, qmin, qmax);
}

// scale a 1-element Double tensor, zero_point a 1-element Long tensor.
ET_KERNEL_OP("quantized_decomposed::quantize_per_tensor.Tensor_out", quantize_per_tensor_tensor_out,
             "(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
             "Tensor(a!) out) -> Tensor(a!)")
void quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax;
  if (!common(ctx, args, {3, 5, 6}, &in, &out, &qmin, &qmax)) return;
  double scale;
  int64_t zp;
  if (!per_tensor_params(ctx, args, &scale, &zp)) return;
  per_tensor(ctx, *in, *out, scale, zp, qmin, qmax);
}

ET_KERNEL_OP("quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out,
             "(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType "
             "dtype, *, Tensor(a!) out) -> Tensor(a!)")
void quantize_per_channel_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax, axis;
  if (!common(ctx, args, {4, 6, 7}, &in, &out, &qmin, &qmax)) return;
  if (!channel_axis(ctx, args, *in, &axis)) return;
  const Tensor* st = arg_tensor(ctx, args, 1);
  const Tensor* zt = st ? arg_tensor(ctx, args, 2) : nullptr;
  if (zt == nullptr) return;
  std::vector<float> inv, zpf;
  const std::string what = "input.size(" + std::to_string(axis) + ")";
  if (!channel_params(ctx, *st, 1, *zt, 2, in->size(axis), what.c_str(), qmin, qmax, &inv, &zpf)) return;
  run(ctx, *in, *out, ChannelDims{static_cast<int>(axis), static_cast<int>(axis) + 1}, inv, zpf, qmin, qmax);
}

// One (scale, zero point) per token, a token being one index of every dim but the last.
ET_KERNEL_OP("quantized_decomposed::quantize_per_token.out", quantize_per_token_out,
             "(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, *, "
             "Tensor(a!) out) -> Tensor(a!)")
void quantize_per_token_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax;
  if (!common(ctx, args, {3, 5, 6}, &in, &out, &qmin, &qmax)) return;
  int64_t tokens;
  if (!token_count(ctx, *in, &tokens)) return;
  const Tensor* st = arg_tensor(ctx, args, 1);
  const Tensor* zt = st ? arg_tensor(ctx, args, 2) : nullptr;
  if (zt == nullptr) return;
  std::vector<float> inv, zpf;
  if (!channel_params(ctx, *st, 1, *zt, 2, tokens, "the number of tokens", qmin, qmax, &inv, &zpf)) return;
  run(ctx, *in, *out, ChannelDims{0, static_cast<int>(in->dim()) - 1}, inv, zpf, qmin, qmax);
}

}  // namespace etq
