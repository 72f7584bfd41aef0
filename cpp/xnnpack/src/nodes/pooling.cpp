// Spatial nodes over NHWC: max and average pooling, global average pooling (and its integer kernel), bilinear resize.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common.h"

namespace etxnn {
namespace {

// The sum over the pixels of each image, per channel (NHWC), times `scale`, clamped. (F is unused: ETK_ISA_DISPATCH
// wants one.) 64, then 16 channels at a time are summed over all pixels in registers (a local block the compiler
// keeps in vector registers; through y it stored and reloaded every sum per pixel), in pixel order.
template <int64_t B>
inline __attribute__((always_inline)) void channel_sums(const float* x, int64_t inner, int64_t C, float* o, float scale,
                                                        float lo, float hi) {
  float acc[B] = {};
  for (int64_t p = 0; p < inner; ++p)
    for (int64_t c = 0; c < B; ++c) acc[c] += x[p * C + c];
  for (int64_t c = 0; c < B; ++c) o[c] = clampf(acc[c] * scale, lo, hi);
}
template <typename F>
inline __attribute__((always_inline)) void global_avg_impl(const float* a, float* y, int64_t N, int64_t inner,
                                                           int64_t C, float scale, float lo, float hi, F) {
  for (int64_t b = 0; b < N; ++b) {
    const float* xb = a + b * inner * C;
    float* o = y + b * C;
    int64_t c = 0;
    for (; c + 64 <= C; c += 64) channel_sums<64>(xb + c, inner, C, o + c, scale, lo, hi);
    for (; c + 16 <= C; c += 16) channel_sums<16>(xb + c, inner, C, o + c, scale, lo, hi);
    for (; c < C; ++c) channel_sums<1>(xb + c, inner, C, o + c, scale, lo, hi);
  }
}
ETK_ISA_DISPATCH(global_avg,
                 (const float* a, float* y, int64_t N, int64_t inner, int64_t C, float scale, float lo, float hi, F f),
                 (a, y, N, inner, C, scale, lo, hi, f))

// Max / average pooling rows [r0, r1) (NHWC); `f(acc, v)` folds v into acc (max, or +) for floats and 8- and
// 16-float vectors (by reference: a vector return type would change the ABI outside the ISA clones), `avg` divides
// by the taps inside the image. Per output pixel the taps inside the image are listed once, then a register's
// width of channels at a time (16, 8, then 4) are reduced over them in a vector register (GCC's vector extension).
typedef float v4sf __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));

// Floats in one vector register at the ISA level the kernels run at: 16 (AVX-512), 8 (AVX2), 4 (SSE2, NEON).
int native_float_lanes() {
#if defined(__x86_64__)
  return etk::isa_level() == 2 ? 16 : etk::isa_level() == 1 ? 8 : 4;
#else
  return 4;
#endif
}

// Channels [c, c + lanes) of one output pixel: its taps folded by f, times scale, clamped.
template <typename VT, typename F>
inline __attribute__((always_inline)) void pool_vector(const float* const* taps, size_t count, int64_t c, float init,
                                                       float scale, float lo, float hi, float* out, F f) {
  VT acc = VT{} + init;
  for (size_t t = 0; t < count; ++t) {
    VT v;
    std::memcpy(&v, taps[t] + c, sizeof(v));
    f(acc, v);
  }
  acc *= scale;
  acc = acc < VT{} + lo ? VT{} + lo : acc;
  acc = acc > VT{} + hi ? VT{} + hi : acc;
  std::memcpy(out + c, &acc, sizeof(acc));
}

template <typename F>
inline __attribute__((always_inline)) void pool_rows_impl(const Node& n, const Shape& si, const float* x,
                                                          const Shape& so, float* y, bool avg, int64_t r0, int64_t r1,
                                                          F f) {
  const int64_t H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2];
  const int64_t dh = avg ? 1 : std::max(n.dh, 1u), dw = avg ? 1 : std::max(n.dw, 1u);
  const float init = avg ? 0.f : -INFINITY, lo = n.out_min, hi = n.out_max;
  std::vector<const float*> taps(static_cast<size_t>(n.kh) * n.kw);
  // Vectors no wider than this level's registers: wider ones' max (a compare and a select) is split into scalar
  // code, not into register halves (AVX2 ran SqueezeNet's max pools 10x slower than the AVX-512 build).
  const int lanes = native_float_lanes();
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
      if (lanes >= 16)
        for (; c + 16 <= C; c += 16) pool_vector<v16sf>(taps.data(), count, c, init, scale, lo, hi, out, f);
      if (lanes >= 8)
        for (; c + 8 <= C; c += 8) pool_vector<v8sf>(taps.data(), count, c, init, scale, lo, hi, out, f);
      for (; c + 4 <= C; c += 4) pool_vector<v4sf>(taps.data(), count, c, init, scale, lo, hi, out, f);
      for (; c < C; ++c) {
        float acc = init;
        for (size_t t = 0; t < count; ++t) f(acc, taps[t][c]);
        out[c] = clampf(acc * scale, lo, hi);
      }
    }
  }
}
ETK_ISA_DISPATCH(pool_rows,
                 (const Node& n, const Shape& si, const float* x, const Shape& so, float* y, bool avg, int64_t r0,
                  int64_t r1, F f),
                 (n, si, x, so, y, avg, r0, r1, f))

