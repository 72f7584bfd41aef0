// Convolution (1-D / 2-D, grouped, depthwise, transposed) and 2-D pooling. fp32, NCHW compute (other dim
// orders are converted on the way in and out).
#include "gemm.h"
#include "kernel_utils.h"
#include "ops.h"

#include <algorithm>
#include <cstring>

namespace etk {
namespace {

// Expands a 1- or n-element int list to n spatial values.
bool expand_param(const std::vector<int64_t>& v, int n, int64_t dflt, int64_t* out) {
  if (v.empty()) {
    for (int i = 0; i < n; ++i) out[i] = dflt;
    return true;
  }
  if (v.size() == 1) {
    for (int i = 0; i < n; ++i) out[i] = v[0];
    return true;
  }
  if (static_cast<int>(v.size()) != n) return false;
  for (int i = 0; i < n; ++i) out[i] = v[i];
  return true;
}

constexpr int64_t kMaxParam = 1 << 20;

long long ll(int64_t v) { return static_cast<long long>(v); }
std::string lst(const std::vector<int64_t>& v) { return shape_string(v.data(), static_cast<int>(v.size())); }

bool in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

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

}  // namespace

// convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation,
//                 bool transposed, SymInt[] output_padding, SymInt groups, *, Tensor(a!) out)
void convolution_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 10)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor* w = x ? arg_tensor(ctx, args, 1) : nullptr;
  if (!w) return;
  const Tensor* bias = nullptr;
  if (!arg_opt_tensor(ctx, args, 2, &bias)) return;
  std::vector<int64_t> stride_v, pad_v, dil_v, opad_v;
  bool transposed;
  int64_t groups;
  if (!arg_int_list(ctx, args, 3, &stride_v) || !arg_int_list(ctx, args, 4, &pad_v) ||
      !arg_int_list(ctx, args, 5, &dil_v) || !arg_bool(ctx, args, 6, &transposed) ||
      !arg_int_list(ctx, args, 7, &opad_v) || !arg_int(ctx, args, 8, &groups))
    return;
  const Tensor* out = arg_tensor(ctx, args, 9);
  if (!out) return;
  if (x->scalar_type() != ScalarType::Float || w->scalar_type() != ScalarType::Float ||
      out->scalar_type() != ScalarType::Float || (bias && bias->scalar_type() != ScalarType::Float))
    return fail(ctx, Error::InvalidType,
                "input, weight, bias, out (arguments 0, 1, 2, 9) have dtypes %s, %s, %s, %s; expected Float",
                dtype_name(x->scalar_type()), dtype_name(w->scalar_type()),
                bias ? dtype_name(bias->scalar_type()) : "None", dtype_name(out->scalar_type()));
  const int nd = static_cast<int>(x->dim());
  if (nd == 5) return fail(ctx, Error::NotSupported, "argument 0 (input) is 5-d: 3-D convolution is not supported");
  if ((nd != 3 && nd != 4) || w->dim() != nd)
    return fail(ctx, Error::InvalidArgument,
                "argument 0 (input) is %d-d, argument 1 (weight) %d-d: expected both 3-d or both 4-d", nd,
                static_cast<int>(w->dim()));
  const int sp = nd - 2;
  int64_t s2[2], p2[2], d2[2], op2[2];
  if (!expand_param(stride_v, sp, 1, s2) || !expand_param(pad_v, sp, 0, p2) || !expand_param(dil_v, sp, 1, d2) ||
      !expand_param(opad_v, sp, 0, op2))
    return fail(
        ctx, Error::InvalidArgument,
        "stride %s, padding %s, dilation %s, output_padding %s (arguments 3, 4, 5, 7): expected 1 or %d entries each",
        lst(stride_v).c_str(), lst(pad_v).c_str(), lst(dil_v).c_str(), lst(opad_v).c_str(), sp);
  // Normalize to 2-D (1-D: H = 1).
  int64_t sh = 1, sw, ph = 0, pw, dh = 1, dw, oph = 0, opw;
  if (sp == 2) {
    sh = s2[0];
    sw = s2[1];
    ph = p2[0];
    pw = p2[1];
    dh = d2[0];
    dw = d2[1];
    oph = op2[0];
    opw = op2[1];
  } else {
    sw = s2[0];
    pw = p2[0];
    dw = d2[0];
    opw = op2[0];
  }
  if (!in_range(sh, 1, kMaxParam) || !in_range(sw, 1, kMaxParam) || !in_range(dh, 1, kMaxParam) ||
      !in_range(dw, 1, kMaxParam) || !in_range(ph, 0, kMaxParam) || !in_range(pw, 0, kMaxParam) ||
      !in_range(oph, 0, kMaxParam) || !in_range(opw, 0, kMaxParam) || !in_range(groups, 1, kMaxSize))
    return fail(
        ctx, Error::InvalidArgument,
        "stride %s, padding %s, dilation %s, output_padding %s or groups %lld (arguments 3-5, 7, 8) is out of range",
        lst(stride_v).c_str(), lst(pad_v).c_str(), lst(dil_v).c_str(), lst(opad_v).c_str(), ll(groups));
  const int64_t N = x->size(0), Cin = x->size(1);
  const int64_t H = sp == 2 ? x->size(2) : 1, W = x->size(nd - 1);
  const int64_t kh = sp == 2 ? w->size(2) : 1, kw = w->size(nd - 1);
  if (Cin % groups != 0)
    return fail(ctx, Error::InvalidArgument,
                "argument 0 (input) has %lld channels, not divisible by groups %lld (argument 8)", ll(Cin), ll(groups));
  const int64_t Cig = Cin / groups;
  int64_t Cout, Cog;
  if (!transposed) {
    Cout = w->size(0);
    if (Cout % groups != 0 || w->size(1) != Cig)
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (weight) has shape %s, expected [C_out, C_in/groups, ...] with C_out divisible by %lld, "
                  "C_in/groups = %lld",
                  shape_string(*w).c_str(), ll(groups), ll(Cig));
    Cog = Cout / groups;
  } else {
    if (w->size(0) != Cin)
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (weight) has shape %s, expected [C_in, C_out/groups, ...] with C_in = %lld (transposed)",
                  shape_string(*w).c_str(), ll(Cin));
    Cog = w->size(1);
    Cout = Cog * groups;
    if (Cout > kMaxSize)
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (weight) has shape %s: %lld output channels * groups %lld is too many",
                  shape_string(*w).c_str(), ll(Cog), ll(groups));
    if (oph >= std::max(sh, dh) || opw >= std::max(sw, dw))
      return fail(ctx, Error::InvalidArgument,
                  "output_padding %s (argument 7) must be smaller than the stride or the dilation",
                  lst(opad_v).c_str());
  }
  if (bias && bias->numel() != Cout)
    return fail(ctx, Error::InvalidArgument, "argument 2 (bias) has %lld elements, expected C_out = %lld",
                ll(bias->numel()), ll(Cout));
  if (kh <= 0 || kw <= 0)
    return fail(ctx, Error::InvalidArgument, "argument 1 (weight) has shape %s: an empty kernel",
                shape_string(*w).c_str());
  int64_t Ho, Wo;
  if (!transposed) {
    const int64_t nh = H + 2 * ph - dh * (kh - 1) - 1, nw = W + 2 * pw - dw * (kw - 1) - 1;
    if (nh < 0 || nw < 0)
      return fail(ctx, Error::InvalidArgument,
                  "the padded input (argument 0, shape %s) is smaller than the dilated kernel %lldx%lld",
                  shape_string(*x).c_str(), ll(dh * (kh - 1) + 1), ll(dw * (kw - 1) + 1));
    Ho = nh / sh + 1;
    Wo = nw / sw + 1;
  } else {
    Ho = (H - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1;
    Wo = (W - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1;
    if (Ho <= 0 || Wo <= 0)
      return fail(ctx, Error::InvalidArgument, "the transposed convolution's output %lldx%lld is empty", ll(Ho),
                  ll(Wo));
  }
  if (Ho > kMaxSize || Wo > kMaxSize)
    return fail(ctx, Error::InvalidArgument, "the output %lldx%lld is too large", ll(Ho), ll(Wo));
  Shape os;
  os.ndim = nd;
  os.d[0] = N;
  os.d[1] = Cout;
  if (sp == 2) {
    os.d[2] = Ho;
    os.d[3] = Wo;
  } else {
    os.d[2] = Wo;
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
  if (bias) {
    bp = contiguous_float(*bias, &bs);
  }
  const int64_t HWo = Ho * Wo, HWi = H * W;
  // Initialize with bias (or zero).
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < Cout; ++c) {
      float* y = yp + (n * Cout + c) * HWo;
      const float v = bp ? bp[c] : 0.f;
      for (int64_t i = 0; i < HWo; ++i) y[i] = v;
    }
  if (x->numel() == 0 || w->numel() == 0) {
    co.finish();
    return;
  }

  if (!transposed) {
    const DwFn dwk = Cig == 1 && dh == 1 && dw == 1 ? dw_kernel(kh, kw, sw) : nullptr;
    if (dwk) {
      // Depthwise with a specialized tap kernel over zero-padded input planes.
      const int64_t Hp = H + 2 * ph, Wp = W + 2 * pw, HWp = Hp * Wp;
      const bool padded = ph > 0 || pw > 0;
      std::vector<float> pad_store;
      const float* src = xp;
      if (padded) {
        float* pb = scratch_floats(ctx, N * Cin * HWp, &pad_store);
        for (int64_t t = 0; t < N * Cin; ++t) {
          const float* xc = xp + t * HWi;
          float* pc = pb + t * HWp;
          for (int64_t r = 0; r < ph * Wp; ++r) pc[r] = 0.f;
          for (int64_t ih = 0; ih < H; ++ih) {
            float* pr = pc + (ih + ph) * Wp;
            for (int64_t c = 0; c < pw; ++c) pr[c] = 0.f;
            std::memcpy(pr + pw, xc + ih * W, static_cast<size_t>(W) * sizeof(float));
            for (int64_t c = pw + W; c < Wp; ++c) pr[c] = 0.f;
          }
          for (int64_t r = (H + ph) * Wp; r < HWp; ++r) pc[r] = 0.f;
        }
        src = pb;
      }
      const int64_t total = N * Cout;
      auto body = [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t n = t / Cout, oc = t % Cout, ic = oc / Cog;
          dwk(src + (n * Cin + ic) * (padded ? HWp : HWi), padded ? Wp : W, wp + oc * kh * kw, sh, Ho, Wo,
              yp + t * HWo);
        }
      };
      const int64_t per = HWo * kh * kw;
      if (total * per < 4 * kParallelGrain)
        body(0, total);
      else
        ::executorch::extension::parallel_for(0, total, std::max<int64_t>(1, kParallelGrain / (per + 1)), body);
      co.finish();
      return;
    }
    if (Cig == 1) {
      // Depthwise (with channel multiplier Cog): direct loops.
      const int64_t total = N * Cout;
      auto body = [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t n = t / Cout, oc = t % Cout, ic = oc / Cog;
          const float* xc = xp + (n * Cin + ic) * HWi;
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
      };
      const int64_t per = HWo * kh * kw;
      if (total * per < kParallelGrain)
        body(0, total);
      else
        ::executorch::extension::parallel_for(0, total, std::max<int64_t>(1, kParallelGrain / (per + 1)), body);
      co.finish();
      return;
    }
    const bool pointwise = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
    const int64_t Kdim = Cig * kh * kw;
    std::vector<float> col_store;
    float* col = pointwise ? nullptr : scratch_floats(ctx, Kdim * HWo, &col_store);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t g = 0; g < groups; ++g) {
        const float* xg = xp + (n * Cin + g * Cig) * HWi;
        const float* B = xg;
        if (!pointwise) {
          im2col(xg, Cig, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, col);
          B = col;
        }
        const float* A = wp + g * Cog * Kdim;
        float* C = yp + (n * Cout + g * Cog) * HWo;
        sgemm(Cog, HWo, Kdim, 1.f, A, Kdim, 1, B, HWo, 1, 1.f, C, HWo, 1, true);
      }
    }
    co.finish();
    return;
  }

  // Transposed: col = W_g^T x_g, then scatter-add (col2im).
  const int64_t Kdim = Cog * kh * kw;
  std::vector<float> col(static_cast<size_t>(Kdim * HWi));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < groups; ++g) {
      const float* xg = xp + (n * Cin + g * Cig) * HWi;
      const float* A = wp + g * Cig * Kdim;  // [Cig, Kdim]; we need A^T: (i, k) -> A[k * Kdim + i]
      sgemm(Kdim, HWi, Cig, 1.f, A, 1, Kdim, xg, HWi, 1, 0.f, col.data(), HWi, 1, true);
      float* y = yp + (n * Cout + g * Cog) * HWo;
      auto body = [&](int64_t c0, int64_t c1) {
        for (int64_t oc = c0; oc < c1; ++oc) {
          float* yc = y + oc * HWo;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const float* cr = col.data() + ((oc * kh + i) * kw + j) * HWi;
              for (int64_t ih = 0; ih < H; ++ih) {
                const int64_t oh = ih * sh - ph + i * dh;
                if (oh < 0 || oh >= Ho) continue;
                for (int64_t iw = 0; iw < W; ++iw) {
                  const int64_t ow = iw * sw - pw + j * dw;
                  if (ow < 0 || ow >= Wo) continue;
                  yc[oh * Wo + ow] += cr[ih * W + iw];
                }
              }
            }
        }
      };
      ::executorch::extension::parallel_for(0, Cog, 1, body);
    }
  }
  co.finish();
}

