// quantized_decomposed::add.out: dequantize a and b, add in float, quantize to out's parameters
// (kernels/quantized/cpu/op_add.cpp). With the scales taken as floats and the zero points as int32 (as upstream
// does "to maintain numerical consistency with fbgemm"):
//   da = float(double(a - za) * double(sa)),  db likewise,  s = da + db   (float)
//   q  = clamp(int64(float(zo) + nearbyint((1.0f / so) * s)), out_quant_min, out_quant_max)
// a, b and out have the same shape and integer dtype (no broadcasting); every quant range lies in [0, 255].
#include "affine.h"
#include "qparams.h"

namespace etq {
namespace {

struct Side {
  float scale;
  int32_t zp;
};

// float(double(v - zp) * double(scale)): exact as a float product when the difference fits in 24 bits.
template <typename T>
inline float dq(T v, int32_t zp, float scale) {
  if constexpr (sizeof(T) <= 2) {
    return static_cast<float>(static_cast<int32_t>(v) - zp) * scale;
  } else {
    const int64_t d = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(v)) - static_cast<uint64_t>(zp));
    return static_cast<float>(static_cast<double>(d) * static_cast<double>(scale));
  }
}

template <typename T>
struct AddOp {
  Side a, b;
  float inv, zo, lo, hi;
  inline T f(T x, T y) const {
    const float s = dq(x, a.zp, a.scale) + dq(y, b.zp, b.scale);
    float t = zo + round_even(inv * s);
    t = t > lo ? t : lo;
    t = t < hi ? t : hi;
    return static_cast<T>(static_cast<int32_t>(t));
  }
};

bool range_0_255(KernelRuntimeContext& ctx, size_t qmin_index, const char* which, int64_t qmin, int64_t qmax) {
  if (qmin >= 0 && qmax <= 255 && qmin <= qmax) return true;
  fail(ctx, Error::InvalidArgument,
       "argument %zu (%s_quant_min) %lld / argument %zu (%s_quant_max) %lld: need 0 <= quant_min <= quant_max <= 255",
       qmin_index, which, static_cast<long long>(qmin), qmin_index + 1, which, static_cast<long long>(qmax));
  return false;
}

template <typename F>
bool dispatch_int(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(uint8_t{}); return true;
    case ScalarType::Char: f(int8_t{}); return true;
    case ScalarType::Short: f(int16_t{}); return true;
    case ScalarType::Int: f(int32_t{}); return true;
    case ScalarType::Long: f(int64_t{}); return true;
    default: return false;
  }
}

}  // namespace

ET_KERNEL_OP("quantized_decomposed::add.out", add_out,
             "(Tensor a, float a_scale, int a_zero_point, int a_quant_min, int a_quant_max, Tensor b, float b_scale, "
             "int b_zero_point, int b_quant_min, int b_quant_max, float out_scale, int out_zero_point, int "
             "out_quant_min, int out_quant_max, *, Tensor(a!) out) -> Tensor(a!)")
void add_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 15)) return;
  const Tensor* a = arg_tensor(ctx, args, 0);
  const Tensor* b = a ? arg_tensor(ctx, args, 5) : nullptr;
  const Tensor* out = b ? arg_tensor(ctx, args, 14) : nullptr;
  if (out == nullptr) return;
  double sa, sb, so;
  int64_t za, amin, amax, zb, bmin, bmax, zo, omin, omax;
  if (!arg_double(ctx, args, 1, &sa) || !arg_int(ctx, args, 2, &za) || !arg_int(ctx, args, 3, &amin) ||
      !arg_int(ctx, args, 4, &amax) || !arg_double(ctx, args, 6, &sb) || !arg_int(ctx, args, 7, &zb) ||
      !arg_int(ctx, args, 8, &bmin) || !arg_int(ctx, args, 9, &bmax) || !arg_double(ctx, args, 10, &so) ||
      !arg_int(ctx, args, 11, &zo) || !arg_int(ctx, args, 12, &omin) || !arg_int(ctx, args, 13, &omax))
    return;
  if (!same_shape(*a, *b) || !same_shape(*a, *out)) {
    fail(ctx, Error::InvalidArgument, "a %s, b %s and out %s must have the same shape (add.out does not broadcast)",
         shape_string(*a).c_str(), shape_string(*b).c_str(), shape_string(*out).c_str());
    return;
  }
  const ScalarType t = a->scalar_type();
  if (b->scalar_type() != t || out->scalar_type() != t) {
    fail(ctx, Error::InvalidArgument, "a (%s), b (%s) and out (%s) must have the same dtype", dtype_name(t),
         dtype_name(b->scalar_type()), dtype_name(out->scalar_type()));
    return;
  }
  if (!range_0_255(ctx, 3, "a", amin, amax) || !range_0_255(ctx, 8, "b", bmin, bmax) ||
      !range_0_255(ctx, 12, "out", omin, omax))
    return;
  Side A{}, B{};
  float inv = 0;
  if (!check_dequantize_scale(ctx, {1, "a_scale"}, sa, &A.scale) ||
      !check_zero_point(ctx, {2, "a_zero_point"}, za, amin, amax) ||
      !check_dequantize_scale(ctx, {6, "b_scale"}, sb, &B.scale) ||
      !check_zero_point(ctx, {7, "b_zero_point"}, zb, bmin, bmax) ||
      !check_quantize_scale(ctx, {10, "out_scale"}, so, &inv) ||
      !check_zero_point(ctx, {11, "out_zero_point"}, zo, omin, omax))
    return;
  A.zp = static_cast<int32_t>(za);
  B.zp = static_cast<int32_t>(zb);
  const bool ok = dispatch_int(t, [&](auto tag) {
    using T = decltype(tag);
    const AddOp<T> op{A, B, inv, static_cast<float>(zo), static_cast<float>(omin), static_cast<float>(omax)};
    const int64_t n = a->numel();
    const T* pa = a->const_data_ptr<T>();
    const T* pb = b->const_data_ptr<T>();
    T* po = out->mutable_data_ptr<T>();
    if (same_layout(*a, *b) && same_layout(*a, *out)) {
      parallel(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
        const T* __restrict x = pa;
        const T* __restrict y = pb;
        T* __restrict z = po;
        for (int64_t i = lo; i < hi; ++i) z[i] = op.f(x[i], y[i]);
      });
    } else {
      parallel(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
        Walker wa(*a, lo), wb(*b, lo), wo(*out, lo);
        for (int64_t i = lo; i < hi; ++i, wa.next(), wb.next(), wo.next()) po[wo.off] = op.f(pa[wa.off], pb[wb.off]);
      });
    }
  });
  if (!ok) {
    fail(ctx, Error::InvalidArgument, "argument 0 (a) has dtype %s, expected Byte, Char, Short, Int or Long",
         dtype_name(t));
  }
}

}  // namespace etq
