// Shape and copy kernels: views materialized as copies, dim-order / dtype conversions, cat, split, expand,
// select, slice, full_like, embedding, constant_pad_nd.
#include "kernel_utils.h"
#include "ops.h"

#include <algorithm>

namespace etk {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

void fail_dtypes(KernelRuntimeContext& ctx, const char* what, ScalarType a, ScalarType b) {
  fail(ctx, Error::InvalidType, "%s has dtype %s, the output %s: no conversion between them", what, dtype_name(a),
       dtype_name(b));
}

void fail_dim(KernelRuntimeContext& ctx, int64_t dim, int argi, int64_t nd) {
  fail(ctx, Error::InvalidArgument, "dim %lld (argument %d) is out of range for a %lld-d tensor", ll(dim), argi,
       ll(nd));
}

bool dtypes_copyable(ScalarType a, ScalarType b) { return a == b || (is_supported_dtype(a) && is_supported_dtype(b)); }

Operand contiguous_like(const Operand& o, char* data) {
  Operand r = o;
  r.data = data;
  int64_t s = 1;
  for (int d = r.ndim - 1; d >= 0; --d) {
    r.strides[d] = s;
    s *= r.sizes[d];
  }
  return r;
}

// Copies `in` into `out` (resized to `shape`) preserving the logical (row-major) element order.
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

// Plain copy with the same shape (dtype and dim order may change).
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

}  // namespace

void permute_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (static_cast<int>(dims.size()) != nd)
    return fail(ctx, Error::InvalidArgument, "argument 1 (dims) has %zu entries, argument 0 is %d-d", dims.size(), nd);
  Operand oi = operand_of(*in);
  Operand src = oi;
  bool seen[kMaxDim] = {};
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) {
    int64_t d;
    if (!norm_dim(dims[k], nd, &d) || seen[d])
      return fail(ctx, Error::InvalidArgument, "argument 1 (dims) %s is not a permutation of the dims of a %d-d tensor",
                  shape_string(dims.data(), nd).c_str(), nd);
    seen[d] = true;
    src.sizes[k] = oi.sizes[d];
    src.strides[k] = oi.strides[d];
    s.d[k] = oi.sizes[d];
  }
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

void transpose_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t d0, d1;
  if (!in || !arg_int(ctx, args, 1, &d0) || !arg_int(ctx, args, 2, &d1)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (nd == 0) return same_shape_copy(ctx, *in, *out);
  int64_t a, b;
  if (!norm_dim(d0, nd, &a) || !norm_dim(d1, nd, &b))
    return fail(ctx, Error::InvalidArgument,
                "dims %lld and %lld (arguments 1, 2): one is out of range for a %d-d tensor", ll(d0), ll(d1), nd);
  Operand src = operand_of(*in);
  std::swap(src.sizes[a], src.sizes[b]);
  std::swap(src.strides[a], src.strides[b]);
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) s.d[k] = src.sizes[k];
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

void t_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  if (in->dim() > 2)
    return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d, expected at most 2-d", static_cast<int>(in->dim()));
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  if (in->dim() < 2) return same_shape_copy(ctx, *in, *out);
  Operand src = operand_of(*in);
  std::swap(src.sizes[0], src.sizes[1]);
  std::swap(src.strides[0], src.strides[1]);
  Shape s;
  s.ndim = 2;
  s.d[0] = src.sizes[0];
  s.d[1] = src.sizes[1];
  if (!resize_out(ctx, *out, s)) return;
  copy_operand(operand_of(*out), src, s);
}

void view_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> size;
  if (!in || !arg_int_list(ctx, args, 1, &size)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (size.size() > static_cast<size_t>(kMaxDim))
    return fail(ctx, Error::InvalidArgument, "argument 1 (size) has %zu dims, at most %d are supported", size.size(),
                kMaxDim);
  Shape s;
  s.ndim = static_cast<int>(size.size());
  int infer = -1;
  int64_t known = 1;
  for (int k = 0; k < s.ndim; ++k) {
    if (size[k] == -1) {
      if (infer >= 0)
        return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s has more than one -1",
                    shape_string(size.data(), s.ndim).c_str());
      infer = k;
      s.d[k] = 1;
      continue;
    }
    if (size[k] < 0 || size[k] > kMaxSize || !checked_mul(known, size[k], &known))
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s: entry %d (%lld) is negative or too large",
                  shape_string(size.data(), s.ndim).c_str(), k, ll(size[k]));
    s.d[k] = size[k];
  }
  if (infer >= 0) {
    if (known == 0 || in->numel() % known != 0)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s does not fit argument 0's %lld elements",
                  shape_string(size.data(), s.ndim).c_str(), ll(in->numel()));
    s.d[infer] = in->numel() / known;
  }
  reshape_copy(ctx, *in, *out, s);
}

