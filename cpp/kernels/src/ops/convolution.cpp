// convolution (1-D / 2-D, grouped, depthwise, transposed). fp32, NCHW compute (other dim orders are converted on
// the way in and out).
#include "conv_util.h"
#include "gemm.h"

#include <algorithm>
#include <cstring>

namespace etk {
namespace {

void im2col(const float* x, int64_t C, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
            int64_t pw, int64_t dh, int64_t dw, int64_t Ho, int64_t Wo, float* col) {
  const int64_t rows = C * kh * kw;
  auto body = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / (kh * kw), i = (r / kw) % kh, j = r % kw;
      const float* xc = x + c * H * W;
      float* dst = col + r * Ho * Wo;
      for (int64_t oh = 0; oh < Ho; ++oh) {
        const int64_t ih = oh * sh - ph + i * dh;
        float* d = dst + oh * Wo;
        if (ih < 0 || ih >= H) {
          for (int64_t ow = 0; ow < Wo; ++ow) d[ow] = 0.f;
          continue;
        }
        const float* xr = xc + ih * W;
        const int64_t off = j * dw - pw;
        if (sw == 1) {
          for (int64_t ow = 0; ow < Wo; ++ow) {
            const int64_t iw = ow + off;
            d[ow] = (iw >= 0 && iw < W) ? xr[iw] : 0.f;
          }
        } else {
          for (int64_t ow = 0; ow < Wo; ++ow) {
            const int64_t iw = ow * sw + off;
            d[ow] = (iw >= 0 && iw < W) ? xr[iw] : 0.f;
          }
        }
      }
    }
  };
  if (rows * Ho * Wo < kParallelGrain)
    body(0, rows);
  else
    ::executorch::extension::parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / (Ho * Wo + 1)), body);
}

// Scratch floats: from the method's temp allocator when it has room, else from *fallback.
float* scratch_floats(KernelRuntimeContext& ctx, int64_t n, std::vector<float>* fallback) {
  if (n <= 0) return nullptr;
  auto r = ctx.allocate_temp(static_cast<size_t>(n) * sizeof(float), 64);
  if (r.ok()) return static_cast<float*>(r.get());
  fallback->resize(static_cast<size_t>(n));
  return fallback->data();
}

// Depthwise taps of one padded input plane (row pitch Wp) into one output plane that already holds the bias.
// KH x KW kernel, width stride SW, unit dilation, height stride sh.
template <int KH, int KW, int SW>
inline __attribute__((always_inline)) void dw_plane_impl(const float* xp, int64_t Wp, const float* wk, int64_t sh,
                                                         int64_t Ho, int64_t Wo, float* y) {
  float w[KH * KW];
  for (int t = 0; t < KH * KW; ++t) w[t] = wk[t];
  for (int64_t oh = 0; oh < Ho; ++oh) {
    const float* r = xp + oh * sh * Wp;
    float* __restrict yr = y + oh * Wo;
    for (int64_t ow = 0; ow < Wo; ++ow) {
      float acc = yr[ow];
      for (int i = 0; i < KH; ++i)
        for (int j = 0; j < KW; ++j) acc += w[i * KW + j] * r[i * Wp + ow * SW + j];
      yr[ow] = acc;
    }
  }
}

using DwFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int64_t, float*);

template <int KH, int KW, int SW>
void dw_plane_base(const float* xp, int64_t Wp, const float* wk, int64_t sh, int64_t Ho, int64_t Wo, float* y) {
  dw_plane_impl<KH, KW, SW>(xp, Wp, wk, sh, Ho, Wo, y);
}
#if defined(__x86_64__) || defined(__i386__)
template <int KH, int KW, int SW>
__attribute__((target("avx2,fma"))) void dw_plane_avx2(const float* xp, int64_t Wp, const float* wk, int64_t sh,
                                                       int64_t Ho, int64_t Wo, float* y) {
  dw_plane_impl<KH, KW, SW>(xp, Wp, wk, sh, Ho, Wo, y);
}
bool has_avx2() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return v;
}
#endif

