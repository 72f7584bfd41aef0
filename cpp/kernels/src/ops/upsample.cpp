// 2-D upsampling: nearest and bilinear, in their `.out` and `.vec_out` forms. Any dim order (strided access);
// index math follows PyTorch's (float scales, the same source-index formulas), so results match bit for bit in
// the common cases.
#include "kernel_utils.h"

#include <algorithm>

namespace etk {
namespace {

// PyTorch's compute_scales_value: the given scale's reciprocal, or in/out.
float scale_value(bool has, double scale, int64_t in, int64_t out) {
  return has && scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
}

struct Geometry {
  int64_t N = 0, C = 0, H = 0, W = 0, Ho = 0, Wo = 0;
  bool has_sh = false, has_sw = false;
  double sh = 0, sw = 0;
};

// Reads input (rank 4), resizes out to [N, C, Ho, Wo]; false after failing ctx.
bool setup(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, Geometry* g) {
  if (in.dim() != 4 || out.dim() != 4) {
    fail(ctx, Error::InvalidArgument, "argument 0 has shape %s, the output %s: expected both 4-d",
         shape_string(in).c_str(), shape_string(out).c_str());
    return false;
  }
  if (in.scalar_type() != out.scalar_type() || !is_supported_dtype(in.scalar_type())) {
    fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same supported dtype",
         dtype_name(in.scalar_type()), dtype_name(out.scalar_type()));
    return false;
  }
  g->N = in.size(0);
  g->C = in.size(1);
  g->H = in.size(2);
  g->W = in.size(3);
  if (g->Ho <= 0 || g->Wo <= 0 || g->Ho > kMaxSize || g->Wo > kMaxSize) {
    fail(ctx, Error::InvalidArgument, "the output size %lldx%lld is empty or too large", ll(g->Ho), ll(g->Wo));
    return false;
  }
  if ((g->H == 0 || g->W == 0) && g->N * g->C > 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 (shape %s) has empty planes", shape_string(in).c_str());
    return false;
  }
  Shape s;
  s.ndim = 4;
  s.d[0] = g->N;
  s.d[1] = g->C;
  s.d[2] = g->Ho;
  s.d[3] = g->Wo;
  return resize_out(ctx, out, s);
}

// The output size from output_size (argument 1): 2 entries.
bool output_size(KernelRuntimeContext& ctx, const std::vector<int64_t>& osz, Geometry* g) {
  if (osz.size() != 2) {
    fail(ctx, Error::InvalidArgument, "argument 1 (output_size) %s: expected 2 entries",
         shape_string(osz.data(), static_cast<int>(osz.size())).c_str());
    return false;
  }
  g->Ho = osz[0];
  g->Wo = osz[1];
  return true;
}

// Output size from (output_size?, scale_factors?) of the .vec forms.
bool vec_sizes(KernelRuntimeContext& ctx, const Tensor& in, const std::vector<int64_t>& osz, bool has_osz,
               const std::vector<double>& sf, bool has_sf, int sf_arg, Geometry* g) {
  if (in.dim() != 4) {
    fail(ctx, Error::InvalidArgument, "argument 0 has shape %s, expected 4-d", shape_string(in).c_str());
    return false;
  }
  if (has_osz == has_sf) {
    fail(ctx, Error::InvalidArgument,
         "expected exactly one of output_size (argument 1) and scale_factors (argument %d)", sf_arg);
    return false;
  }
  if (has_osz) return output_size(ctx, osz, g);
  if (sf.size() != 2 || !(sf[0] > 0) || !(sf[1] > 0) || sf[0] > 1e6 || sf[1] > 1e6) {
    if (sf.size() != 2)
      fail(ctx, Error::InvalidArgument, "argument %d (scale_factors) has %zu entries, expected 2", sf_arg, sf.size());
    else
      fail(ctx, Error::InvalidArgument, "argument %d (scale_factors) [%g, %g]: expected each in (0, 1e6]", sf_arg,
           sf[0], sf[1]);
    return false;
  }
  g->Ho = static_cast<int64_t>(std::floor(static_cast<double>(in.size(2)) * sf[0]));
  g->Wo = static_cast<int64_t>(std::floor(static_cast<double>(in.size(3)) * sf[1]));
  g->has_sh = g->has_sw = true;
  g->sh = sf[0];
  g->sw = sf[1];
  return true;
}

int64_t nearest_idx(int64_t o, int64_t in, int64_t out, bool has, double scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = scale_value(has, scale, in, out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

void nearest(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, Geometry g) {
  if (!setup(ctx, in, out, &g)) return;
  if (out.numel() == 0) return;
  std::vector<int64_t> hi(static_cast<size_t>(g.Ho)), wi(static_cast<size_t>(g.Wo));
  for (int64_t o = 0; o < g.Ho; ++o) hi[static_cast<size_t>(o)] = nearest_idx(o, g.H, g.Ho, g.has_sh, g.sh);
  for (int64_t o = 0; o < g.Wo; ++o) wi[static_cast<size_t>(o)] = nearest_idx(o, g.W, g.Wo, g.has_sw, g.sw);
  const Operand oi = operand_of(in), oo = operand_of(out);
  const size_t es = static_cast<size_t>(oi.esize);
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / g.C, c = p % g.C;
      const char* src = oi.data + (n * oi.strides[0] + c * oi.strides[1]) * oi.esize;
      char* dst = oo.data + (n * oo.strides[0] + c * oo.strides[1]) * oo.esize;
      for (int64_t y = 0; y < g.Ho; ++y) {
        const char* sr = src + hi[static_cast<size_t>(y)] * oi.strides[2] * oi.esize;
        char* dr = dst + y * oo.strides[2] * oo.esize;
        for (int64_t x = 0; x < g.Wo; ++x)
          std::memcpy(dr + x * oo.strides[3] * oo.esize, sr + wi[static_cast<size_t>(x)] * oi.strides[3] * oi.esize,
                      es);
      }
    }
  };
  const int64_t planes = g.N * g.C;
  ::executorch::extension::parallel_for(0, planes, std::max<int64_t>(1, kParallelGrain / (g.Ho * g.Wo)), body);
}

struct Lerp {
  int64_t i0, i1;
  float l0, l1;
};

std::vector<Lerp> lerp_table(int64_t in, int64_t out, bool align_corners, bool has, double scale) {
  float s;
  if (align_corners)
    s = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  else
    s = scale_value(has, scale, in, out);
  std::vector<Lerp> t(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    float src = align_corners ? s * static_cast<float>(o) : std::max(s * (static_cast<float>(o) + 0.5f) - 0.5f, 0.f);
    int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    float l1 = std::min(std::max(src - static_cast<float>(i0), 0.f), 1.f);
    t[static_cast<size_t>(o)] = {i0, i1, 1.f - l1, l1};
  }
  return t;
}

void bilinear(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, bool align_corners, Geometry g) {
  if (!setup(ctx, in, out, &g)) return;
  if (!is_floating(in.scalar_type()))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, bilinear needs Float or Double",
                dtype_name(in.scalar_type()));
  if (out.numel() == 0) return;
  const std::vector<Lerp> th = lerp_table(g.H, g.Ho, align_corners, g.has_sh, g.sh);
  const std::vector<Lerp> tw = lerp_table(g.W, g.Wo, align_corners, g.has_sw, g.sw);
  const Operand oi = operand_of(in), oo = operand_of(out);
  dispatch_float(in.scalar_type(), [&](auto z) {
    using T = decltype(z);
    const T* ib = reinterpret_cast<const T*>(oi.data);
    T* ob = reinterpret_cast<T*>(oo.data);
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const int64_t n = p / g.C, c = p % g.C;
        const T* src = ib + n * oi.strides[0] + c * oi.strides[1];
        T* dst = ob + n * oo.strides[0] + c * oo.strides[1];
        for (int64_t y = 0; y < g.Ho; ++y) {
          const Lerp& h = th[static_cast<size_t>(y)];
          const T* r0 = src + h.i0 * oi.strides[2];
          const T* r1 = src + h.i1 * oi.strides[2];
          for (int64_t x = 0; x < g.Wo; ++x) {
            const Lerp& w = tw[static_cast<size_t>(x)];
            const int64_t a = w.i0 * oi.strides[3], bb = w.i1 * oi.strides[3];
            const T v = static_cast<T>(h.l0) * (static_cast<T>(w.l0) * r0[a] + static_cast<T>(w.l1) * r0[bb]) +
                        static_cast<T>(h.l1) * (static_cast<T>(w.l0) * r1[a] + static_cast<T>(w.l1) * r1[bb]);
            dst[y * oo.strides[2] + x * oo.strides[3]] = v;
          }
        }
      }
    };
    ::executorch::extension::parallel_for(0, g.N * g.C, std::max<int64_t>(1, kParallelGrain / (g.Ho * g.Wo)), body);
  });
}

}  // namespace

