// Phase-1 execution: shape inference per call (from the actual input shapes) and the delegate's own fp32 kernels
// in XNNPACK's semantics (NHWC activations, OHWI convolution filters, [out, in] fully-connected filters,
// output_min/output_max clamping). Heavy nodes (fully connected, convolutions, batch matmul) are split over rows
// on the process-wide thread pool.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <cstdlib>

#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include "fast_math.h"
#include "isa.h"
#include "graph.h"

namespace etxnn {

namespace {

using executorch::extension::parallel_for;
constexpr int64_t kMaxNumel = int64_t{1} << 34;

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  char buf[32];
  for (size_t i = 0; i < s.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s%" PRId64, i ? ", " : "", s[i]);
    r += buf;
  }
  return r + "]";
}

#define NODE_FAIL(n, ...) node_fail(n, __VA_ARGS__)

Error node_fail(const Node& n, const char* what) {
  return fail(Error::InvalidArgument, "node %u (%s): %s", n.index, node_name(n.kind), what);
}
Error node_fail(const Node& n, const char* what, const Shape& a) {
  return fail(Error::InvalidArgument, "node %u (%s): %s %s", n.index, node_name(n.kind), what, shape_str(a).c_str());
}
Error node_fail(const Node& n, const char* what, const Shape& a, const Shape& b) {
  return fail(Error::InvalidArgument, "node %u (%s): %s %s and %s", n.index, node_name(n.kind), what,
              shape_str(a).c_str(), shape_str(b).c_str());
}

// Runs f(begin, end) over [0, n) on the pool when the work is big enough.
template <typename F>
void parallel_rows(int64_t n, int64_t work_per_row, F&& f) {
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work_per_row));
  if (n <= grain) {
    f(int64_t{0}, n);
    return;
  }
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) { f(b, e); });
}

inline float clampf(float x, float lo, float hi) { return std::min(std::max(x, lo), hi); }

// ---------------------------------------------------------------- shape inference

struct ConvGeom {
  int64_t n, ih, iw, ic, oh, ow, oc;
};

Error conv_out(const Node& n, int64_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t s, uint32_t d,
               int64_t* out) {
  const int64_t eff = (static_cast<int64_t>(k) - 1) * d + 1;
  const int64_t padded = in + pad0 + pad1;
  if (padded < eff) return node_fail(n, "kernel larger than the padded input");
  *out = (padded - eff) / s + 1;
  return Error::Ok;
}

Error infer(Graph& g, const Node& n, Shape* out) {
  auto S = [&](int k) -> const Shape& { return g.shapes[n.in[k]]; };
  const Shape& a = S(0);
  switch (n.kind) {
    case NodeKind::Add: case NodeKind::Subtract: case NodeKind::Multiply: case NodeKind::Div:
    case NodeKind::Minimum: case NodeKind::Maximum: case NodeKind::PReLU: {
      const Shape& b = S(1);
      const size_t r = std::max(a.size(), b.size());
      out->assign(r, 1);
      for (size_t i = 0; i < r; ++i) {
        const int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
        const int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (x != y && x != 1 && y != 1) return NODE_FAIL(n, "shapes do not broadcast:", a, b);
        (*out)[i] = (x == 1) ? y : x;
      }
      return Error::Ok;
    }
    case NodeKind::Softmax: case NodeKind::Sigmoid: case NodeKind::Clamp: case NodeKind::Floor:
    case NodeKind::Convert: case NodeKind::SquareRoot: case NodeKind::Ceiling: case NodeKind::Hardswish:
    case NodeKind::Negate: case NodeKind::Square: case NodeKind::Abs: case NodeKind::ReciprocalSquareRoot:
    case NodeKind::Log: case NodeKind::Gelu: case NodeKind::Tanh: case NodeKind::Exp: case NodeKind::Sin:
    case NodeKind::Copy: case NodeKind::Cos: case NodeKind::ELU: case NodeKind::LeakyReLU:
      if (n.kind == NodeKind::Softmax && (a.empty() || a.back() == 0)) return NODE_FAIL(n, "needs a non-empty last dim", a);
      *out = a;
      return Error::Ok;
    case NodeKind::FullyConnected: {
      const Shape& w = S(1);
      if (a.empty() || w.size() != 2) return NODE_FAIL(n, "needs input rank >= 1 and a 2-D filter, got", a, w);
      const bool tr = (n.flags & kFlagTransposeWeights) != 0;
      const int64_t k = tr ? w[0] : w[1], oc = tr ? w[1] : w[0];
      if (a.back() != k) return NODE_FAIL(n, "input and filter disagree:", a, w);
      if (n.bias >= 0 && numel_of(g.shapes[n.bias]) != oc) return NODE_FAIL(n, "bias size differs from the output channels:", g.shapes[n.bias], w);
      *out = a;
      out->back() = oc;
      return Error::Ok;
    }
    case NodeKind::Conv2d: case NodeKind::DepthwiseConv2d: case NodeKind::ConvTranspose2d: {
      const Shape& w = S(1);
      if (a.size() != 4 || w.size() != 4) return NODE_FAIL(n, "needs a 4-D NHWC input and a 4-D filter, got", a, w);
      if (n.kh == 0 || n.kw == 0 || n.sh == 0 || n.sw == 0 || n.dh == 0 || n.dw == 0 || n.groups == 0 || n.gic == 0 || n.goc == 0)
        return NODE_FAIL(n, "zero kernel size, stride, dilation, groups or channels");
      if (n.flags & kFlagSamePadding) return NODE_FAIL(n, "TensorFlow SAME padding is not supported");
      int64_t ic, oc;
      if (n.kind == NodeKind::DepthwiseConv2d) {
        if (n.goc % n.gic != 0) return NODE_FAIL(n, "output channels are not a multiple of input channels");
        ic = n.groups;
        oc = int64_t{n.groups} * (n.goc / n.gic);
        if (w[0] != 1 || w[1] != n.kh || w[2] != n.kw || w[3] != oc) return NODE_FAIL(n, "depthwise filter shape does not match the parameters:", w);
      } else {
        ic = int64_t{n.groups} * n.gic;
        oc = int64_t{n.groups} * n.goc;
        if (w[0] != oc || w[1] != n.kh || w[2] != n.kw || w[3] != n.gic) return NODE_FAIL(n, "filter shape does not match the parameters:", w);
      }
      if (a[3] != ic) return NODE_FAIL(n, "input channels differ from the parameters:", a, w);
      if (n.bias >= 0 && numel_of(g.shapes[n.bias]) != oc) return NODE_FAIL(n, "bias size differs from the output channels:", g.shapes[n.bias]);
      int64_t oh = 0, ow = 0;
      if (n.kind == NodeKind::ConvTranspose2d) {
        if (n.adj_h >= n.sh || n.adj_w >= n.sw) return NODE_FAIL(n, "adjustment not below the stride");
        oh = int64_t{n.sh} * (a[1] - 1) + n.adj_h + (int64_t{n.kh} - 1) * n.dh + 1 - n.pad_t - n.pad_b;
        ow = int64_t{n.sw} * (a[2] - 1) + n.adj_w + (int64_t{n.kw} - 1) * n.dw + 1 - n.pad_l - n.pad_r;
        if (a[1] < 1 || a[2] < 1 || oh < 1 || ow < 1) return NODE_FAIL(n, "padding larger than the output");
      } else {
        Error e = conv_out(n, a[1], n.pad_t, n.pad_b, n.kh, n.sh, n.dh, &oh);
        if (e != Error::Ok) return e;
        e = conv_out(n, a[2], n.pad_l, n.pad_r, n.kw, n.sw, n.dw, &ow);
        if (e != Error::Ok) return e;
      }
      *out = {a[0], oh, ow, oc};
      return Error::Ok;
    }
    case NodeKind::AvgPooling2d: case NodeKind::MaxPooling2d: {
      if (a.size() != 4) return NODE_FAIL(n, "needs a 4-D NHWC input, got", a);
      if (n.kh == 0 || n.kw == 0 || n.sh == 0 || n.sw == 0) return NODE_FAIL(n, "zero pooling size or stride");
      if (n.flags & kFlagSamePadding) return NODE_FAIL(n, "TensorFlow SAME padding is not supported");
      const uint32_t dh = n.kind == NodeKind::MaxPooling2d ? std::max(n.dh, 1u) : 1u;
      const uint32_t dw = n.kind == NodeKind::MaxPooling2d ? std::max(n.dw, 1u) : 1u;
      int64_t oh = 0, ow = 0;
      Error e = conv_out(n, a[1], n.pad_t, n.pad_b, n.kh, n.sh, dh, &oh);
      if (e != Error::Ok) return e;
      e = conv_out(n, a[2], n.pad_l, n.pad_r, n.kw, n.sw, dw, &ow);
      if (e != Error::Ok) return e;
      *out = {a[0], oh, ow, a[3]};
      return Error::Ok;
    }
    case NodeKind::GlobalAvgPooling2d: {
      if (a.size() < 3 || a.size() > 4) return NODE_FAIL(n, "needs a 3-D or 4-D input, got", a);
      if (n.flags & kFlagKeepDims) {
        *out = a;
        for (size_t i = 1; i + 1 < a.size(); ++i) (*out)[i] = 1;
      } else {
        *out = {a[0], a.back()};
      }
      return Error::Ok;
    }
    case NodeKind::StaticTranspose: {
      if (n.v1.size() != a.size()) return NODE_FAIL(n, "permutation rank differs from the input:", a);
      std::vector<uint8_t> seen(a.size(), 0);
      out->resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        if (n.v1[i] >= a.size() || seen[n.v1[i]]) return NODE_FAIL(n, "invalid permutation");
        seen[n.v1[i]] = 1;
        (*out)[i] = a[n.v1[i]];
      }
      return Error::Ok;
    }
    case NodeKind::StaticReshape: {
      const int64_t total = numel_of(a);
      out->assign(n.v1.begin(), n.v1.end());
      int zeros = 0, at = -1;
      int64_t prod = 1;
      for (size_t i = 0; i < out->size(); ++i) {
        if ((*out)[i] == 0) {
          ++zeros;
          at = static_cast<int>(i);
        } else {
          prod *= (*out)[i];
          if (prod > kMaxNumel) return NODE_FAIL(n, "new shape too large");
        }
      }
      if (zeros == 1 && prod > 0 && total % prod == 0) (*out)[at] = total / prod;
      if (numel_of(*out) != total) return NODE_FAIL(n, "new shape does not hold the input's elements:", a, *out);
      return Error::Ok;
    }
    case NodeKind::StaticSlice: {
      if (n.v1.size() != a.size()) return NODE_FAIL(n, "slice rank differs from the input:", a);
      out->resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        const int64_t off = n.v1[i];
        const int64_t sz = n.v2[i] == 0 ? a[i] - off : int64_t{n.v2[i]};
        if (off > a[i] || sz < 0 || off + sz > a[i]) return NODE_FAIL(n, "slice out of range for input", a);
        (*out)[i] = sz;
      }
      return Error::Ok;
    }
    case NodeKind::StaticConstantPad: {
      if (n.v1.size() != a.size()) return NODE_FAIL(n, "padding rank differs from the input:", a);
      out->resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        (*out)[i] = a[i] + n.v1[i] + n.v2[i];
        if ((*out)[i] > 0x7FFFFFFF) return NODE_FAIL(n, "padded size too large");
      }
      return Error::Ok;
    }
    case NodeKind::StaticResizeBilinear2D:
      if (a.size() != 4 || n.new_h == 0 || n.new_w == 0 || n.new_h > 0x7FFFFFFF || n.new_w > 0x7FFFFFFF)
        return NODE_FAIL(n, "needs a 4-D NHWC input and a non-zero size, got", a);
      if (a[1] == 0 || a[2] == 0) return NODE_FAIL(n, "empty input", a);
      *out = {a[0], n.new_h, n.new_w, a[3]};
      return Error::Ok;
    case NodeKind::Concatenate2: case NodeKind::Concatenate3: case NodeKind::Concatenate4:
    case NodeKind::Concatenate5: {
      if (n.axis >= a.size()) return NODE_FAIL(n, "axis out of range for", a);
      *out = a;
      for (int k = 1; k < n.nin; ++k) {
        const Shape& b = S(k);
        if (b.size() != a.size()) return NODE_FAIL(n, "inputs differ in rank:", a, b);
        for (size_t i = 0; i < a.size(); ++i) {
          if (i != n.axis && b[i] != a[i]) return NODE_FAIL(n, "inputs differ outside the axis:", a, b);
        }
        (*out)[n.axis] += b[n.axis];
      }
      return Error::Ok;
    }
    case NodeKind::BatchMatrixMultiply: {
      const Shape& b = S(1);
      if (a.size() < 2 || b.size() < 2) return NODE_FAIL(n, "needs inputs of rank >= 2:", a, b);
      const bool tr = (n.flags & kFlagTransposeWeights) != 0;
      const int64_t m = a[a.size() - 2], k = a.back();
      const int64_t kb = tr ? b.back() : b[b.size() - 2], nn = tr ? b[b.size() - 2] : b.back();
      if (k != kb) return NODE_FAIL(n, "inner dimensions differ:", a, b);
      const size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
      out->assign(r + 2, 1);
      for (size_t i = 0; i < r; ++i) {
        const int64_t x = i < r - ra ? 1 : a[i - (r - ra)];
        const int64_t y = i < r - rb ? 1 : b[i - (r - rb)];
        if (x != y && x != 1 && y != 1) return NODE_FAIL(n, "batch dims do not broadcast:", a, b);
        (*out)[i] = x == 1 ? y : x;
      }
      (*out)[r] = m;
      (*out)[r + 1] = nn;
      return Error::Ok;
    }
    default:
      return fail(Error::NotSupported, "node %u (%s) is not supported", n.index, node_name(n.kind));
  }
}

