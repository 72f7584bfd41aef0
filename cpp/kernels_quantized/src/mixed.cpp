// mixed_mm.out and mixed_linear.out: a float (or Half) input times an int8 weight with float scales, summed in
// the order upstream sums (kernels/portable/cpu/vec_ops.h, vec_quantized_matmul_int8 and
// vec_quantized_matmul_transb_int8), so results match bit for bit:
//   mixed_mm:      out[i][j] = sum_k (x[i][k] * w[k][j]) * s[k]                         (k ascending)
//   mixed_linear:  out[i][j] = sum_groups (sum_{k in group} x[i][k] * w[j][k]) * s[j][group]
// Every operation rounds as in upstream's element types: Half products and sums round to Half after each step,
// Float stays in float and a Double output accumulates in double. The loops keep that order per output and
// vectorize across outputs instead (a block of weight columns, packed as floats once per call).
#include <vector>

#include "affine.h"
#include "qparams.h"

namespace etq {
namespace {

// Rounding to an element type's precision (identity for Float / Double).
template <typename T>
inline float rnd(float v) {
  if constexpr (std::is_same<T, Half>::value) {
    return round_half(v);
  } else {
    return v;
  }
}
template <typename T>
inline double rnd(double v) {
  return v;
}

// Accumulator type of an output element type: double for Double, float otherwise (Half rounds each step).
template <typename T>
using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

template <typename T>
inline void store(T* p, Acc<T> v) {
  if constexpr (std::is_same<T, Half>::value) {
    *p = Half{float_to_half(v)};
  } else {
    *p = static_cast<T>(v);
  }
}

// A 2-d tensor's element (i, j) offset.
struct Mat {
  int64_t s0, s1;
  explicit Mat(const Tensor& t) : s0(t.strides()[0]), s1(t.strides()[1]) {}
  int64_t at(int64_t i, int64_t j) const { return i * s0 + j * s1; }
};

constexpr int64_t kBlock = 16;    // output columns per vectorized block
constexpr int64_t kRowTile = 32;  // rows per work item

// Work items per parallel chunk when each costs `per_item` multiply-adds per output column of a block.
inline int64_t work_grain(int64_t per_item) {
  return std::max<int64_t>(1, 16 * kParallelGrain / std::max<int64_t>(1, per_item * kBlock));
}

// mixed_mm with U the input / scale / output type (Float or Half). Work items: a tile of kMmRows rows times a chunk
// of kMmCols output columns; for each k the chunk of weight row k is converted once and updates every row of the
// tile (the row of accumulators is the vectorized dimension).
template <typename U>
void mm(const Tensor& in, const Tensor& weight, const Tensor& scales, const Tensor& out) {
  constexpr int64_t kMmRows = 8, kMmCols = 256;
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(1);
  const U* x = in.const_data_ptr<U>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const U* s = scales.const_data_ptr<U>();
  U* z = out.mutable_data_ptr<U>();
  const Mat X(in), Wm(weight), Z(out);
  const int64_t ss = scales.strides()[0];
  std::vector<float> sk(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) sk[k] = to_float(s[k * ss]);
  const int64_t tiles = (m + kMmRows - 1) / kMmRows, chunks = (p + kMmCols - 1) / kMmCols;
  const int64_t per_item = std::min(m, kMmRows) * std::min(p, kMmCols) * n;
  parallel(tiles * chunks, std::max<int64_t>(1, 16 * kParallelGrain / std::max<int64_t>(1, per_item)),
           [&](int64_t b0, int64_t b1) {
             std::vector<float> acc(static_cast<size_t>(kMmRows * kMmCols)), wf(static_cast<size_t>(kMmCols));
             for (int64_t item = b0; item < b1; ++item) {
               const int64_t i0 = item / chunks * kMmRows, nr = std::min(kMmRows, m - i0);
               const int64_t j0 = item % chunks * kMmCols, nc = std::min(kMmCols, p - j0);
               std::fill(acc.begin(), acc.end(), 0.0f);
               for (int64_t k = 0; k < n; ++k) {
                 const int8_t* wk = w + Wm.at(k, j0);
                 if (Wm.s1 == 1) {
                   for (int64_t jj = 0; jj < nc; ++jj) wf[jj] = static_cast<float>(wk[jj]);
                 } else {
                   for (int64_t jj = 0; jj < nc; ++jj) wf[jj] = static_cast<float>(wk[jj * Wm.s1]);
                 }
                 const float sv = sk[k];
                 for (int64_t r = 0; r < nr; ++r) {
                   const float xv = to_float(x[X.at(i0 + r, k)]);
                   float* __restrict a = acc.data() + r * kMmCols;
                   const float* __restrict wv = wf.data();
                   for (int64_t jj = 0; jj < nc; ++jj) a[jj] = rnd<U>(a[jj] + rnd<U>(rnd<U>(xv * wv[jj]) * sv));
                 }
               }
               for (int64_t r = 0; r < nr; ++r)
                 for (int64_t jj = 0; jj < nc; ++jj) store<U>(z + Z.at(i0 + r, j0 + jj), acc[r * kMmCols + jj]);
             }
           });
}

// mixed_linear with U the input / scale type and T the output type; g elements per group, G groups per row.
template <typename U, typename T>
void linear(const Tensor& in, const Tensor& weight, const Tensor& scales, const Tensor& out, int64_t g, int64_t G) {
  using A = Acc<T>;
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(0);
  const U* x = in.const_data_ptr<U>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const U* s = scales.const_data_ptr<U>();
  T* z = out.mutable_data_ptr<T>();
  const Mat X(in), Wm(weight), Z(out);
  const int64_t ss0 = scales.strides()[0], ss1 = scales.dim() == 2 ? scales.strides()[1] : 0;
  const int64_t blocks = (p + kBlock - 1) / kBlock, tiles = (m + kRowTile - 1) / kRowTile;
  parallel(blocks * tiles, work_grain(std::min(m, kRowTile) * n), [&](int64_t b0, int64_t b1) {
    std::vector<float> wp(static_cast<size_t>(n * kBlock));
    std::vector<A> sp(static_cast<size_t>(G * kBlock));
    std::vector<float> xr(static_cast<size_t>(n));
    int64_t packed = -1;
    for (int64_t item = b0; item < b1; ++item) {
      const int64_t blk = item / tiles, tile = item % tiles;
      const int64_t j0 = blk * kBlock, nb = std::min(kBlock, p - j0);
      if (packed != blk) {
        // Weight rows j0.. (contiguous along k) transposed into k-major columns of the block.
        for (int64_t jj = 0; jj < kBlock; ++jj) {
          float* __restrict col = wp.data() + jj;
          if (jj >= nb) {
            for (int64_t k = 0; k < n; ++k) col[k * kBlock] = 0.0f;
            continue;
          }
          const int8_t* row = w + Wm.at(j0 + jj, 0);
          if (Wm.s1 == 1) {
            for (int64_t k = 0; k < n; ++k) col[k * kBlock] = static_cast<float>(row[k]);
          } else {
            for (int64_t k = 0; k < n; ++k) col[k * kBlock] = static_cast<float>(row[k * Wm.s1]);
          }
        }
        for (int64_t q = 0; q < G; ++q)
          for (int64_t jj = 0; jj < kBlock; ++jj)
            sp[q * kBlock + jj] = jj < nb ? static_cast<A>(to_float(s[(j0 + jj) * ss0 + q * ss1])) : A(0);
        packed = blk;
      }
      for (int64_t i = tile * kRowTile; i < std::min(m, (tile + 1) * kRowTile); ++i) {
        for (int64_t k = 0; k < n; ++k) xr[k] = to_float(x[X.at(i, k)]);
        A sum[kBlock] = {};
        for (int64_t q = 0; q < G; ++q) {
          A psum[kBlock] = {};
          const int64_t k1 = std::min(n, (q + 1) * g);
          for (int64_t k = q * g; k < k1; ++k) {
            const float xv = xr[k];
            const float* __restrict wk = wp.data() + k * kBlock;
            for (int64_t jj = 0; jj < kBlock; ++jj) {
              // Product in U's precision, then converted to T before the add (c10 semantics).
              const A prod = static_cast<A>(rnd<T>(rnd<U>(xv * wk[jj])));
              psum[jj] = rnd<T>(psum[jj] + prod);
            }
          }
          const A* __restrict sq = sp.data() + q * kBlock;
          for (int64_t jj = 0; jj < kBlock; ++jj) {
            // T times U: in T's precision (Half only rounds a Half output; float * Half stays float).
            const A prod = rnd<T>(static_cast<A>(psum[jj]) * sq[jj]);
            sum[jj] = rnd<T>(sum[jj] + prod);
          }
        }
        for (int64_t jj = 0; jj < nb; ++jj) store<T>(z + Z.at(i, j0 + jj), sum[jj]);
      }
    }
  });
}

bool rank(KernelRuntimeContext& ctx, size_t i, const char* name, const Tensor& t, int lo, int hi) {
  if (t.dim() >= lo && t.dim() <= hi) return true;
  if (lo == hi)
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) has shape %s, expected %d dims", i, name,
         shape_string(t).c_str(), lo);
  else
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) has shape %s, expected %d or %d dims", i, name,
         shape_string(t).c_str(), lo, hi);
  return false;
}