template <int KH, int KW, int SW>
DwFn dw_pick() {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return dw_plane_avx2<KH, KW, SW>;
#endif
  return dw_plane_base<KH, KW, SW>;
}

// A specialized depthwise plane kernel for this geometry, or nullptr.
DwFn dw_kernel(int64_t kh, int64_t kw, int64_t sw) {
  if (sw != 1 && sw != 2) return nullptr;
  const bool s1 = sw == 1;
  if (kh == 3 && kw == 3) return s1 ? dw_pick<3, 3, 1>() : dw_pick<3, 3, 2>();
  if (kh == 5 && kw == 5) return s1 ? dw_pick<5, 5, 1>() : dw_pick<5, 5, 2>();
  if (kh == 1 && kw == 3) return s1 ? dw_pick<1, 3, 1>() : dw_pick<1, 3, 2>();
  if (kh == 1 && kw == 5) return s1 ? dw_pick<1, 5, 1>() : dw_pick<1, 5, 2>();
  if (kh == 7 && kw == 7) return s1 ? dw_pick<7, 7, 1>() : dw_pick<7, 7, 2>();
  return nullptr;
}

// The geometry of one call, normalized to 2-D (1-D: H = 1), as convolution_out's arguments give it.
struct ConvGeometry {
  int nd = 0;  // the input's rank (3 or 4)
  int sp = 0;  // spatial dims (1 or 2)
  bool transposed = false;
  int64_t N = 0, Cin = 0, H = 1, W = 0, kh = 1, kw = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, oph = 0, opw = 0;
  int64_t groups = 1, Cig = 0, Cog = 0, Cout = 0, Ho = 0, Wo = 0;
};

