// embedding_byte, embedding_2bit, embedding_4bit (.out and .dtype_out): rows of a quantized weight picked by
// `indices` and dequantized, with one (scale, zero point) per row or per group of a row
// (kernels/quantized/cpu/op_embedding.cpp, embeddingxb.cpp):
//   out[..., j] = OUT((float(w[idx, j]) - float(zp[idx, g])) * float(scale[idx, g])),  g = j / (D / groups)
// The sub-byte weights are Byte tensors, packed as upstream packs them: 4-bit, two values per byte, element 2c in
// the high nibble and 2c+1 in the low one, each stored as value + 8; 2-bit, four per byte, element 4c+i in bits
// 2i..2i+1, stored as value + 2. quant_min / quant_max are metadata (checked, not applied).
#include <string>
#include <vector>

#include "affine.h"
#include "qparams.h"

namespace etq {
namespace {

inline float load_param(const void* base, ScalarType t, int64_t off) {
  switch (t) {
    case ScalarType::Half: return half_to_float(static_cast<const uint16_t*>(base)[off]);
    case ScalarType::BFloat16: return bf16_to_float(static_cast<const uint16_t*>(base)[off]);
    default: return static_cast<const float*>(base)[off];
  }
}

bool is_fhb(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16; }

struct Inputs {
  const Tensor* weight;
  const Tensor* scales;
  const Tensor* zps;  // may be null
  const Tensor* indices;
  const Tensor* out;
  int64_t dim;     // embedding dim D
  int64_t groups;  // per row
};

// Unpacks (or converts) row `idx` of the weight into D floats.
template <typename W>
void unpack_row(const Tensor& weight, int nbit, int64_t idx, int64_t dim, float* __restrict row) {
  const int64_t s0 = weight.strides()[0], s1 = weight.strides()[1];
  const W* w = weight.const_data_ptr<W>() + idx * s0;
  if (nbit == 8) {
    if (s1 == 1) {
      for (int64_t j = 0; j < dim; ++j) row[j] = static_cast<float>(w[j]);
    } else {
      for (int64_t j = 0; j < dim; ++j) row[j] = static_cast<float>(w[j * s1]);
    }
    return;
  }
  const int64_t cols = weight.size(1);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(w);
  if (nbit == 4) {
    for (int64_t c = 0; c < cols; ++c) {
      const int32_t v = b[c * s1];
      row[2 * c] = static_cast<float>(((v >> 4) & 0x0f) - 8);
      row[2 * c + 1] = static_cast<float>((v & 0x0f) - 8);
    }
  } else {
    for (int64_t c = 0; c < cols; ++c) {
      const int32_t v = b[c * s1];
      row[4 * c] = static_cast<float>((v & 3) - 2);
      row[4 * c + 1] = static_cast<float>(((v >> 2) & 3) - 2);
      row[4 * c + 2] = static_cast<float>(((v >> 4) & 3) - 2);
      row[4 * c + 3] = static_cast<float>(((v >> 6) & 3) - 2);
    }
  }
}

inline int64_t index_at(const Tensor& indices, bool contiguous, int64_t p) {
  const int64_t off = contiguous ? p : logical_offset(indices, p);
  if (indices.scalar_type() == ScalarType::Long) return indices.const_data_ptr<int64_t>()[off];
  return indices.const_data_ptr<int32_t>()[off];
}

template <typename W, typename O>
void run(const Inputs& in, int nbit) {
  const Tensor& scales = *in.scales;
  const int64_t dim = in.dim, groups = in.groups, gsize = groups > 0 ? dim / groups : dim;
  const int64_t rows = in.indices->numel();
  const bool idx_contiguous = is_contiguous(*in.indices);
  const bool out_contiguous = is_contiguous(*in.out);
  const int64_t ss0 = scales.strides()[0], ss1 = scales.dim() == 2 ? scales.strides()[1] : 0;
  const ScalarType st = scales.scalar_type();
  const void* sbase = scales.const_data_ptr();
  const ScalarType zt = in.zps ? in.zps->scalar_type() : ScalarType::Float;
  const void* zbase = in.zps ? in.zps->const_data_ptr() : nullptr;
  const int64_t zs0 = in.zps ? in.zps->strides()[0] : 0;
  const int64_t zs1 = in.zps && in.zps->dim() == 2 ? in.zps->strides()[1] : 0;
  O* out = in.out->mutable_data_ptr<O>();
  parallel(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(dim, 1)), [&](int64_t b, int64_t e) {
    std::vector<float> row(static_cast<size_t>(dim));
    std::vector<O> staged(out_contiguous ? 0 : static_cast<size_t>(dim));
    for (int64_t p = b; p < e; ++p) {
      const int64_t idx = index_at(*in.indices, idx_contiguous, p);
      unpack_row<W>(*in.weight, nbit, idx, dim, row.data());
      O* dst = out_contiguous ? out + p * dim : staged.data();
      for (int64_t g = 0; g < (groups > 0 ? groups : 1); ++g) {
        const float sc = load_param(sbase, st, idx * ss0 + g * ss1);
        const float zp = zbase ? load_param(zbase, zt, idx * zs0 + g * zs1) : 0.0f;
        const float* __restrict r = row.data() + g * gsize;
        O* __restrict d = dst + g * gsize;
        for (int64_t j = 0; j < gsize; ++j) d[j] = from_float<O>((r[j] - zp) * sc);
      }
      if (!out_contiguous) {
        Walker w(*in.out, p * dim);
        for (int64_t j = 0; j < dim; ++j, w.next()) out[w.off] = staged[j];
      }
    }
  });
}

// Schema: weight 0, weight_scales 1, weight_zero_points 2, weight_quant_min 3, weight_quant_max 4, indices 5,
// then (dtype_out) dtype 6, and out.
void embedding(KernelRuntimeContext& ctx, Args args, int nbit, bool dtype_variant) {
  const size_t out_i = dtype_variant ? 7 : 6;
  if (!check_nargs(ctx, args, out_i + 1)) return;
  Inputs in{};
  int64_t qmin, qmax;
  ScalarType dtype = ScalarType::Float;
  bool has_dtype = false;
  in.weight = arg_tensor(ctx, args, 0);
  in.scales = in.weight ? arg_tensor(ctx, args, 1) : nullptr;
  if (in.scales == nullptr || !arg_opt_tensor(ctx, args, 2, &in.zps) || !arg_int(ctx, args, 3, &qmin) ||
      !arg_int(ctx, args, 4, &qmax))
    return;
  in.indices = arg_tensor(ctx, args, 5);
  if (in.indices == nullptr) return;
  if (dtype_variant && !arg_opt_dtype(ctx, args, 6, &dtype, &has_dtype)) return;
  in.out = arg_tensor(ctx, args, out_i);
  if (in.out == nullptr) return;
  const Tensor &weight = *in.weight, &scales = *in.scales, &indices = *in.indices, &out = *in.out;

  if (weight.dim() != 2) {
    fail(ctx, Error::InvalidArgument, "argument 0 (weight) has shape %s, expected 2 dims",
         shape_string(weight).c_str());
    return;
  }
  const int per_byte = 8 / nbit;
  in.dim = weight.size(1) * per_byte;
  if (scales.dim() != 1 && scales.dim() != 2) {
    fail(ctx, Error::InvalidArgument, "argument 1 (weight_scales) has shape %s, expected 1 or 2 dims",
         shape_string(scales).c_str());
    return;
  }
  if (scales.size(0) != weight.size(0)) {
    fail(ctx, Error::InvalidArgument,
         "argument 1 (weight_scales) has shape %s: its first dim must equal weight.size(0) = %zd",
         shape_string(scales).c_str(), weight.size(0));
    return;
  }
  in.groups = scales.dim() == 2 ? scales.size(1) : 1;
  if (scales.dim() == 2 && (in.groups == 0 || in.dim % in.groups != 0)) {
    fail(ctx, Error::InvalidArgument,
         "argument 1 (weight_scales) has %lld groups per row, which do not divide the embedding dim %lld",
         static_cast<long long>(in.groups), static_cast<long long>(in.dim));
    return;
  }
  const ScalarType wt = weight.scalar_type();
  if (nbit == 8 ? (wt != ScalarType::Byte && wt != ScalarType::Char) : wt != ScalarType::Byte) {
    fail(ctx, Error::InvalidArgument, "argument 0 (weight) has dtype %s, expected %s", dtype_name(wt),
         nbit == 8 ? "Byte or Char" : "Byte (packed)");
    return;
  }
  const ScalarType ot = out.scalar_type();
  if (!is_fhb(ot)) {
    fail(ctx, Error::InvalidArgument, "argument %zu (out) has dtype %s, expected Float, Half or BFloat16", out_i,
         dtype_name(ot));
    return;
  }
  const ScalarType st = scales.scalar_type();
  if (!is_fhb(st)) {
    fail(ctx, Error::InvalidArgument, "argument 1 (weight_scales) has dtype %s, expected Float, Half or BFloat16",
         dtype_name(st));
    return;
  }
  if (!dtype_variant && st != ot) {
    // Upstream's .out reads the scales as the out dtype.
    fail(ctx, Error::InvalidArgument,
         "argument 1 (weight_scales) has dtype %s but argument 6 (out) %s: .out needs them equal (.dtype_out "
         "takes other scale dtypes)",
         dtype_name(st), dtype_name(ot));
    return;
  }
  if (in.zps != nullptr) {
    const Tensor& z = *in.zps;
    if (!same_shape(z, scales)) {
      fail(ctx, Error::InvalidArgument,
           "argument 2 (weight_zero_points) has shape %s, weight_scales %s: they must match", shape_string(z).c_str(),
           shape_string(scales).c_str());
      return;
    }
    if (z.scalar_type() != ot) {
      fail(ctx, Error::InvalidArgument, "argument 2 (weight_zero_points) has dtype %s, expected the out dtype %s",
           dtype_name(z.scalar_type()), dtype_name(ot));
      return;
    }
  }
  const ScalarType it = indices.scalar_type();
  if (it != ScalarType::Long && (nbit == 8 || it != ScalarType::Int)) {
    fail(ctx, Error::InvalidArgument, "argument 5 (indices) has dtype %s, expected %s", dtype_name(it),
         nbit == 8 ? "Long" : "Long or Int");
    return;
  }
  if (qmin > qmax) {
    fail(ctx, Error::InvalidArgument,
         "argument 3 (weight_quant_min) %lld is greater than argument 4 (weight_quant_max) %lld",
         static_cast<long long>(qmin), static_cast<long long>(qmax));
    return;
  }
  if (has_dtype && dtype != ot) {
    fail(ctx, Error::InvalidArgument, "argument 7 (out) has dtype %s, but argument 6 (dtype) is %s", dtype_name(ot),
         dtype_name(dtype));
    return;
  }
  if (out.dim() != indices.dim() + 1 || indices.dim() + 1 > kMaxDim) {
    fail(ctx, Error::InvalidArgument, "argument %zu (out) has rank %zd, expected indices' rank + 1 = %zd", out_i,
         out.dim(), indices.dim() + 1);
    return;
  }
  SizesType sizes[kMaxDim];
  for (ssize_t d = 0; d < indices.dim(); ++d) sizes[d] = indices.size(d);
  sizes[indices.dim()] = static_cast<SizesType>(in.dim);
  if (!resize_out(ctx, out, out_i, sizes, static_cast<int>(indices.dim()) + 1)) return;
  const int64_t rows = indices.numel(), nrows = weight.size(0);
  const bool idx_contiguous = is_contiguous(indices);
  for (int64_t p = 0; p < rows; ++p) {
    const int64_t idx = index_at(indices, idx_contiguous, p);
    if (idx < 0 || idx >= nrows) {
      fail(ctx, Error::InvalidArgument, "argument 5 (indices) element %lld is %lld, outside [0, %lld) (weight rows)",
           static_cast<long long>(p), static_cast<long long>(idx), static_cast<long long>(nrows));
      return;
    }
  }
  if (rows == 0 || in.dim == 0) return;
  dispatch_fhb(ot, [&](auto o_tag) {
    using O = decltype(o_tag);
    if (wt == ScalarType::Char)
      run<int8_t, O>(in, nbit);
    else
      run<uint8_t, O>(in, nbit);
  });
}

}  // namespace