// ---------------------------------------------------------------- kernels

// Elementwise loops are compiled once per ISA level (ETK_ISA_DISPATCH, cpp/cpu/include/isa.h) and picked at run
// time like the GEMM's micro-kernels; the lambdas inline into each.
template <typename F>
inline __attribute__((always_inline)) void unary_impl(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}
ETK_ISA_DISPATCH(unary, (const float* x, float* y, int64_t n, F f), (x, y, n, f))

// A broadcasting binary operation as loops: neighbouring dims whose strides nest in both inputs are merged (e.g.
// [1,16,16,32] * [1,1,1,32] becomes [256, 32] with b's row stride 0), so the row bookkeeping runs once per long
// row. m == 0: a single element; m == 1: one row (split over the pool by elements); m > 1: rows of `inner`.
struct BinaryPlan {
  int m = 0;
  int64_t ds[kMaxRank + 2], sa[kMaxRank + 2], sb[kMaxRank + 2];
  int64_t inner = 1, rows = 1;
};

BinaryPlan plan_binary(const Shape& sa, const Shape& sb, const Shape& so) {
  BinaryPlan p;
  const size_t r = so.size();
  // Broadcast strides (0 where the input has size 1), right-aligned.
  int64_t st_a[kMaxRank + 2] = {0}, st_b[kMaxRank + 2] = {0};
  int64_t acc_a = 1, acc_b = 1;
  for (size_t i = r; i-- > 0;) {
    const size_t ia = i + sa.size(), ib = i + sb.size();
    const int64_t da = ia >= r ? sa[ia - r] : 1, db = ib >= r ? sb[ib - r] : 1;
    st_a[i] = da == 1 ? 0 : acc_a;
    st_b[i] = db == 1 ? 0 : acc_b;
    acc_a *= da;
    acc_b *= db;
  }
  for (size_t d = 0; d < r; ++d) {
    if (so[d] == 1) continue;
    if (p.m > 0 && p.sa[p.m - 1] == st_a[d] * so[d] && p.sb[p.m - 1] == st_b[d] * so[d]) {
      p.ds[p.m - 1] *= so[d];
      p.sa[p.m - 1] = st_a[d];
      p.sb[p.m - 1] = st_b[d];
    } else {
      p.ds[p.m] = so[d];
      p.sa[p.m] = st_a[d];
      p.sb[p.m] = st_b[d];
      ++p.m;
    }
  }
  if (p.m > 0) {
    p.inner = p.ds[p.m - 1];
    for (int d = 0; d + 1 < p.m; ++d) p.rows *= p.ds[d];
  }
  return p;
}

// Rows [r0, r1) of the plan, and within each row the elements [j0, j1).
template <typename F>
inline __attribute__((always_inline)) void binary_rows_impl(const BinaryPlan& p, const float* a, const float* b, float* y,
                                                       F f, int64_t r0, int64_t r1, int64_t j0, int64_t j1) {
  const int m = p.m;
  const int64_t inner = p.inner, ia = p.sa[m - 1], ib = p.sb[m - 1];
  int64_t idx[kMaxRank + 2] = {0};
  for (int64_t d = m - 1, rest = r0; d-- > 0;) {
    idx[d] = rest % p.ds[d];
    rest /= p.ds[d];
  }
  for (int64_t row = r0; row < r1; ++row) {
    int64_t oa = 0, ob = 0;
    for (int d = 0; d + 1 < m; ++d) {
      oa += idx[d] * p.sa[d];
      ob += idx[d] * p.sb[d];
    }
    const float* pa = a + oa;
    const float* pb = b + ob;
    float* py = y + row * inner;
    if (ia == 1 && ib == 1) {
      for (int64_t j = j0; j < j1; ++j) py[j] = f(pa[j], pb[j]);
    } else if (ia == 1 && ib == 0) {
      const float q = pb[0];
      for (int64_t j = j0; j < j1; ++j) py[j] = f(pa[j], q);
    } else if (ia == 0 && ib == 1) {
      const float q = pa[0];
      for (int64_t j = j0; j < j1; ++j) py[j] = f(q, pb[j]);
    } else {
      for (int64_t j = j0; j < j1; ++j) py[j] = f(pa[j * ia], pb[j * ib]);
    }
    for (int d = m - 1; d-- > 0;) {
      if (++idx[d] < p.ds[d]) break;
      idx[d] = 0;
    }
  }
}
ETK_ISA_DISPATCH(binary_rows, (const BinaryPlan& p, const float* a, const float* b, float* y, F f, int64_t r0,
                                 int64_t r1, int64_t j0, int64_t j1),
                   (p, a, b, y, f, r0, r1, j0, j1))