// Reads the arguments and applies the shape rule; false after failing ctx.
bool conv_setup(KernelRuntimeContext& ctx, Args args, const Tensor** px, const Tensor** pw_, const Tensor** pbias,
                const Tensor** pout, ConvGeometry* g) {
  if (!check_nargs(ctx, args, 10)) return false;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor* w = x ? arg_tensor(ctx, args, 1) : nullptr;
  if (!w) return false;
  const Tensor* bias = nullptr;
  if (!arg_opt_tensor(ctx, args, 2, &bias)) return false;
  std::vector<int64_t> stride_v, pad_v, dil_v, opad_v;
  bool transposed;
  int64_t groups;
  if (!arg_int_list(ctx, args, 3, &stride_v) || !arg_int_list(ctx, args, 4, &pad_v) ||
      !arg_int_list(ctx, args, 5, &dil_v) || !arg_bool(ctx, args, 6, &transposed) ||
      !arg_int_list(ctx, args, 7, &opad_v) || !arg_int(ctx, args, 8, &groups))
    return false;
  const Tensor* out = arg_tensor(ctx, args, 9);
  if (!out) return false;
  *px = x;
  *pw_ = w;
  *pbias = bias;
  *pout = out;
  if (x->scalar_type() != ScalarType::Float || w->scalar_type() != ScalarType::Float ||
      out->scalar_type() != ScalarType::Float || (bias && bias->scalar_type() != ScalarType::Float)) {
    fail(ctx, Error::InvalidType,
         "input, weight, bias, out (arguments 0, 1, 2, 9) have dtypes %s, %s, %s, %s; expected Float",
         dtype_name(x->scalar_type()), dtype_name(w->scalar_type()), bias ? dtype_name(bias->scalar_type()) : "None",
         dtype_name(out->scalar_type()));
    return false;
  }
  const int nd = static_cast<int>(x->dim());
  if (nd == 5) {
    fail(ctx, Error::NotSupported, "argument 0 (input) is 5-d: 3-D convolution is not supported");
    return false;
  }
  if ((nd != 3 && nd != 4) || w->dim() != nd) {
    fail(ctx, Error::InvalidArgument,
         "argument 0 (input) is %d-d, argument 1 (weight) %d-d: expected both 3-d or both 4-d", nd,
         static_cast<int>(w->dim()));
    return false;
  }
  const int sp = nd - 2;
  int64_t s2[2], p2[2], d2[2], op2[2];
  if (!expand_param(stride_v, sp, 1, s2) || !expand_param(pad_v, sp, 0, p2) || !expand_param(dil_v, sp, 1, d2) ||
      !expand_param(opad_v, sp, 0, op2)) {
    fail(ctx, Error::InvalidArgument,
         "stride %s, padding %s, dilation %s, output_padding %s (arguments 3, 4, 5, 7): expected 1 or %d entries each",
         lst(stride_v).c_str(), lst(pad_v).c_str(), lst(dil_v).c_str(), lst(opad_v).c_str(), sp);
    return false;
  }
  ConvGeometry& c = *g;
  c.nd = nd;
  c.sp = sp;
  c.transposed = transposed;
  c.groups = groups;
  if (sp == 2) {
    c.sh = s2[0];
    c.sw = s2[1];
    c.ph = p2[0];
    c.pw = p2[1];
    c.dh = d2[0];
    c.dw = d2[1];
    c.oph = op2[0];
    c.opw = op2[1];
  } else {
    c.sw = s2[0];
    c.pw = p2[0];
    c.dw = d2[0];
    c.opw = op2[0];
  }
  if (!in_range(c.sh, 1, kMaxParam) || !in_range(c.sw, 1, kMaxParam) || !in_range(c.dh, 1, kMaxParam) ||
      !in_range(c.dw, 1, kMaxParam) || !in_range(c.ph, 0, kMaxParam) || !in_range(c.pw, 0, kMaxParam) ||
      !in_range(c.oph, 0, kMaxParam) || !in_range(c.opw, 0, kMaxParam) || !in_range(groups, 1, kMaxSize)) {
    fail(ctx, Error::InvalidArgument,
         "stride %s, padding %s, dilation %s, output_padding %s or groups %lld (arguments 3-5, 7, 8) is out of range",
         lst(stride_v).c_str(), lst(pad_v).c_str(), lst(dil_v).c_str(), lst(opad_v).c_str(), ll(groups));
    return false;
  }
  c.N = x->size(0);
  c.Cin = x->size(1);
  c.H = sp == 2 ? x->size(2) : 1;
  c.W = x->size(nd - 1);
  c.kh = sp == 2 ? w->size(2) : 1;
  c.kw = w->size(nd - 1);
  if (c.Cin % groups != 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 (input) has %lld channels, not divisible by groups %lld (argument 8)",
         ll(c.Cin), ll(groups));
    return false;
  }
  c.Cig = c.Cin / groups;
  if (!transposed) {
    c.Cout = w->size(0);
    if (c.Cout % groups != 0 || w->size(1) != c.Cig) {
      fail(ctx, Error::InvalidArgument,
           "argument 1 (weight) has shape %s, expected [C_out, C_in/groups, ...] with C_out divisible by %lld, "
           "C_in/groups = %lld",
           shape_string(*w).c_str(), ll(groups), ll(c.Cig));
      return false;
    }
    c.Cog = c.Cout / groups;
  } else {
    if (w->size(0) != c.Cin) {
      fail(ctx, Error::InvalidArgument,
           "argument 1 (weight) has shape %s, expected [C_in, C_out/groups, ...] with C_in = %lld (transposed)",
           shape_string(*w).c_str(), ll(c.Cin));
      return false;
    }
    c.Cog = w->size(1);
    c.Cout = c.Cog * groups;
    if (c.Cout > kMaxSize) {
      fail(ctx, Error::InvalidArgument,
           "argument 1 (weight) has shape %s: %lld output channels * groups %lld is too many", shape_string(*w).c_str(),
           ll(c.Cog), ll(groups));
      return false;
    }
    if (c.oph >= std::max(c.sh, c.dh) || c.opw >= std::max(c.sw, c.dw)) {
      fail(ctx, Error::InvalidArgument,
           "output_padding %s (argument 7) must be smaller than the stride or the dilation", lst(opad_v).c_str());
      return false;
    }
  }
  if (bias && bias->numel() != c.Cout) {
    fail(ctx, Error::InvalidArgument, "argument 2 (bias) has %lld elements, expected C_out = %lld", ll(bias->numel()),
         ll(c.Cout));
    return false;
  }
  if (c.kh <= 0 || c.kw <= 0) {
    fail(ctx, Error::InvalidArgument, "argument 1 (weight) has shape %s: an empty kernel", shape_string(*w).c_str());
    return false;
  }
  if (!transposed) {
    const int64_t nh = c.H + 2 * c.ph - c.dh * (c.kh - 1) - 1, nw = c.W + 2 * c.pw - c.dw * (c.kw - 1) - 1;
    if (nh < 0 || nw < 0) {
      fail(ctx, Error::InvalidArgument,
           "the padded input (argument 0, shape %s) is smaller than the dilated kernel %lldx%lld",
           shape_string(*x).c_str(), ll(c.dh * (c.kh - 1) + 1), ll(c.dw * (c.kw - 1) + 1));
      return false;
    }
    c.Ho = nh / c.sh + 1;
    c.Wo = nw / c.sw + 1;
  } else {
    c.Ho = (c.H - 1) * c.sh - 2 * c.ph + c.dh * (c.kh - 1) + c.oph + 1;
    c.Wo = (c.W - 1) * c.sw - 2 * c.pw + c.dw * (c.kw - 1) + c.opw + 1;
    if (c.Ho <= 0 || c.Wo <= 0) {
      fail(ctx, Error::InvalidArgument, "the transposed convolution's output %lldx%lld is empty", ll(c.Ho), ll(c.Wo));
      return false;
    }
  }
  if (c.Ho > kMaxSize || c.Wo > kMaxSize) {
    fail(ctx, Error::InvalidArgument, "the output %lldx%lld is too large", ll(c.Ho), ll(c.Wo));
    return false;
  }
  return true;
}

