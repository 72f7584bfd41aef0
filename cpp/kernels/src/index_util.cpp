// Index tensors and element offsets of the indexing kernels (index_util.h).
#include "index_util.h"

namespace etk {

bool read_indices(KernelRuntimeContext& ctx, const Tensor& t, std::vector<int64_t>* v, const char* what) {
  if (t.scalar_type() != ScalarType::Long && t.scalar_type() != ScalarType::Int) {
    fail(ctx, Error::InvalidType, "%s has dtype %s, expected Long or Int", what, dtype_name(t.scalar_type()));
    return false;
  }
  v->assign(static_cast<size_t>(t.numel()), 0);
  if (t.numel() == 0) return true;
  const Operand src = operand_of(t);
  Operand dst = contiguous_like(src, reinterpret_cast<char*>(v->data()));
  dst.dtype = ScalarType::Long;
  dst.esize = 8;
  copy_operand(dst, src, shape_of(t));
  return true;
}

void logical_offsets(const int64_t* sizes, const int64_t* strides, int nd, int64_t n, std::vector<int64_t>* offs) {
  offs->resize(static_cast<size_t>(n));
  if (n == 0) return;
  int64_t idx[kMaxDim] = {};
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    (*offs)[static_cast<size_t>(i)] = off;
    for (int d = nd - 1; d >= 0; --d) {
      ++idx[d];
      off += strides[d];
      if (idx[d] < sizes[d]) break;
      off -= idx[d] * strides[d];
      idx[d] = 0;
    }
  }
}

void tensor_offsets(const Tensor& t, std::vector<int64_t>* offs) {
  Operand o = operand_of(t);
  logical_offsets(o.sizes, o.strides, o.ndim, t.numel(), offs);
}

}  // namespace etk
