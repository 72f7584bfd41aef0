// Nodes on the shared GEMM (cpp/cpu/include/gemm.h): fully connected, convolution (grouped, depthwise,
// transposed) and batch matrix multiply. Constant weights are packed once at prepare; the heavy loops are split
// over rows on the process-wide pool.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common.h"
#include "gemm.h"
#include "qgemm.h"
#include "transpose.h"

namespace etxnn {
namespace {

using executorch::extension::parallel_for;

// ---- kernels

// Zeros that padding taps point at (segments of up to kZeroLen floats; wider groups use the im2col rows).
constexpr int64_t kZeroLen = 4096;
alignas(64) const float kZeros[kZeroLen] = {};

bool is_pointwise(const Node& n) {
  return n.kh == 1 && n.kw == 1 && n.sh == 1 && n.sw == 1 && n.pad_t == 0 && n.pad_l == 0 && n.pad_b == 0 &&
         n.pad_r == 0;
}

}  // namespace

// Few input channels (e.g. an RGB stem): the input is padded once and each filter row is one segment (graph.h:
// quant.cpp packs such an int8 convolution's weights for it).
bool conv_uses_padded_rows(const Node& n) {
  return n.groups == 1 && !is_pointwise(n) && n.gic < 8 && n.dw == 1 && int64_t{n.kw} * n.gic <= kZeroLen;
}

namespace {

// Rows copied into contiguous im2col rows (one segment of K) instead of a tap table: groups wider than the zero row.
bool uses_im2col(const Node& n) { return !is_pointwise(n) && !conv_uses_padded_rows(n) && n.gic > kZeroLen; }

// The row segment length conv2d runs a Conv2d node's GEMM with (the packing depends on it).
int64_t conv_segment_length(const Node& n) {
  const int64_t K = int64_t{n.kh} * n.kw * n.gic;
  if (is_pointwise(n) || uses_im2col(n)) return K;
  if (conv_uses_padded_rows(n)) return int64_t{n.kw} * n.gic;
  return n.gic;
}

// The packing of a node's weights (and bias) for the GEMM, one PackedB per group, from its filter (shape ws).
using PackFn = void (*)(const Node& n, const Shape& ws, const float* w, const float* bias,
                        std::vector<etk::PackedB>* out);

// FullyConnected: B = W^T ([in, out]).
void pack_fully_connected(const Node& n, const Shape& ws, const float* w, const float* bias,
                          std::vector<etk::PackedB>* out) {
  out->resize(1);
  if (n.flags & kFlagTransposeWeights) {
    etk::pack_b(ws[0], ws[1], w, ws[1], 1, bias, &(*out)[0]);
  } else {
    etk::pack_b(ws[1], ws[0], w, 1, ws[1], bias, &(*out)[0]);
  }
}

// Conv2d: B_g[(ky, kx, ic)][oc] from the OHWI filter.
void pack_conv2d(const Node& n, const Shape&, const float* w, const float* bias, std::vector<etk::PackedB>* out) {
  const int64_t G = n.groups, gic = n.gic, goc = n.goc, T = int64_t{n.kh} * n.kw;
  out->resize(static_cast<size_t>(G));
  const int64_t K = T * gic, seg = conv_segment_length(n);
  for (int64_t g = 0; g < G; ++g)
    etk::pack_b(K, goc, w + g * goc * K, 1, K, bias ? bias + g * goc : nullptr, &(*out)[static_cast<size_t>(g)], seg);
}

// ConvTranspose2d: B_g[ic][(ky, kx, oc)] (its bias is added after the scatter, not here).
void pack_conv_transpose2d(const Node& n, const Shape&, const float* w, const float*, std::vector<etk::PackedB>* out) {
  const int64_t G = n.groups, gic = n.gic, goc = n.goc, T = int64_t{n.kh} * n.kw;
  out->resize(static_cast<size_t>(G));
  std::vector<float> dense(static_cast<size_t>(gic * T * goc));
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t o = 0; o < goc; ++o)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < gic; ++i) dense[(i * T + t) * goc + o] = w[((g * goc + o) * T + t) * gic + i];
    etk::pack_b(gic, T * goc, dense.data(), T * goc, 1, nullptr, &(*out)[static_cast<size_t>(g)]);
  }
}