// Runs `body` over [0, total) on the pool when total * per reaches `min_work`.
template <typename F>
void split_work(int64_t total, int64_t per, int64_t min_work, const F& body) {
  if (total * per < min_work)
    body(0, total);
  else
    ::executorch::extension::parallel_for(0, total, std::max<int64_t>(1, kParallelGrain / (per + 1)), body);
}

// Depthwise with a specialized tap kernel over zero-padded input planes.
void conv_depthwise_taps(KernelRuntimeContext& ctx, const ConvGeometry& g, DwFn dwk, const float* xp, const float* wp,
                         float* yp) {
  const int64_t HWi = g.H * g.W, HWo = g.Ho * g.Wo;
  const int64_t Hp = g.H + 2 * g.ph, Wp = g.W + 2 * g.pw, HWp = Hp * Wp;
  const bool padded = g.ph > 0 || g.pw > 0;
  std::vector<float> pad_store;
  const float* src = xp;
  if (padded) {
    float* pb = scratch_floats(ctx, g.N * g.Cin * HWp, &pad_store);
    for (int64_t t = 0; t < g.N * g.Cin; ++t) {
      const float* xc = xp + t * HWi;
      float* pc = pb + t * HWp;
      for (int64_t r = 0; r < g.ph * Wp; ++r) pc[r] = 0.f;
      for (int64_t ih = 0; ih < g.H; ++ih) {
        float* pr = pc + (ih + g.ph) * Wp;
        for (int64_t c = 0; c < g.pw; ++c) pr[c] = 0.f;
        std::memcpy(pr + g.pw, xc + ih * g.W, static_cast<size_t>(g.W) * sizeof(float));
        for (int64_t c = g.pw + g.W; c < Wp; ++c) pr[c] = 0.f;
      }
      for (int64_t r = (g.H + g.ph) * Wp; r < HWp; ++r) pc[r] = 0.f;
    }
    src = pb;
  }
  split_work(g.N * g.Cout, HWo * g.kh * g.kw, 4 * kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t n = t / g.Cout, oc = t % g.Cout, ic = oc / g.Cog;
      dwk(src + (n * g.Cin + ic) * (padded ? HWp : HWi), padded ? Wp : g.W, wp + oc * g.kh * g.kw, g.sh, g.Ho, g.Wo,
          yp + t * HWo);
    }
  });
}