// Elementwise work is split over the pool above about 16 K elements (4 K for transcendental functions: `cost`).
constexpr int64_t kElementwiseCost = 4;
constexpr int64_t kTranscendentalCost = 16;

template <typename F>
void unary_par(const float* x, float* y, int64_t n, F f, int64_t cost = kElementwiseCost) {
  parallel_rows(n, cost, [&](int64_t b, int64_t e) { unary(x + b, y + b, e - b, f); });
}

template <typename F>
void binary(const Shape& sa, const float* a, const Shape& sb, const float* b, const Shape& so, float* y, F f,
            int64_t cost = kElementwiseCost) {
  if (numel_of(so) == 0) return;
  const BinaryPlan p = plan_binary(sa, sb, so);
  if (p.m == 0) {
    y[0] = f(a[0], b[0]);
  } else if (p.m == 1) {
    parallel_rows(p.inner, cost, [&](int64_t j0, int64_t j1) { binary_rows(p, a, b, y, f, 0, 1, j0, j1); });
  } else {
    parallel_rows(p.rows, p.inner * cost, [&](int64_t r0, int64_t r1) { binary_rows(p, a, b, y, f, r0, r1, 0, p.inner); });
  }
}

// Mean over the pixels of each image, per channel (NHWC), clamped. (F is unused: ETK_ISA_DISPATCH wants one.)
template <typename F>
inline __attribute__((always_inline)) void global_avg_impl(const float* a, float* y, int64_t N, int64_t inner,
                                                           int64_t C, float lo, float hi, F) {
  for (int64_t b = 0; b < N; ++b) {
    float* o = y + b * C;
    for (int64_t c = 0; c < C; ++c) o[c] = 0.f;
    for (int64_t p = 0; p < inner; ++p) {
      const float* x = a + (b * inner + p) * C;
      for (int64_t c = 0; c < C; ++c) o[c] += x[c];
    }
    const float s = inner > 0 ? 1.f / static_cast<float>(inner) : 0.f;
    for (int64_t c = 0; c < C; ++c) o[c] = clampf(o[c] * s, lo, hi);
  }
}
ETK_ISA_DISPATCH(global_avg, (const float* a, float* y, int64_t N, int64_t inner, int64_t C, float lo, float hi, F f),
                   (a, y, N, inner, C, lo, hi, f))

// ---- fully connected and convolutions on the shared GEMM (cpp/kernels/gemm)

// Zeros that padding taps point at (segments of up to kZeroLen floats; wider groups use the im2col rows).
constexpr int64_t kZeroLen = 4096;
alignas(64) const float kZeros[kZeroLen] = {};

bool is_pointwise(const Node& n) {
  return n.kh == 1 && n.kw == 1 && n.sh == 1 && n.sw == 1 && n.pad_t == 0 && n.pad_l == 0 && n.pad_b == 0 &&
         n.pad_r == 0;
}

// Few input channels (e.g. an RGB stem): the input is padded once and each filter row is one segment.
bool uses_padded_rows(const Node& n) {
  return n.groups == 1 && !is_pointwise(n) && n.gic < 8 && n.dw == 1 && int64_t{n.kw} * n.gic <= kZeroLen;
}

// Rows copied into contiguous im2col rows (one segment of K) instead of a tap table: groups wider than the zero row.
bool uses_im2col(const Node& n) { return !is_pointwise(n) && !uses_padded_rows(n) && n.gic > kZeroLen; }

// The row segment length conv2d runs a Conv2d node's GEMM with (the packing depends on it).
int64_t conv_segment_length(const Node& n) {
  const int64_t K = int64_t{n.kh} * n.kw * n.gic;
  if (is_pointwise(n) || uses_im2col(n)) return K;
  if (uses_padded_rows(n)) return int64_t{n.kw} * n.gic;
  return n.gic;
}

// Packs the weights (and bias) of a FullyConnected, Conv2d or ConvTranspose2d node: one PackedB per group.
//   FullyConnected: B = W^T ([in, out]); Conv2d: B_g[(ky, kx, ic)][oc] from the OHWI filter;
//   ConvTranspose2d: B_g[ic][(ky, kx, oc)] (its bias is added after the scatter, not here).
void pack_node(const Node& n, const Shape& ws, const float* w, const float* bias, std::vector<etk::PackedB>* out) {
  if (n.kind == NodeKind::FullyConnected) {
    out->resize(1);
    if (n.flags & kFlagTransposeWeights) {
      etk::pack_b(ws[0], ws[1], w, ws[1], 1, bias, &(*out)[0]);
    } else {
      etk::pack_b(ws[1], ws[0], w, 1, ws[1], bias, &(*out)[0]);
    }
    return;
  }
  const int64_t G = n.groups, gic = n.gic, goc = n.goc, T = int64_t{n.kh} * n.kw;
  out->resize(static_cast<size_t>(G));
  if (n.kind == NodeKind::Conv2d) {
    const int64_t K = T * gic, seg = conv_segment_length(n);
    for (int64_t g = 0; g < G; ++g)
      etk::pack_b(K, goc, w + g * goc * K, 1, K, bias ? bias + g * goc : nullptr, &(*out)[static_cast<size_t>(g)],
                  seg);
    return;
  }
  std::vector<float> dense(static_cast<size_t>(gic * T * goc));
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t o = 0; o < goc; ++o)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < gic; ++i) dense[(i * T + t) * goc + o] = w[((g * goc + o) * T + t) * gic + i];
    etk::pack_b(gic, T * goc, dense.data(), T * goc, 1, nullptr, &(*out)[static_cast<size_t>(g)]);
  }
}

// The node's packed weights: packed at init when filter and bias are constants, else now (into `tmp`).
const std::vector<etk::PackedB>& weights_of(const Graph& g, const Node& n, std::vector<etk::PackedB>* tmp) {
  if (!n.packed.empty()) return n.packed;
  pack_node(n, g.shapes[n.filter], g.ptrs[n.filter], n.bias >= 0 ? g.ptrs[n.bias] : nullptr, tmp);
  return *tmp;
}

bool packs_at_init(const Graph& g, const Node& n) {
  if (n.kind != NodeKind::FullyConnected && n.kind != NodeKind::Conv2d && n.kind != NodeKind::ConvTranspose2d)
    return false;
  return g.values[n.filter].data != nullptr && (n.bias < 0 || g.values[n.bias].data != nullptr);
}

// Rows of the implicit im2col matrix of a convolution: row m = output pixel, segment t = filter tap (ky, kx),
// pointing at the tap's gic input channels of group g (or at zeros outside the input).
struct ConvRows {
  const float* x;
  int64_t H, W, C, OH, OW, KH, KW, sh, sw, dh, dw, pad_t, pad_l, coff, gic;
};

// Segment pointers of rows [m0, m0 + mr) (tap-major within a row), walking the output pixels in order.
void fill_segments(const ConvRows& r, int64_t m0, int64_t mr, const float** ptrs) {
  const int64_t P = r.OH * r.OW;
  int64_t b = m0 / P, oy = (m0 % P) / r.OW, ox = m0 % r.OW;
  for (int64_t i = 0; i < mr; ++i) {
    const int64_t iy0 = oy * r.sh - r.pad_t, ix0 = ox * r.sw - r.pad_l;
    const float* base = r.x + b * r.H * r.W * r.C + r.coff;
    for (int64_t ky = 0; ky < r.KH; ++ky) {
      const int64_t iy = iy0 + ky * r.dh;
      if (iy < 0 || iy >= r.H) {
        for (int64_t kx = 0; kx < r.KW; ++kx) *ptrs++ = kZeros;
        continue;
      }
      const float* row = base + iy * r.W * r.C;
      for (int64_t kx = 0; kx < r.KW; ++kx) {
        const int64_t ix = ix0 + kx * r.dw;
        *ptrs++ = (ix >= 0 && ix < r.W) ? row + ix * r.C : kZeros;
      }
    }
    if (++ox == r.OW) {
      ox = 0;
      if (++oy == r.OH) {
        oy = 0;
        ++b;
      }
    }
  }
}