// The node's packed weights: packed at init when filter and bias are constants, else now (into `tmp`).
template <PackFn Pack>
const std::vector<etk::PackedB>& weights_of(const Graph& g, const Node& n, std::vector<etk::PackedB>* tmp) {
  if (!n.packed.empty()) return n.packed;
  Pack(n, g.shapes[n.filter], g.ptrs[n.filter], n.bias >= 0 ? g.ptrs[n.bias] : nullptr, tmp);
  return *tmp;
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
// address and shapes stay the same (the delegate's buffers persist). Returns whether it (re)built them.
bool ensure_conv_table(Node& n, const ConvRows& r, int64_t M, int64_t G) {
  const int64_t T = r.KH * r.KW;
  const int64_t key[] = {reinterpret_cast<int64_t>(r.x), r.H, r.W, r.C, r.OH, r.OW, M, r.gic, r.KW, G};
  constexpr size_t kKey = sizeof(key) / sizeof(key[0]);
  if (n.table_key.size() == kKey && std::equal(n.table_key.begin(), n.table_key.end(), key)) return false;
  n.table.resize(static_cast<size_t>(G * M * T));
  for (int64_t k = 0; k < G; ++k) {
    ConvRows rk = r;
    rk.coff = k * r.gic;
    fill_segments(rk, 0, M, n.table.data() + k * M * T);
  }
  n.table_key.assign(key, key + kKey);
  return true;
}

// A convolution's segment tables (ensure_conv_table) over its input r.x of `count` floats. On the int8 GEMM, the
// input is first converted to the GEMM's bytes (once per call, n.qact), and the tables' segments are kept as
// pointers into those bytes, translated again when the tables were rebuilt or the bytes' buffer moved.
void prepare_conv_rows(Node& n, const ConvRows& r, int64_t M, int64_t G, int64_t count) {
  if (n.qb.N > 0) etk::convert_activations(r.x, count, n.qb, &n.qact);
  const bool rebuilt = ensure_conv_table(n, r, M, G);
  if (n.qb.N > 0 && (rebuilt || n.qact.taps.empty() || n.qact.taps_bytes != n.qact.bytes.data()))
    etk::translate_taps(n.table.data(), static_cast<int64_t>(n.table.size()), &n.qact);
}

// Runs group g (of G) of a convolution on the indirect GEMM, over its segment table (prepare_conv_rows first) or,
// for im2col groups, over copied rows.
void conv_group(Node& n, const ConvRows& r, int64_t M, const etk::PackedB& B, float* yg, int64_t ldy, int64_t g,
                bool parallel = true) {
  const int64_t T = r.KH * r.KW;
  if (n.qb.N > 0) {  // a quantized convolution packed for the int8 GEMM (quant.cpp), one group
    if (uses_im2col(n)) {
      etk::qigemm(M, 1, T * r.gic, conv_im2col, &r, n.qb, n.qlo, n.qhi, yg, ldy, parallel);
    } else {
      // The input converted to the GEMM's bytes once (conv2d, n.qact), instead of once per tap.
      const CachedRows c{n.table.data(), T};
      etk::qigemm(M, T, r.gic, cached_segments, &c, n.qb, n.qlo, n.qhi, yg, ldy, parallel, &n.qact);
    }
    return;
  }
  if (uses_im2col(n)) {
    etk::igemm(M, 1, T * r.gic, conv_im2col, &r, B, yg, ldy, n.out_min, n.out_max, parallel, &n.post);
    return;
  }
  const CachedRows c{n.table.data() + g * M * T, T};
  etk::igemm(M, T, r.gic, cached_segments, &c, B, yg, ldy, n.out_min, n.out_max, parallel, &n.post);
}

void conv2d(Node& n, const Shape& si, const float* x, const std::vector<etk::PackedB>& w, const Shape& so, float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2], OC = so[3];
  const int64_t gic = n.gic, goc = n.goc, G = n.groups, KH = n.kh, KW = n.kw, M = N * OH * OW;
  const int64_t ldy = n.out_stride > 0 ? n.out_stride : OC;  // wider when writing into an elided concatenation
  const bool pointwise = is_pointwise(n);
  if (conv_uses_padded_rows(n)) {
    // Few channels (e.g. an RGB stem): pad the input once, then each filter row (kx = 0 .. KW-1) reads KW * C
    // contiguous floats, one segment per ky instead of KW short ones.
    // CP channels per padded pixel: C, or more for the int8 GEMM (padded_c; the extra channels stay zero).
    const int64_t HP = H + n.pad_t + n.pad_b, WP = W + n.pad_l + n.pad_r;
    const int64_t CP = n.qb.N > 0 && n.padded_c > 0 ? n.padded_c : C;
    etk::aligned_vector<float>& xp = n.scratch;
    if (xp.size() != static_cast<size_t>(N * HP * WP * CP)) xp.assign(static_cast<size_t>(N * HP * WP * CP), 0.f);
    parallel_rows(N * H, W * C, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / H, iy = r % H;
        float* row = xp.data() + ((b * HP + iy + n.pad_t) * WP + n.pad_l) * CP;
        if (n.nchw_input) {  // x is [N, C, H, W]: row iy of each channel, interleaved
          etk::transpose_2d(x + (b * C * H + iy) * W, C, W, H * W, row, CP);
        } else if (CP == C) {
          std::memcpy(row, x + (b * H + iy) * W * C, static_cast<size_t>(W * C) * sizeof(float));
        } else {
          for (int64_t ix = 0; ix < W; ++ix)
            std::memcpy(row + ix * CP, x + ((b * H + iy) * W + ix) * C, static_cast<size_t>(C) * sizeof(float));
        }
      }
    });
    const ConvRows r{xp.data(), HP, WP, CP, OH, OW, KH, 1, n.sh, n.sw, n.dh, 1, 0, 0, 0, KW * CP};
    prepare_conv_rows(n, r, M, 1, N * HP * WP * CP);
    conv_group(n, r, M, w[0], y, ldy, 0);
    return;
  }
  const ConvRows r0{x, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l, 0, gic};
  if (!pointwise && !uses_im2col(n)) prepare_conv_rows(n, r0, M, G, N * H * W * C);
  const int64_t group_work = M * KH * KW * gic * goc;
  if (G > 1 && !pointwise && static_cast<double>(group_work) < etk::parallel_min_flops()) {
    // Many groups each too small for igemm to split (RegNet's group width 8): the groups themselves are spread
    // over the pool, each one's GEMM on one thread.
    parallel_rows(G, group_work, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        ConvRows r = r0;
        r.coff = g * gic;
        conv_group(n, r, M, w[static_cast<size_t>(g)], y + g * goc, ldy, g, /*parallel=*/false);
      }
    });
    return;
  }
  for (int64_t g = 0; g < G; ++g) {
    const etk::PackedB& B = w[static_cast<size_t>(g)];
    float* yg = y + g * goc;
    if (pointwise && n.qb.N > 0) {
      etk::qgemm(M, x, C, n.qb, n.qlo, n.qhi, yg, ldy);
      continue;
    }
    if (pointwise) {  // a plain GEMM over the NHWC pixels
      etk::gemm_packed(M, x + g * gic, C, B, yg, ldy, n.out_min, n.out_max, true, &n.post);
      continue;
    }
    ConvRows r = r0;
    r.coff = g * gic;
    conv_group(n, r, M, B, yg, ldy, g);
  }
}

// The post-op over the whole output (rows of ld floats, as its second operand), for the depthwise kernels that
// take none.
void post_pass(const Node& n, float* y, int64_t total) {
  if (n.post.fn == nullptr) return;
  const float* o = n.post.other;
  parallel_rows(total, kElementwiseCost, [&](int64_t b, int64_t e) {
    n.post.fn(y + b, o != nullptr ? o + b : nullptr, e - b, n.post.lo, n.post.hi);
  });
}

