// dequantize_per_tensor (.out, .Tensor_out), dequantize_per_channel.out, dequantize_per_token.out.
//
// Upstream's arithmetic (kernels/quantized/cpu/op_dequantize.cpp): out = OUT(float(x - int32(zero_point)) *
// float(scale)): an integer difference, one float product, then the conversion to the output dtype (Float,
// Double or Half). quant_min / quant_max are metadata (checked, not applied). One upstream quirk is kept: for a
// 1-d input, dequantize_per_channel converts the difference to the output dtype before the product, so Double
// output gets a double product and Half output a Half-rounded difference.
#include <string>
#include <vector>

#include "affine.h"
#include "qparams.h"

namespace etq {
namespace {

// float(x - zp), exactly as the int32 (or, for Int input, wider) difference rounds to float.
template <typename I>
inline float diff(I v, int32_t zp) {
  if constexpr (sizeof(I) <= 2) {
    return static_cast<float>(static_cast<int32_t>(v) - zp);
  } else {
    return static_cast<float>(static_cast<double>(v) - static_cast<double>(zp));
  }
}

template <typename I, typename O>
struct DequantizeOp {
  const float* scale;
  const int32_t* zp;

  void row(const I* __restrict s, O* __restrict d, int64_t n, int64_t ch) const {
    const float sc = scale[ch];
    const int32_t z = zp[ch];
    for (int64_t k = 0; k < n; ++k) d[k] = from_float<O>(diff(s[k], z) * sc);
  }
  void rowc(const I* __restrict s, O* __restrict d, int64_t n, int64_t ch0) const {
    const float* __restrict sc = scale + ch0;
    const int32_t* __restrict z = zp + ch0;
    for (int64_t k = 0; k < n; ++k) d[k] = from_float<O>(diff(s[k], z[k]) * sc[k]);
  }
  O one(I v, int64_t ch) const { return from_float<O>(diff(v, zp[ch]) * scale[ch]); }
};

// The 1-d dequantize_per_channel path: OUT(x - zp) * scale in OUT's arithmetic.
template <typename I, typename O>
struct Dequantize1dOp {
  const float* scale;
  const int32_t* zp;

  static O f(I v, int32_t z, float sc) {
    const int64_t dv = static_cast<int64_t>(v) - z;
    if constexpr (std::is_same<O, double>::value) {
      return static_cast<double>(dv) * static_cast<double>(sc);
    } else if constexpr (std::is_same<O, Half>::value) {
      return from_float<Half>(round_half(static_cast<float>(dv)) * sc);
    } else {
      return from_float<O>(static_cast<float>(dv) * sc);
    }
  }
  void row(const I* s, O* d, int64_t n, int64_t ch) const {
    for (int64_t k = 0; k < n; ++k) d[k] = f(s[k], zp[ch], scale[ch]);
  }
  void rowc(const I* s, O* d, int64_t n, int64_t ch0) const {
    for (int64_t k = 0; k < n; ++k) d[k] = f(s[k], zp[ch0 + k], scale[ch0 + k]);
  }
  O one(I v, int64_t ch) const { return f(v, zp[ch], scale[ch]); }
};

struct Layout {
  size_t qmin, dtype, out_dtype, out;
};

bool common(KernelRuntimeContext& ctx, Args args, const Layout& ix, bool out_dtype_required, const Tensor** in,
            const Tensor** out, int64_t* qmin, int64_t* qmax) {
  if (!check_nargs(ctx, args, ix.out + 1)) return false;
  *in = arg_tensor(ctx, args, 0);
  if (*in == nullptr) return false;
  ScalarType dtype, out_dtype = ScalarType::Float;
  bool has_out_dtype = true;
  if (!arg_int(ctx, args, ix.qmin, qmin) || !arg_int(ctx, args, ix.qmin + 1, qmax) ||
      !arg_dtype(ctx, args, ix.dtype, &dtype))
    return false;
  if (out_dtype_required ? !arg_dtype(ctx, args, ix.out_dtype, &out_dtype)
                         : !arg_opt_dtype(ctx, args, ix.out_dtype, &out_dtype, &has_out_dtype))
    return false;
  *out = arg_tensor(ctx, args, ix.out);
  if (*out == nullptr) return false;
  const ScalarType it = (*in)->scalar_type();
  int64_t lo, hi;
  if (!quant_range(it, &lo, &hi)) {
    fail(ctx, Error::InvalidArgument,
         "argument 0 (input) has dtype %s; the quantized dtypes are Byte, Char, Short, Int, UInt16 and Bits16",
         dtype_name(it));
    return false;
  }
  if (dtype != it) {
    fail(ctx, Error::InvalidArgument, "argument %zu (dtype) is %s, but argument 0 (input) has dtype %s", ix.dtype,
         dtype_name(dtype), dtype_name(it));
    return false;
  }
  const ScalarType ot = (*out)->scalar_type();
  if (has_out_dtype && ot != out_dtype) {
    char out_dtype_name[64];  // out_dtype, or per token output_dtype (the schemas' names)
    fail(ctx, Error::InvalidArgument, "argument %zu (out) has dtype %s, but argument %zu (%s) is %s", ix.out,
         dtype_name(ot), ix.out_dtype, arg_name(ix.out_dtype, out_dtype_name), dtype_name(out_dtype));
    return false;
  }
  if (ot != ScalarType::Float && ot != ScalarType::Double && ot != ScalarType::Half) {
    fail(ctx, Error::InvalidArgument, "argument %zu (out) has dtype %s, expected Float, Double or Half", ix.out,
         dtype_name(ot));
    return false;
  }
  if (!check_quant_minmax(ctx, ix.qmin, *qmin, *qmax, it, false)) return false;
  return resize_like(ctx, **out, ix.out, **in);
}

void run(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, ChannelDims cd,
         const std::vector<float>& scale, const std::vector<int32_t>& zp, bool one_d_quirk) {
  const bool ok = dispatch_quant(in.scalar_type(), [&](auto i_tag) {
    using I = decltype(i_tag);
    dispatch_floath(out.scalar_type(), [&](auto o_tag) {
      using O = decltype(o_tag);
      if (one_d_quirk && !std::is_same<O, float>::value) {
        run_affine<I, O>(in, out, cd, Dequantize1dOp<I, O>{scale.data(), zp.data()});
      } else {
        run_affine<I, O>(in, out, cd, DequantizeOp<I, O>{scale.data(), zp.data()});
      }
    });
  });
  if (!ok) fail(ctx, Error::Internal, "unhandled dtype %s", dtype_name(in.scalar_type()));
}

// Per-channel parameters: scales Double or Float, zero_points (may be null: 0) Long or Int.
bool channel_params(KernelRuntimeContext& ctx, const Tensor& scales, size_t si, const Tensor* zps, size_t zi,
                    int64_t count, const char* count_what, int64_t qmin, int64_t qmax, std::vector<float>* scale,
                    std::vector<int32_t>* zp) {
  if (!check_param_tensor(ctx, si, "scales", scales, count, count_what, true, true)) return false;
  if (zps != nullptr && !check_param_tensor(ctx, zi, "zero_points", *zps, count, count_what, false, true)) return false;
  scale->resize(static_cast<size_t>(count));
  zp->assign(static_cast<size_t>(count), 0);
  for (int64_t c = 0; c < count; ++c) {
    if (!check_dequantize_scale(ctx, {si, "scales", c}, read_real(scales, c), &(*scale)[c])) return false;
    if (zps == nullptr) continue;  // None: zero points of 0, whatever the range (as upstream)
    const int64_t z = read_int(*zps, c);
    if (!check_zero_point(ctx, {zi, "zero_points", c}, z, qmin, qmax)) return false;
    (*zp)[c] = static_cast<int32_t>(z);
  }
  return true;
}

// The per-tensor forms, once their scale (argument 1) and zero point (argument 2) are read.
void per_tensor(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, double scale, int64_t zp, int64_t qmin,
                int64_t qmax) {
  std::vector<float> sc(1);
  if (!check_dequantize_scale(ctx, {1, "scale"}, scale, &sc[0]) ||
      !check_zero_point(ctx, {2, "zero_point"}, zp, qmin, qmax))
    return;
  run(ctx, in, out, ChannelDims{}, sc, std::vector<int32_t>{static_cast<int32_t>(zp)}, false);
}

}  // namespace

ET_KERNEL_OP("quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor_out,
             "(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
             "ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)")
void dequantize_per_tensor_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax, zp;
  double scale;
  if (!common(ctx, args, {3, 5, 6, 7}, false, &in, &out, &qmin, &qmax)) return;
  if (!arg_double(ctx, args, 1, &scale) || !arg_int(ctx, args, 2, &zp)) return;
  per_tensor(ctx, *in, *out, scale, zp, qmin, qmax);
}