namespace {

// Shared 2-D pooling geometry.
struct Pool2d {
  int64_t N, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo;
  bool batched;
};

bool pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil, int64_t* out) {
  const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  if (num < 0) return false;
  int64_t o = num / s + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  if (o <= 0 || o > kMaxSize) return false;
  *out = o;
  return true;
}

bool pool_setup(KernelRuntimeContext& ctx, const Tensor& x, const std::vector<int64_t>& ks,
                const std::vector<int64_t>& st, const std::vector<int64_t>& pad, const std::vector<int64_t>& dil,
                bool ceil, Pool2d* p) {
  if (x.dim() != 3 && x.dim() != 4) {
    fail(ctx, Error::InvalidArgument, "argument 0 has shape %s, expected 3-d or 4-d", shape_string(x).c_str());
    return false;
  }
  p->batched = x.dim() == 4;
  p->N = p->batched ? x.size(0) : 1;
  p->C = x.size(x.dim() - 3);
  p->H = x.size(x.dim() - 2);
  p->W = x.size(x.dim() - 1);
  int64_t k2[2], s2[2], p2[2], d2[2];
  if (ks.empty() || !expand_param(ks, 2, 1, k2) || !expand_param(st.empty() ? ks : st, 2, 1, s2) ||
      !expand_param(pad, 2, 0, p2) || !expand_param(dil, 2, 1, d2)) {
    fail(ctx, Error::InvalidArgument,
         "kernel_size %s, stride %s, padding %s, dilation %s (arguments 1-4): expected 1 or 2 entries, kernel_size not "
         "empty",
         lst(ks).c_str(), lst(st).c_str(), lst(pad).c_str(), lst(dil).c_str());
    return false;
  }
  p->kh = k2[0];
  p->kw = k2[1];
  p->sh = s2[0];
  p->sw = s2[1];
  p->ph = p2[0];
  p->pw = p2[1];
  p->dh = d2[0];
  p->dw = d2[1];
  if (!in_range(p->kh, 1, kMaxParam) || !in_range(p->kw, 1, kMaxParam) || !in_range(p->sh, 1, kMaxParam) ||
      !in_range(p->sw, 1, kMaxParam) || !in_range(p->dh, 1, kMaxParam) || !in_range(p->dw, 1, kMaxParam) || p->ph < 0 ||
      p->pw < 0 || p->ph > p->kh / 2 || p->pw > p->kw / 2) {
    fail(ctx, Error::InvalidArgument,
         "kernel_size %lldx%lld, stride %lldx%lld, padding %lldx%lld, dilation %lldx%lld (arguments 1-4): out of range",
         ll(p->kh), ll(p->kw), ll(p->sh), ll(p->sw), ll(p->ph), ll(p->pw), ll(p->dh), ll(p->dw));
    return false;
  }
  if (p->H == 0 || p->W == 0 || !pool_out_size(p->H, p->kh, p->sh, p->ph, p->dh, ceil, &p->Ho) ||
      !pool_out_size(p->W, p->kw, p->sw, p->pw, p->dw, ceil, &p->Wo)) {
    fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) gives an empty or too large output for kernel %lldx%lld",
         shape_string(x).c_str(), ll(p->kh), ll(p->kw));
    return false;
  }
  return true;
}