// Zero points: checked like upstream (shape and dtype), then refused, as upstream refuses them.
bool no_zero_points(KernelRuntimeContext& ctx, const Tensor* zp, const Tensor& scales, const Tensor& in) {
  if (zp == nullptr) return true;
  if (!same_shape(*zp, scales) || zp->scalar_type() != in.scalar_type()) {
    fail(ctx, Error::InvalidArgument,
         "argument 3 (weight_zero_points) has shape %s and dtype %s; it would need weight_scales' shape %s and the "
         "input dtype %s",
         shape_string(*zp).c_str(), dtype_name(zp->scalar_type()), shape_string(scales).c_str(),
         dtype_name(in.scalar_type()));
    return false;
  }
  fail(ctx, Error::NotSupported,
       "argument 3 (weight_zero_points) must be None: zero points are not supported "
       "(as upstream)");
  return false;
}

bool float_or_half(KernelRuntimeContext& ctx, size_t i, const char* name, ScalarType t) {
  if (t == ScalarType::Float || t == ScalarType::Half) return true;
  fail(ctx, Error::InvalidArgument, "argument %zu (%s) has dtype %s, expected Float or Half", i, name, dtype_name(t));
  return false;
}

}  // namespace

// input [m, n], weight [n, p] int8, weight_scales [n] (one per weight row), out [m, p]; input, scales and out
// share the dtype (Float or Half).
ET_KERNEL_OP(
    "quantized_decomposed::mixed_mm.out", mixed_mm_out,
    "(Tensor input, Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, *, Tensor(a!) out) -> Tensor(a!)")
