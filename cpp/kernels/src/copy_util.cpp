// Copies, dtype checks and view arguments shared by the shape / copy / indexing kernels (copy_util.h).
#include "copy_util.h"

#include <algorithm>

namespace etk {

bool dtypes_copyable(ScalarType a, ScalarType b) { return a == b || (is_supported_dtype(a) && is_supported_dtype(b)); }

void fail_dtypes(KernelRuntimeContext& ctx, const char* what, ScalarType a, ScalarType b) {
  fail(ctx, Error::InvalidType, "%s has dtype %s, the output %s: no conversion between them", what, dtype_name(a),
       dtype_name(b));
}

bool same_or_fail(KernelRuntimeContext& ctx, ScalarType a, ScalarType b) {
  if (a != b || !is_supported_dtype(a)) {
    fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same (supported) dtype",
         dtype_name(a), dtype_name(b));
    return false;
  }
  return true;
}

void reshape_copy(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out, const Shape& shape) {
  if (!dtypes_copyable(in.scalar_type(), out.scalar_type()))
    return fail_dtypes(ctx, "argument 0", in.scalar_type(), out.scalar_type());
  if (shape.numel() != in.numel())
    return fail(ctx, Error::InvalidArgument, "the shape %s has %lld elements, argument 0 (shape %s) has %lld",
                shape_string(shape.d, shape.ndim).c_str(), ll(shape.numel()), shape_string(in).c_str(), ll(in.numel()));
  if (!resize_out(ctx, out, shape)) return;
  if (in.numel() == 0) return;
  const Operand oi = operand_of(in), oo = operand_of(out);
  if (in.scalar_type() == out.scalar_type() && is_contiguous(oi) && is_contiguous(oo)) {
    std::memmove(oo.data, oi.data, in.nbytes());
    return;
  }
  const Operand* src = &oi;
  std::vector<char> tmp;
  Operand ci;
  if (!is_contiguous(oi)) {
    tmp.resize(in.nbytes());
    ci = contiguous_like(oi, tmp.data());
    copy_operand(ci, oi, shape_of(in));
    src = &ci;
  }
  // Reinterpret the contiguous source with the output's shape.
  Operand s2 = contiguous_like(oo, src->data);
  s2.dtype = src->dtype;
  s2.esize = src->esize;
  copy_operand(oo, s2, shape);
}

void same_shape_copy(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& out) {
  if (!dtypes_copyable(in.scalar_type(), out.scalar_type()))
    return fail_dtypes(ctx, "argument 0", in.scalar_type(), out.scalar_type());
  if (in.dim() != out.dim())
    return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d, the output %d-d", static_cast<int>(in.dim()),
                static_cast<int>(out.dim()));
  Shape s = shape_of(in);
  if (!resize_out(ctx, out, s)) return;
  if (in.numel() == 0) return;
  copy_operand(operand_of(out), operand_of(in), s);
}

bool check_dim_order_arg(KernelRuntimeContext& ctx, Args args, size_t i, const Tensor& out) {
  std::vector<int64_t> order;
  bool has = false;
  if (!arg_opt_int_list(ctx, args, i, &order, &has)) return false;
  if (!has) return true;
  if (static_cast<ssize_t>(order.size()) != out.dim()) {
    fail(ctx, Error::InvalidArgument, "argument %zu (dim_order) has %zu entries, the output is %d-d", i, order.size(),
         static_cast<int>(out.dim()));
    return false;
  }
  auto od = out.dim_order();
  for (size_t k = 0; k < order.size(); ++k) {
    if (od.data() == nullptr || order[k] != static_cast<int64_t>(od[k])) {
      fail(ctx, Error::InvalidArgument, "argument %zu (dim_order) %s is not the output's dim order", i,
           shape_string(order.data(), static_cast<int>(order.size())).c_str());
      return false;
    }
  }
  return true;
}

bool scatter_dtypes(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, const Tensor& out) {
  if (!same_or_fail(ctx, self.scalar_type(), out.scalar_type())) return false;
  if (!is_supported_dtype(src.scalar_type())) {
    fail(ctx, Error::InvalidType, "src (argument 1) has dtype %s, which this kernel does not take",
         dtype_name(src.scalar_type()));
    return false;
  }
  return true;
}

// out = copy of self, then `src` copied into the view of out described by (dim, start, len, step).
void scatter_view(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, const Tensor& out, int64_t d,
                  int64_t start, int64_t len, int64_t step, bool drop_dim) {
  Shape s = shape_of(self);
  if (!resize_out(ctx, out, s)) return;
  if (self.numel() > 0) copy_operand(operand_of(out), operand_of(self), s);
  Operand dst = operand_of(out);
  dst.data += start * dst.strides[d] * dst.esize;
  Shape vs;
  if (drop_dim) {
    etk::drop_dim(&dst, static_cast<int>(d));
  } else {
    dst.sizes[d] = len;
    dst.strides[d] *= step;
  }
  vs.ndim = dst.ndim;
  for (int k = 0; k < dst.ndim; ++k) vs.d[k] = dst.sizes[k];
  if (src.dim() != vs.ndim)
    return fail(ctx, Error::InvalidArgument, "argument 1 (src) has shape %s, the slice of argument 0 has rank %d",
                shape_string(src).c_str(), vs.ndim);
  for (int k = 0; k < vs.ndim; ++k)
    if (src.size(k) != vs.d[k])
      return fail(ctx, Error::InvalidArgument, "argument 1 (src) has shape %s, the slice of argument 0 has shape %s",
                  shape_string(src).c_str(), shape_string(vs.d, vs.ndim).c_str());
  if (vs.numel() == 0) return;
  copy_operand(dst, operand_of(src), vs);
}

bool select_dim_index(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int dim_arg, int64_t* index,
                      int index_arg, const char* verb, int64_t* d) {
  const int nd = static_cast<int>(self.dim());
  if (nd == 0) {
    fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to %s", verb);
    return false;
  }
  if (!norm_dim(dim, nd, d)) {
    fail_dim(ctx, dim, dim_arg, nd);
    return false;
  }
  const int64_t len = self.size(*d);
  if (*index < -len || *index >= len) {
    fail(ctx, Error::InvalidArgument, "index %lld (argument %d) is out of range for size %lld (dim %lld)", ll(*index),
         index_arg, ll(len), ll(*d));
    return false;
  }
  if (*index < 0) *index += len;
  return true;
}

int64_t slice_count(int64_t len, bool has_start, int64_t* start, bool has_end, int64_t end, int64_t step) {
  if (!has_start) *start = 0;
  if (!has_end) end = len;
  if (*start < 0) *start += len;
  if (end < 0) end += len;
  *start = std::min(std::max<int64_t>(*start, 0), len);
  end = std::min(std::max<int64_t>(end, *start), len);
  return (end - *start + step - 1) / step;
}

}  // namespace etk
