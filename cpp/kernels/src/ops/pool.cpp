// 2-D pooling: max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d. fp32, NCHW compute.
#include "conv_util.h"

#include <algorithm>

namespace etk {
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

ET_KERNEL_OP("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out,
             "(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool "
             "ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))")
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

ET_KERNEL_OP("aten::avg_pool2d.out", avg_pool2d_out,
             "(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool "
             "count_include_pad=True, int? divisor_override=None, *, Tensor(a!) out) -> Tensor(a!)")
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

ET_KERNEL_OP("aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out,
             "(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> Tensor(a!)")
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