struct CachedRows {
  const float* const* table;
  int64_t T;
};

const float* const* cached_segments(const void* ctx, int64_t m0, int64_t, const float**) {
  const CachedRows& c = *static_cast<const CachedRows*>(ctx);
  return c.table + m0 * c.T;
}

// Wide groups (more than kZeroLen channels): copy the rows (im2col) into a per-thread buffer.
const float* const* conv_im2col(const void* ctx, int64_t m0, int64_t mr, const float** ptrs) {
  const ConvRows& r = *static_cast<const ConvRows*>(ctx);
  const int64_t T = r.KH * r.KW, K = T * r.gic;
  thread_local std::vector<float> buf;
  thread_local std::vector<const float*> taps;  // `ptrs` has room for mr pointers only (one segment per row)
  if (buf.size() < static_cast<size_t>(mr * K)) buf.resize(static_cast<size_t>(mr * K));
  if (taps.size() < static_cast<size_t>(mr * T)) taps.resize(static_cast<size_t>(mr * T));
  fill_segments(r, m0, mr, taps.data());
  for (int64_t i = 0; i < mr; ++i) {
    float* row = buf.data() + i * K;
    for (int64_t t = 0; t < T; ++t) {
      const float* p = taps[static_cast<size_t>(i * T + t)];
      float* d = row + t * r.gic;
      if (p == kZeros) {
        std::memset(d, 0, static_cast<size_t>(r.gic) * sizeof(float));
      } else {
        std::memcpy(d, p, static_cast<size_t>(r.gic) * sizeof(float));
      }
    }
  }
  for (int64_t i = 0; i < mr; ++i) ptrs[i] = buf.data() + i * K;
  return ptrs;
}

// The segment tables of every group (one after the other), kept with the node between calls while the input
// address and shapes stay the same (the delegate's buffers persist).
void ensure_conv_table(Node& n, const ConvRows& r, int64_t M, int64_t G) {
  const int64_t T = r.KH * r.KW;
  const int64_t key[] = {reinterpret_cast<int64_t>(r.x), r.H, r.W, r.C, r.OH, r.OW, M, r.gic, r.KW, G};
  constexpr size_t kKey = sizeof(key) / sizeof(key[0]);
  if (n.table_key.size() == kKey && std::equal(n.table_key.begin(), n.table_key.end(), key)) return;
  n.table_key.clear();
  n.table.resize(static_cast<size_t>(G * M * T));
  for (int64_t k = 0; k < G; ++k) {
    ConvRows rk = r;
    rk.coff = k * r.gic;
    fill_segments(rk, 0, M, n.table.data() + k * M * T);
  }
  n.table_key.assign(key, key + kKey);
}

// Runs group g (of G) of a convolution on the indirect GEMM, over its segment table (ensure_conv_table first) or,
// for im2col groups, over copied rows.
void conv_group(Node& n, const ConvRows& r, int64_t M, const etk::PackedB& B, float* yg, int64_t ldy, int64_t g,
                bool parallel = true) {
  const int64_t T = r.KH * r.KW;
  if (uses_im2col(n)) {
    etk::igemm(M, 1, T * r.gic, conv_im2col, &r, B, yg, ldy, n.out_min, n.out_max, parallel);
    return;
  }
  const CachedRows c{n.table.data() + g * M * T, T};
  etk::igemm(M, T, r.gic, cached_segments, &c, B, yg, ldy, n.out_min, n.out_max, parallel);
}

void conv2d(Node& n, const Shape& si, const float* x, const std::vector<etk::PackedB>& w, const Shape& so, float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2], OC = so[3];
  const int64_t gic = n.gic, goc = n.goc, G = n.groups, KH = n.kh, KW = n.kw, M = N * OH * OW;
  const bool pointwise = is_pointwise(n);
  if (uses_padded_rows(n)) {
    // Few channels (e.g. an RGB stem): pad the input once, then each filter row (kx = 0 .. KW-1) reads KW * C
    // contiguous floats, one segment per ky instead of KW short ones.
    const int64_t HP = H + n.pad_t + n.pad_b, WP = W + n.pad_l + n.pad_r;
    std::vector<float>& xp = n.scratch;
    if (xp.size() != static_cast<size_t>(N * HP * WP * C)) xp.assign(static_cast<size_t>(N * HP * WP * C), 0.f);
    for (int64_t b = 0; b < N; ++b)
      for (int64_t iy = 0; iy < H; ++iy)
        std::memcpy(xp.data() + ((b * HP + iy + n.pad_t) * WP + n.pad_l) * C, x + (b * H + iy) * W * C,
                    static_cast<size_t>(W * C) * sizeof(float));
    const ConvRows r{xp.data(), HP, WP, C, OH, OW, KH, 1, n.sh, n.sw, n.dh, 1, 0, 0, 0, KW * C};
    ensure_conv_table(n, r, M, 1);
    conv_group(n, r, M, w[0], y, OC, 0);
    return;
  }
  const ConvRows r0{x, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l, 0, gic};
  if (!pointwise && !uses_im2col(n)) ensure_conv_table(n, r0, M, G);
  const int64_t group_work = M * KH * KW * gic * goc;
  if (G > 1 && !pointwise && static_cast<double>(group_work) < etk::parallel_min_flops()) {
    // Many groups each too small for igemm to split (RegNet's group width 8): the groups themselves are spread
    // over the pool, each one's GEMM on one thread.
    parallel_rows(G, group_work, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        ConvRows r = r0;
        r.coff = g * gic;
        conv_group(n, r, M, w[static_cast<size_t>(g)], y + g * goc, OC, g, /*parallel=*/false);
      }
    });
    return;
  }
  for (int64_t g = 0; g < G; ++g) {
    const etk::PackedB& B = w[static_cast<size_t>(g)];
    float* yg = y + g * goc;
    if (pointwise) {  // a plain GEMM over the NHWC pixels
      etk::gemm_packed(M, x + g * gic, C, B, yg, OC, n.out_min, n.out_max);
      continue;
    }
    ConvRows r = r0;
    r.coff = g * gic;
    conv_group(n, r, M, B, yg, OC, g);
  }
}

void depthwise(Node& n, const Shape& si, const float* x, const float* w, const float* bias, const Shape& so,
               float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2], OC = so[3];
  const int64_t mult = OC / C, KH = n.kh, KW = n.kw;
  if (mult == 1 && C <= kZeroLen) {
    // Tap pointers per output pixel (zeros for padding), kept between calls like the convolutions' tables.
    const ConvRows r{x, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l, 0, C};
    const int64_t M = N * OH * OW;
    ensure_conv_table(n, r, M, 1);
    etk::dwconv_indirect(M, KH * KW, C, n.table.data(), w, bias, y, n.out_min, n.out_max);
    return;
  }
  if (mult == 1) {
    const etk::DwParams p{N, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l};
    etk::dwconv_nhwc(p, x, w, bias, y, n.out_min, n.out_max);
    return;
  }
  parallel_rows(N * OH, OW * KH * KW * OC, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t b0 = row / OH, oy = row % OH;
      for (int64_t ox = 0; ox < OW; ++ox) {
        float* acc = y + ((b0 * OH + oy) * OW + ox) * OC;
        for (int64_t o = 0; o < OC; ++o) acc[o] = bias ? bias[o] : 0.f;
        for (int64_t ky = 0; ky < KH; ++ky) {
          const int64_t iy = oy * n.sh + ky * n.dh - n.pad_t;
          if (iy < 0 || iy >= H) continue;
          for (int64_t kx = 0; kx < KW; ++kx) {
            const int64_t ix = ox * n.sw + kx * n.dw - n.pad_l;
            if (ix < 0 || ix >= W) continue;
            const float* px = x + ((b0 * H + iy) * W + ix) * C;
            const float* wt = w + (ky * KW + kx) * OC;
            for (int64_t o = 0; o < OC; ++o) acc[o] += px[o / mult] * wt[o];
          }
        }
        for (int64_t o = 0; o < OC; ++o) acc[o] = clampf(acc[o], n.out_min, n.out_max);
      }
    }
  });
}