void squeeze_copy_dims_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const int nd = static_cast<int>(in->dim());
  bool sq[kMaxDim] = {};
  for (int64_t d : dims) {
    int64_t n;
    if (!norm_dim(d, nd, &n)) return fail_dim(ctx, d, 1, nd);
    if (nd > 0 && in->size(n) == 1) sq[n] = true;
  }
  Shape s;
  for (int d = 0; d < nd; ++d)
    if (!sq[d]) s.d[s.ndim++] = in->size(d);
  reshape_copy(ctx, *in, *out, s);
}

void squeeze_copy_dim_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const int nd = static_cast<int>(in->dim());
  int64_t n;
  if (!norm_dim(dim, nd, &n)) return fail_dim(ctx, dim, 1, nd);
  Shape s;
  for (int d = 0; d < nd; ++d)
    if (!(d == n && in->size(d) == 1)) s.d[s.ndim++] = in->size(d);
  reshape_copy(ctx, *in, *out, s);
}

void squeeze_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  Shape s;
  for (int d = 0; d < in->dim(); ++d)
    if (in->size(d) != 1) s.d[s.ndim++] = in->size(d);
  reshape_copy(ctx, *in, *out, s);
}

void unsqueeze_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const int nd = static_cast<int>(in->dim());
  if (nd + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d; unsqueezing it exceeds %d dims", nd, kMaxDim);
  int64_t n;
  if (dim < -(nd + 1) || dim > nd)
    return fail(ctx, Error::InvalidArgument,
                "dim %lld (argument 1) is out of range [%d, %d] for unsqueezing a %d-d tensor", ll(dim), -(nd + 1), nd,
                nd);
  n = dim < 0 ? dim + nd + 1 : dim;
  Shape s;
  s.ndim = nd + 1;
  for (int d = 0, j = 0; d < nd + 1; ++d) s.d[d] = (d == n) ? 1 : in->size(j++);
  reshape_copy(ctx, *in, *out, s);
}

void select_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim, index;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_int(ctx, args, 2, &index)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to select from");
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int64_t len = in->size(d);
  if (index < -len || index >= len)
    return fail(ctx, Error::InvalidArgument, "index %lld (argument 2) is out of range for size %lld (dim %lld)",
                ll(index), ll(len), ll(d));
  if (index < 0) index += len;
  Operand oi = operand_of(*in);
  Operand src;
  src.dtype = oi.dtype;
  src.esize = oi.esize;
  src.data = oi.data + index * oi.strides[d] * oi.esize;
  Shape s;
  for (int k = 0; k < nd; ++k) {
    if (k == d) continue;
    src.sizes[src.ndim] = oi.sizes[k];
    src.strides[src.ndim] = oi.strides[k];
    src.ndim++;
    s.d[s.ndim++] = oi.sizes[k];
  }
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

void slice_copy_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim, start = 0, end = 0, step;
  bool has_start = false, has_end = false;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_opt_int(ctx, args, 2, &start, &has_start) ||
      !arg_opt_int(ctx, args, 3, &end, &has_end) || !arg_int(ctx, args, 4, &step))
    return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(in->dim());
  if (nd == 0 || step <= 0)
    return fail(ctx, Error::InvalidArgument, "%s (argument 0 is %d-d, step (argument 4) is %lld)",
                nd == 0 ? "cannot slice a 0-d tensor" : "step must be positive", nd, ll(step));
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int64_t len = in->size(d);
  if (!has_start) start = 0;
  if (!has_end) end = len;
  if (start < 0) start += len;
  if (end < 0) end += len;
  start = std::min(std::max<int64_t>(start, 0), len);
  end = std::min(std::max<int64_t>(end, start), len);
  const int64_t n = (end - start + step - 1) / step;
  Operand src = operand_of(*in);
  Shape s = shape_of(*in);
  s.d[d] = n;
  src.sizes[d] = n;
  if (n > 0) src.data += start * src.strides[d] * src.esize;
  src.strides[d] *= step;
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