void mixed_mm_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* weight = in ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* scales = weight ? arg_tensor(ctx, args, 2) : nullptr;
  const Tensor* zp = nullptr;
  if (scales == nullptr || !arg_opt_tensor(ctx, args, 3, &zp)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (out == nullptr) return;
  if (!rank(ctx, 0, "input", *in, 2, 2) || !rank(ctx, 1, "weight", *weight, 2, 2) ||
      !rank(ctx, 2, "weight_scales", *scales, 1, 1) || !rank(ctx, 4, "out", *out, 2, 2))
    return;
  if (in->size(1) != weight->size(0) || scales->size(0) != weight->size(0)) {
    fail(ctx, Error::InvalidArgument,
         "input %s, weight %s and weight_scales %s: need input.size(1) == weight.size(0) == weight_scales.size(0)",
         shape_string(*in).c_str(), shape_string(*weight).c_str(), shape_string(*scales).c_str());
    return;
  }
  if (scales->scalar_type() != in->scalar_type() || out->scalar_type() != in->scalar_type()) {
    fail(ctx, Error::InvalidArgument, "input (%s), weight_scales (%s) and out (%s) must have the same dtype",
         dtype_name(in->scalar_type()), dtype_name(scales->scalar_type()), dtype_name(out->scalar_type()));
    return;
  }
  if (weight->scalar_type() != ScalarType::Char) {
    fail(ctx, Error::InvalidArgument, "argument 1 (weight) has dtype %s, expected Char (int8)",
         dtype_name(weight->scalar_type()));
    return;
  }
  if (!float_or_half(ctx, 0, "input", in->scalar_type()) || !no_zero_points(ctx, zp, *scales, *in)) return;
  const SizesType sizes[2] = {static_cast<SizesType>(in->size(0)), static_cast<SizesType>(weight->size(1))};
  if (!resize_out(ctx, *out, 4, sizes, 2)) return;
  if (out->numel() == 0) return;
  if (in->scalar_type() == ScalarType::Float)
    mm<float>(*in, *weight, *scales, *out);
  else
    mm<Half>(*in, *weight, *scales, *out);
}