// A fused Add's other operand for this call (fuse_activations): same shape as the output.
Error bind_post_input(const Graph& g, Node& n, const Shape& so) {
  if (n.post_input < 0) return Error::Ok;
  const Shape& s = g.shapes[static_cast<size_t>(n.post_input)];
  if (s != so) return node_fail(n, "the fused Add's other operand has a different shape from the output:", s, so);
  n.post.other = g.ptrs[static_cast<size_t>(n.post_input)];
  n.post.ld = so.empty() ? 1 : so.back();
  return Error::Ok;
}

void depthwise(Node& n, const Shape& si, const float* x, const float* w, const float* bias, const Shape& so, float* y) {
  const int64_t N = si[0], H = si[1], W = si[2], C = si[3], OH = so[1], OW = so[2], OC = so[3];
  const int64_t mult = OC / C, KH = n.kh, KW = n.kw;
  if (mult == 1 && C <= kZeroLen) {
    // Tap pointers per output pixel (zeros for padding), kept between calls like the convolutions' tables.
    const ConvRows r{x, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l, 0, C};
    const int64_t M = N * OH * OW;
    ensure_conv_table(n, r, M, 1);
    if (n.qmode == QMode::kRequant) {  // requantized as it stores
      etk::dwconv_indirect(M, KH * KW, C, n.table.data(), w, bias, y, n.qlo, n.qhi, true, n.requant.data(),
                           n.dequant_out);
    } else {
      etk::dwconv_indirect(M, KH * KW, C, n.table.data(), w, bias, y, n.out_min, n.out_max, true, nullptr, 0.f,
                           &n.post);
    }
    return;
  }
  // The kernels below store fp32 sums: requantized, then the post-op, over the whole output.
  auto finish = [&] {
    if (n.qmode == QMode::kRequant) requantize_output(n, y, N * OH * OW * OC);
    post_pass(n, y, N * OH * OW * OC);
  };
  if (mult == 1) {
    const etk::DwParams p{N, H, W, C, OH, OW, KH, KW, n.sh, n.sw, n.dh, n.dw, n.pad_t, n.pad_l};
    etk::dwconv_nhwc(p, x, w, bias, y, n.out_min, n.out_max);
    finish();
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
  finish();
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
  etk::aligned_vector<float>& cols = n.scratch;
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
  // One GEMM per batch (B [K, N], or [N, K] transposed); batches over the pool when they split evenly over its
  // threads (or are many) and there is enough work, else the GEMM itself may use the pool (3 attention heads on 2
  // threads would leave one thread idle a third of the time).
  const bool clamp = n.out_min > -INFINITY || n.out_max < INFINITY;
  const int64_t threads = std::max<int64_t>(1, executorch::extension::get_thread_count());
  const bool over_batches = batches > 1 && (batches % threads == 0 || batches >= 4 * threads) &&
                            static_cast<double>(batches * M) * N * K >= etk::parallel_min_flops();
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

// ---- quantized: the int8 GEMM (cpp/cpu qgemm.h) and 4-bit weights (qb4gemm.h)

const float* bias_data(const Graph& g, const Node& n) {
  return n.bias >= 0 ? g.values[static_cast<size_t>(n.bias)].data : nullptr;
}

// Integer weights the int8 GEMM takes: zero point 0, 8 or 4 bits.
bool int8_gemm_weights(const Value& w) { return w.q.zero_point == 0 && w.q.dtype != schema::DataType::qcint32; }

// u8 = q - qmin: the offset of the int8 GEMM's input bytes.
float int8_gemm_input_offset(const Graph& g, const Node& n) {
  const Quant& q = g.values[static_cast<size_t>(n.in[0])].q;
  return static_cast<float>(q.zero_point - q.qmin);
}

// etk::pack_qb from w's int8 bytes as loaded where it has them, else from its floats.
void pack_qb_of(const Value& w, int64_t K, int64_t N, int64_t rsb, int64_t csb, const float* bias, const float* scale,
                float a_offset, etk::PackedQB* out) {
  if (const int8_t* q = pending_int8(w)) return etk::pack_qb(K, N, q, rsb, csb, bias, scale, a_offset, out);
  std::vector<float> tmp;  // this layer's floats only
  etk::pack_qb(K, N, constant_floats(w, &tmp), rsb, csb, bias, scale, a_offset, out);
}

// Fully connected layers and ungrouped convolutions (OHWI filters: the rows' (ky, kx, ic) order) with int8 weights
// (zero point 0) run on the int8 GEMM, their requantization fused into it (kRequant, QuantKernels::pack_int8); a
// convolution's padding taps point at zeros, which the GEMM reads as the input's zero point.
void pack_fully_connected_int8(const Graph& g, Node& n) {
  const Value& w = g.values[static_cast<size_t>(n.filter)];
  if (w.dims.size() != 2 || !int8_gemm_weights(w)) return;
  const bool transposed = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t N = transposed ? w.dims[1] : w.dims[0];
  const int64_t K = numel_of(w.dims) / std::max<int64_t>(N, 1);
  if (N != static_cast<int64_t>(n.requant.size())) return;
  pack_qb_of(w, K, N, transposed ? N : 1, transposed ? 1 : K, bias_data(g, n), n.requant.data(),
             int8_gemm_input_offset(g, n), &n.qb);
}

bool winograd_q8_fits(const Graph& g, const Node& n);

void pack_conv2d_int8(const Graph& g, Node& n) {
  const Value& w = g.values[static_cast<size_t>(n.filter)];
  if (n.groups != 1 || w.dims.size() != 4 || !int8_gemm_weights(w)) return;
  const int64_t N = w.dims[0];
  const int64_t K = numel_of(w.dims) / std::max<int64_t>(N, 1);
  if (N != static_cast<int64_t>(n.requant.size())) return;
  const float* bias = bias_data(g, n);
  const float a_offset = int8_gemm_input_offset(g, n);
  if (winograd_q8_fits(g, n)) {
    // Transformed for int8 Winograd. n.qb gets the GEMM's sizes but no panels: it marks the node as on the int8
    // GEMM (its weights packed, its requantization fused) and carries the folded Converts' parameters
    // (fold_converts), which the Winograd path reads.
    const int8_t* q = pending_int8(w);
    std::vector<float> tmp;
    if (q != nullptr) {
      etk::pack_winograd_q8(n.gic, N, q, bias, n.requant.data(), &n.wino_q8);
    } else {
      etk::pack_winograd_q8(n.gic, N, constant_floats(w, &tmp), bias, n.requant.data(), &n.wino_q8);
    }
    n.qb.K = K;
    n.qb.Kp = (K + 3) / 4 * 4;
    n.qb.N = N;
    n.qb.Np = (N + 15) / 16 * 16;
    n.qb.a_offset = a_offset;
    return;
  }
  // (The node's kernel size is checked against the filter later, at prepare's shape pass: a damaged program may
  // disagree, so the padded filter is only built from a filter of the node's own kh x kw x gic.)
  if (conv_uses_padded_rows(n) && (n.kw * n.gic) % 4 != 0 && w.dims[1] == n.kh && w.dims[2] == n.kw &&
      w.dims[3] == n.gic) {
    std::vector<float> tmp;
    const float* wd = constant_floats(w, &tmp);
    // Filter rows of whole 4-byte groups: the OHWI filter with zero weights for channels gic .. cp - 1 (conv2d pads
    // the input to cp channels to match).
    const int64_t cp = (n.gic + 3) / 4 * 4, taps = int64_t{n.kh} * n.kw;
    std::vector<float> wp(static_cast<size_t>(N * taps * cp), 0.f);
    for (int64_t o = 0; o < N * taps; ++o) std::copy_n(wd + o * n.gic, n.gic, wp.begin() + o * cp);
    n.padded_c = static_cast<uint32_t>(cp);
    etk::pack_qb(taps * cp, N, wp.data(), 1, taps * cp, bias, n.requant.data(), a_offset, &n.qb);
    return;
  }
  pack_qb_of(w, K, N, 1, K, bias, n.requant.data(), a_offset, &n.qb);
}

// qd8 x qc8w (or qc4w) fully connected, fp32 out: the int8 GEMM with the rows' own offsets and scales
// (kDynamicGemm, QuantKernels::plan_dynamic).
bool plan_dynamic_fully_connected(Graph& g, Node& n) {
  if (n.filter < 0 || !etk::qgemm_available()) return false;
  const Value& x = g.values[static_cast<size_t>(n.in[0])];
  const Value& w = g.values[static_cast<size_t>(n.filter)];
  const Value& y = g.values[static_cast<size_t>(n.out)];
  const Value* b = n.bias >= 0 ? &g.values[static_cast<size_t>(n.bias)] : nullptr;
  if (x.q.kind != QKind::kDynamic || y.q.kind != QKind::kNone || !w.constant || w.q.kind != QKind::kChannel ||
      w.q.dtype == schema::DataType::qcint32 || w.dims.size() != 2 ||
      (b != nullptr && (b->q.kind != QKind::kNone || b->data == nullptr)))
    return false;
  const bool transposed = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t N = transposed ? w.dims[1] : w.dims[0], K = transposed ? w.dims[0] : w.dims[1];
  if ((transposed ? 1u : 0u) != w.q.channel_dim || static_cast<int64_t>(w.q.scales.size()) != N) return false;
  pack_qb_of(w, K, N, transposed ? N : 1, transposed ? 1 : K, nullptr, nullptr, 0.f, &n.qb);
  n.requant.assign(w.q.scales.begin(), w.q.scales.end());  // per output channel
  n.qmode = QMode::kDynamicGemm;
  return true;
}

// Blockwise 4-bit weights (dequantized to fp32 at load) kept 4-bit (QuantKernels::pack_4bit).
void pack_fully_connected_4bit(Graph& g, Node& n, const std::vector<int>& readers) {
  if (n.filter < 0 || n.qb.N > 0 || (n.flags & kFlagTransposeWeights)) return;
  Value& w = g.values[static_cast<size_t>(n.filter)];
  const Value* b = n.bias >= 0 ? &g.values[static_cast<size_t>(n.bias)] : nullptr;
  if (w.block_group <= 0 || w.data == nullptr || w.dims.size() != 2 || (b != nullptr && b->data == nullptr)) return;
  // Dynamically quantized inputs (8da4w) on the int8 kernel where the CPU has one; fp32 inputs, or no VNNI: the
  // float kernel on the dequantized rows.
  const bool dynamic = g.values[static_cast<size_t>(n.in[0])].q.kind == QKind::kDynamic;
  if (!etk::pack_qb4(w.dims[1], w.dims[0], w.data, w.block_scales.data(), w.block_group,
                     b != nullptr ? b->data : nullptr, &n.qb4, dynamic && etk::qb4_dynamic_available()))
    return;
  if (readers[static_cast<size_t>(n.filter)] != 1) return;
  // Only this node reads the fp32 copy: release it (the 4-bit weights are an eighth of its size).
  for (etk::aligned_vector<float>& o : g.owned) {
    if (o.data() != w.data) continue;
    etk::aligned_vector<float>().swap(o);
    w.data = nullptr;
    g.ptrs[static_cast<size_t>(n.filter)] = nullptr;
    break;
  }
}

}  // namespace

bool packed_at_prepare(const Node& n, int value) {
  if (n.qmode != QMode::kNone && n.qmode != QMode::kRequant && n.qmode != QMode::kDynamicGemm) return false;
  if ((value != n.filter && value != n.bias) || n.filter == n.bias || n.in[0] == value || n.post_input == value)
    return false;
  switch (n.kind) {
    case NodeKind::FullyConnected:
    case NodeKind::Conv2d:
      // The int8 GEMM's weights hold a requantizing node's bias too; a kDynamicGemm node adds its bias per call.
      if (n.qb.N > 0) return value == n.filter || n.qmode == QMode::kRequant;
      if (n.qb4.N > 0) return value == n.filter;
      return !n.packed.empty() || n.wino.OC > 0;
    case NodeKind::DepthwiseConv2d: return !n.dw_weights.empty();
    case NodeKind::ConvTranspose2d:  // its bias is added per call
      return value == n.filter && !n.packed.empty();
    default: return false;
  }
}

namespace {

// The rows' scales and offsets of a dynamically quantized input (per call), checked against its M rows.
Error dynamic_rows(const Graph& g, const Node& n, int64_t M, const Shape& si, const float** rs, const float** ro) {
  const std::vector<float>& s = g.row_scale[static_cast<size_t>(n.in[0])];
  const std::vector<float>& o = g.row_offset[static_cast<size_t>(n.in[0])];
  if (static_cast<int64_t>(s.size()) != M || static_cast<int64_t>(o.size()) != M)
    return node_fail(n, "dynamically quantized input rows differ from the weights' input channels:", si);
  *rs = s.data();
  *ro = o.data();
  return Error::Ok;
}

// A fully connected node with 4-bit weights (n.qb4.N > 0), on its (dequantized) fp32 input.
Error run_qb4(Graph& g, const Node& n, float* y) {
  const Shape& si = g.shapes[static_cast<size_t>(n.in[0])];
  const int64_t K = n.qb4.K, M = numel_of(si) / std::max<int64_t>(K, 1);
  if (si.empty() || si.back() != K) return node_fail(n, "input channels differ from the weights':", si);
  if (n.qb4.panels) {
    // The integers as the Convert left them (quant_inputs leaves this input as it is).
    const float *rs = nullptr, *ro = nullptr;
    ET_CHECK_OK_OR_RETURN_ERROR(dynamic_rows(g, n, M, si, &rs, &ro));
    etk::qb4_gemm_dynamic(M, g.ptrs[static_cast<size_t>(n.in[0])], K, ro, rs, n.qb4, y, n.qb4.N, n.out_min, n.out_max);
    return Error::Ok;
  }
  etk::qb4_gemm(M, g.ptrs[static_cast<size_t>(n.in[0])], K, n.qb4, y, n.qb4.N, n.out_min, n.out_max);
  return Error::Ok;
}

// A fully connected node packed for the int8 GEMM (n.qb.N > 0): a kRequant node's requantized output, or a
// kDynamicGemm node's fp32 one.
Error run_qgemm(Graph& g, const Node& n, float* y) {
  const Shape& si = g.shapes[static_cast<size_t>(n.in[0])];
  const int64_t K = n.qb.K, M = numel_of(si) / std::max<int64_t>(K, 1);
  if (si.empty() || si.back() != K) return node_fail(n, "input channels differ from the weights':", si);
  const float* x = g.ptrs[static_cast<size_t>(n.in[0])];
  if (n.qd8_input) {
    const float* bias = n.bias >= 0 ? g.ptrs[static_cast<size_t>(n.bias)] : nullptr;
    etk::qgemm_dynamic_f32(M, x, K, n.qb, n.requant.data(), bias, n.out_min, n.out_max, y, n.qb.N);
    return Error::Ok;
  }
  if (n.qmode == QMode::kDynamicGemm) {
    const float *rs = nullptr, *ro = nullptr;
    ET_CHECK_OK_OR_RETURN_ERROR(dynamic_rows(g, n, M, si, &rs, &ro));
    const float* bias = n.bias >= 0 ? g.ptrs[static_cast<size_t>(n.bias)] : nullptr;
    etk::qgemm_dynamic(M, x, K, ro, rs, n.qb, n.requant.data(), bias, n.out_min, n.out_max, y, n.qb.N);
    return Error::Ok;
  }
  etk::qgemm(M, x, K, n.qb, n.qlo, n.qhi, y, n.qb.N);
  return Error::Ok;
}

// ---- readers, shape rules, node kernels

Error read_fully_connected(const NodeReader& r, const schema::Node& xn, Node& n) {
  const auto* p = xn.node_as_FullyConnected();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, p));
  n.flags = p->flags();
  ET_CHECK_OK_OR_RETURN_ERROR(r.io(n, {p->input1_id(), p->filter_id()}, p->output_id()));
  n.filter = n.in[1];
  ET_CHECK_OK_OR_RETURN_ERROR(r.id(n, p->bias_id(), &n.bias, true));
  if (n.bias >= 0) n.in[n.nin++] = n.bias;
  return Error::Ok;
}