// Transposed convolution: per group a GEMM of the input pixels with B_g[ic][(ky, kx, oc)], then the products are
// scattered (added) to their output pixels, which start at the bias; the clamp comes last.
void deconv2d(Node& n, const Shape& si, const float* x, const std::vector<etk::PackedB>& w, const float* bias,
              const Shape& so, float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2], OC = so[3];
  const int64_t gic = n.gic, goc = n.goc, G = n.groups, KH = n.kh, KW = n.kw, T = KH * KW, M = N * H * W;
  const int64_t pixels = N * OH * OW;
  for (int64_t p = 0; p < pixels; ++p) {
    float* o = y + p * OC;
    for (int64_t c = 0; c < OC; ++c) o[c] = bias ? bias[c] : 0.f;
  }
  std::vector<float>& cols = n.scratch;
  if (cols.size() < static_cast<size_t>(M * T * goc)) cols.resize(static_cast<size_t>(M * T * goc));
  for (int64_t g = 0; g < G; ++g) {
    etk::gemm_packed(M, x + g * gic, C, w[static_cast<size_t>(g)], cols.data(), T * goc, -INFINITY, INFINITY);
    for (int64_t m = 0; m < M; ++m) {
      const int64_t b = m / (H * W), iy = (m / W) % H, ix = m % W;
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t oy = iy * n.sh + ky * n.dh - n.pad_t;
        if (oy < 0 || oy >= OH) continue;
        for (int64_t kx = 0; kx < KW; ++kx) {
          const int64_t ox = ix * n.sw + kx * n.dw - n.pad_l;
          if (ox < 0 || ox >= OW) continue;
          float* o = y + ((b * OH + oy) * OW + ox) * OC + g * goc;
          const float* s = cols.data() + (m * T + ky * KW + kx) * goc;
          for (int64_t c = 0; c < goc; ++c) o[c] += s[c];
        }
      }
    }
  }
  if (n.out_min > -INFINITY || n.out_max < INFINITY) {
    for (int64_t i = 0; i < pixels * OC; ++i) y[i] = clampf(y[i], n.out_min, n.out_max);
  }
}

// Max / average pooling rows [r0, r1) (NHWC); `f(acc, v)` folds v into acc (max, or +) for floats and 8-float
// vectors (by reference: a vector return type would change the ABI outside the ISA clones), `avg` divides
// by the taps inside the image. Per output pixel the taps inside the image are listed once, then 8 channels at a
// time are reduced over them in a vector register (GCC's vector extension: one AVX register, two SSE ones).
template <typename F>
inline __attribute__((always_inline)) void pool_rows_impl(const Node& n, const Shape& si, const float* x,
                                                          const Shape& so, float* y, bool avg, int64_t r0, int64_t r1,
                                                          F f) {
  typedef float v8sf __attribute__((vector_size(32)));
  const int64_t H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2];
  const int64_t dh = avg ? 1 : std::max(n.dh, 1u), dw = avg ? 1 : std::max(n.dw, 1u);
  const float init = avg ? 0.f : -INFINITY, lo = n.out_min, hi = n.out_max;
  const v8sf lov = v8sf{} + lo, hiv = v8sf{} + hi;
  std::vector<const float*> taps(static_cast<size_t>(n.kh) * n.kw);
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t b0 = row / OH, oy = row % OH;
    for (int64_t ox = 0; ox < OW; ++ox) {
      float* out = y + ((b0 * OH + oy) * OW + ox) * C;
      size_t count = 0;
      for (int64_t ky = 0; ky < n.kh; ++ky) {
        const int64_t iy = oy * n.sh + ky * dh - n.pad_t;
        if (iy < 0 || iy >= H) continue;
        for (int64_t kx = 0; kx < n.kw; ++kx) {
          const int64_t ix = ox * n.sw + kx * dw - n.pad_l;
          if (ix < 0 || ix >= W) continue;
          taps[count++] = x + ((b0 * H + iy) * W + ix) * C;
        }
      }
      const float scale = (avg && count > 0) ? 1.f / static_cast<float>(count) : 1.f;
      int64_t c = 0;
      for (; c + 8 <= C; c += 8) {
        v8sf acc = v8sf{} + init;
        for (size_t t = 0; t < count; ++t) {
          v8sf v;
          std::memcpy(&v, taps[t] + c, sizeof(v));
          f(acc, v);
        }
        acc *= scale;
        acc = acc < lov ? lov : acc;
        acc = acc > hiv ? hiv : acc;
        std::memcpy(out + c, &acc, sizeof(acc));
      }
      for (; c < C; ++c) {
        float acc = init;
        for (size_t t = 0; t < count; ++t) f(acc, taps[t][c]);
        out[c] = clampf(acc * scale, lo, hi);
      }
    }
  }
}
ETK_ISA_DISPATCH(pool_rows, (const Node& n, const Shape& si, const float* x, const Shape& so, float* y, bool avg,
                               int64_t r0, int64_t r1, F f),
                   (n, si, x, so, y, avg, r0, r1, f))

void pool(const Node& n, const Shape& si, const float* x, const Shape& so, float* y) {
  const bool avg = n.kind != NodeKind::MaxPooling2d;
  parallel_rows(si[0] * so[1], so[2] * n.kh * n.kw * si[3], [&](int64_t b, int64_t e) {
    if (avg) {
      pool_rows(n, si, x, so, y, true, b, e, [](auto& acc, const auto& v) { acc += v; });
    } else {
      pool_rows(n, si, x, so, y, false, b, e, [](auto& acc, const auto& v) { acc = acc < v ? v : acc; });
    }
  });
}

void resize_bilinear(const Node& n, const Shape& si, const float* x, const Shape& so, float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2];
  const bool align = (n.flags & kFlagAlignCorners) != 0, legacy = (n.flags & kFlagTensorflowLegacy) != 0;
  auto src = [&](int64_t o, int64_t in, int64_t out, int64_t* i0, int64_t* i1, float* l) {
    float s;
    if (align) {
      s = out > 1 ? static_cast<float>(o) * static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
    } else {
      const float scale = static_cast<float>(in) / static_cast<float>(out);
      s = legacy ? static_cast<float>(o) * scale : (static_cast<float>(o) + 0.5f) * scale - 0.5f;
      if (s < 0.f) s = 0.f;
    }
    int64_t f = static_cast<int64_t>(s);
    if (f > in - 1) f = in - 1;
    *i0 = f;
    *i1 = std::min<int64_t>(f + 1, in - 1);
    *l = std::min(std::max(s - static_cast<float>(f), 0.f), 1.f);
  };
  for (int64_t b = 0; b < N; ++b)
    for (int64_t oy = 0; oy < OH; ++oy) {
      int64_t y0, y1;
      float ly;
      src(oy, H, OH, &y0, &y1, &ly);
      for (int64_t ox = 0; ox < OW; ++ox) {
        int64_t x0, x1;
        float lx;
        src(ox, W, OW, &x0, &x1, &lx);
        const float* p00 = x + ((b * H + y0) * W + x0) * C;
        const float* p01 = x + ((b * H + y0) * W + x1) * C;
        const float* p10 = x + ((b * H + y1) * W + x0) * C;
        const float* p11 = x + ((b * H + y1) * W + x1) * C;
        float* out = y + ((b * OH + oy) * OW + ox) * C;
        for (int64_t c = 0; c < C; ++c) {
          const float top = p00[c] + (p01[c] - p00[c]) * lx;
          const float bot = p10[c] + (p11[c] - p10[c]) * lx;
          out[c] = top + (bot - top) * ly;
        }
      }
    }
}

// Strided copy: y (dense, shape `so`) gets x at `offsets` with per-dim input strides `st` (for slice/transpose).
void gather_nd(const Shape& so, const float* x, const int64_t* st, int64_t base, float* y) {
  const int64_t total = numel_of(so);
  if (total == 0) return;
  // Canonical form: size-1 dims dropped, dims whose input strides nest merged (an NCHW <-> NHWC transpose
  // becomes a 2-D one).
  int64_t ds[kMaxRank + 2], ss[kMaxRank + 2];
  int r = 0;
  for (size_t d = 0; d < so.size(); ++d) {
    if (so[d] == 1) continue;
    if (r > 0 && ss[r - 1] == st[d] * so[d]) {
      ds[r - 1] *= so[d];
      ss[r - 1] = st[d];
    } else {
      ds[r] = so[d];
      ss[r] = st[d];
      ++r;
    }
  }
  if (r == 0) {
    y[0] = x[base];
    return;
  }
  if (r == 1) {
    ds[1] = ds[0];
    ss[1] = ss[0];
    ds[0] = 1;
    ss[0] = 0;
    r = 2;
  }
  const int64_t inner = ds[r - 1], is = ss[r - 1], mid = ds[r - 2], ms = ss[r - 2];
  int64_t idx[kMaxRank + 2] = {0};
  for (int64_t o = 0; o < total; o += inner * mid) {
    int64_t off = base;
    for (int d = 0; d + 2 < r; ++d) off += idx[d] * ss[d];
    float* dst = y + o;
    if (is == 1) {
      for (int64_t i = 0; i < mid; ++i)
        std::memcpy(dst + i * inner, x + off + i * ms, static_cast<size_t>(inner) * sizeof(float));
    } else {
      // Blocked 2-D transpose-like copy: 8 rows of the output at a time, so reads walk 8 strided streams.
      int64_t i = 0;
      for (; i + 8 <= mid; i += 8) {
        const float* src = x + off + i * ms;
        for (int64_t j = 0; j < inner; ++j)
          for (int64_t k = 0; k < 8; ++k) dst[(i + k) * inner + j] = src[k * ms + j * is];
      }
      for (; i < mid; ++i) {
        const float* src = x + off + i * ms;
        for (int64_t j = 0; j < inner; ++j) dst[i * inner + j] = src[j * is];
      }
    }
    for (int d = r - 2; d-- > 0;) {
      if (++idx[d] < ds[d]) break;
      idx[d] = 0;
    }
  }
}