Shape pool_shape(const Pool2d& p) {
  Shape s;
  if (p.batched) s.d[s.ndim++] = p.N;
  s.d[s.ndim++] = p.C;
  s.d[s.ndim++] = p.Ho;
  s.d[s.ndim++] = p.Wo;
  return s;
}

template <typename F>
void for_planes(const Pool2d& p, F body) {
  const int64_t planes = p.N * p.C;
  const int64_t per = p.Ho * p.Wo * p.kh * p.kw;
  auto f = [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) body(t);
  };
  if (planes * per < kParallelGrain)
    f(0, planes);
  else
    ::executorch::extension::parallel_for(0, planes, std::max<int64_t>(1, kParallelGrain / (per + 1)), f);
}

}  // namespace

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                             int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices)
void max_pool2d_with_indices_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 8)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  std::vector<int64_t> ks, st, pad, dil;
  bool ceil;
  if (!x || !arg_int_list(ctx, args, 1, &ks) || !arg_int_list(ctx, args, 2, &st) || !arg_int_list(ctx, args, 3, &pad) ||
      !arg_int_list(ctx, args, 4, &dil) || !arg_bool(ctx, args, 5, &ceil))
    return;
  const Tensor* out = arg_tensor(ctx, args, 6);
  const Tensor* idx = out ? arg_tensor(ctx, args, 7) : nullptr;
  if (!idx) return;
  if (x->scalar_type() != ScalarType::Float || out->scalar_type() != ScalarType::Float ||
      idx->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType,
                "self, out, indices (arguments 0, 6, 7) have dtypes %s, %s, %s; expected Float, Float, Long",
                dtype_name(x->scalar_type()), dtype_name(out->scalar_type()), dtype_name(idx->scalar_type()));
  Pool2d p;
  if (!pool_setup(ctx, *x, ks, st, pad, dil, ceil, &p)) return;
  const Shape os = pool_shape(p);
  if (!resize_out(ctx, *out, os) || !resize_out(ctx, *idx, os)) return;
  if (out->numel() == 0) return;
  std::vector<float> xs;
  const float* xp = contiguous_float(*x, &xs);
  ContigOut co(*out);
  std::vector<int64_t> itmp;
  int64_t* ip;
  const bool idx_contig = is_contiguous(*idx);
  if (idx_contig) {
    ip = idx->mutable_data_ptr<int64_t>();
  } else {
    itmp.resize(static_cast<size_t>(idx->numel()));
    ip = itmp.data();
  }
  float* yp = co.ptr;
  for_planes(p, [&](int64_t t) {
    const float* xc = xp + t * p.H * p.W;
    float* y = yp + t * p.Ho * p.Wo;
    int64_t* yi = ip + t * p.Ho * p.Wo;
    for (int64_t oh = 0; oh < p.Ho; ++oh) {
      for (int64_t ow = 0; ow < p.Wo; ++ow) {
        const int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
        float best = -std::numeric_limits<float>::infinity();
        int64_t bi = -1;
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t ih = h0 + i * p.dh;
          if (ih < 0 || ih >= p.H) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t iw = w0 + j * p.dw;
            if (iw < 0 || iw >= p.W) continue;
            const float v = xc[ih * p.W + iw];
            if (bi < 0 || v > best || v != v) {
              best = v;
              bi = ih * p.W + iw;
              if (v != v) break;
            }
          }
          if (best != best) break;
        }
        y[oh * p.Wo + ow] = best;
        yi[oh * p.Wo + ow] = bi < 0 ? 0 : bi;
      }
    }
  });
  co.finish();
  if (!idx_contig) {
    Operand src = operand_of(*idx);
    src.data = reinterpret_cast<char*>(itmp.data());
    int64_t s = 1;
    for (int d = src.ndim - 1; d >= 0; --d) {
      src.strides[d] = s;
      s *= src.sizes[d];
    }
    copy_operand(operand_of(*idx), src, shape_of(*idx));
  }
}

// avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False,
//                bool count_include_pad=True, int? divisor_override=None, *, Tensor(a!) out)
void avg_pool2d_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 8)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  std::vector<int64_t> ks, st, pad;
  bool ceil, cip, has_div = false;
  int64_t divisor = 0;
  if (!x || !arg_int_list(ctx, args, 1, &ks) || !arg_int_list(ctx, args, 2, &st) || !arg_int_list(ctx, args, 3, &pad) ||
      !arg_bool(ctx, args, 4, &ceil) || !arg_bool(ctx, args, 5, &cip) || !arg_opt_int(ctx, args, 6, &divisor, &has_div))
    return;
  const Tensor* out = arg_tensor(ctx, args, 7);
  if (!out) return;
  if (x->scalar_type() != ScalarType::Float || out->scalar_type() != ScalarType::Float)
    return fail(ctx, Error::InvalidType, "self, out (arguments 0, 7) have dtypes %s, %s; expected Float",
                dtype_name(x->scalar_type()), dtype_name(out->scalar_type()));
  if (has_div && divisor == 0) return fail(ctx, Error::InvalidArgument, "divisor_override (argument 6) is 0");
  Pool2d p;
  if (!pool_setup(ctx, *x, ks, st, pad, {}, ceil, &p)) return;
  if (!resize_out(ctx, *out, pool_shape(p))) return;
  if (out->numel() == 0) return;
  std::vector<float> xs;
  const float* xp = contiguous_float(*x, &xs);
  ContigOut co(*out);
  float* yp = co.ptr;
  for_planes(p, [&](int64_t t) {
    const float* xc = xp + t * p.H * p.W;
    float* y = yp + t * p.Ho * p.Wo;
    for (int64_t oh = 0; oh < p.Ho; ++oh) {
      for (int64_t ow = 0; ow < p.Wo; ++ow) {
        int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
        int64_t h1 = std::min(h0 + p.kh, p.H + p.ph), w1 = std::min(w0 + p.kw, p.W + p.pw);
        const int64_t pool = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, p.H);
        w1 = std::min(w1, p.W);
        float sum = 0;  // in float, row by row, as upstream's portable kernel (bit for bit its outputs)
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += xc[ih * p.W + iw];
        int64_t div = has_div ? divisor : (cip ? pool : (h1 - h0) * (w1 - w0));
        y[oh * p.Wo + ow] = div == 0 ? 0.f : sum / static_cast<float>(div);
      }
    }
  });
  co.finish();
}

