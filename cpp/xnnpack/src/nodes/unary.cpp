// Elementwise nodes of one input: clamp, activations (sigmoid, tanh, hardswish, GELU, ELU, leaky ReLU), math
// functions, and softmax over the last dim.
#include <algorithm>
#include <cmath>

#include "activations.h"
#include "common.h"
#include "fast_math.h"

namespace etxnn {
namespace {

template <typename F>
Error unary_node(Graph& g, const Node& n, const Shape& so, float* y, F f, int64_t cost = kElementwiseCost) {
  const int64_t total = numel_of(so);
  if (!n.lut.empty()) {
    apply_lut(n, g.ptrs[n.in[0]], y, total);
    return Error::Ok;
  }
  if (n.quant_inv != 0.f) {  // the Convert after it folded in: the range, then the quantization, in one pass
    const bool range = n.has_min_max;
    const float lo = n.out_min, hi = n.out_max, inv = n.quant_inv, qlo = n.qlo, qhi = n.qhi;
    unary_par(
        g.ptrs[n.in[0]], y, total,
        [=](float v) { return quantize_like_convert(range ? clampf(f(v), lo, hi) : f(v), inv, qlo, qhi); }, cost);
    return Error::Ok;
  }
  unary_par(g.ptrs[n.in[0]], y, total, f, cost);
  return apply_output_range(n, y, total);
}

// The range is the operation itself: no second pass.
Error run_clamp(Graph& g, Node& n, const Shape& so, float* y) {
  const float lo = n.out_min, hi = n.out_max;
  unary_par(g.ptrs[n.in[0]], y, numel_of(so), [&](float v) { return std::isnan(v) ? v : clampf(v, lo, hi); });
  return Error::Ok;
}

Error run_sigmoid(Graph& g, Node& n, const Shape& so, float* y) {
  const float* x = g.ptrs[n.in[0]];
  parallel_rows(numel_of(so), kTranscendentalCost, [&](int64_t b, int64_t e) {
    etk::sigmoid_activation(x + b, y + b, e - b, n.out_min, n.out_max, /*times_x=*/false);
  });
  return Error::Ok;
}

Error run_tanh(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::tanh(v); });
}

Error run_exp(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::exp(v); });
}

Error run_log(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::log(v); });
}

Error run_abs(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::fabs(v); });
}

Error run_negate(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return -v; });
}

Error run_floor(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::floor(v); });
}

Error run_ceiling(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::ceil(v); });
}

Error run_square(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return v * v; });
}

Error run_sqrt(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::sqrt(v); });
}

Error run_rsqrt(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return 1.f / std::sqrt(v); });
}

Error run_sin(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::sin(v); });
}

Error run_cos(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return std::cos(v); });
}

Error run_hardswish(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(g, n, so, y, [](float v) { return hardswish(v); });
}

Error run_gelu(Graph& g, Node& n, const Shape& so, float* y) {
  return unary_node(
      g, n, so, y, [](float v) { return 0.5f * v * (1.f + etk::fast_erff(v * 0.70710678118654752f)); },
      kTranscendentalCost);
}

// ELU (alpha) and LeakyReLU (negative_slope): a one-input table with one float parameter, read into n.alpha.
template <typename T, const T* (schema::Node::*As)() const, float (T::*Param)() const>
Error read_alpha(const NodeReader& r, const schema::Node& xn, Node& n) {
  const T* p = (xn.*As)();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.alpha = (p->*Param)();
  return r.io(n, {p->input_id()}, p->output_id());
}

Error run_elu(Graph& g, Node& n, const Shape& so, float* y) {
  const float al = n.alpha;
  return unary_node(g, n, so, y, [al](float v) { return v > 0.f ? v : al * std::expm1(v); });
}

Error run_leaky_relu(Graph& g, Node& n, const Shape& so, float* y) {
  const float s = n.alpha;
  return unary_node(g, n, so, y, [s](float v) { return v >= 0.f ? v : v * s; });
}

Error infer_softmax(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (a.empty() || a.back() == 0) return node_fail(n, "needs a non-empty last dim", a);
  *out = a;
  return Error::Ok;
}

