// llama::custom_sdpa.out and llama::sdpa_with_kv_cache.out: scaled dot-product attention of the new queries over
// a KV cache (upstream: extension/llm/custom_ops/op_sdpa.cpp). Layout [batch, seq, heads, head_dim] for queries
// and caches; grouped-query attention when the cache has fewer heads than the queries. Without a mask, query i
// (absolute position start_pos + i) sees the cache's first start_pos + seq_len positions, and with is_causal only
// those up to its own; with a mask ([seq_len, cache_len], added to the scores) it sees the whole cache. Each
// (batch, head) is two products on the shared CPU base's GEMM around a softmax per query row; heads are split
// over the shared thread pool.
#include <algorithm>
#include <cmath>
#include <vector>

#include <executorch/extension/parallel/thread_parallel.h>

#include "gemm.h"
#include "ops.h"

namespace etl {

namespace {

// x [B, T, H, D] int8 with one zero point and scale per row of D: (x - zero_point) * scale, as upstream's
// dequantize, for the first `used` of the T positions of each batch (a cache's later positions are not read).
bool dequantize_tokens(KernelRuntimeContext& ctx, const Tensor& x, const Tensor* zp, const Tensor* scale,
                       const char* what, int64_t used, std::vector<float>* out) {
  const int64_t B = x.size(0), T = x.size(1), H = x.size(2), D = x.size(3), rows = B * T * H;
  if (zp == nullptr || scale == nullptr || zp->scalar_type() != ScalarType::Char ||
      scale->scalar_type() != ScalarType::Float || zp->numel() != rows || scale->numel() != rows ||
      !is_contiguous(*zp) || !is_contiguous(*scale)) {
    fail(ctx, Error::InvalidArgument,
         "%s is int8: its zero points (Char) and scales (Float) must hold one value per token and head (%lld)", what,
         static_cast<long long>(rows));
    return false;
  }
  const auto* xp = static_cast<const int8_t*>(x.const_data_ptr());
  const auto* zpp = static_cast<const int8_t*>(zp->const_data_ptr());
  const auto* sp = static_cast<const float*>(scale->const_data_ptr());
  out->resize(static_cast<size_t>(rows * D));
  float* o = out->data();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t r = b * T * H; r < (b * T + used) * H; ++r) {
      const int32_t z = zpp[r];
      const float s = sp[r];  // unwritten cache rows hold 0: not checked, as upstream
      for (int64_t d = 0; d < D; ++d) o[r * D + d] = static_cast<float>(static_cast<int32_t>(xp[r * D + d]) - z) * s;
    }
  }
  return true;
}

}  // namespace