Error infer_fully_connected(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  const Shape& w = g.shapes[n.in[1]];
  if (a.empty() || w.size() != 2) return node_fail(n, "needs input rank >= 1 and a 2-D filter, got", a, w);
  const bool tr = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t k = tr ? w[0] : w[1], oc = tr ? w[1] : w[0];
  if (a.back() != k) return node_fail(n, "input and filter disagree:", a, w);
  if (n.bias >= 0 && numel_of(g.shapes[n.bias]) != oc) {
    return node_fail(n, "bias size differs from the output channels:", g.shapes[n.bias], w);
  }
  *out = a;
  out->back() = oc;
  return Error::Ok;
}

Error run_fully_connected(Graph& g, Node& n, const Shape& so, float* y) {
  if (n.qb.N > 0) return run_qgemm(g, n, y);  // packed for the int8 GEMM (quantized)
  if (n.qb4.N > 0) return run_qb4(g, n, y);   // weights kept 4-bit
  ET_CHECK_OK_OR_RETURN_ERROR(bind_post_input(g, n, so));
  const int64_t total = numel_of(so);
  const int64_t N = so.empty() ? 0 : so.back(), M = N > 0 ? total / N : 0;
  std::vector<etk::PackedB> tmp;
  etk::gemm_packed(M, g.ptrs[n.in[0]], g.shapes[n.in[0]].back(), weights_of<pack_fully_connected>(g, n, &tmp)[0], y, N,
                   n.out_min, n.out_max, true, &n.post);
  return Error::Ok;
}

