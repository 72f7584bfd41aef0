// Custom operators written exactly as upstream ExecuTorch 1.5.1 documents them (typed kernels registered with
// EXECUTORCH_LIBRARY, checks with ET_KERNEL_CHECK*, dtype dispatch with ET_SWITCH_*, resize_tensor). The same file
// builds against our SDK and against upstream's wheel (tests/test_upstream_compat.py,
// scripts/check_upstream_compat.py).
//
//   upstream_ops::scale_shift.out(Tensor x, float alpha, Scalar beta, Tensor? bias, *, Tensor(a!) out)
//       out = x * alpha + beta (+ bias, broadcast along the last dimension)
//   upstream_ops::take_rows.out(Tensor x, int[] rows, int offset, bool negate, str mode, ScalarType? dtype, *,
//                               Tensor(a!) out)
//       rows r + offset of the 2-D x ("copy": one output row each; "sum": their sum as one row), negated when
//       `negate`, as `dtype` (float or double; default x's)
#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include <cstdint>
#include <optional>
#include <string_view>

using executorch::aten::ArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::resize_tensor;

namespace upstream_ops {

Tensor& scale_shift_out(KernelRuntimeContext& ctx, const Tensor& x, double alpha, const Scalar& beta,
                        const std::optional<Tensor>& bias, Tensor& out) {
  ET_KERNEL_CHECK(ctx, resize_tensor(out, x.sizes()) == Error::Ok, InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, x.scalar_type() == out.scalar_type(), InvalidArgument, out, "out has dtype %d, x %d",
                      static_cast<int>(out.scalar_type()), static_cast<int>(x.scalar_type()));
  const int64_t cols = x.dim() > 0 ? x.size(x.dim() - 1) : 1;
  if (bias.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, bias->scalar_type() == x.scalar_type() && bias->numel() == cols, InvalidArgument, out,
                        "bias must have %lld elements of x's dtype", static_cast<long long>(cols));
  }
  // Upstream's Scalar::to<T>() requires the Scalar to hold a T.
  const double b = beta.isFloatingPoint() ? beta.to<double>() : static_cast<double>(beta.to<int64_t>());
  ET_SWITCH_FLOAT_TYPES(x.scalar_type(), ctx, "scale_shift.out", CTYPE, [&]() {
    const CTYPE* in = x.const_data_ptr<CTYPE>();
    const CTYPE* add = bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr;
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      o[i] = static_cast<CTYPE>(in[i] * alpha + b) + (add != nullptr ? add[i % cols] : CTYPE(0));
    }
  });
  return out;
}

Tensor& take_rows_out(KernelRuntimeContext& ctx, const Tensor& x, ArrayRef<int64_t> rows, int64_t offset, bool negate,
                      std::string_view mode, std::optional<ScalarType> dtype, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, x.dim() == 2 && x.scalar_type() == ScalarType::Float, InvalidArgument, out,
                      "x must be a 2-D float tensor (rank %d)", static_cast<int>(x.dim()));
  ET_KERNEL_CHECK_MSG(ctx, mode == "copy" || mode == "sum", InvalidArgument, out, "mode must be copy or sum");
  const ScalarType out_type = dtype.value_or(x.scalar_type());
  ET_KERNEL_CHECK(ctx, out.scalar_type() == out_type, InvalidArgument, out);
  const int64_t n = x.size(0), cols = x.size(1);
  for (const int64_t r : rows) {
    ET_KERNEL_CHECK_MSG(ctx, r + offset >= 0 && r + offset < n, InvalidArgument, out, "row %lld is out of range",
                        static_cast<long long>(r + offset));
  }
  const int64_t out_rows = mode == "sum" ? 1 : static_cast<int64_t>(rows.size());
  const int64_t sizes[] = {out_rows, cols};
  ET_KERNEL_CHECK(ctx, resize_tensor(out, ArrayRef<int64_t>(sizes, 2)) == Error::Ok, InvalidArgument, out);
  const float* in = x.const_data_ptr<float>();
  const double sign = negate ? -1.0 : 1.0;
  ET_SWITCH_FLOAT_TYPES(out_type, ctx, "take_rows.out", CTYPE, [&]() {
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < out_rows * cols; ++i) o[i] = CTYPE(0);
    for (size_t k = 0; k < rows.size(); ++k) {
      const float* src = in + (rows[k] + offset) * cols;
      CTYPE* dst = o + (mode == "sum" ? 0 : static_cast<int64_t>(k)) * cols;
      for (int64_t c = 0; c < cols; ++c) dst[c] += static_cast<CTYPE>(sign * src[c]);
    }
  });
  return out;
}

}  // namespace upstream_ops

EXECUTORCH_LIBRARY(upstream_ops, "scale_shift.out", upstream_ops::scale_shift_out);
EXECUTORCH_LIBRARY(upstream_ops, "take_rows.out", upstream_ops::take_rows_out);