void attention(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, int64_t start_pos,
               const Tensor* mask, bool is_causal, bool has_scale, double scale, const Tensor& out,
               const TokenQParams* quant) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4)
    return fail(ctx, Error::InvalidArgument, "query %s, key %s and value %s must be 4-d [batch, seq, heads, head_dim]",
                shape_string(q).c_str(), shape_string(k).c_str(), shape_string(v).c_str());
  const ScalarType in_type = quant ? ScalarType::Char : ScalarType::Float;
  if (q.scalar_type() != in_type || k.scalar_type() != in_type || v.scalar_type() != in_type ||
      out.scalar_type() != ScalarType::Float)
    return fail(ctx, Error::InvalidType, "query, key and value must be %s and out Float (got %s, %s, %s, %s)",
                dtype_name(in_type), dtype_name(q.scalar_type()), dtype_name(k.scalar_type()),
                dtype_name(v.scalar_type()), dtype_name(out.scalar_type()));
  const int64_t B = q.size(0), S = q.size(1), Hq = q.size(2), D = q.size(3);
  const int64_t L = k.size(1), Hkv = k.size(2);
  if (k.size(0) != B || v.size(0) != B || k.size(3) != D || v.size(3) != D || v.size(1) != L || v.size(2) != Hkv ||
      Hkv == 0 || Hq % Hkv != 0)
    return fail(ctx, Error::InvalidArgument,
                "query %s does not fit key %s / value %s (batch and head_dim must agree, the query heads must be a "
                "multiple of the key heads)",
                shape_string(q).c_str(), shape_string(k).c_str(), shape_string(v).c_str());
  if (!is_contiguous(q) || !is_contiguous(k) || !is_contiguous(v))
    return fail(ctx, Error::InvalidArgument, "query, key and value must be contiguous");
  int64_t num_keys = L;
  if (mask != nullptr) {
    if (is_causal) return fail(ctx, Error::InvalidArgument, "attn_mask and is_causal cannot both be set");
    if (mask->scalar_type() != ScalarType::Float || mask->dim() != 2 || mask->size(0) != S || mask->size(1) != L ||
        !is_contiguous(*mask))
      return fail(ctx, Error::InvalidArgument, "attn_mask must be a contiguous Float [%lld, %lld], got %s %s",
                  static_cast<long long>(S), static_cast<long long>(L), dtype_name(mask->scalar_type()),
                  shape_string(*mask).c_str());
  } else {
    if (start_pos < 0 || S > L || start_pos > L - S)
      return fail(ctx, Error::InvalidArgument,
                  "start_pos %lld + %lld queries exceed the cache's %lld positions (the prompt or the generation is "
                  "longer than the program's max context length)",
                  static_cast<long long>(start_pos), static_cast<long long>(S), static_cast<long long>(L));
    num_keys = start_pos + S;
  }
  SizesType sizes[4] = {static_cast<SizesType>(B), static_cast<SizesType>(S), static_cast<SizesType>(Hq),
                        static_cast<SizesType>(D)};
  if (rt::resize_tensor(out, {sizes, 4}) != Error::Ok)
    return fail(ctx, Error::InvalidArgument, "out cannot take the query's shape %s", shape_string(q).c_str());
  if (!is_contiguous(out)) return fail(ctx, Error::InvalidArgument, "out must be contiguous");
  const float sc = has_scale ? static_cast<float>(scale) : 1.0f / std::sqrt(static_cast<float>(D));
  const float* qp = nullptr;
  const float* kp = nullptr;
  const float* vp = nullptr;
  std::vector<float> qf, kf, vf;
  if (quant != nullptr) {
    if (!dequantize_tokens(ctx, q, quant->q_zp, quant->q_scale, "query", S, &qf) ||
        !dequantize_tokens(ctx, k, quant->k_zp, quant->k_scale, "key", num_keys, &kf) ||
        !dequantize_tokens(ctx, v, quant->v_zp, quant->v_scale, "value", num_keys, &vf))
      return;
    qp = qf.data(), kp = kf.data(), vp = vf.data();
  } else {
    qp = static_cast<const float*>(q.const_data_ptr());
    kp = static_cast<const float*>(k.const_data_ptr());
    vp = static_cast<const float*>(v.const_data_ptr());
  }
  const float* mp = mask ? static_cast<const float*>(mask->const_data_ptr()) : nullptr;
  float* op = static_cast<float*>(out.mutable_data_ptr());
  const int64_t group = Hq / Hkv;
  // One task per (batch, query head): scores = scale * q_h k_h^T on the shared GEMM (a matrix-vector product per
  // key for a decode step), the masked softmax per query row, then out_h = P v_h.
  auto run = [&](int64_t t0, int64_t t1) {
    std::vector<float> p(static_cast<size_t>(S * num_keys));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / Hq, h = t % Hq, kvh = h / group;
      const float* qh = qp + (b * S * Hq + h) * D;     // query i at qh + i * Hq * D
      const float* kh = kp + (b * L * Hkv + kvh) * D;  // key j at kh + j * Hkv * D
      const float* vh = vp + (b * L * Hkv + kvh) * D;
      etk::sgemm(S, num_keys, D, sc, qh, Hq * D, 1, kh, 1, Hkv * D, 0.f, p.data(), num_keys, 1, /*parallel=*/false);
      for (int64_t i = 0; i < S; ++i) {
        float* row = p.data() + i * num_keys;
        const int64_t n = mask || !is_causal ? num_keys : start_pos + i + 1;
        if (mp) {
          for (int64_t j = 0; j < num_keys; ++j) row[j] += mp[i * L + j];
        }
        float m = -INFINITY;
        for (int64_t j = 0; j < n; ++j) m = std::max(m, row[j]);
        if (n == 0 || m == -INFINITY) {  // every key masked out: zeros, as upstream
          std::fill(row, row + num_keys, 0.0f);
          continue;
        }
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) {
          row[j] = std::exp(row[j] - m);
          sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < n; ++j) row[j] *= inv;
        std::fill(row + n, row + num_keys, 0.0f);
      }
      etk::sgemm(S, D, num_keys, 1.f, p.data(), num_keys, 1, vh, Hkv * D, 1, 0.f, op + (b * S * Hq + h) * D, Hq * D, 1,
                 /*parallel=*/false);
    }
  };
  // About 4 * S * num_keys * head_dim flops a task: stay on the calling thread when the whole call is small.
  if (B * Hq * S * num_keys * D < 65536) {
    run(0, B * Hq);
  } else {
    ::executorch::extension::parallel_for(0, B * Hq, 1, run);
  }
}

ET_KERNEL_OP("llama::custom_sdpa.out", custom_sdpa_out,
             "(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None, float drpout_p=0., "
             "bool is_causal=False, float? scale=None, *, Tensor(a!) out) -> Tensor(a!)")