void strides_of(const Shape& s, int64_t* st) {
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
}

void bmm(const Node& n, const Shape& sa, const float* a, const Shape& sb, const float* b, const Shape& so, float* y) {
  const bool tr = (n.flags & kFlagTransposeWeights) != 0;
  const size_t r = so.size() - 2;
  const int64_t M = so[r], N = so[r + 1], K = sa.back();
  const int64_t batches = numel_of(so) / std::max<int64_t>(1, M * N);
  const size_t ra = sa.size() - 2, rb = sb.size() - 2;
  // Batch offsets with broadcasting.
  auto offset = [&](int64_t bi, const Shape& s, size_t rs, int64_t mat) {
    int64_t off = 0, acc = 1;
    for (size_t d = r; d-- > 0;) {
      const int64_t i = bi % so[d];
      bi /= so[d];
      if (d >= r - rs) {
        const int64_t dim = s[d - (r - rs)];
        if (dim != 1) off += i * acc;
        acc *= dim;
      }
    }
    return off * mat;
  };
  // One GEMM per batch (B [K, N], or [N, K] transposed); batches over the pool when there are several and enough
  // work, else the GEMM itself may use the pool.
  const bool clamp = n.out_min > -INFINITY || n.out_max < INFINITY;
  const bool over_batches = batches > 1 && static_cast<double>(batches * M) * N * K >= etk::parallel_min_flops();
  auto one = [&](int64_t bi, bool par) {
    const float* pa = a + offset(bi, sa, ra, M * K);
    const float* pb = b + offset(bi, sb, rb, K * N);
    float* out = y + bi * M * N;
    etk::sgemm(M, N, K, 1.f, pa, K, 1, pb, tr ? 1 : N, tr ? K : 1, 0.f, out, N, 1, par);
    if (clamp)
      for (int64_t j = 0; j < M * N; ++j) out[j] = clampf(out[j], n.out_min, n.out_max);
  };
  if (over_batches) {
    parallel_for(0, batches, 1, [&](int64_t beg, int64_t end) {
      for (int64_t bi = beg; bi < end; ++bi) one(bi, false);
    });
  } else {
    for (int64_t bi = 0; bi < batches; ++bi) one(bi, true);
  }
}

Error compute(Graph& g, Node& n, const Shape& so, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  const float* a = g.ptrs[n.in[0]];
  const int64_t total = numel_of(so);
  const float lo = n.out_min, hi = n.out_max;
  switch (n.kind) {
    case NodeKind::Add: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(p + q, lo, hi); }); break;
    case NodeKind::Subtract: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(p - q, lo, hi); }); break;
    case NodeKind::Multiply:
      if (n.silu_input >= 0) {
        const float* x = g.ptrs[n.silu_input];
        unary_par(x, y, total, [&](float v) { return clampf(v / (1.f + etk::fast_expf(-v)), lo, hi); }, kTranscendentalCost);
        break;
      }
      binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(p * q, lo, hi); }); break;
    case NodeKind::Div: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(p / q, lo, hi); }); break;
    case NodeKind::Minimum: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(std::isnan(p) || std::isnan(q) ? NAN : std::min(p, q), lo, hi); }); break;
    case NodeKind::Maximum: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(std::isnan(p) || std::isnan(q) ? NAN : std::max(p, q), lo, hi); }); break;
    case NodeKind::PReLU: binary(sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y, [&](float p, float q) { return clampf(p < 0.f ? p * q : p, lo, hi); }); break;
    case NodeKind::Clamp: unary_par(a, y, total, [&](float v) { return std::isnan(v) ? v : clampf(v, lo, hi); }); return Error::Ok;
    case NodeKind::Sigmoid: unary_par(a, y, total, [](float v) { return 1.f / (1.f + etk::fast_expf(-v)); }, kTranscendentalCost); break;
    case NodeKind::Tanh: unary_par(a, y, total, [](float v) { return std::tanh(v); }); break;
    case NodeKind::Exp: unary_par(a, y, total, [](float v) { return std::exp(v); }); break;
    case NodeKind::Log: unary_par(a, y, total, [](float v) { return std::log(v); }); break;
    case NodeKind::Abs: unary_par(a, y, total, [](float v) { return std::fabs(v); }); break;
    case NodeKind::Negate: unary_par(a, y, total, [](float v) { return -v; }); break;
    case NodeKind::Floor: unary_par(a, y, total, [](float v) { return std::floor(v); }); break;
    case NodeKind::Ceiling: unary_par(a, y, total, [](float v) { return std::ceil(v); }); break;
    case NodeKind::Square: unary_par(a, y, total, [](float v) { return v * v; }); break;
    case NodeKind::SquareRoot: unary_par(a, y, total, [](float v) { return std::sqrt(v); }); break;
    case NodeKind::ReciprocalSquareRoot: unary_par(a, y, total, [](float v) { return 1.f / std::sqrt(v); }); break;
    case NodeKind::Sin: unary_par(a, y, total, [](float v) { return std::sin(v); }); break;
    case NodeKind::Cos: unary_par(a, y, total, [](float v) { return std::cos(v); }); break;
    case NodeKind::Hardswish: unary_par(a, y, total, [](float v) { return v * std::min(std::max(v + 3.f, 0.f), 6.f) * (1.f / 6.f); }); break;
    case NodeKind::Gelu: unary_par(a, y, total, [](float v) { return 0.5f * v * (1.f + etk::fast_erff(v * 0.70710678118654752f)); }, kTranscendentalCost); break;
    case NodeKind::ELU: { const float al = n.alpha; unary_par(a, y, total, [al](float v) { return v > 0.f ? v : al * std::expm1(v); }); break; }
    case NodeKind::LeakyReLU: { const float s = n.alpha; unary_par(a, y, total, [s](float v) { return v >= 0.f ? v : v * s; }); break; }
    case NodeKind::Copy: case NodeKind::Convert: case NodeKind::StaticReshape:
      if (total > 0) std::memcpy(y, a, static_cast<size_t>(total) * sizeof(float));
      break;
    case NodeKind::Softmax: {
      const int64_t c = sa.back(), rows = total / c;
      for (int64_t r = 0; r < rows; ++r) {
        const float* x = a + r * c;
        float* o = y + r * c;
        float mx = -INFINITY;
        for (int64_t j = 0; j < c; ++j) mx = std::max(mx, x[j]);
        float sum = 0.f;
        for (int64_t j = 0; j < c; ++j) sum += (o[j] = std::exp(x[j] - mx));
        const float inv = 1.f / sum;
        for (int64_t j = 0; j < c; ++j) o[j] *= inv;
      }
      break;
    }
    case NodeKind::FullyConnected: {
      const int64_t N = so.empty() ? 0 : so.back(), M = N > 0 ? total / N : 0;
      std::vector<etk::PackedB> tmp;
      etk::gemm_packed(M, a, sa.back(), weights_of(g, n, &tmp)[0], y, N, lo, hi);
      return Error::Ok;
    }
    case NodeKind::Conv2d: {
      std::vector<etk::PackedB> tmp;
      conv2d(n, sa, a, weights_of(g, n, &tmp), so, y);
      return Error::Ok;
    }
    case NodeKind::ConvTranspose2d: {
      std::vector<etk::PackedB> tmp;
      deconv2d(n, sa, a, weights_of(g, n, &tmp), n.bias >= 0 ? g.ptrs[n.bias] : nullptr, so, y);
      return Error::Ok;
    }
    case NodeKind::DepthwiseConv2d:
      depthwise(n, sa, a, g.ptrs[n.filter], n.bias >= 0 ? g.ptrs[n.bias] : nullptr, so, y);
      return Error::Ok;
    case NodeKind::AvgPooling2d: case NodeKind::MaxPooling2d:
      pool(n, sa, a, so, y);
      return Error::Ok;
    case NodeKind::GlobalAvgPooling2d: {
      const int64_t N = sa[0], C = sa.back(), inner = numel_of(sa) / std::max<int64_t>(1, N * C);
      global_avg(a, y, N, inner, C, lo, hi, 0);
      return Error::Ok;
    }
    case NodeKind::StaticTranspose: {
      int64_t st[kMaxRank + 2] = {0}, pst[kMaxRank + 2] = {0};
      strides_of(sa, st);
      for (size_t i = 0; i < sa.size(); ++i) pst[i] = st[n.v1[i]];
      gather_nd(so, a, pst, 0, y);
      break;
    }
    case NodeKind::StaticSlice: {
      int64_t st[kMaxRank + 2] = {0};
      strides_of(sa, st);
      int64_t base = 0;
      for (size_t i = 0; i < sa.size(); ++i) base += int64_t{n.v1[i]} * st[i];
      gather_nd(so, a, st, base, y);
      break;
    }
    case NodeKind::StaticConstantPad: {
      for (int64_t i = 0; i < total; ++i) y[i] = n.alpha;
      int64_t st[kMaxRank + 2] = {0}, ist[kMaxRank + 2] = {0};
      strides_of(so, st);
      strides_of(sa, ist);
      // Scatter: walk the input, write at the shifted position.
      const size_t r = sa.size();
      const int64_t in_total = numel_of(sa);
      if (in_total == 0) break;
      if (r == 0) {
        y[0] = a[0];
        break;
      }
      int64_t idx[kMaxRank + 2] = {0};
      const int64_t inner = sa[r - 1];
      for (int64_t i = 0; i < in_total; i += inner) {
        int64_t off = 0;
        for (size_t d = 0; d < r; ++d) off += (idx[d] + n.v1[d]) * st[d];
        std::memcpy(y + off, a + i, static_cast<size_t>(inner) * sizeof(float));
        for (size_t d = r - 1; d-- > 0;) {
          if (++idx[d] < sa[d]) break;
          idx[d] = 0;
        }
      }
      break;
    }
    case NodeKind::StaticResizeBilinear2D: resize_bilinear(n, sa, a, so, y); break;
    case NodeKind::Concatenate2: case NodeKind::Concatenate3: case NodeKind::Concatenate4:
    case NodeKind::Concatenate5: {
      int64_t outer = 1;
      for (size_t i = 0; i < n.axis; ++i) outer *= so[i];
      int64_t out_row = 1;
      for (size_t i = n.axis; i < so.size(); ++i) out_row *= so[i];
      int64_t col = 0;
      for (int k = 0; k < n.nin; ++k) {
        const Shape& sk = g.shapes[n.in[k]];
        int64_t row = 1;
        for (size_t i = n.axis; i < sk.size(); ++i) row *= sk[i];
        const float* src = g.ptrs[n.in[k]];
        if (row > 0) {
          for (int64_t o = 0; o < outer; ++o)
            std::memcpy(y + o * out_row + col, src + o * row, static_cast<size_t>(row) * sizeof(float));
        }
        col += row;
      }
      break;
    }
    case NodeKind::BatchMatrixMultiply:
      bmm(n, sa, a, g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y);
      return Error::Ok;
    default:
      return fail(Error::NotSupported, "node %u (%s) is not supported", n.index, node_name(n.kind));
  }
  // Nodes that carry an output range get it applied (binary ops applied it already; harmless twice).
  if (n.has_min_max && (lo > -INFINITY || hi < INFINITY)) {
    for (int64_t i = 0; i < total; ++i) y[i] = clampf(y[i], lo, hi);
  }
  return Error::Ok;
}