void cat_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  std::vector<Tensor> ts;
  int64_t dim;
  if (!arg_tensor_list(ctx, args, 0, &ts) || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  const Tensor* ref = nullptr;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;  // legacy empty tensors are skipped
    if (!dtypes_copyable(t.scalar_type(), out->scalar_type()))
      return fail_dtypes(ctx, "a tensor in argument 0", t.scalar_type(), out->scalar_type());
    if (!ref) ref = &t;
  }
  if (!ref) {
    // Everything empty: the output is an empty 1-D tensor (or keeps its rank with a zero dim).
    Shape s = shape_of(*out);
    if (s.ndim == 0)
      return fail(ctx, Error::InvalidArgument, "every tensor in argument 0 is empty and the output is 0-d");
    int64_t d0 = 0;
    if (!norm_dim(dim, s.ndim, &d0)) return fail_dim(ctx, dim, 1, s.ndim);
    s.d[d0] = 0;
    resize_out(ctx, *out, s);
    return;
  }
  const int nd = static_cast<int>(ref->dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 holds a 0-d tensor, which cannot be concatenated");
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  Shape s = shape_of(*ref);
  s.d[d] = 0;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    if (t.dim() != nd)
      return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: different ranks",
                  shape_string(*ref).c_str(), shape_string(t).c_str());
    for (int k = 0; k < nd; ++k)
      if (k != d && t.size(k) != ref->size(k))
        return fail(ctx, Error::InvalidArgument,
                    "tensors in argument 0 have shapes %s and %s: they differ outside dim %lld",
                    shape_string(*ref).c_str(), shape_string(t).c_str(), ll(d));
    s.d[d] += t.size(d);
    if (s.d[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "the concatenated size along dim %lld exceeds %lld", ll(d),
                  ll(kMaxSize));
  }
  if (!resize_out(ctx, *out, s)) return;
  Operand oo = operand_of(*out);
  int64_t pos = 0;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0) continue;
    const int64_t n = t.size(d);
    if (n > 0 && t.numel() > 0) {
      Operand dst = oo;
      dst.data += pos * oo.strides[d] * oo.esize;
      dst.sizes[d] = n;
      copy_operand(dst, operand_of(t), shape_of(t));
    }
    pos += n;
  }
}

namespace {
void split_impl(KernelRuntimeContext& ctx, const Tensor& in, const std::vector<int64_t>& sizes, int64_t dim,
                const std::vector<Tensor>& outs) {
  const int nd = static_cast<int>(in.dim());
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to split");
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  if (sizes.size() != outs.size())
    return fail(ctx, Error::InvalidArgument, "%zu split sizes, but argument 3 holds %zu outputs", sizes.size(),
                outs.size());
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "split size %lld is negative or too large", ll(s));
    total += s;
  }
  if (total != in.size(d))
    return fail(ctx, Error::InvalidArgument, "split sizes sum to %lld, but dim %lld of argument 0 has size %lld",
                ll(total), ll(d), ll(in.size(d)));
  for (const Tensor& o : outs)
    if (!dtypes_copyable(in.scalar_type(), o.scalar_type()))
      return fail(ctx, Error::InvalidType,
                  "argument 0 has dtype %s, an output in argument 3 %s: no conversion between them",
                  dtype_name(in.scalar_type()), dtype_name(o.scalar_type()));
  const Operand oi = operand_of(in);
  int64_t pos = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    Shape s = shape_of(in);
    s.d[d] = sizes[k];
    if (!resize_out(ctx, outs[k], s)) return;
    if (s.numel() > 0) {
      Operand src = oi;
      src.data += pos * oi.strides[d] * oi.esize;
      src.sizes[d] = sizes[k];
      copy_operand(operand_of(outs[k]), src, s);
    }
    pos += sizes[k];
  }
}
}  // namespace

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> sizes;
  int64_t dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int_list(ctx, args, 1, &sizes) || !arg_int(ctx, args, 2, &dim) ||
      !arg_tensor_list(ctx, args, 3, &outs))
    return;
  split_impl(ctx, *in, sizes, dim, outs);
}