void custom_sdpa_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 9)) return;
  const Tensor *q = arg_tensor(ctx, args, 0), *k = nullptr, *v = nullptr, *mask = nullptr, *out = nullptr;
  int64_t start_pos = 0;
  double dropout = 0, scale = 0;
  bool is_causal = false, has_scale = false;
  if (!q || !(k = arg_tensor(ctx, args, 1)) || !(v = arg_tensor(ctx, args, 2)) || !arg_int(ctx, args, 3, &start_pos) ||
      !arg_opt_tensor(ctx, args, 4, &mask) || !arg_double(ctx, args, 5, &dropout) ||
      !arg_bool(ctx, args, 6, &is_causal) || !arg_opt_double(ctx, args, 7, &scale, &has_scale) ||
      !(out = arg_tensor(ctx, args, 8)))
    return;
  attention(ctx, *q, *k, *v, start_pos, mask, is_causal, has_scale, scale, *out);
}

// export_llama --quantize_kv_cache's attention over int8 caches (per-token zero points and scales); float
// queries, keys and values run as custom_sdpa.
ET_KERNEL_OP("llama::custom_quantized_sdpa.out", custom_quantized_sdpa_out,
             "(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None, float drpout_p=0., "
             "bool is_causal=False, float? scale=None, Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? "
             "k_zero_points=None, Tensor? k_scales=None, Tensor? v_zero_points=None, Tensor? v_scales=None, bool "
             "is_seq_at_dim_2=False, *, Tensor(a!) out) -> Tensor(a!)")
void custom_quantized_sdpa_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 16)) return;
  const Tensor *q = arg_tensor(ctx, args, 0), *k = nullptr, *v = nullptr, *mask = nullptr, *out = nullptr;
  int64_t start_pos = 0;
  double dropout = 0, scale = 0;
  bool is_causal = false, has_scale = false, seq_at_dim_2 = false;
  TokenQParams qp{};
  if (!q || !(k = arg_tensor(ctx, args, 1)) || !(v = arg_tensor(ctx, args, 2)) || !arg_int(ctx, args, 3, &start_pos) ||
      !arg_opt_tensor(ctx, args, 4, &mask) || !arg_double(ctx, args, 5, &dropout) ||
      !arg_bool(ctx, args, 6, &is_causal) || !arg_opt_double(ctx, args, 7, &scale, &has_scale) ||
      !arg_opt_tensor(ctx, args, 8, &qp.q_zp) || !arg_opt_tensor(ctx, args, 9, &qp.q_scale) ||
      !arg_opt_tensor(ctx, args, 10, &qp.k_zp) || !arg_opt_tensor(ctx, args, 11, &qp.k_scale) ||
      !arg_opt_tensor(ctx, args, 12, &qp.v_zp) || !arg_opt_tensor(ctx, args, 13, &qp.v_scale) ||
      !arg_bool(ctx, args, 14, &seq_at_dim_2) || !(out = arg_tensor(ctx, args, 15)))
    return;
  if (seq_at_dim_2)
    return fail(ctx, Error::NotSupported,
                "is_seq_at_dim_2 (the [batch, heads, seq, head_dim] layout) is not supported");
  const bool quantized = q->scalar_type() == ScalarType::Char;
  attention(ctx, *q, *k, *v, start_pos, mask, is_causal, has_scale, scale, *out, quantized ? &qp : nullptr);
}

// The new keys / values into the caches, then custom_sdpa over them.
ET_KERNEL_OP("llama::sdpa_with_kv_cache.out", sdpa_with_kv_cache_out,
             "(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, SymInt start_pos, "
             "SymInt seq_len, Tensor? attn_mask=None, float drpout_p=0., bool is_causal=False, float? scale=None, *, "
             "Tensor(c!) out) -> Tensor(c!)")
void sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 12)) return;
  const Tensor *q = arg_tensor(ctx, args, 0), *k = nullptr, *v = nullptr, *kc = nullptr, *vc = nullptr, *mask = nullptr,
               *out = nullptr;
  int64_t start_pos = 0, seq_len = 0;
  double dropout = 0, scale = 0;
  bool is_causal = false, has_scale = false;
  if (!q || !(k = arg_tensor(ctx, args, 1)) || !(v = arg_tensor(ctx, args, 2)) || !(kc = arg_tensor(ctx, args, 3)) ||
      !(vc = arg_tensor(ctx, args, 4)) || !arg_int(ctx, args, 5, &start_pos) || !arg_int(ctx, args, 6, &seq_len) ||
      !arg_opt_tensor(ctx, args, 7, &mask) || !arg_double(ctx, args, 8, &dropout) ||
      !arg_bool(ctx, args, 9, &is_causal) || !arg_opt_double(ctx, args, 10, &scale, &has_scale) ||
      !(out = arg_tensor(ctx, args, 11)))
    return;
  if (!write_cache(ctx, *k, *kc, start_pos, nullptr, "key_cache") ||
      !write_cache(ctx, *v, *vc, start_pos, nullptr, "value_cache"))
    return;
  attention(ctx, *q, *kc, *vc, start_pos, mask, is_causal, has_scale, scale, *out);
}

}  // namespace etl