// EXECUTORCH_XNNPACK_PROFILE=1: time spent per node kind (and how many nodes ran), printed to stderr at exit. A
// diagnostic for docs/xnnpack.md's account of where the time goes; off by default (one getenv per process).
struct KindProfile {
  double us[128] = {};
  int64_t calls[128] = {};
  bool per_node = false;  // EXECUTORCH_XNNPACK_PROFILE=2: also every node (of the last graph run), with its shape
  std::vector<std::string> node_lines;
  std::mutex mu;
  ~KindProfile() {
    double total = 0;
    for (double v : us) total += v;
    if (total <= 0) return;
    for (const std::string& line : node_lines) std::fprintf(stderr, "%s\n", line.c_str());
    std::fprintf(stderr, "xnnpack profile (all calls):\n");
    for (int k = 0; k < 128; ++k) {
      if (calls[k] == 0) continue;
      std::fprintf(stderr, "  %-24s %10.1f us %5.1f%% %8" PRId64 " node runs\n", node_name(static_cast<NodeKind>(k)),
                   us[k], 100.0 * us[k] / total, calls[k]);
    }
  }
};

KindProfile* profile() {
  static KindProfile* p = [] {
    const char* env = std::getenv("EXECUTORCH_XNNPACK_PROFILE");
    static KindProfile instance;
    instance.per_node = env != nullptr && env[0] == '2';
    return env != nullptr && (env[0] == '1' || env[0] == '2') ? &instance : nullptr;
  }();
  return p;
}

}  // namespace

Error run_graph(Graph& g, bool do_compute) {
  KindProfile* prof = do_compute ? profile() : nullptr;
  thread_local Shape so;  // reused: no allocation per node once warm
  for (Node& n : g.nodes) {
    so.clear();
    Error e = infer(g, n, &so);
    if (e != Error::Ok) return e;
    if (so.size() > kMaxRank) return node_fail(n, "output rank too large:", so);
    int64_t total = 1;
    for (int64_t d : so) {
      if (d < 0 || __builtin_mul_overflow(total, d, &total) || total > kMaxNumel) return node_fail(n, "output too large");
    }
    g.shapes[n.out] = so;
    if (!do_compute || n.fused_away) continue;
    std::vector<float>& buf = g.slots[static_cast<size_t>(g.slot_of[n.out])];
    if (buf.size() < static_cast<size_t>(total)) buf.resize(static_cast<size_t>(total));
    float* y = buf.data();
    g.ptrs[n.out] = y;
    if (prof != nullptr) {
      const auto t0 = std::chrono::steady_clock::now();
      e = compute(g, n, so, y);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      const int k = static_cast<int>(n.kind) & 127;
      std::lock_guard<std::mutex> lock(prof->mu);
      prof->us[k] += us;
      ++prof->calls[k];
      if (prof->per_node) {
        if (prof->node_lines.size() <= n.index) prof->node_lines.resize(n.index + 1);
        char line[160];
        std::snprintf(line, sizeof(line), "  node %4u %-22s %8.2f us  -> %s", n.index, node_name(n.kind), us,
                      shape_str(so).c_str());
        prof->node_lines[n.index] = line;
      }
    } else {
      e = compute(g, n, so, y);
    }
    if (e != Error::Ok) return e;
  }
  return Error::Ok;
}

namespace {

// Gives every node output a buffer slot, reusing the slot of a value whose last reader has already run (best fit
// by the serialized size). Graph outputs keep their slot to the end; a node's output never shares a slot with one
// of its own inputs.
void assign_slots(Graph& g) {
  const size_t nv = g.values.size();
  std::vector<int64_t> last(nv, -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0) last[static_cast<size_t>(n.in[k])] = static_cast<int64_t>(i);
    for (int v : {n.filter, n.bias})
      if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int64_t>(i);
  }
  g.slot_of.assign(nv, -1);
  std::vector<int64_t> slot_numel;  // the largest serialized size each slot has held
  std::vector<int> free_slots;
  std::vector<bool> released(nv, false);
  auto release = [&](int v) {
    if (v < 0 || released[static_cast<size_t>(v)] || g.slot_of[static_cast<size_t>(v)] < 0) return;
    if (g.values[static_cast<size_t>(v)].is_output) return;
    released[static_cast<size_t>(v)] = true;
    free_slots.push_back(g.slot_of[static_cast<size_t>(v)]);
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.out < 0) continue;
    const size_t out = static_cast<size_t>(n.out);
    if (g.slot_of[out] < 0) {
      const int64_t need = numel_of(g.shapes[out]);
      // The smallest free slot that fits, else the largest one (it grows the least).
      auto better = [need](int64_t have, int64_t cur) {
        const bool fits = have >= need;
        if (fits != (cur >= need)) return fits;
        return fits ? have < cur : have > cur;
      };
      int best = -1;
      for (size_t f = 0; f < free_slots.size(); ++f) {
        const int64_t have = slot_numel[static_cast<size_t>(free_slots[f])];
        if (best < 0 || better(have, slot_numel[static_cast<size_t>(free_slots[static_cast<size_t>(best)])]))
          best = static_cast<int>(f);
      }
      if (best >= 0) {
        g.slot_of[out] = free_slots[static_cast<size_t>(best)];
        free_slots.erase(free_slots.begin() + best);
      } else {
        g.slot_of[out] = static_cast<int>(slot_numel.size());
        slot_numel.push_back(0);
      }
      int64_t& sz = slot_numel[static_cast<size_t>(g.slot_of[out])];
      sz = std::max(sz, need);
    }
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0 && last[static_cast<size_t>(n.in[k])] == static_cast<int64_t>(i)) release(n.in[k]);
    for (int v : {n.filter, n.bias})
      if (v >= 0 && last[static_cast<size_t>(v)] == static_cast<int64_t>(i)) release(v);
    if (last[out] < static_cast<int64_t>(i)) release(n.out);  // never read
  }
  g.slots.assign(slot_numel.size(), std::vector<float>());
}

