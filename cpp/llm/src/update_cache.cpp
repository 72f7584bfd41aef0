// llama::update_cache.out and llama::update_cache_with_indices.out: write projected keys / values into a KV
// cache in place (upstream: extension/llm/custom_ops/op_update_cache.cpp). The out tensor is a placeholder
// that upstream's kernel leaves untouched; so does this one.
#include <cstring>

#include "ops.h"

namespace etl {

bool write_cache(KernelRuntimeContext& ctx, const Tensor& value, const Tensor& cache, int64_t start_pos,
                 const Tensor* indices, const char* what) {
  if (value.dim() != 4 || cache.dim() != 4) {
    fail(ctx, Error::InvalidArgument, "the value (%s) and the %s (%s) must be 4-d [batch, seq, heads, head_dim]",
         shape_string(value).c_str(), what, shape_string(cache).c_str());
    return false;
  }
  if (value.size(0) != cache.size(0) || value.size(2) != cache.size(2) || value.size(3) != cache.size(3) ||
      value.scalar_type() != cache.scalar_type()) {
    fail(ctx, Error::InvalidArgument,
         "the value (%s %s) does not fit the %s (%s %s): batch, heads, head_dim and dtype must agree",
         dtype_name(value.scalar_type()), shape_string(value).c_str(), what, dtype_name(cache.scalar_type()),
         shape_string(cache).c_str());
    return false;
  }
  if (!is_contiguous(value) || !is_contiguous(cache)) {
    fail(ctx, Error::InvalidArgument, "the value and the %s must be contiguous", what);
    return false;
  }
  const int64_t B = value.size(0), S = value.size(1), L = cache.size(1);
  const size_t row = static_cast<size_t>(value.size(2) * value.size(3) * value.element_size());
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  if (indices == nullptr) {
    if (start_pos < 0 || S > L || start_pos > L - S) {
      fail(ctx, Error::InvalidArgument,
           "start_pos %lld + %lld new positions do not fit the %s's %lld positions (the prompt or the generation is "
           "longer than the program's max context length)",
           static_cast<long long>(start_pos), static_cast<long long>(S), what, static_cast<long long>(L));
      return false;
    }
    for (int64_t b = 0; b < B; ++b)
      std::memcpy(dst + static_cast<size_t>(b * L + start_pos) * row, src + static_cast<size_t>(b * S) * row,
                  static_cast<size_t>(S) * row);
    return true;
  }
  if (indices->scalar_type() != ScalarType::Long || indices->dim() != 2 || indices->size(0) != B ||
      indices->size(1) != S || !is_contiguous(*indices)) {
    fail(ctx, Error::InvalidArgument, "indices must be a contiguous Long tensor [%lld, %lld], got %s %s",
         static_cast<long long>(B), static_cast<long long>(S), dtype_name(indices->scalar_type()),
         shape_string(*indices).c_str());
    return false;
  }
  const int64_t* pos = static_cast<const int64_t*>(indices->const_data_ptr());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s) {
      const int64_t p = pos[b * S + s];
      if (p < 0 || p >= L) {
        fail(ctx, Error::InvalidArgument, "indices[%lld, %lld] is %lld, outside the %s's %lld positions",
             static_cast<long long>(b), static_cast<long long>(s), static_cast<long long>(p), what,
             static_cast<long long>(L));
        return false;
      }
      std::memcpy(dst + static_cast<size_t>(b * L + p) * row, src + static_cast<size_t>(b * S + s) * row, row);
    }
  return true;
}

namespace {
// update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out), and with indices:
// update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos, Tensor indices, *,
// Tensor(b!) out).
void update_cache_args(KernelRuntimeContext& ctx, Args args, bool with_indices) {
  if (!check_nargs(ctx, args, with_indices ? 5 : 4)) return;
  const Tensor* value = arg_tensor(ctx, args, 0);
  const Tensor* cache = value ? arg_tensor(ctx, args, 1) : nullptr;
  int64_t start_pos = 0;
  if (!cache || !arg_int(ctx, args, 2, &start_pos)) return;
  const Tensor* indices = with_indices ? arg_tensor(ctx, args, 3) : nullptr;
  if (with_indices && !indices) return;
  write_cache(ctx, *value, *cache, start_pos, indices, "cache");
}
}  // namespace

ET_KERNEL_OP("llama::update_cache.out", update_cache_out,
             "(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out) -> Tensor(b!)")
void update_cache_out(KernelRuntimeContext& ctx, Args args) { update_cache_args(ctx, args, false); }
ET_KERNEL_OP("llama::update_cache_with_indices.out", update_cache_with_indices_out,
             "(Tensor value, Tensor(a!) cache, SymInt start_pos, Tensor indices, *, Tensor(b!) out) -> Tensor(b!)")
void update_cache_with_indices_out(KernelRuntimeContext& ctx, Args args) { update_cache_args(ctx, args, true); }

}  // namespace etl