// Conv2d, DepthwiseConv2d and ConvTranspose2d share the ConvNode table.
template <const schema::ConvNode* (schema::Node::*As)() const>
Error read_conv(const NodeReader& r, const schema::Node& xn, Node& n) {
  const schema::ConvNode* c = (xn.*As)();
  ET_CHECK_OK_OR_RETURN_ERROR(r.need(n, c));
  n.pad_t = c->padding_top();
  n.pad_r = c->padding_right();
  n.pad_b = c->padding_bottom();
  n.pad_l = c->padding_left();
  n.kh = c->kernel_height();
  n.kw = c->kernel_width();
  n.sh = c->subsampling_height();
  n.sw = c->subsampling_width();
  n.dh = c->dilation_height();
  n.dw = c->dilation_width();
  n.gic = c->group_input_channels();
  n.goc = c->group_output_channels();
  n.groups = c->groups();
  n.adj_h = c->adjustment_height();
  n.adj_w = c->adjustment_width();
  n.flags = c->flags();
  ET_CHECK_OK_OR_RETURN_ERROR(r.io(n, {c->input1_id()}, c->output_id()));
  ET_CHECK_OK_OR_RETURN_ERROR(r.id(n, c->filter_id(), &n.filter));
  ET_CHECK_OK_OR_RETURN_ERROR(r.id(n, c->bias_id(), &n.bias, true));
  n.in[n.nin++] = n.filter;
  if (n.bias >= 0) n.in[n.nin++] = n.bias;
  return Error::Ok;
}