// Depthwise (with channel multiplier Cog): direct loops.
void conv_depthwise_direct(const ConvGeometry& g, const float* xp, const float* wp, float* yp) {
  const int64_t HWi = g.H * g.W, HWo = g.Ho * g.Wo;
  const int64_t kh = g.kh, kw = g.kw, sh = g.sh, sw = g.sw, ph = g.ph, pw = g.pw, dh = g.dh, dw = g.dw;
  const int64_t H = g.H, W = g.W, Ho = g.Ho, Wo = g.Wo;
  split_work(g.N * g.Cout, HWo * kh * kw, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t n = t / g.Cout, oc = t % g.Cout, ic = oc / g.Cog;
      const float* xc = xp + (n * g.Cin + ic) * HWi;
      const float* wk = wp + oc * kh * kw;
      float* y = yp + t * HWo;
      for (int64_t i = 0; i < kh; ++i) {
        for (int64_t j = 0; j < kw; ++j) {
          const float wv = wk[i * kw + j];
          for (int64_t oh = 0; oh < Ho; ++oh) {
            const int64_t ih = oh * sh - ph + i * dh;
            if (ih < 0 || ih >= H) continue;
            const float* xr = xc + ih * W;
            float* yr = y + oh * Wo;
            // Valid ow range: 0 <= ow*sw - pw + j*dw < W.
            const int64_t off = j * dw - pw;
            int64_t ow0 = off >= 0 ? 0 : (-off + sw - 1) / sw;
            int64_t ow1 = (W - 1 - off) >= 0 ? (W - 1 - off) / sw + 1 : 0;
            ow1 = std::min(ow1, Wo);
            if (sw == 1) {
              const float* xs2 = xr + off;
              for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xs2[ow];
            } else {
              for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow * sw + off];
            }
          }
        }
      }
    }
  });
}

// Grouped or plain: im2col (skipped for 1x1 stride-1 unpadded kernels), then one GEMM per image and group.
void conv_gemm(KernelRuntimeContext& ctx, const ConvGeometry& g, const float* xp, const float* wp, float* yp) {
  const int64_t HWi = g.H * g.W, HWo = g.Ho * g.Wo;
  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  const int64_t Kdim = g.Cig * g.kh * g.kw;
  std::vector<float> col_store;
  float* col = pointwise ? nullptr : scratch_floats(ctx, Kdim * HWo, &col_store);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const float* xg = xp + (n * g.Cin + gr * g.Cig) * HWi;
      const float* B = xg;
      if (!pointwise) {
        im2col(xg, g.Cig, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo, col);
        B = col;
      }
      const float* A = wp + gr * g.Cog * Kdim;
      float* C = yp + (n * g.Cout + gr * g.Cog) * HWo;
      sgemm(g.Cog, HWo, Kdim, 1.f, A, Kdim, 1, B, HWo, 1, 1.f, C, HWo, 1, true);
    }
  }
}

