// choose_qparams.Tensor_out and choose_qparams_per_token_asymmetric.out: scale and zero point from the input's
// range, with upstream's arithmetic (kernels/quantized/cpu/op_choose_qparams.cpp, calculate_scale_and_zero_point):
// the range widened to contain 0, scale = (max - min) / (quant_max - quant_min) in double, 0.1 when that is 0
// or its float reciprocal overflows, raised to 6.1e-5 (moving the range with it) when smaller, and the zero point
// taken from the (min, quant_min) or (max, quant_max) pair with the smaller error, clamped, then rounded half to
// even in float. `eps` and `dtype` are not used (as upstream). NaN elements are ignored; an infinite element, or
// no element other than NaN, is an error.
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "qparams.h"

namespace etq {
namespace {

constexpr float kSmallScale = 6.1e-5f;

struct Range {
  float mn = std::numeric_limits<float>::infinity();
  float mx = -std::numeric_limits<float>::infinity();
  void add(const Range& o) {
    mn = o.mn < mn ? o.mn : mn;
    mx = o.mx > mx ? o.mx : mx;
  }
};

// min / max of n floats, NaN ignored; eight independent lanes so that it vectorizes.
Range range_of(const float* __restrict x, int64_t n) {
  constexpr int W = 8;
  float lmn[W], lmx[W];
  for (int j = 0; j < W; ++j) {
    lmn[j] = std::numeric_limits<float>::infinity();
    lmx[j] = -std::numeric_limits<float>::infinity();
  }
  int64_t k = 0;
  for (; k + W <= n; k += W) {
    for (int j = 0; j < W; ++j) {
      const float v = x[k + j];
      lmn[j] = v < lmn[j] ? v : lmn[j];
      lmx[j] = v > lmx[j] ? v : lmx[j];
    }
  }
  Range r;
  for (; k < n; ++k) r.add(Range{x[k], x[k]});
  for (int j = 0; j < W; ++j) r.add(Range{lmn[j], lmx[j]});
  return r;
}

void calculate(float mn, float mx, int32_t qmin, int32_t qmax, double* scale_out, int32_t* zp_out) {
  mn = 0.f < mn ? 0.f : mn;  // std::min(min, 0.f)
  mx = mx < 0.f ? 0.f : mx;  // std::max(max, 0.f)
  const int64_t span = static_cast<int64_t>(qmax) - qmin;
  double scale = (static_cast<double>(mx) - mn) / static_cast<double>(span);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  if (scale < kSmallScale) {
    const float org_scale = static_cast<float>(scale);
    scale = kSmallScale;
    if (mn == 0.0f) {
      mx = kSmallScale * static_cast<float>(span);
    } else if (mx == 0.0f) {
      mn = -kSmallScale * static_cast<float>(span);
    } else {
      const float amplifier = kSmallScale / org_scale;
      mn *= amplifier;
      mx *= amplifier;
    }
  }
  const double from_min = qmin - mn / scale;
  const double from_max = qmax - mx / scale;
  const double from_min_error = static_cast<double>(std::llabs(qmin)) - std::fabs(mn / scale);
  const double from_max_error = static_cast<double>(std::llabs(qmax)) - std::fabs(mx / scale);
  const double initial = from_min_error < from_max_error ? from_min : from_max;
  int32_t zp;
  if (initial < qmin) {
    zp = qmin;
  } else if (initial > qmax) {
    zp = qmax;
  } else {
    const double r = std::nearbyint(static_cast<double>(static_cast<float>(initial)));
    zp = r < qmin ? qmin : r > qmax ? qmax : static_cast<int32_t>(r);
  }
  *scale_out = scale;
  *zp_out = zp;
}

// The range must hold a finite element and no infinite one.
bool check_range(KernelRuntimeContext& ctx, const Range& r, const char* what) {
  if (!(r.mn <= r.mx)) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input)%s has no element other than NaN to choose a range from",
         what);
    return false;
  }
  if (std::isinf(r.mn) || std::isinf(r.mx)) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input)%s holds an infinite value: no finite scale covers it", what);
    return false;
  }
  return true;
}

bool check_outputs(KernelRuntimeContext& ctx, const Tensor& scale_out, size_t si, const Tensor& zp_out, size_t zi) {
  if (scale_out.scalar_type() != ScalarType::Double) {
    fail(ctx, Error::InvalidArgument, "argument %zu (scale_out) has dtype %s, expected Double", si,
         dtype_name(scale_out.scalar_type()));
    return false;
  }
  if (zp_out.scalar_type() != ScalarType::Long) {
    fail(ctx, Error::InvalidArgument, "argument %zu (zero_point_out) has dtype %s, expected Long", zi,
         dtype_name(zp_out.scalar_type()));
    return false;
  }
  return true;
}

}  // namespace

ET_KERNEL_OP("quantized_decomposed::choose_qparams.Tensor_out", choose_qparams_tensor_out,
             "(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype, *, Tensor(a!) scale_out, "
             "Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))")
