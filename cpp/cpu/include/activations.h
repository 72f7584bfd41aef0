#pragma once
// Sigmoid-based activations over float arrays, shared by the CPU components (part of executorch_cpu): AVX-512 with
// the reciprocal estimate refined by one Newton step instead of a division (about 4 ulp), AVX2 with a degree-5
// exponential and a division (about 2 ulp), else fast_expf and a division per element.
#include <cstdint>

namespace etk {

// y[i] = clamp(x[i] * sigmoid(x[i]), lo, hi) (SiLU / swish) when times_x, else clamp(sigmoid(x[i]), lo, hi); NaN
// stays NaN. y may alias x.
void sigmoid_activation(const float* x, float* y, int64_t n, float lo, float hi, bool times_x);

}  // namespace etk