// input [m, n], weight [p, n] int8, weight_scales [p] or [p, G] (G groups of ceil(n / G) input elements, the last
// possibly shorter), out [m, p] of dtype `dtype` (Float or Half) or, without it, Float, Double or Half.
ET_KERNEL_OP("quantized_decomposed::mixed_linear.out", mixed_linear_out,
             "(Tensor input, Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, ScalarType? dtype=None, "
             "*, Tensor(a!) out) -> Tensor(a!)")
void mixed_linear_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* weight = in ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* scales = weight ? arg_tensor(ctx, args, 2) : nullptr;
  const Tensor* zp = nullptr;
  if (scales == nullptr || !arg_opt_tensor(ctx, args, 3, &zp)) return;
  ScalarType dtype = ScalarType::Float;
  bool has_dtype = false;
  if (!arg_opt_dtype(ctx, args, 4, &dtype, &has_dtype)) return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (out == nullptr) return;
  if (!rank(ctx, 0, "input", *in, 2, 2) || !rank(ctx, 1, "weight", *weight, 2, 2) ||
      !rank(ctx, 2, "weight_scales", *scales, 1, 2) || !rank(ctx, 5, "out", *out, 2, 2))
    return;
  if (in->size(1) != weight->size(1) || scales->size(0) != weight->size(0)) {
    fail(ctx, Error::InvalidArgument,
         "input %s, weight %s and weight_scales %s: need input.size(1) == weight.size(1) and weight_scales.size(0) "
         "== weight.size(0)",
         shape_string(*in).c_str(), shape_string(*weight).c_str(), shape_string(*scales).c_str());
    return;
  }
  if (scales->scalar_type() != in->scalar_type()) {
    fail(ctx, Error::InvalidArgument, "input (%s) and weight_scales (%s) must have the same dtype",
         dtype_name(in->scalar_type()), dtype_name(scales->scalar_type()));
    return;
  }
  const ScalarType ot = out->scalar_type();
  if (has_dtype) {
    if (ot != dtype) {
      fail(ctx, Error::InvalidArgument, "argument 5 (out) has dtype %s, but argument 4 (dtype) is %s", dtype_name(ot),
           dtype_name(dtype));
      return;
    }
    if (!float_or_half(ctx, 4, "dtype", dtype)) return;
  }
  if (weight->scalar_type() != ScalarType::Char) {
    fail(ctx, Error::InvalidArgument, "argument 1 (weight) has dtype %s, expected Char (int8)",
         dtype_name(weight->scalar_type()));
    return;
  }
  if (!float_or_half(ctx, 0, "input", in->scalar_type()) || !no_zero_points(ctx, zp, *scales, *in)) return;
  if (ot != ScalarType::Float && ot != ScalarType::Double && ot != ScalarType::Half) {
    fail(ctx, Error::InvalidArgument, "argument 5 (out) has dtype %s, expected Float, Double or Half", dtype_name(ot));
    return;
  }
  const int64_t n = in->size(1);
  int64_t g = n, G = 1;
  if (scales->dim() == 2) {
    G = scales->size(1);
    // Upstream: g = ceil(n / G) elements per group, and group q of row j is scales[j * ceil(n / g) + q].
    if (G == 0 || (n > 0 && (n + (n + G - 1) / G - 1) / ((n + G - 1) / G) != G)) {
      fail(ctx, Error::InvalidArgument,
           "argument 2 (weight_scales) has %lld groups per row, which do not split the %lld input columns into "
           "groups of ceil(n / groups) (the last one possibly shorter)",
           static_cast<long long>(G), static_cast<long long>(n));
      return;
    }
    g = n > 0 ? (n + G - 1) / G : 0;
  }
  const SizesType sizes[2] = {static_cast<SizesType>(in->size(0)), static_cast<SizesType>(weight->size(0))};
  if (!resize_out(ctx, *out, 5, sizes, 2)) return;
  if (out->numel() == 0) return;
  if (n == 0) G = 0;  // every sum is empty: zeros
  auto by_out = [&](auto u_tag) {
    using U = decltype(u_tag);
    if (ot == ScalarType::Float)
      linear<U, float>(*in, *weight, *scales, *out, g, G);
    else if (ot == ScalarType::Double)
      linear<U, double>(*in, *weight, *scales, *out, g, G);
    else
      linear<U, Half>(*in, *weight, *scales, *out, g, G);
  };
  if (in->scalar_type() == ScalarType::Float)
    by_out(float{});
  else
    by_out(Half{});
}

}  // namespace etq
