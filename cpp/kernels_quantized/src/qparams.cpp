#include "qparams.h"

#include <string>

namespace etq {

double read_real(const Tensor& t, int64_t k) {
  const int64_t off = logical_offset(t, k);
  if (t.scalar_type() == ScalarType::Double) return t.const_data_ptr<double>()[off];
  return t.const_data_ptr<float>()[off];
}

int64_t read_int(const Tensor& t, int64_t k) {
  const int64_t off = logical_offset(t, k);
  if (t.scalar_type() == ScalarType::Long) return t.const_data_ptr<int64_t>()[off];
  return t.const_data_ptr<int32_t>()[off];
}

namespace {
std::string where(const ParamRef& p) {
  std::string s = "argument " + std::to_string(p.index) + " (" + p.name + ")";
  if (p.elem >= 0) s += " element " + std::to_string(p.elem);
  return s;
}
}  // namespace

bool check_quantize_scale(KernelRuntimeContext& ctx, const ParamRef& p, double scale, float* inv) {
  const float fs = static_cast<float>(scale);
  const float r = 1.0f / fs;
  if (!(scale > 0) || !std::isfinite(fs) || !(fs > 0) || !std::isfinite(r)) {
    fail(ctx, Error::InvalidArgument,
         "%s is %g: quantizing multiplies by 1/scale, so the scale must be positive and finite (as a float too, "
         "with a finite float reciprocal)",
         where(p).c_str(), scale);
    return false;
  }
  *inv = r;
  return true;
}

bool check_dequantize_scale(KernelRuntimeContext& ctx, const ParamRef& p, double scale, float* fs) {
  const float f = static_cast<float>(scale);
  if (!std::isfinite(f) || f < 0) {
    fail(ctx, Error::InvalidArgument, "%s is %g: a scale must be finite (as a float) and not negative",
         where(p).c_str(), scale);
    return false;
  }
  *fs = f;
  return true;
}

bool check_zero_point(KernelRuntimeContext& ctx, const ParamRef& p, int64_t zp, int64_t qmin, int64_t qmax) {
  if (zp < qmin || zp > qmax || zp < std::numeric_limits<int32_t>::min() || zp > std::numeric_limits<int32_t>::max()) {
    fail(ctx, Error::InvalidArgument, "%s is %lld, outside [quant_min, quant_max] = [%lld, %lld]", where(p).c_str(),
         static_cast<long long>(zp), static_cast<long long>(qmin), static_cast<long long>(qmax));
    return false;
  }
  return true;
}

bool check_quant_minmax(KernelRuntimeContext& ctx, size_t qmin_index, int64_t qmin, int64_t qmax, ScalarType dtype,
                        bool dtype_bounds) {
  if (qmin > qmax) {
    fail(ctx, Error::InvalidArgument, "argument %zu (quant_min) %lld is greater than argument %zu (quant_max) %lld",
         qmin_index, static_cast<long long>(qmin), qmin_index + 1, static_cast<long long>(qmax));
    return false;
  }
  if (!dtype_bounds) return true;
  int64_t lo = 0, hi = 0;
  if (!quant_range(dtype, &lo, &hi)) return true;  // the caller rejects the dtype
  if (qmin < lo || qmax > hi) {
    fail(ctx, Error::InvalidArgument,
         "argument %zu (quant_min) %lld / argument %zu (quant_max) %lld exceed the range [%lld, %lld] of dtype %s",
         qmin_index, static_cast<long long>(qmin), qmin_index + 1, static_cast<long long>(qmax),
         static_cast<long long>(lo), static_cast<long long>(hi), dtype_name(dtype));
    return false;
  }
  return true;
}

bool check_param_tensor(KernelRuntimeContext& ctx, size_t index, const char* name, const Tensor& t, int64_t count,
                        const char* count_what, bool real, bool allow_float_or_int) {
  const ScalarType st = t.scalar_type();
  const ScalarType wide = real ? ScalarType::Double : ScalarType::Long;
  const ScalarType narrow = real ? ScalarType::Float : ScalarType::Int;
  if (st != wide && !(allow_float_or_int && st == narrow)) {
    if (allow_float_or_int)
      fail(ctx, Error::InvalidArgument, "argument %zu (%s) has dtype %s, expected %s or %s", index, name,
           dtype_name(st), dtype_name(wide), dtype_name(narrow));
    else
      fail(ctx, Error::InvalidArgument, "argument %zu (%s) has dtype %s, expected %s", index, name, dtype_name(st),
           dtype_name(wide));
    return false;
  }
  if (t.numel() != count) {
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) has %zd elements, but %s is %lld", index, name, t.numel(),
         count_what, static_cast<long long>(count));
    return false;
  }
  return true;
}

bool per_tensor_params(KernelRuntimeContext& ctx, Args args, double* scale, int64_t* zero_point) {
  const Tensor* st = arg_tensor(ctx, args, 1);
  const Tensor* zt = st ? arg_tensor(ctx, args, 2) : nullptr;
  if (zt == nullptr) return false;
  if (!check_param_tensor(ctx, 1, "scale", *st, 1, "a per-tensor scale's count", true, false) ||
      !check_param_tensor(ctx, 2, "zero_point", *zt, 1, "a per-tensor zero point's count", false, false))
    return false;
  *scale = read_real(*st, 0);
  *zero_point = read_int(*zt, 0);
  return true;
}

bool channel_axis(KernelRuntimeContext& ctx, Args args, const Tensor& in, int64_t* axis) {
  if (!arg_int(ctx, args, 3, axis)) return false;
  const int64_t nd = in.dim();
  if (nd == 0 || *axis < -nd || *axis >= nd) {
    fail(ctx, Error::InvalidArgument, "argument 3 (axis) is %lld, outside [-%lld, %lld) for the %lld-d input",
         static_cast<long long>(*axis), static_cast<long long>(nd), static_cast<long long>(nd),
         static_cast<long long>(nd));
    return false;
  }
  if (*axis < 0) *axis += nd;
  return true;
}

bool token_count(KernelRuntimeContext& ctx, const Tensor& in, int64_t* tokens) {
  if (in.dim() == 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) is 0-dimensional; tokens are rows of its last dim");
    return false;
  }
  *tokens = 1;
  for (ssize_t d = 0; d + 1 < in.dim(); ++d) *tokens *= in.size(d);
  return true;
}

}  // namespace etq