// A convolution's input shape as NHWC (an NCHW input, nchw_input, seen through its transpose).
Shape conv_input_shape(const Graph& g, const Node& n) {
  const Shape& a = g.shapes[n.in[0]];
  if (!n.nchw_input || a.size() != 4) return a;
  return {a[0], a[2], a[3], a[1]};
}

// What the ConvNode kinds' shape rules share: the input (NHWC, *a) and the filter against the parameters, the output
// channels (*oc) and the bias. A depthwise filter is [1, KH, KW, OC], the others OHWI.
Error conv_channels(const Graph& g, const Node& n, bool depthwise, Shape* a, int64_t* oc) {
  *a = conv_input_shape(g, n);
  const Shape& w = g.shapes[n.in[1]];
  if (a->size() != 4 || w.size() != 4) return node_fail(n, "needs a 4-D NHWC input and a 4-D filter, got", *a, w);
  if (n.kh == 0 || n.kw == 0 || n.sh == 0 || n.sw == 0 || n.dh == 0 || n.dw == 0 || n.groups == 0 || n.gic == 0 ||
      n.goc == 0)
    return node_fail(n, "zero kernel size, stride, dilation, groups or channels");
  if (n.flags & kFlagSamePadding) return node_fail(n, "TensorFlow SAME padding is not supported");
  int64_t ic;
  if (depthwise) {
    if (n.goc % n.gic != 0) return node_fail(n, "output channels are not a multiple of input channels");
    ic = n.groups;
    *oc = int64_t{n.groups} * (n.goc / n.gic);
    if (w[0] != 1 || w[1] != n.kh || w[2] != n.kw || w[3] != *oc) {
      return node_fail(n, "depthwise filter shape does not match the parameters:", w);
    }
  } else {
    ic = int64_t{n.groups} * n.gic;
    *oc = int64_t{n.groups} * n.goc;
    if (w[0] != *oc || w[1] != n.kh || w[2] != n.kw || w[3] != n.gic) {
      return node_fail(n, "filter shape does not match the parameters:", w);
    }
  }
  if ((*a)[3] != ic) return node_fail(n, "input channels differ from the parameters:", *a, w);
  if (n.bias >= 0 && numel_of(g.shapes[n.bias]) != *oc) {
    return node_fail(n, "bias size differs from the output channels:", g.shapes[n.bias]);
  }
  return Error::Ok;
}

// Conv2d and DepthwiseConv2d: the window slides over the padded input.
template <bool Depthwise>
Error infer_conv(const Graph& g, const Node& n, Shape* out) {
  Shape a;
  int64_t oc = 0, oh = 0, ow = 0;
  ET_CHECK_OK_OR_RETURN_ERROR(conv_channels(g, n, Depthwise, &a, &oc));
  ET_CHECK_OK_OR_RETURN_ERROR(conv_out(n, a[1], n.pad_t, n.pad_b, n.kh, n.sh, n.dh, &oh));
  ET_CHECK_OK_OR_RETURN_ERROR(conv_out(n, a[2], n.pad_l, n.pad_r, n.kw, n.sw, n.dw, &ow));
  *out = {a[0], oh, ow, oc};
  return Error::Ok;
}

Error infer_conv_transpose(const Graph& g, const Node& n, Shape* out) {
  Shape a;
  int64_t oc = 0;
  ET_CHECK_OK_OR_RETURN_ERROR(conv_channels(g, n, false, &a, &oc));
  if (n.adj_h >= n.sh || n.adj_w >= n.sw) return node_fail(n, "adjustment not below the stride");
  const int64_t oh = int64_t{n.sh} * (a[1] - 1) + n.adj_h + (int64_t{n.kh} - 1) * n.dh + 1 - n.pad_t - n.pad_b;
  const int64_t ow = int64_t{n.sw} * (a[2] - 1) + n.adj_w + (int64_t{n.kw} - 1) * n.dw + 1 - n.pad_l - n.pad_r;
  if (a[1] < 1 || a[2] < 1 || oh < 1 || ow < 1) return node_fail(n, "padding larger than the output");
  *out = {a[0], oh, ow, oc};
  return Error::Ok;
}