// A depthwise convolution with a channel multiplier (e.g. a stem over a 1-channel input, groups == 1, 64 outputs)
// is a grouped convolution with one input channel per group: it runs on the GEMM as a Conv2d, its filter
// [1, KH, KW, C*m] transposed into OHWI [C*m, KH, KW, 1] once here. (Multiplier 1 keeps the depthwise kernels.)
void depthwise_multiplier_to_conv(Graph& g) {
  for (Node& n : g.nodes) {
    if (n.kind != NodeKind::DepthwiseConv2d || n.gic != 1 || n.goc <= 1 || n.filter < 0) continue;
    const Value& f = g.values[static_cast<size_t>(n.filter)];
    const int64_t T = int64_t{n.kh} * n.kw, OC = int64_t{n.groups} * n.goc;
    if (f.data == nullptr || f.dims != Shape{1, n.kh, n.kw, OC}) continue;  // infer() reports a bad filter
    std::vector<float> ohwi(static_cast<size_t>(T * OC));
    for (int64_t t = 0; t < T; ++t)
      for (int64_t o = 0; o < OC; ++o) ohwi[static_cast<size_t>(o * T + t)] = f.data[t * OC + o];
    g.owned.push_back(std::move(ohwi));
    Value w;
    w.dims = {OC, n.kh, n.kw, 1};
    w.data = g.owned.back().data();
    n.filter = static_cast<int>(g.values.size());
    if (n.in[1] >= 0) n.in[1] = n.filter;
    g.values.push_back(std::move(w));
    n.kind = NodeKind::Conv2d;
  }
}

// Sigmoid(x) -> s read only by Multiply(x, s) (or (s, x)): the SiLU of EfficientNet-style networks, one pass
// instead of two (and no buffer for s).
void fuse_silu(Graph& g) {
  std::vector<int> readers(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int k = 0; k < n.nin; ++k)
      if (n.in[k] >= 0) ++readers[static_cast<size_t>(n.in[k])];
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& sig = g.nodes[i];
    if (sig.kind != NodeKind::Sigmoid || sig.out < 0 || sig.nin != 1) continue;
    const size_t s = static_cast<size_t>(sig.out);
    if (readers[s] != 1 || g.values[s].is_output) continue;
    for (size_t j = i + 1; j < g.nodes.size(); ++j) {
      Node& mul = g.nodes[j];
      if (mul.nin < 1 || std::none_of(mul.in, mul.in + mul.nin, [&](int v) { return v == sig.out; })) continue;
      const int x = sig.in[0];
      const bool pair = mul.kind == NodeKind::Multiply && mul.nin == 2 &&
                        ((mul.in[0] == x && mul.in[1] == sig.out) || (mul.in[1] == x && mul.in[0] == sig.out));
      if (pair && g.shapes[static_cast<size_t>(x)] == g.shapes[s]) {
        sig.fused_away = true;
        mul.silu_input = x;
      }
      break;  // the only reader
    }
  }
}

}  // namespace

Error prepare_graph(Graph& g) {
  depthwise_multiplier_to_conv(g);
  // Static checks with the serialized shapes, buffer slots, and weight packing.
  g.shapes.assign(g.values.size(), Shape());
  g.ptrs.assign(g.values.size(), nullptr);
  g.slot_of.assign(g.values.size(), -1);
  for (size_t i = 0; i < g.values.size(); ++i) {
    g.shapes[i] = g.values[i].dims;
    g.ptrs[i] = g.values[i].data;
  }
  Error e = run_graph(g, /*compute=*/false);
  if (e != Error::Ok) return e;
  fuse_silu(g);
  assign_slots(g);
  for (Node& n : g.nodes) {
    if (packs_at_init(g, n)) {
      pack_node(n, g.values[n.filter].dims, g.values[n.filter].data, n.bias >= 0 ? g.values[n.bias].data : nullptr,
                &n.packed);
    }
  }
  return Error::Ok;
}

Error execute_graph(Graph& g, executorch::runtime::Span<executorch::runtime::EValue*> args) {
  using executorch::aten::ScalarType;
  using executorch::aten::Tensor;
  std::lock_guard<std::mutex> lock(g.mu);
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.data != nullptr) {
      g.shapes[i] = v.dims;
      g.ptrs[i] = v.data;
    } else {
      g.ptrs[i] = nullptr;
    }
  }
  // Inputs: physical (dim-order) shapes, data shared.
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.external_id < 0) continue;
    if (static_cast<size_t>(v.external_id) >= args.size() || args[v.external_id] == nullptr ||
        !args[v.external_id]->isTensor()) {
      return fail(Error::InvalidArgument, "external value %" PRId64 " is not a tensor argument of the delegate call "
                  "(%zu arguments)", v.external_id, args.size());
    }
    if (!v.is_input) continue;
    const Tensor t = args[v.external_id]->toTensor();
    if (t.scalar_type() != ScalarType::Float) {
      return fail(Error::InvalidArgument, "input %" PRId64 " has dtype %d, expected float", v.external_id,
                  static_cast<int>(t.scalar_type()));
    }
    // The tensor's own rank wins (as with xnn_reshape_external_value): a rank-0 scalar may feed a [1] value.
    if (static_cast<size_t>(t.dim()) > kMaxRank) {
      return fail(Error::InvalidArgument, "input %" PRId64 " has rank %zd (at most %u)", v.external_id,
                  static_cast<ssize_t>(t.dim()), kMaxRank);
    }
    Shape s(static_cast<size_t>(t.dim()));
    const auto order = t.dim_order();
    for (size_t d = 0; d < s.size(); ++d) {
      const size_t src = order.size() == s.size() ? order[d] : d;
      if (src >= s.size()) return fail(Error::InvalidArgument, "input %" PRId64 " has a bad dim order", v.external_id);
      s[d] = t.sizes()[src];
    }
    if (t.numel() > 0 && t.const_data_ptr() == nullptr) {
      return fail(Error::InvalidArgument, "input %" PRId64 " has no data", v.external_id);
    }
    g.shapes[i] = std::move(s);
    g.ptrs[i] = t.const_data_ptr<float>();
  }
  Error e = run_graph(g, /*compute=*/true);
  if (e != Error::Ok) return e;
  // Outputs: resize (logical sizes through the dim order) and copy.
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (!v.is_output) continue;
    Tensor t = args[v.external_id]->toTensor();
    const Shape& s = g.shapes[i];
    if (g.ptrs[i] == nullptr) return fail(Error::InvalidProgram, "output %" PRId64 " is never written", v.external_id);
    const int64_t total = numel_of(s);
    if (static_cast<size_t>(t.dim()) != s.size()) {
      // A different rank (e.g. a rank-0 result of a [1] value) is fine when the element count agrees.
      if (t.numel() != total) {
        return fail(Error::InvalidArgument, "output %" PRId64 " has rank %zd, the graph produces %s", v.external_id,
                    static_cast<ssize_t>(t.dim()), shape_str(s).c_str());
      }
    } else {
      std::vector<executorch::aten::SizesType> sizes(s.size());
      const auto order = t.dim_order();
      for (size_t d = 0; d < s.size(); ++d) {
        const size_t dst = order.size() == s.size() ? order[d] : d;
        if (dst >= s.size() || s[d] > 0x7FFFFFFF) {
          return fail(Error::InvalidArgument, "output %" PRId64 ": bad dim order or size", v.external_id);
        }
        sizes[dst] = static_cast<executorch::aten::SizesType>(s[d]);
      }
      e = executorch::runtime::resize_tensor(
          t, executorch::runtime::ArrayRef<executorch::aten::SizesType>(sizes.data(), sizes.size()));
      if (e != Error::Ok) {
        return fail(e, "output %" PRId64 " cannot take shape %s", v.external_id, shape_str(s).c_str());
      }
    }
    if (total == 0) continue;
    void* dst = t.mutable_data_ptr();
    if (dst == nullptr) return fail(Error::InvalidArgument, "output %" PRId64 " has no data", v.external_id);
    if (t.scalar_type() == ScalarType::Float) {
      std::memmove(dst, g.ptrs[i], static_cast<size_t>(total) * sizeof(float));
    } else if (t.scalar_type() == ScalarType::Long) {
      // Upstream widens int32 results into int64 outputs; for fp32 graphs this only rounds toward zero.
      int64_t* o = static_cast<int64_t*>(dst);
      for (int64_t k = 0; k < total; ++k) o[k] = static_cast<int64_t>(g.ptrs[i][k]);
    } else {
      return fail(Error::InvalidArgument, "output %" PRId64 " has dtype %d, expected float", v.external_id,
                  static_cast<int>(t.scalar_type()));
    }
  }
  return Error::Ok;
}

}  // namespace etxnn