// _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
void adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  std::vector<int64_t> os_v;
  if (!x || !arg_int_list(ctx, args, 1, &os_v)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (x->scalar_type() != ScalarType::Float || out->scalar_type() != ScalarType::Float)
    return fail(ctx, Error::InvalidType, "self, out (arguments 0, 2) have dtypes %s, %s; expected Float",
                dtype_name(x->scalar_type()), dtype_name(out->scalar_type()));
  if (x->dim() != 3 && x->dim() != 4)
    return fail(ctx, Error::InvalidArgument, "argument 0 has shape %s, expected 3-d or 4-d", shape_string(*x).c_str());
  int64_t o2[2];
  if (!expand_param(os_v, 2, 1, o2) || os_v.empty())
    return fail(ctx, Error::InvalidArgument, "argument 1 (output_size) %s: expected 1 or 2 entries", lst(os_v).c_str());
  if (!in_range(o2[0], 1, kMaxSize) || !in_range(o2[1], 1, kMaxSize))
    return fail(ctx, Error::InvalidArgument, "argument 1 (output_size) %s: entries must be in [1, %lld]",
                lst(os_v).c_str(), ll(kMaxSize));
  const bool batched = x->dim() == 4;
  const int64_t N = batched ? x->size(0) : 1, C = x->size(x->dim() - 3), H = x->size(x->dim() - 2),
                W = x->size(x->dim() - 1);
  const int64_t Ho = o2[0], Wo = o2[1];
  if (H == 0 || W == 0)
    return fail(ctx, Error::InvalidArgument, "argument 0 has shape %s: an empty plane", shape_string(*x).c_str());
  Shape s;
  if (batched) s.d[s.ndim++] = N;
  s.d[s.ndim++] = C;
  s.d[s.ndim++] = Ho;
  s.d[s.ndim++] = Wo;
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  std::vector<float> xs;
  const float* xp = contiguous_float(*x, &xs);
  ContigOut co(*out);
  float* yp = co.ptr;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const float* xc = xp + t * H * W;
      float* y = yp + t * Ho * Wo;
      for (int64_t oh = 0; oh < Ho; ++oh) {
        const int64_t h0 = oh * H / Ho, h1 = ((oh + 1) * H + Ho - 1) / Ho;
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const int64_t w0 = ow * W / Wo, w1 = ((ow + 1) * W + Wo - 1) / Wo;
          float sum = 0;  // as avg_pool2d
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) sum += xc[ih * W + iw];
          y[oh * Wo + ow] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
        }
      }
    }
  };
  if (N * C * H * W < kParallelGrain)
    body(0, N * C);
  else
    ::executorch::extension::parallel_for(0, N * C, 1, body);
  co.finish();
}

}  // namespace etk