ET_KERNEL_OP(
    "aten::upsample_nearest2d.out", upsample_nearest2d_out,
    "(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None, *, Tensor(a!) out) -> Tensor(a!)")
void upsample_nearest2d_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> osz;
  Geometry g;
  if (!in || !arg_int_list(ctx, args, 1, &osz) || !arg_opt_double(ctx, args, 2, &g.sh, &g.has_sh) ||
      !arg_opt_double(ctx, args, 3, &g.sw, &g.has_sw))
    return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!output_size(ctx, osz, &g)) return;
  nearest(ctx, *in, *out, g);
}

ET_KERNEL_OP("aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out,
             "(Tensor input, SymInt[]? output_size, float[]? scale_factors, *, Tensor(a!) out) -> Tensor(a!)")
void upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> osz;
  std::vector<double> sf;
  bool has_osz = false, has_sf = false;
  if (!in || !arg_opt_int_list(ctx, args, 1, &osz, &has_osz) || !arg_opt_double_list(ctx, args, 2, &sf, &has_sf))
    return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  Geometry g;
  if (!vec_sizes(ctx, *in, osz, has_osz, sf, has_sf, 2, &g)) return;
  nearest(ctx, *in, *out, g);
}

ET_KERNEL_OP("aten::upsample_bilinear2d.out", upsample_bilinear2d_out,
             "(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None, *, "
             "Tensor(a!) out) -> Tensor(a!)")
void upsample_bilinear2d_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> osz;
  bool ac;
  Geometry g;
  if (!in || !arg_int_list(ctx, args, 1, &osz) || !arg_bool(ctx, args, 2, &ac) ||
      !arg_opt_double(ctx, args, 3, &g.sh, &g.has_sh) || !arg_opt_double(ctx, args, 4, &g.sw, &g.has_sw))
    return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  if (!output_size(ctx, osz, &g)) return;
  bilinear(ctx, *in, *out, ac, g);
}

ET_KERNEL_OP("aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out,
             "(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors, *, Tensor(a!) out) -> "
             "Tensor(a!)")
void upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> osz;
  std::vector<double> sf;
  bool has_osz = false, has_sf = false, ac;
  if (!in || !arg_opt_int_list(ctx, args, 1, &osz, &has_osz) || !arg_bool(ctx, args, 2, &ac) ||
      !arg_opt_double_list(ctx, args, 3, &sf, &has_sf))
    return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  Geometry g;
  if (!vec_sizes(ctx, *in, osz, has_osz, sf, has_sf, 3, &g)) return;
  bilinear(ctx, *in, *out, ac, g);
}

}  // namespace etk