// Transposed: col = W_g^T x_g, then scatter-add (col2im).
void conv_transposed(const ConvGeometry& g, const float* xp, const float* wp, float* yp) {
  const int64_t HWi = g.H * g.W, HWo = g.Ho * g.Wo;
  const int64_t kh = g.kh, kw = g.kw, H = g.H, W = g.W, Ho = g.Ho, Wo = g.Wo;
  const int64_t Kdim = g.Cog * kh * kw;
  std::vector<float> col(static_cast<size_t>(Kdim * HWi));
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const float* xg = xp + (n * g.Cin + gr * g.Cig) * HWi;
      const float* A = wp + gr * g.Cig * Kdim;  // [Cig, Kdim]; we need A^T: (i, k) -> A[k * Kdim + i]
      sgemm(Kdim, HWi, g.Cig, 1.f, A, 1, Kdim, xg, HWi, 1, 0.f, col.data(), HWi, 1, true);
      float* y = yp + (n * g.Cout + gr * g.Cog) * HWo;
      auto body = [&](int64_t c0, int64_t c1) {
        for (int64_t oc = c0; oc < c1; ++oc) {
          float* yc = y + oc * HWo;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const float* cr = col.data() + ((oc * kh + i) * kw + j) * HWi;
              for (int64_t ih = 0; ih < H; ++ih) {
                const int64_t oh = ih * g.sh - g.ph + i * g.dh;
                if (oh < 0 || oh >= Ho) continue;
                for (int64_t iw = 0; iw < W; ++iw) {
                  const int64_t ow = iw * g.sw - g.pw + j * g.dw;
                  if (ow < 0 || ow >= Wo) continue;
                  yc[oh * Wo + ow] += cr[ih * W + iw];
                }
              }
            }
        }
      };
      ::executorch::extension::parallel_for(0, g.Cog, 1, body);
    }
  }
}

}  // namespace

ET_KERNEL_OP("aten::convolution.out", convolution_out,
             "(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool "
             "transposed, SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)")
void convolution_out(KernelRuntimeContext& ctx, Args args) {
  const Tensor *x = nullptr, *w = nullptr, *bias = nullptr, *out = nullptr;
  ConvGeometry g;
  if (!conv_setup(ctx, args, &x, &w, &bias, &out, &g)) return;
  Shape os;
  os.ndim = g.nd;
  os.d[0] = g.N;
  os.d[1] = g.Cout;
  if (g.sp == 2) {
    os.d[2] = g.Ho;
    os.d[3] = g.Wo;
  } else {
    os.d[2] = g.Wo;
  }
  if (!resize_out(ctx, *out, os)) return;
  if (out->numel() == 0) return;
  std::vector<float> xs, ws;
  const float* xp = x->numel() > 0 ? contiguous_float(*x, &xs) : nullptr;
  const float* wp = w->numel() > 0 ? contiguous_float(*w, &ws) : nullptr;
  ContigOut co(*out);
  float* yp = co.ptr;
  const float* bp = nullptr;
  std::vector<float> bs;
  if (bias) bp = contiguous_float(*bias, &bs);
  // Start from the bias (or zero).
  const int64_t HWo = g.Ho * g.Wo;
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.Cout; ++c) {
      float* y = yp + (n * g.Cout + c) * HWo;
      const float v = bp ? bp[c] : 0.f;
      for (int64_t i = 0; i < HWo; ++i) y[i] = v;
    }
  if (x->numel() > 0 && w->numel() > 0) {
    if (g.transposed) {
      conv_transposed(g, xp, wp, yp);
    } else if (const DwFn dwk = g.Cig == 1 && g.dh == 1 && g.dw == 1 ? dw_kernel(g.kh, g.kw, g.sw) : nullptr) {
      conv_depthwise_taps(ctx, g, dwk, xp, wp, yp);
    } else if (g.Cig == 1) {
      conv_depthwise_direct(g, xp, wp, yp);
    } else {
      conv_gemm(ctx, g, xp, wp, yp);
    }
  }
  co.finish();
}

}  // namespace etk
