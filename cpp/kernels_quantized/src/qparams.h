#pragma once
// Quantization parameters: reading scale / zero-point tensors and checking their values, with reasons that name
// the argument (and the element, for per-channel parameters).
#include <vector>

#include "qutils.h"

namespace etq {

// Element k (row-major logical order) of a Double / Float tensor, or of a Long / Int tensor.
double read_real(const Tensor& t, int64_t k);
int64_t read_int(const Tensor& t, int64_t k);

// Where a parameter comes from, for messages: argument `index` (`name`), element `elem` (-1: a scalar argument).
struct ParamRef {
  size_t index;
  const char* name;
  int64_t elem = -1;
};

// Quantizing multiplies by 1.0f / float(scale): the scale must be positive and finite, also as a float, with a
// finite float reciprocal. Sets *inv.
bool check_quantize_scale(KernelRuntimeContext& ctx, const ParamRef& p, double scale, float* inv);
// Dequantizing multiplies by float(scale): finite as a float and not negative (0 is allowed). Sets *fs.
bool check_dequantize_scale(KernelRuntimeContext& ctx, const ParamRef& p, double scale, float* fs);
// quant_min <= zero_point <= quant_max (which also keeps it within int32, the type the kernels compute in).
bool check_zero_point(KernelRuntimeContext& ctx, const ParamRef& p, int64_t zp, int64_t qmin, int64_t qmax);
// quant_min <= quant_max, both within the range of the quantized dtype when `dtype_bounds`.
bool check_quant_minmax(KernelRuntimeContext& ctx, size_t qmin_index, int64_t qmin, int64_t qmax, ScalarType dtype,
                        bool dtype_bounds);

// Per-channel parameters: `scales` (and `zero_points`, which may be null: all 0) hold one value per channel.
// `count_what` describes the channel count for messages ("input.size(1)", "the number of tokens").
bool check_param_tensor(KernelRuntimeContext& ctx, size_t index, const char* name, const Tensor& t, int64_t count,
                        const char* count_what, bool real, bool allow_float_or_int);

// The scale (argument 1, a 1-element Double tensor) and zero point (argument 2, a 1-element Long tensor) of the
// per-tensor .Tensor_out forms.
bool per_tensor_params(KernelRuntimeContext& ctx, Args args, double* scale, int64_t* zero_point);
// The channel axis (argument 3) of the per-channel forms, normalized for `in`.
bool channel_axis(KernelRuntimeContext& ctx, Args args, const Tensor& in, int64_t* axis);
// The token count of the per-token forms: every index of all dims of `in` but the last.
bool token_count(KernelRuntimeContext& ctx, const Tensor& in, int64_t* tokens);

}  // namespace etq