ET_KERNEL_OP("quantized_decomposed::embedding_byte.out", embedding_byte_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, Tensor(a!) out) -> Tensor(a!)")
void embedding_byte_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 8, false); }
// embedding_byte.dtype_out(..., Tensor indices, *, ScalarType? dtype=None, Tensor(a!) out)
ET_KERNEL_OP("quantized_decomposed::embedding_byte.dtype_out", embedding_byte_dtype_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void embedding_byte_dtype_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 8, true); }
// embedding_2bit.out / .dtype_out(..., Tensor indices, ScalarType? dtype=None, *, Tensor(a!) out)
ET_KERNEL_OP("quantized_decomposed::embedding_2bit.out", embedding_2bit_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, Tensor(a!) out) -> Tensor(a!)")
void embedding_2bit_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 2, false); }
ET_KERNEL_OP("quantized_decomposed::embedding_2bit.dtype_out", embedding_2bit_dtype_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void embedding_2bit_dtype_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 2, true); }
// embedding_4bit.out / .dtype_out
ET_KERNEL_OP("quantized_decomposed::embedding_4bit.out", embedding_4bit_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, Tensor(a!) out) -> Tensor(a!)")
void embedding_4bit_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 4, false); }
ET_KERNEL_OP("quantized_decomposed::embedding_4bit.dtype_out", embedding_4bit_dtype_out,
             "(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, int weight_quant_min, int "
             "weight_quant_max, Tensor indices, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
void embedding_4bit_dtype_out(KernelRuntimeContext& ctx, Args args) { embedding(ctx, args, 4, true); }

}  // namespace etq