void split_copy_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t split, dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int(ctx, args, 1, &split) || !arg_int(ctx, args, 2, &dim) || !arg_tensor_list(ctx, args, 3, &outs))
    return;
  int64_t d;
  if (in->dim() == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to split");
  if (!norm_dim(dim, in->dim(), &d)) return fail_dim(ctx, dim, 2, in->dim());
  if (split < 0) return fail(ctx, Error::InvalidArgument, "split_size (argument 1) is %lld, expected >= 0", ll(split));
  std::vector<int64_t> sizes;
  int64_t len = in->size(d);
  if (split == 0) {
    if (len != 0)
      return fail(ctx, Error::InvalidArgument, "split_size (argument 1) is 0, but dim %lld has size %lld", ll(d),
                  ll(len));
    sizes.push_back(0);
  }
  for (int64_t p = 0; split > 0 && p < len; p += split) sizes.push_back(std::min(split, len - p));
  if (len == 0 && split > 0) sizes.push_back(0);
  split_impl(ctx, *in, sizes, dim, outs);
}

void expand_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> size;
  bool implicit;
  if (!in || !arg_int_list(ctx, args, 1, &size) || !arg_bool(ctx, args, 2, &implicit)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0", in->scalar_type(), out->scalar_type());
  const int nd = static_cast<int>(size.size());
  const int ind = static_cast<int>(in->dim());
  if (nd > kMaxDim || nd < ind)
    return fail(ctx, Error::InvalidArgument, "argument 1 (size) has %d dims, expected %d (argument 0's rank) to %d", nd,
                ind, kMaxDim);
  Shape s;
  s.ndim = nd;
  for (int k = 0; k < nd; ++k) {
    const int id = k - (nd - ind);
    int64_t v = size[k];
    if (v == -1) {
      if (id < 0)
        return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s has -1 at new leading dim %d",
                    shape_string(size.data(), nd).c_str(), k);
      v = in->size(id);
    }
    if (v < 0 || v > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s: entry %d (%lld) is negative or too large",
                  shape_string(size.data(), nd).c_str(), k, ll(v));
    if (id >= 0 && in->size(id) != v && in->size(id) != 1)
      return fail(ctx, Error::InvalidArgument, "argument 1 (size) %s cannot expand argument 0 (shape %s) at dim %d",
                  shape_string(size.data(), nd).c_str(), shape_string(*in).c_str(), k);
    s.d[k] = v;
  }
  if (!resize_out(ctx, *out, s)) return;
  if (s.numel() == 0) return;
  copy_operand(operand_of(*out), operand_of(*in), s);
}

void clone_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 2) : nullptr;
  if (!out) return;
  same_shape_copy(ctx, *in, *out);
}

namespace {
// dst = src broadcast to dst's shape (dtype converted): copy_ and copy.out.
void broadcast_copy(KernelRuntimeContext& ctx, const Tensor& src, const Tensor& dst, const char* dst_name) {
  if (!dtypes_copyable(src.scalar_type(), dst.scalar_type()))
    return fail_dtypes(ctx, "argument 1 (src)", src.scalar_type(), dst.scalar_type());
  Operand so = operand_of(src);
  Operand to = operand_of(dst);
  const Operand* both[] = {&so, &to};
  Shape s = shape_of(dst);
  Shape bs;
  if (src.dim() > dst.dim() || !broadcast_shape(both, 2, &bs) || bs.numel() != s.numel())
    return fail(ctx, Error::InvalidArgument, "argument 1 (src) of shape %s does not broadcast to %s of shape %s",
                shape_string(src).c_str(), dst_name, shape_string(dst).c_str());
  if (dst.numel() == 0 || dst.const_data_ptr() == src.const_data_ptr()) return;
  copy_operand(to, so, s);
}
}  // namespace

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!): in place; how a program writes a
// mutable buffer (e.g. a KV cache) back.
void copy_inplace(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  if (!src) return;
  broadcast_copy(ctx, *src, *self, "argument 0 (self)");
}

// copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out): src broadcast to self's shape.
void copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* out = src ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (!resize_out(ctx, *out, shape_of(*self))) return;
  broadcast_copy(ctx, *src, *out, "the output");
}

void to_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  bool nb;
  if (!in || !arg_bool(ctx, args, 1, &nb)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  same_shape_copy(ctx, *in, *out);
}

void to_dim_order_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  bool nb;
  if (!in || !arg_opt_bool(ctx, args, 1, &nb, false)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!check_dim_order_arg(ctx, args, 2, *out)) return;
  same_shape_copy(ctx, *in, *out);
}