// Softmax over rows of c floats: the max, exp(x - max) (fast_expf, so the loop vectorizes), their sum and the
// scaling, the max and the sum in 16 partial lanes (vector lanes: no reassociation needed). NaN rows give NaN.
template <typename F>
inline __attribute__((always_inline)) void softmax_rows_impl(const float* a, float* y, int64_t rows, int64_t c, F) {
  constexpr int64_t kLanes = 16;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = a + r * c;
    float* o = y + r * c;
    float lane[kLanes];
    for (int64_t k = 0; k < kLanes; ++k) lane[k] = -INFINITY;
    int64_t j = 0;
    for (; j + kLanes <= c; j += kLanes)
      for (int64_t k = 0; k < kLanes; ++k) lane[k] = x[j + k] > lane[k] ? x[j + k] : lane[k];
    float mx = -INFINITY;
    for (; j < c; ++j) mx = x[j] > mx ? x[j] : mx;
    for (int64_t k = 0; k < kLanes; ++k) mx = lane[k] > mx ? lane[k] : mx;
    for (j = 0; j < c; ++j) o[j] = etk::fast_expf(x[j] - mx);
    for (int64_t k = 0; k < kLanes; ++k) lane[k] = 0.f;
    for (j = 0; j + kLanes <= c; j += kLanes)
      for (int64_t k = 0; k < kLanes; ++k) lane[k] += o[j + k];
    float sum = 0.f;
    for (; j < c; ++j) sum += o[j];
    for (int64_t k = 0; k < kLanes; ++k) sum += lane[k];
    const float inv = 1.f / sum;
    for (j = 0; j < c; ++j) o[j] *= inv;
  }
}
ETK_ISA_DISPATCH(softmax_rows, (const float* a, float* y, int64_t rows, int64_t c, F f), (a, y, rows, c, f))

Error run_softmax(Graph& g, Node& n, const Shape& so, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  const float* a = g.ptrs[n.in[0]];
  const int64_t total = numel_of(so);
  const int64_t c = sa.back(), rows = total / c;
  parallel_rows(rows, c * kTranscendentalCost,
                [&](int64_t r0, int64_t r1) { softmax_rows(a + r0 * c, y + r0 * c, r1 - r0, c, 0); });
  return apply_output_range(n, y, total);
}

// kind, reader, shape rule, fp32 kernel, prepare, traits (node_table.h)
constexpr NodeKindDef kKinds[] = {
    {NodeKind::Clamp, read_node1x1, same_shape, run_clamp, nullptr,
     kElementwise | kMovesValues | kRangeIsOp | kOnePass},
    {NodeKind::Sigmoid, read_node1x1, same_shape, run_sigmoid, nullptr, kElementwise},
    {NodeKind::Tanh, read_node1x1, same_shape, run_tanh, nullptr, kElementwise},
    {NodeKind::Exp, read_node1x1, same_shape, run_exp, nullptr, kElementwise},
    {NodeKind::Log, read_node1x1, same_shape, run_log, nullptr, kElementwise},
    {NodeKind::Abs, read_node1x1, same_shape, run_abs, nullptr, kElementwise},
    {NodeKind::Negate, read_node1x1, same_shape, run_negate, nullptr, kElementwise},
    {NodeKind::Floor, read_node1x1, same_shape, run_floor, nullptr, kElementwise},
    {NodeKind::Ceiling, read_node1x1, same_shape, run_ceiling, nullptr, kElementwise},
    {NodeKind::Square, read_node1x1, same_shape, run_square, nullptr, kElementwise},
    {NodeKind::SquareRoot, read_node1x1, same_shape, run_sqrt, nullptr, kElementwise},
    {NodeKind::ReciprocalSquareRoot, read_node1x1, same_shape, run_rsqrt, nullptr, kElementwise},
    {NodeKind::Sin, read_node1x1, same_shape, run_sin, nullptr, kElementwise},
    {NodeKind::Cos, read_node1x1, same_shape, run_cos, nullptr, kElementwise},
    {NodeKind::Hardswish, read_node1x1, same_shape, run_hardswish, nullptr, kElementwise | kFoldsConvertAfter},
    {NodeKind::Gelu, read_node1x1, same_shape, run_gelu, nullptr, kElementwise},
    {NodeKind::ELU, read_alpha<schema::EluNode, &schema::Node::node_as_ELU, &schema::EluNode::alpha>, same_shape,
     run_elu, nullptr, kElementwise},
    {NodeKind::LeakyReLU,
     read_alpha<schema::LeakyReluNode, &schema::Node::node_as_LeakyReLU, &schema::LeakyReluNode::negative_slope>,
     same_shape, run_leaky_relu, nullptr, kElementwise},
    {NodeKind::Softmax, read_node1x1, infer_softmax, run_softmax, nullptr},
};

}  // namespace

NodeKindList unary_node_kinds() { return {kKinds, std::size(kKinds)}; }

void hardswish_post(float* y, const float*, int64_t n, float lo, float hi) {
  unary(y, y, n, [=](float v) { return clampf(hardswish(v), lo, hi); });
}

}  // namespace etxnn