Error run_conv2d(Graph& g, Node& n, const Shape& so, float* y) {
  ET_CHECK_OK_OR_RETURN_ERROR(bind_post_input(g, n, so));
  if (n.wino_q8.OC > 0) {  // int8 Winograd (pack_conv2d_int8), with the int8 GEMM's epilogue and folded Converts
    const Shape si = conv_input_shape(g, n);
    const etk::WinogradParams p{si[0], si[1], si[2], si[3], so[1], so[2], n.pad_t, n.pad_l};
    const etk::WinogradQ8Io io{n.qlo, n.qhi, n.qb.out_scale, n.qb.in_mult, n.qb.in_lo, n.qb.in_hi};
    etk::winograd_conv3x3_q8(p, g.ptrs[n.in[0]], n.wino_q8, y, n.out_stride > 0 ? n.out_stride : so[3], io);
    return Error::Ok;
  }
  if (n.wino.OC > 0) {  // packed for Winograd (prepare_conv2d)
    const Shape si = conv_input_shape(g, n);
    const etk::WinogradParams p{si[0], si[1], si[2], si[3], so[1], so[2], n.pad_t, n.pad_l};
    etk::winograd_conv3x3(p, g.ptrs[n.in[0]], n.wino, y, n.out_stride > 0 ? n.out_stride : so[3], n.out_min, n.out_max,
                          true, &n.post);
    return Error::Ok;
  }
  std::vector<etk::PackedB> tmp;
  if (n.qb.N > 0) tmp.resize(1);  // on the int8 GEMM: no fp32 weights
  conv2d(n, conv_input_shape(g, n), g.ptrs[n.in[0]], n.qb.N > 0 ? tmp : weights_of<pack_conv2d>(g, n, &tmp), so, y);
  return Error::Ok;
}

Error run_conv_transpose2d(Graph& g, Node& n, const Shape& so, float* y) {
  std::vector<etk::PackedB> tmp;
  deconv2d(n, g.shapes[n.in[0]], g.ptrs[n.in[0]], weights_of<pack_conv_transpose2d>(g, n, &tmp),
           n.bias >= 0 ? g.ptrs[n.bias] : nullptr, so, y);
  return Error::Ok;
}

int64_t depthwise_bias_offset(int64_t filter_numel) { return (filter_numel + 15) / 16 * 16; }

Error run_depthwise_conv2d(Graph& g, Node& n, const Shape& so, float* y) {
  ET_CHECK_OK_OR_RETURN_ERROR(bind_post_input(g, n, so));
  const float* w = g.ptrs[n.filter];
  const float* bias = n.bias >= 0 ? g.ptrs[n.bias] : nullptr;
  if (!n.dw_weights.empty()) {  // filter and bias copied at prepare (their loaded storage may be released)
    w = n.dw_weights.data();
    bias = n.bias >= 0 ? w + depthwise_bias_offset(numel_of(g.values[n.filter].dims)) : nullptr;
  }
  depthwise(n, g.shapes[n.in[0]], g.ptrs[n.in[0]], w, bias, so, y);
  return Error::Ok;
}

void align_depthwise_weights(const Graph& g, Node& n) {
  const Value& f = g.values[n.filter];
  const Value* b = n.bias >= 0 ? &g.values[n.bias] : nullptr;
  if (f.data == nullptr || (b != nullptr && b->data == nullptr)) return;
  const int64_t wn = numel_of(f.dims), at = depthwise_bias_offset(wn);
  n.dw_weights.assign(static_cast<size_t>(b != nullptr ? at + numel_of(b->dims) : wn), 0.f);
  std::copy(f.data, f.data + wn, n.dw_weights.begin());
  if (b != nullptr) std::copy(b->data, b->data + numel_of(b->dims), n.dw_weights.begin() + at);
}

// Constant filter and bias: packed once here instead of per call (weights_of).
template <PackFn Pack>
void pack_constant_weights(const Graph& g, Node& n) {
  if (g.values[n.filter].data == nullptr || (n.bias >= 0 && g.values[n.bias].data == nullptr)) return;
  Pack(n, g.values[n.filter].dims, g.values[n.filter].data, n.bias >= 0 ? g.values[n.bias].data : nullptr, &n.packed);
}

// Output tiles (4x4 pixels) per image from which a 3x3 convolution runs as Winograd F(4x4, 3x3): its GEMMs have
// tiles / threads rows, so smaller layers (ResNet's 7x7 stage: 4 tiles) keep the direct convolution, whose GEMM
// has a row per pixel. Also the channels: with few, the transforms outweigh the products saved.
constexpr int64_t kWinogradMinTiles = 16, kWinogradMinChannels = 16;

// EXECUTORCH_WINOGRAD=0 keeps every convolution direct (to compare the two); read once.
bool winograd_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("EXECUTORCH_WINOGRAD");
    return env == nullptr || std::string(env) != "0";
  }();
  return on;
}

// An fp32 3x3 convolution at stride 1, one group, on the NHWC input, large enough (above).
bool winograd_fits(const Graph& g, const Node& n) {
  if (n.groups != 1 || n.kh != 3 || n.kw != 3 || n.sh != 1 || n.sw != 1 || n.dh != 1 || n.dw != 1 || n.nchw_input ||
      n.qmode != QMode::kNone || n.gic < kWinogradMinChannels || n.goc < kWinogradMinChannels ||
      conv_uses_padded_rows(n) || !winograd_enabled())
    return false;
  const Shape& so = g.shapes[static_cast<size_t>(n.out)];
  return so.size() == 4 && ((so[1] + 3) / 4) * ((so[2] + 3) / 4) >= kWinogradMinTiles;
}

// Output tiles (2x2 pixels) from which a static int8 3x3 convolution runs as int8 Winograd F(2x2, 3x3): 12 x 12
// outputs and up. Its transformed weights take 32 bytes per channel pair against the direct GEMM's 9: ResNet-18's
// 7x7 stage (16 tiles, two thirds of the weights) would gain 1.25x on two threads (1.8x on one) for 25 MB more.
constexpr int64_t kWinogradQ8MinTiles = 36;