void choose_qparams_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 7)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  if (in == nullptr) return;
  int64_t qmin, qmax;
  double eps;
  ScalarType dtype;
  if (!arg_int(ctx, args, 1, &qmin) || !arg_int(ctx, args, 2, &qmax) || !arg_double(ctx, args, 3, &eps) ||
      !arg_dtype(ctx, args, 4, &dtype))
    return;
  const Tensor* scale_out = arg_tensor(ctx, args, 5);
  const Tensor* zp_out = scale_out ? arg_tensor(ctx, args, 6) : nullptr;
  if (zp_out == nullptr) return;
  if (!(qmin < qmax) || qmin < std::numeric_limits<int32_t>::min() || qmax > std::numeric_limits<int32_t>::max()) {
    fail(ctx, Error::InvalidArgument,
         "argument 1 (quant_min) %lld must be less than argument 2 (quant_max) %lld, both within int32",
         static_cast<long long>(qmin), static_cast<long long>(qmax));
    return;
  }
  if (in->scalar_type() != ScalarType::Float) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) has dtype %s, expected Float", dtype_name(in->scalar_type()));
    return;
  }
  if (!check_outputs(ctx, *scale_out, 5, *zp_out, 6)) return;
  if (scale_out->numel() != 1 || zp_out->numel() != 1) {
    fail(ctx, Error::InvalidArgument,
         "argument 5 (scale_out) has shape %s and argument 6 (zero_point_out) %s; each must hold one element",
         shape_string(*scale_out).c_str(), shape_string(*zp_out).c_str());
    return;
  }
  // min and max do not depend on the order: reduce the storage (dense: exactly numel elements) directly.
  const float* x = in->const_data_ptr<float>();
  Range r;
  std::mutex mu;
  parallel(in->numel(), 4 * kParallelGrain, [&](int64_t b, int64_t e) {
    const Range part = range_of(x + b, e - b);
    std::lock_guard<std::mutex> lock(mu);
    r.add(part);
  });
  if (!check_range(ctx, r, "")) return;
  double scale;
  int32_t zp;
  calculate(r.mn, r.mx, static_cast<int32_t>(qmin), static_cast<int32_t>(qmax), &scale, &zp);
  scale_out->mutable_data_ptr<double>()[0] = scale;
  zp_out->mutable_data_ptr<int64_t>()[0] = zp;
}

// One (scale, zero point) per token (index of every dim but the last) over [-128, 127]; the outputs have the
// input's shape with the last dim 1.
ET_KERNEL_OP(
    "quantized_decomposed::choose_qparams_per_token_asymmetric.out", choose_qparams_per_token_asymmetric_out,
    "(Tensor input, ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))")
void choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  ScalarType dtype;
  if (in == nullptr || !arg_dtype(ctx, args, 1, &dtype)) return;
  const Tensor* scale_out = arg_tensor(ctx, args, 2);
  const Tensor* zp_out = scale_out ? arg_tensor(ctx, args, 3) : nullptr;
  if (zp_out == nullptr) return;
  if (in->scalar_type() != ScalarType::Float) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) has dtype %s, expected Float", dtype_name(in->scalar_type()));
    return;
  }
  const int nd = static_cast<int>(in->dim());
  if (nd == 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) is 0-dimensional; tokens are rows of its last dim");
    return;
  }
  if (!check_outputs(ctx, *scale_out, 2, *zp_out, 3)) return;
  SizesType sizes[kMaxDim];
  for (int d = 0; d < nd; ++d) sizes[d] = in->size(d);
  sizes[nd - 1] = 1;
  if (!resize_out(ctx, *scale_out, 2, sizes, nd, "scale_out") ||
      !resize_out(ctx, *zp_out, 3, sizes, nd, "zero_point_out"))
    return;
  const int64_t k_len = in->size(nd - 1);
  const int64_t tokens = k_len > 0 ? in->numel() / k_len : scale_out->numel();
  if (tokens == 0) return;
  if (k_len == 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) has shape %s: its tokens are empty",
         shape_string(*in).c_str());
    return;
  }
  const bool contiguous = is_contiguous(*in);
  const float* x = in->const_data_ptr<float>();
  double* so = scale_out->mutable_data_ptr<double>();
  int64_t* zo = zp_out->mutable_data_ptr<int64_t>();
  const bool outs_contiguous = is_contiguous(*scale_out) && is_contiguous(*zp_out);
  // Tokens with a bad range: the first one is reported (after the parallel loop).
  std::mutex mu;
  int64_t bad_token = -1;
  Range bad_range;
  parallel(tokens, std::max<int64_t>(1, kParallelGrain / k_len), [&](int64_t b, int64_t e) {
    std::vector<float> row;
    if (!contiguous) row.resize(static_cast<size_t>(k_len));
    Walker w(*in, contiguous ? 0 : b * k_len);
    for (int64_t t = b; t < e; ++t) {
      const float* tx = x + t * k_len;
      if (!contiguous) {
        for (int64_t k = 0; k < k_len; ++k, w.next()) row[k] = x[w.off];
        tx = row.data();
      }
      const Range r = range_of(tx, k_len);
      if (!(r.mn <= r.mx) || std::isinf(r.mn) || std::isinf(r.mx)) {
        std::lock_guard<std::mutex> lock(mu);
        if (bad_token < 0 || t < bad_token) bad_token = t, bad_range = r;
        continue;
      }
      double scale;
      int32_t zp;
      calculate(r.mn, r.mx, -128, 127, &scale, &zp);
      const int64_t so_off = outs_contiguous ? t : logical_offset(*scale_out, t);
      const int64_t zo_off = outs_contiguous ? t : logical_offset(*zp_out, t);
      so[so_off] = scale;
      zo[zo_off] = zp;
    }
  });
  if (bad_token >= 0) {
    const std::string what = " token " + std::to_string(bad_token);
    check_range(ctx, bad_range, what.c_str());
  }
}

}  // namespace etq