ET_KERNEL_OP("quantized_decomposed::dequantize_per_tensor.Tensor_out", dequantize_per_tensor_tensor_out,
             "(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
             "ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)")
void dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax;
  if (!common(ctx, args, {3, 5, 6, 7}, false, &in, &out, &qmin, &qmax)) return;
  double scale;
  int64_t zp;
  if (!per_tensor_params(ctx, args, &scale, &zp)) return;
  per_tensor(ctx, *in, *out, scale, zp, qmin, qmax);
}

ET_KERNEL_OP("quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out,
             "(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType "
             "dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)")
void dequantize_per_channel_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax, axis;
  if (!common(ctx, args, {4, 6, 7, 8}, false, &in, &out, &qmin, &qmax)) return;
  if (!channel_axis(ctx, args, *in, &axis)) return;
  const int64_t nd = in->dim();
  const Tensor* st = arg_tensor(ctx, args, 1);
  const Tensor* zt = nullptr;
  if (st == nullptr || !arg_opt_tensor(ctx, args, 2, &zt)) return;
  std::vector<float> sc;
  std::vector<int32_t> zp;
  const std::string what = "input.size(" + std::to_string(axis) + ")";
  if (!channel_params(ctx, *st, 1, zt, 2, in->size(axis), what.c_str(), qmin, qmax, &sc, &zp)) return;
  run(ctx, *in, *out, ChannelDims{static_cast<int>(axis), static_cast<int>(axis) + 1}, sc, zp, nd == 1);
}

ET_KERNEL_OP("quantized_decomposed::dequantize_per_token.out", dequantize_per_token_out,
             "(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, "
             "ScalarType output_dtype, *, Tensor(a!) out) -> Tensor(a!)")
void dequantize_per_token_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *in, *out;
  int64_t qmin, qmax;
  if (!common(ctx, args, {3, 5, 6, 7}, true, &in, &out, &qmin, &qmax)) return;
  int64_t tokens;
  if (!token_count(ctx, *in, &tokens)) return;
  const Tensor* st = arg_tensor(ctx, args, 1);
  const Tensor* zt = st ? arg_tensor(ctx, args, 2) : nullptr;
  if (zt == nullptr) return;
  std::vector<float> sc;
  std::vector<int32_t> zp;
  if (!channel_params(ctx, *st, 1, zt, 2, tokens, "the number of tokens", qmin, qmax, &sc, &zp)) return;
  run(ctx, *in, *out, ChannelDims{0, static_cast<int>(in->dim()) - 1}, sc, zp, false);
}

}  // namespace etq