// A static int8 3x3 convolution (kRequant, int8 filter of this node's own 3 x 3 x gic) at stride 1, one group, on
// the NHWC input, where the CPU's int8 GEMM multiplies 16-bit pairs (no int8 dot products), on its serialized output
// shape (planned before the shapes are run).
bool winograd_q8_fits(const Graph& g, const Node& n) {
  const Value& w = g.values[static_cast<size_t>(n.filter)];
  if (n.groups != 1 || n.kh != 3 || n.kw != 3 || n.sh != 1 || n.sw != 1 || n.dh != 1 || n.dw != 1 || n.nchw_input ||
      n.qmode != QMode::kRequant || n.gic < kWinogradMinChannels || n.goc < kWinogradMinChannels ||
      conv_uses_padded_rows(n) || !winograd_enabled() || !etk::winograd_q8_available() ||
      etk::int8_dot_products_available() || w.dims.size() != 4 || w.dims[1] != 3 || w.dims[2] != 3 ||
      w.dims[3] != n.gic)
    return false;
  const Shape& so = g.values[static_cast<size_t>(n.out)].dims;
  return so.size() == 4 && ((so[1] + 1) / 2) * ((so[2] + 1) / 2) >= kWinogradQ8MinTiles;
}

// Conv2d's constant weights: transformed for Winograd where it fits, else packed for the direct GEMM.
void prepare_conv2d(const Graph& g, Node& n) {
  const Value* b = n.bias >= 0 ? &g.values[static_cast<size_t>(n.bias)] : nullptr;
  const Value& f = g.values[static_cast<size_t>(n.filter)];
  if (f.data != nullptr && (b == nullptr || b->data != nullptr) && winograd_fits(g, n)) {
    etk::pack_winograd(n.gic, n.goc, f.data, b != nullptr ? b->data : nullptr, &n.wino);
    return;
  }
  pack_constant_weights<pack_conv2d>(g, n);
}

Error infer_bmm(const Graph& g, const Node& n, Shape* out) {
  const Shape& a = g.shapes[n.in[0]];
  const Shape& b = g.shapes[n.in[1]];
  if (a.size() < 2 || b.size() < 2) return node_fail(n, "needs inputs of rank >= 2:", a, b);
  const bool tr = (n.flags & kFlagTransposeWeights) != 0;
  const int64_t m = a[a.size() - 2], k = a.back();
  const int64_t kb = tr ? b.back() : b[b.size() - 2], nn = tr ? b[b.size() - 2] : b.back();
  if (k != kb) return node_fail(n, "inner dimensions differ:", a, b);
  const size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  out->assign(r + 2, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t x = i < r - ra ? 1 : a[i - (r - ra)];
    const int64_t y = i < r - rb ? 1 : b[i - (r - rb)];
    if (x != y && x != 1 && y != 1) return node_fail(n, "batch dims do not broadcast:", a, b);
    (*out)[i] = x == 1 ? y : x;
  }
  (*out)[r] = m;
  (*out)[r + 1] = nn;
  return Error::Ok;
}

Error run_bmm(Graph& g, Node& n, const Shape& so, float* y) {
  bmm(n, g.shapes[n.in[0]], g.ptrs[n.in[0]], g.shapes[n.in[1]], g.ptrs[n.in[1]], so, y);
  return Error::Ok;
}

// kind, reader, shape rule, fp32 kernel, prepare (weight packing), traits, quantized kernels (node_table.h)
constexpr NodeKindDef kKinds[] = {
    {NodeKind::FullyConnected,
     read_fully_connected,
     infer_fully_connected,
     run_fully_connected,
     pack_constant_weights<pack_fully_connected>,
     kRequantizes,
     {/*plan_integer=*/nullptr, /*run_integer=*/nullptr, plan_dynamic_fully_connected, pack_fully_connected_int8,
      pack_fully_connected_4bit}},
    {NodeKind::Conv2d,
     read_conv<&schema::Node::node_as_Conv2d>,
     infer_conv</*Depthwise=*/false>,
     run_conv2d,
     prepare_conv2d,
     kRequantizes,
     {/*plan_integer=*/nullptr, /*run_integer=*/nullptr, /*plan_dynamic=*/nullptr, pack_conv2d_int8}},
    {NodeKind::DepthwiseConv2d, read_conv<&schema::Node::node_as_DepthwiseConv2d>, infer_conv</*Depthwise=*/true>,
     run_depthwise_conv2d, align_depthwise_weights, kRequantizes | kRequantizesInKernel},
    {NodeKind::ConvTranspose2d, read_conv<&schema::Node::node_as_ConvTranspose2d>, infer_conv_transpose,
     run_conv_transpose2d, pack_constant_weights<pack_conv_transpose2d>, kRequantizes},
    {NodeKind::BatchMatrixMultiply, read_node2x1, infer_bmm, run_bmm, nullptr},
};

}  // namespace

NodeKindList gemm_node_kinds() { return {kKinds, std::size(kKinds)}; }

void absorb_input_transposes(Graph& g) {
  const ValueUse use = value_use(g);
  const std::vector<int>&readers = use.readers, &producer = use.producer;
  // The transpose moves values without changing them: both fp32, or both quantized per tensor alike (the
  // convolution then reads the transpose's input with the same parameters as its output; a quantized program's
  // image stem).
  auto same_values = [&](int a, int b) {
    const Quant &qa = g.values[static_cast<size_t>(a)].q, &qb = g.values[static_cast<size_t>(b)].q;
    return qa.kind == QKind::kNone ? qb.kind == QKind::kNone : same_static_quant(qa, qb);
  };
  std::vector<bool> drop(g.nodes.size(), false);
  for (Node& c : g.nodes) {
    if (c.kind != NodeKind::Conv2d || c.nin < 1 || !conv_uses_padded_rows(c)) continue;
    const int v = c.in[0];
    const Value& val = g.values[static_cast<size_t>(v)];
    if (readers[static_cast<size_t>(v)] != 1 || val.is_output || val.external_id >= 0 ||
        producer[static_cast<size_t>(v)] < 0)
      continue;
    const size_t ti = static_cast<size_t>(producer[static_cast<size_t>(v)]);
    const Node& t = g.nodes[ti];
    const std::vector<uint32_t> to_nhwc{0, 2, 3, 1};
    if (t.kind != NodeKind::StaticTranspose || t.nin != 1 || t.has_min_max || t.v1 != to_nhwc || t.in[0] < 0 ||
        !same_values(t.in[0], v))
      continue;
    c.in[0] = t.in[0];
    c.nchw_input = true;
    drop[ti] = true;
  }
  remove_nodes(g, drop);
}

}  // namespace etxnn
