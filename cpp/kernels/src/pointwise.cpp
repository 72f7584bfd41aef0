// Shared helpers of the element-wise kernel files (pointwise.h).
#include "pointwise.h"

#include <cstring>
#include <string>

namespace etk {

bool elementwise_check(KernelRuntimeContext& ctx, const Tensor& out, const Operand* const* ins, int nin) {
  static const char kTaken[] = "element-wise kernels take Float, Double, Long, Int, Short, Char, Byte and Bool";
  for (int k = 0; k < nin; ++k) {
    if (!is_supported_dtype(ins[k]->dtype)) {
      fail(ctx, Error::InvalidType, "argument %d has dtype %s; %s", k, dtype_name(ins[k]->dtype), kTaken);
      return false;
    }
  }
  if (!is_supported_dtype(out.scalar_type())) {
    fail(ctx, Error::InvalidType, "the output has dtype %s; %s", dtype_name(out.scalar_type()), kTaken);
    return false;
  }
  return true;
}

void fail_broadcast(KernelRuntimeContext& ctx, const Operand* const* ins, int nin) {
  std::string shapes;
  for (int k = 0; k < nin; ++k) shapes += (k ? " and " : "") + shape_string(ins[k]->sizes, ins[k]->ndim);
  fail(ctx, Error::InvalidArgument, "the input shapes %s do not broadcast together", shapes.c_str());
}

void harmonize(Operand* a, Operand* b, ScalarType out_t, void* sa, void* sb) {
  if (a->dtype == b->dtype) return;
  auto conv = [](Operand* o, ScalarType to, void* st) {
    double v = load_as<double>(o->data, o->dtype);
    int64_t iv = load_as<int64_t>(o->data, o->dtype);
    Operand n = *o;
    n.data = static_cast<char*>(st);
    n.dtype = to;
    n.esize = static_cast<int64_t>(rt::etensor::elementSize(to));
    std::memset(st, 0, 8);
    if (is_floating(to) || is_floating(o->dtype))
      store_as<double>(n.data, to, v);
    else
      store_as<int64_t>(n.data, to, iv);
    // All strides are irrelevant for a single element.
    for (int d = 0; d < n.ndim; ++d) n.strides[d] = 0;
    *o = n;
  };
  auto dominates = [](ScalarType big, ScalarType small) {
    if (is_floating(big)) return !is_floating(small) || big == ScalarType::Float;
    if (is_integral(big, false)) return is_integral(small, true) && small != ScalarType::Long;
    return false;
  };
  if (b->numel() == 1 && b->ndim == 0 && a->numel() > 0 && dominates(a->dtype, b->dtype) && out_t == a->dtype) {
    conv(b, a->dtype, sb);
  } else if (a->numel() == 1 && a->ndim == 0 && b->numel() > 0 && dominates(b->dtype, a->dtype) && out_t == b->dtype) {
    conv(a, b->dtype, sa);
  }
}

}  // namespace etk