void clone_dim_order_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  bool nb;
  if (!in || !arg_opt_bool(ctx, args, 1, &nb, false)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!check_dim_order_arg(ctx, args, 2, *out)) return;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s; expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  same_shape_copy(ctx, *in, *out);
}

namespace {
void fill_tensor(KernelRuntimeContext& ctx, const Tensor& out, const Scalar& v) {
  const ScalarType t = out.scalar_type();
  if (!is_supported_dtype(t))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, which cannot be filled", dtype_name(t));
  if (out.numel() == 0) return;
  if (v.kind == Scalar::kDouble)
    fill_operand(operand_of(out), v.d, 0, false);
  else
    fill_operand(operand_of(out), 0, v.to_int(), true);
}
}  // namespace

// full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out)
void full_like_out(KernelRuntimeContext& ctx, Args args) {
  // args: self, fill_value, memory_format (None or an Int, otherwise unused), out.
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  Scalar v;
  if (!in || !arg_scalar(ctx, args, 1, &v)) return;
  if (!args[2]->isNone() && !args[2]->isInt())
    return fail(ctx, Error::InvalidArgument, "argument 2 (memory_format) is %s, expected an int or None",
                value_kind(args[2]));
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!resize_out(ctx, *out, shape_of(*in))) return;
  fill_tensor(ctx, *out, v);
}

// full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
void full_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  std::vector<int64_t> size;
  Scalar v;
  if (!arg_int_list(ctx, args, 0, &size) || !arg_scalar(ctx, args, 1, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (size.size() > static_cast<size_t>(kMaxDim))
    return fail(ctx, Error::InvalidArgument, "argument 0 (size) has %zu dims, at most %d are supported", size.size(),
                kMaxDim);
  Shape s;
  s.ndim = static_cast<int>(size.size());
  for (int k = 0; k < s.ndim; ++k) s.d[k] = size[k];
  if (!resize_out(ctx, *out, s)) return;
  fill_tensor(ctx, *out, v);
}

void embedding_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 6)) return;
  const Tensor* w = arg_tensor(ctx, args, 0);
  const Tensor* idx = w ? arg_tensor(ctx, args, 1) : nullptr;
  if (!idx) return;
  int64_t padding_idx;
  bool sgbf, sparse;
  if (!arg_int(ctx, args, 2, &padding_idx) || !arg_bool(ctx, args, 3, &sgbf) || !arg_bool(ctx, args, 4, &sparse))
    return;
  const Tensor* out = arg_tensor(ctx, args, 5);
  if (!out) return;
  if (w->dim() != 2)
    return fail(ctx, Error::InvalidArgument, "argument 0 (weight) is %d-d, expected 2-d", static_cast<int>(w->dim()));
  const ScalarType it = idx->scalar_type();
  if (it != ScalarType::Long && it != ScalarType::Int)
    return fail(ctx, Error::InvalidType, "argument 1 (indices) has dtype %s, expected Long or Int", dtype_name(it));
  if (!dtypes_copyable(w->scalar_type(), out->scalar_type()))
    return fail_dtypes(ctx, "argument 0 (weight)", w->scalar_type(), out->scalar_type());
  if (idx->dim() + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 1 (indices) is %d-d, at most %d-d is supported",
                static_cast<int>(idx->dim()), kMaxDim - 1);
  const int64_t V = w->size(0), D = w->size(1);
  Shape s = shape_of(*idx);
  s.d[s.ndim++] = D;
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = idx->numel();
  // Gather the indices in logical order, validating each.
  std::vector<int64_t> ids(static_cast<size_t>(n));
  if (n > 0) {
    Operand oi = operand_of(*idx);
    Operand dst = contiguous_like(oi, reinterpret_cast<char*>(ids.data()));
    dst.dtype = ScalarType::Long;
    dst.esize = 8;
    copy_operand(dst, oi, shape_of(*idx));
  }
  for (int64_t v : ids)
    if (v < 0 || v >= V)
      return fail(ctx, Error::InvalidArgument,
                  "indices (argument 1) hold %lld, out of range for %lld rows of the weight (argument 0)", ll(v),
                  ll(V));
  if (n == 0 || D == 0) return;
  Operand ow = operand_of(*w), oo = operand_of(*out);
  const bool fast = w->scalar_type() == out->scalar_type() && is_contiguous(ow) && is_contiguous(oo);
  const size_t row_bytes = static_cast<size_t>(D) * static_cast<size_t>(ow.esize);
  const char* wb = ow.data;
  char* obase = oo.data;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t r = ids[static_cast<size_t>(i)];
      if (fast) {
        std::memmove(obase + i * row_bytes, wb + r * row_bytes, row_bytes);
      } else {
        // Row r of the weight -> element i of the output's leading (flattened) dims.
        Operand src;
        src.data = ow.data + r * ow.strides[0] * ow.esize;
        src.dtype = ow.dtype;
        src.esize = ow.esize;
        src.ndim = 1;
        src.sizes[0] = D;
        src.strides[0] = ow.strides[1];
        Operand dst;
        int64_t off = 0, rem = i;
        for (int k = oo.ndim - 2; k >= 0; --k) {
          off += (rem % oo.sizes[k]) * oo.strides[k];
          rem /= oo.sizes[k];
        }
        dst.data = oo.data + off * oo.esize;
        dst.dtype = oo.dtype;
        dst.esize = oo.esize;
        dst.ndim = 1;
        dst.sizes[0] = D;
        dst.strides[0] = oo.strides[oo.ndim - 1];
        Shape sh;
        sh.ndim = 1;
        sh.d[0] = D;
        copy_operand(dst, src, sh);
      }
    }
  };
  if (n * D < kParallelGrain)
    body(0, n);
  else
    ::executorch::extension::parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / D), body);
}

// constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
void constant_pad_nd_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> pad;
  Scalar v;
  if (!in || !arg_int_list(ctx, args, 1, &pad) || !arg_scalar(ctx, args, 2, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!dtypes_copyable(in->scalar_type(), out->scalar_type()) || !is_supported_dtype(out->scalar_type()))
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: not supported",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  const int nd = static_cast<int>(in->dim());
  if (pad.size() % 2 != 0 || static_cast<int>(pad.size() / 2) > nd)
    return fail(ctx, Error::InvalidArgument,
                "argument 1 (pad) has %zu entries, expected an even count of at most %d (2 per dim)", pad.size(),
                2 * nd);
  Shape s = shape_of(*in);
  int64_t lo[kMaxDim] = {}, hi[kMaxDim] = {};
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int d = nd - 1 - static_cast<int>(k);
    lo[d] = pad[2 * k];
    hi[d] = pad[2 * k + 1];
    if (lo[d] < -kMaxSize || lo[d] > kMaxSize || hi[d] < -kMaxSize || hi[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "argument 1 (pad) holds %lld, %lld for dim %d: too large", ll(lo[d]),
                  ll(hi[d]), d);
    s.d[d] = in->size(d) + lo[d] + hi[d];
    if (s.d[d] < 0 || s.d[d] > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "padding dim %d (size %lld) by %lld, %lld gives %lld: out of range", d,
                  ll(in->size(d)), ll(lo[d]), ll(hi[d]), ll(s.d[d]));
  }
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  Operand oo = operand_of(*out);
  if (v.kind == Scalar::kDouble)
    fill_operand(oo, v.d, 0, false);
  else
    fill_operand(oo, 0, v.to_int(), true);
  // Copy the overlapping region.
  Operand src = operand_of(*in), dst = oo;
  Shape cs;
  cs.ndim = nd;
  for (int d = 0; d < nd; ++d) {
    int64_t in_start = lo[d] < 0 ? -lo[d] : 0;
    int64_t out_start = lo[d] > 0 ? lo[d] : 0;
    int64_t len = std::min(in->size(d) - in_start, s.d[d] - out_start);
    if (len <= 0) return;
    src.data += in_start * src.strides[d] * src.esize;
    dst.data += out_start * dst.strides[d] * dst.esize;
    src.sizes[d] = len;
    dst.sizes[d] = len;
    cs.d[d] = len;
  }
  copy_operand(dst, src, cs);
}

// alias_copy.out / detach_copy.out / lift_fresh_copy.out(Tensor self, *, Tensor(a!) out)
void alias_copy_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  const Tensor* out = in ? arg_tensor(ctx, args, 1) : nullptr;
  if (!out) return;
  if (in->scalar_type() != out->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s; expected the same",
                dtype_name(in->scalar_type()), dtype_name(out->scalar_type()));
  same_shape_copy(ctx, *in, *out);
}

}  // namespace etk