void pool(const Node& n, const Shape& si, const float* x, const Shape& so, float* y, bool avg) {
  // Counted twice per tap: a pooling layer reads a window per output, and split it reads the input rows the layer
  // before wrote on the same core (serial, half of them come from the other core's cache).
  parallel_rows(si[0] * so[1], 2 * so[2] * n.kh * n.kw * si[3], [&](int64_t b, int64_t e) {
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

// AvgPooling2d and MaxPooling2d share the PoolNode table.
template <const schema::PoolNode* (schema::Node::*As)() const>
Error read_pool(const NodeReader& r, const schema::Node& xn, Node& n) {
  const schema::PoolNode* p = (xn.*As)();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.pad_t = p->padding_top();
  n.pad_r = p->padding_right();
  n.pad_b = p->padding_bottom();
  n.pad_l = p->padding_left();
  n.kh = p->pooling_height();
  n.kw = p->pooling_width();
  n.sh = p->stride_height();
  n.sw = p->stride_width();
  n.dh = p->dilation_height();
  n.dw = p->dilation_width();
  n.flags = p->flags();
  return r.io(n, {p->input_id()}, p->output_id());
}

// Max pooling dilates its window (dilation 0 read as 1); average pooling ignores the dilation.
template <bool Max>
Error infer_pool(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (a.size() != 4) return node_fail(n, "needs a 4-D NHWC input, got", a);
  if (n.kh == 0 || n.kw == 0 || n.sh == 0 || n.sw == 0) return node_fail(n, "zero pooling size or stride");
  if (n.flags & kFlagSamePadding) return node_fail(n, "TensorFlow SAME padding is not supported");
  const uint32_t dh = Max ? std::max(n.dh, 1u) : 1u;
  const uint32_t dw = Max ? std::max(n.dw, 1u) : 1u;
  int64_t oh = 0, ow = 0;
  ET_CHECK_OK_OR_RETURN_ERROR(conv_out(n, a[1], n.pad_t, n.pad_b, n.kh, n.sh, dh, &oh));
  ET_CHECK_OK_OR_RETURN_ERROR(conv_out(n, a[2], n.pad_l, n.pad_r, n.kw, n.sw, dw, &ow));
  *out = {a[0], oh, ow, a[3]};
  return Error::Ok;
}

template <bool Max>
Error run_pool(Graph& g, Node& n, const Shape& so, float* y) {
  pool(n, g.shapes[n.in[0]], g.ptrs[n.in[0]], so, y, /*avg=*/!Max);
  return Error::Ok;
}

Error infer_global_avg_pool(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (a.size() < 3 || a.size() > 4) return node_fail(n, "needs a 3-D or 4-D input, got", a);
  if (n.flags & kFlagKeepDims) {
    *out = a;
    for (size_t i = 1; i + 1 < a.size(); ++i) (*out)[i] = 1;
  } else {
    *out = {a[0], a.back()};
  }
  return Error::Ok;
}

Error run_global_avg_pool(Graph& g, Node& n, const Shape&, float* y) {
  const Shape& sa = g.shapes[n.in[0]];
  const int64_t N = sa[0], C = sa.back(), inner = numel_of(sa) / std::max<int64_t>(1, N * C);
  const float* x = g.ptrs[n.in[0]];
  const float scale = inner > 0 ? 1.f / static_cast<float>(inner) : 0.f;
  for (int64_t b = 0; b < N; ++b) {
    float* o = y + b * C;
    pixel_sums(x + b * inner * C, inner, C, o, &n.scratch);
    for (int64_t c = 0; c < C; ++c) o[c] = clampf(o[c] * scale, n.out_min, n.out_max);
  }
  return Error::Ok;
}

// XNNPACK's integer global average pooling of a per-tensor quantized activation (a mean reduction, QMode::kInteger):
// the int32 sum of q times (x_scale / y_scale) * (1 / count), plus y_zero_point - count * x_zero_point * that scale,
// rounded to nearest even (qs8 rsum + qs32 -> qs8).
bool plan_integer_global_avg_pool(Graph& g, Node& n) {
  if (n.nin != 1) return false;
  const Value& x = g.values[static_cast<size_t>(n.in[0])];
  const Value& y = g.values[static_cast<size_t>(n.out)];
  if (x.constant || x.q.kind != QKind::kStatic || y.q.kind != QKind::kStatic || x.q.dtype != y.q.dtype ||
      y.q.dtype == schema::DataType::qint32)
    return false;
  n.requant = {x.q.scale / y.q.scale};
  n.qlo = static_cast<float>(y.q.qmin) - static_cast<float>(y.q.zero_point);
  n.qhi = static_cast<float>(y.q.qmax) - static_cast<float>(y.q.zero_point);
  n.qmode = QMode::kInteger;
  return true;
}

Error run_integer_global_avg_pool(Graph& g, Node& n, float* y, int64_t) {
  const Shape& si = g.shapes[static_cast<size_t>(n.in[0])];
  if (si.size() != 4) return node_fail(n, "expects a 4-D NHWC input, got", si);
  const int64_t N = si[0], HW = si[1] * si[2], C = si[3];
  const Quant& xq = g.values[static_cast<size_t>(n.in[0])].q;
  const Quant& yq = g.values[static_cast<size_t>(n.out)].q;
  const float inv = n.requant[0] * (1.f / static_cast<float>(HW));
  const float yzp =
      static_cast<float>(yq.zero_point) - static_cast<float>(static_cast<int32_t>(HW) * xq.zero_point) * inv;
  const float zy = static_cast<float>(yq.zero_point), zx = static_cast<float>(xq.zero_point);
  const float* x = g.ptrs[static_cast<size_t>(n.in[0])];
  // Sums of integers below 2^24: exact in any order (as the int32 sums), and the zero point's share added after.
  const float zsum = static_cast<float>(HW) * zx;
  for (int64_t b = 0; b < N; ++b) {
    float* o = y + b * C;
    pixel_sums(x + b * HW * C, HW, C, o, &n.scratch);
    for (int64_t c = 0; c < C; ++c) o[c] = clampf(round_even((o[c] + zsum) * inv + yzp) - zy, n.qlo, n.qhi);
  }
  return Error::Ok;
}

Error read_resize_bilinear(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_StaticResizeBilinear2D();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  n.new_h = p->new_height();
  n.new_w = p->new_width();
  return r.io(n, {p->input_id()}, p->output_id());
}

Error infer_resize_bilinear(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  if (a.size() != 4 || n.new_h == 0 || n.new_w == 0 || n.new_h > 0x7FFFFFFF || n.new_w > 0x7FFFFFFF)
    return node_fail(n, "needs a 4-D NHWC input and a non-zero size, got", a);
  if (a[1] == 0 || a[2] == 0) return node_fail(n, "empty input", a);
  *out = {a[0], n.new_h, n.new_w, a[3]};
  return Error::Ok;
}

Error run_resize_bilinear(Graph& g, Node& n, const Shape& so, float* y) {
  resize_bilinear(n, g.shapes[n.in[0]], g.ptrs[n.in[0]], so, y);
  return apply_output_range(n, y, numel_of(so));
}

// kind, reader, shape rule, fp32 kernel, prepare, traits, quantized kernels (node_table.h)
constexpr NodeKindDef kKinds[] = {
    {NodeKind::AvgPooling2d, read_pool<&schema::Node::node_as_AvgPooling2d>, infer_pool</*Max=*/false>,
     run_pool</*Max=*/false>, nullptr},
    {NodeKind::MaxPooling2d, read_pool<&schema::Node::node_as_MaxPooling2d>, infer_pool</*Max=*/true>,
     run_pool</*Max=*/true>, nullptr, kMovesValues},
    {NodeKind::GlobalAvgPooling2d,
     read_node1x1,
     infer_global_avg_pool,
     run_global_avg_pool,
     nullptr,
     kNoTraits,
     {plan_integer_global_avg_pool, run_integer_global_avg_pool}},
    {NodeKind::StaticResizeBilinear2D, read_resize_bilinear, infer_resize_bilinear, run_resize_bilinear, nullptr},
};

}  // namespace

NodeKindList pooling_node_kinds() { return {kKinds, std::size(kKinds)}; }

void pixel_sums(const float* x, int64_t pixels, int64_t C, float* sums, etk::aligned_vector<float>* scratch) {
  const int64_t parts = std::min<int64_t>(executorch::extension::get_thread_count(), pixels * C / kParallelRowsWork);
  if (parts <= 1) {
    global_avg(x, sums, 1, pixels, C, 1.f, -INFINITY, INFINITY, 0);
    return;
  }
  // Each thread sums a contiguous range of pixels (those it wrote in the layer before, split the same way) into its
  // row of the scratch; the rows are added in order after.
  scratch->resize(static_cast<size_t>(parts * C));
  float* part = scratch->data();
  executorch::extension::parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t p0 = pixels * q / parts, p1 = pixels * (q + 1) / parts;
      global_avg(x + p0 * C, part + q * C, 1, p1 - p0, C, 1.f, -INFINITY, INFINITY, 0);
    }
  });
  for (int64_t c = 0; c < C; ++c) {
    float t = part[c];
    for (int64_t q = 1; q < parts; ++q) t += part[q * C + c];
    sums[c] = t;
  }
}

}  // namespace etxnn
