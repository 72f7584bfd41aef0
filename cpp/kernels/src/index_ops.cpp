// Indexing and generation kernels: index.Tensor, index_select, gather, scatter-style copies, flip, roll, repeat,
// triu/tril, cumsum, topk, arange, scalar_tensor, zeros/ones, stack, unbind.
#include "kernel_utils.h"
#include "ops.h"

#include <algorithm>
#include <numeric>

namespace etk {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

void fail_dim(KernelRuntimeContext& ctx, int64_t dim, int argi, int64_t nd) {
  fail(ctx, Error::InvalidArgument, "dim %lld (argument %d) is out of range for a %lld-d tensor", ll(dim), argi,
       ll(nd));
}

bool same_or_fail(KernelRuntimeContext& ctx, ScalarType a, ScalarType b) {
  if (a != b || !is_supported_dtype(a)) {
    fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same (supported) dtype",
         dtype_name(a), dtype_name(b));
    return false;
  }
  return true;
}

// Reads an integer index tensor (Long/Int) in logical order.
bool read_indices(KernelRuntimeContext& ctx, const Tensor& t, std::vector<int64_t>* v, const char* what) {
  if (t.scalar_type() != ScalarType::Long && t.scalar_type() != ScalarType::Int) {
    fail(ctx, Error::InvalidType, "%s has dtype %s, expected Long or Int", what, dtype_name(t.scalar_type()));
    return false;
  }
  v->assign(static_cast<size_t>(t.numel()), 0);
  if (t.numel() == 0) return true;
  Operand src = operand_of(t);
  Operand dst = src;
  dst.data = reinterpret_cast<char*>(v->data());
  dst.dtype = ScalarType::Long;
  dst.esize = 8;
  int64_t s = 1;
  for (int d = dst.ndim - 1; d >= 0; --d) {
    dst.strides[d] = s;
    s *= dst.sizes[d];
  }
  copy_operand(dst, src, shape_of(t));
  return true;
}

// Element offsets (in elements) of every logical element of a tensor, in row-major order.
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

// Copies element src_off of `in` to element dst_off of `out` (same dtype).
inline void copy_elem(char* ob, int64_t dst_off, const char* ib, int64_t src_off, size_t es) {
  std::memcpy(ob + dst_off * static_cast<int64_t>(es), ib + src_off * static_cast<int64_t>(es), es);
}

Shape shape_from(const std::vector<int64_t>& v) {
  Shape s;
  s.ndim = static_cast<int>(v.size());
  for (int k = 0; k < s.ndim; ++k) s.d[k] = v[static_cast<size_t>(k)];
  return s;
}

void fill_scalar(const Tensor& out, const Scalar& v) {
  if (out.numel() == 0) return;
  if (v.kind == Scalar::kDouble)
    fill_operand(operand_of(out), v.d, 0, false);
  else
    fill_operand(operand_of(out), 0, v.to_int(), true);
}

}  // namespace

namespace {

// What advanced indexing `self[indices]` (aten::index.Tensor) selects: the result's shape, and for each result
// element, which element of `self`. Shared by index.Tensor (a gather) and index_put (a scatter).
struct IndexPlan {
  Shape os;                    // the result's shape
  std::vector<int> src_dim;    // per result dim: an input dim (>= 0), or -1 - k for dim k of the broadcast index shape
  Shape B;                     // the broadcast shape of the index tensors (0-d when there is none)
  std::vector<int> used_dims;  // the input dims that are indexed
  std::vector<std::vector<int64_t>> positions;  // per used dim: the (normalized) index at each broadcast position

  // Element offsets, for strides `st` of a tensor with self's sizes, of every result element in row-major order.
  void offsets(const int64_t* st, std::vector<int64_t>* offs) const {
    const int64_t nb = B.numel();
    std::vector<int64_t> base(static_cast<size_t>(nb), 0);
    for (size_t u = 0; u < used_dims.size(); ++u)
      for (int64_t b = 0; b < nb; ++b)
        base[static_cast<size_t>(b)] += positions[u][static_cast<size_t>(b)] * st[used_dims[u]];
    const int64_t n = os.numel();
    offs->resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, off = 0, b = 0, bmul = 1;
      for (int j = os.ndim - 1; j >= 0; --j) {
        const int64_t c = rem % os.d[j];
        rem /= os.d[j];
        const int sd = src_dim[static_cast<size_t>(j)];
        if (sd >= 0) {
          off += c * st[sd];
        } else {
          b += c * bmul;
          bmul *= B.d[-1 - sd];
        }
      }
      (*offs)[static_cast<size_t>(i)] = off + base[static_cast<size_t>(b)];
    }
  }
};

// Plans `in[idx]`; `argi` is the schema index of the indices argument, for messages.
bool plan_index(KernelRuntimeContext& ctx, const Tensor* in, const std::vector<const Tensor*>& idx, int argi,
                IndexPlan* plan) {
  const int nd = static_cast<int>(in->dim());
  // One entry per input dim: none, or a list of indices with a shape. Boolean masks expand to one entry per dim
  // they cover (their nonzero coordinates).
  struct Entry {
    bool used = false;
    std::vector<int64_t> v;
    Shape shape;
  };
  std::vector<Entry> ent(static_cast<size_t>(nd));
  int d = 0;
  for (const Tensor* t : idx) {
    if (d >= nd) {
      fail(ctx, Error::InvalidArgument, "argument %d (indices) indexes more than the %d dims of argument 0", argi, nd);
      return false;
    }
    if (!t) {
      ++d;
      continue;
    }
    const ScalarType st = t->scalar_type();
    if (st == ScalarType::Bool || st == ScalarType::Byte) {
      const int md = static_cast<int>(t->dim());
      if (md == 0 || d + md > nd) {
        fail(ctx, Error::InvalidArgument, "a mask in argument %d (indices) is %d-d at dim %d of a %d-d tensor", argi,
             md, d, nd);
        return false;
      }
      for (int k = 0; k < md; ++k)
        if (t->size(k) != in->size(d + k)) {
          fail(ctx, Error::InvalidArgument, "a mask in argument %d (indices) has shape %s, argument 0 %s from dim %d",
               argi, shape_string(*t).c_str(), shape_string(*in).c_str(), d);
          return false;
        }
      std::vector<int64_t> offs;
      tensor_offsets(*t, &offs);
      const uint8_t* mp = static_cast<const uint8_t*>(t->const_data_ptr());
      for (int k = 0; k < md; ++k) {
        ent[static_cast<size_t>(d + k)].used = true;
        ent[static_cast<size_t>(d + k)].v.clear();
      }
      for (int64_t i = 0; i < t->numel(); ++i) {
        if (!mp[offs[static_cast<size_t>(i)]]) continue;
        int64_t rem = i;
        for (int k = md - 1; k >= 0; --k) {
          ent[static_cast<size_t>(d + k)].v.push_back(rem % t->size(k));
          rem /= t->size(k);
        }
      }
      for (int k = 0; k < md; ++k) {
        auto& e = ent[static_cast<size_t>(d + k)];
        e.shape.ndim = 1;
        e.shape.d[0] = static_cast<int64_t>(e.v.size());
      }
      d += md;
      continue;
    }
    auto& e = ent[static_cast<size_t>(d)];
    e.used = true;
    if (!read_indices(ctx, *t, &e.v, "an index tensor in the indices")) return false;
    e.shape = shape_of(*t);
    ++d;
  }
  // Broadcast the index shapes.
  std::vector<Operand> shapes_ops;
  for (int k = 0; k < nd; ++k) {
    const auto& e = ent[static_cast<size_t>(k)];
    if (!e.used) continue;
    plan->used_dims.push_back(k);
    Operand o;
    o.ndim = e.shape.ndim;
    int64_t s = 1;
    for (int j = o.ndim - 1; j >= 0; --j) {
      o.sizes[j] = e.shape.d[j];
      o.strides[j] = s;
      s *= e.shape.d[j];
    }
    shapes_ops.push_back(o);
  }
  const auto& used_dims = plan->used_dims;
  Shape& B = plan->B;
  if (!used_dims.empty()) {
    std::vector<const Operand*> sp;
    for (auto& o : shapes_ops) sp.push_back(&o);
    if (!broadcast_shape(sp.data(), static_cast<int>(sp.size()), &B)) {
      fail(ctx, Error::InvalidArgument, "the index tensors in argument %d (indices) do not broadcast together", argi);
      return false;
    }
  }
  bool adjacent = true;
  for (size_t k = 1; k < used_dims.size(); ++k)
    if (used_dims[k] != used_dims[k - 1] + 1) adjacent = false;
  // Result shape and, per result dim, where it comes from.
  Shape& os = plan->os;
  auto push_b = [&]() {
    for (int k = 0; k < B.ndim; ++k) {
      os.d[os.ndim++] = B.d[k];
      plan->src_dim.push_back(-1 - k);
    }
  };
  if (!adjacent) push_b();
  for (int k = 0; k < nd; ++k) {
    if (ent[static_cast<size_t>(k)].used) {
      if (adjacent && k == used_dims[0]) push_b();
      continue;
    }
    if (os.ndim >= kMaxDim) {
      fail(ctx, Error::InvalidArgument, "the result of indexing argument 0 (shape %s) would exceed %d dims",
           shape_string(*in).c_str(), kMaxDim);
      return false;
    }
    os.d[os.ndim++] = in->size(k);
    plan->src_dim.push_back(k);
  }
  // The index at each broadcast position, per indexed dim (validated, negative ones normalized).
  const int64_t nb = B.numel();
  for (size_t u = 0; u < used_dims.size(); ++u) {
    const int k = used_dims[u];
    const auto& e = ent[static_cast<size_t>(k)];
    const Operand& so = shapes_ops[u];
    const int64_t len = in->size(k);
    std::vector<int64_t> pos_of(static_cast<size_t>(nb));
    for (int64_t b = 0; b < nb; ++b) {
      // Position of b in the index's own (broadcast) layout.
      int64_t rem = b, pos = 0;
      for (int j = B.ndim - 1; j >= 0; --j) {
        const int64_t c = rem % B.d[j];
        rem /= B.d[j];
        const int oj = j - (B.ndim - so.ndim);
        if (oj >= 0 && so.sizes[oj] != 1) pos += c * so.strides[oj];
      }
      int64_t v = e.v[static_cast<size_t>(pos)];
      if (v < -len || v >= len) {
        fail(ctx, Error::InvalidArgument, "indices (argument %d) hold %lld, out of range for size %lld (dim %d)", argi,
             ll(v), ll(len), k);
        return false;
      }
      pos_of[static_cast<size_t>(b)] = v < 0 ? v + len : v;
    }
    plan->positions.push_back(std::move(pos_of));
  }
  return true;
}

}  // namespace

// index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
void index_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<const Tensor*> idx;
  if (!in || !arg_opt_tensor_list(ctx, args, 1, &idx)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  IndexPlan plan;
  if (!plan_index(ctx, in, idx, 1, &plan)) return;
  if (!resize_out(ctx, *out, plan.os)) return;
  const int64_t n = out->numel();
  if (n == 0) return;
  std::vector<int64_t> ioffs, ooffs;
  plan.offsets(operand_of(*in).strides, &ioffs);
  tensor_offsets(*out, &ooffs);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  for (int64_t i = 0; i < n; ++i) copy_elem(ob, ooffs[static_cast<size_t>(i)], ib, ioffs[static_cast<size_t>(i)], es);
}

// index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, Tensor(a!) out):
// out = self, then out[indices] = values (broadcast to the indexed shape), or += with accumulate. Repeated
// indices: the last write wins (accumulate: every value is added), as in upstream's portable kernel.
void index_put_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<const Tensor*> idx;
  if (!in || !arg_opt_tensor_list(ctx, args, 1, &idx)) return;
  const Tensor* values = arg_tensor(ctx, args, 2);
  bool accumulate = false;
  if (!values || !arg_bool(ctx, args, 3, &accumulate)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  if (values->scalar_type() != in->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 2 (values) has dtype %s, argument 0 %s: expected the same",
                dtype_name(values->scalar_type()), dtype_name(in->scalar_type()));
  IndexPlan plan;
  if (!plan_index(ctx, in, idx, 1, &plan)) return;
  Operand vop = operand_of(*values);
  Operand target;
  target.ndim = plan.os.ndim;
  for (int k = 0; k < target.ndim; ++k) target.sizes[k] = plan.os.d[k];
  const Operand* both[] = {&vop, &target};
  Shape bs;
  if (values->dim() > plan.os.ndim || !broadcast_shape(both, 2, &bs) || bs.ndim != plan.os.ndim ||
      bs.numel() != plan.os.numel())
    return fail(ctx, Error::InvalidArgument,
                "argument 2 (values) of shape %s does not broadcast to the indexed shape %s",
                shape_string(*values).c_str(), shape_string(plan.os.d, plan.os.ndim).c_str());
  const Shape self_shape = shape_of(*in);
  if (!resize_out(ctx, *out, self_shape)) return;
  // out = self (in place when the program updates a buffer: self and out are then the same storage).
  if (in->numel() > 0 && out->const_data_ptr() != in->const_data_ptr())
    copy_operand(operand_of(*out), operand_of(*in), self_shape);
  const int64_t n = plan.os.numel();
  if (n == 0) return;
  // The values in the indexed shape's row-major order.
  const size_t es = static_cast<size_t>(in->element_size());
  std::vector<char> vals(static_cast<size_t>(n) * es);
  Operand dense = target;
  dense.data = vals.data();
  dense.dtype = values->scalar_type();
  dense.esize = static_cast<int64_t>(es);
  for (int64_t k = dense.ndim - 1, s = 1; k >= 0; --k) {
    dense.strides[k] = s;
    s *= dense.sizes[k];
  }
  copy_operand(dense, vop, plan.os);
  std::vector<int64_t> ooffs;
  plan.offsets(operand_of(*out).strides, &ooffs);
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  if (!accumulate) {
    for (int64_t i = 0; i < n; ++i) copy_elem(ob, ooffs[static_cast<size_t>(i)], vals.data(), i, es);
    return;
  }
  const ScalarType dt = out->scalar_type();
  const bool ok = dispatch_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    T* o = reinterpret_cast<T*>(ob);
    const T* v = reinterpret_cast<const T*>(vals.data());
    for (int64_t i = 0; i < n; ++i) o[ooffs[static_cast<size_t>(i)]] += v[i];
  });
  if (!ok && dt == ScalarType::Bool) {
    for (int64_t i = 0; i < n; ++i) ob[ooffs[static_cast<size_t>(i)]] |= vals[static_cast<size_t>(i)];
  } else if (!ok) {
    fail(ctx, Error::InvalidType, "index_put with accumulate does not support dtype %s", dtype_name(dt));
  }
}

// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
void index_select_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* index = arg_tensor(ctx, args, 2);
  const Tensor* out = index ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  if (index->dim() > 1)
    return fail(ctx, Error::InvalidArgument, "argument 2 (index) is %d-d, expected 0-d or 1-d",
                static_cast<int>(index->dim()));
  std::vector<int64_t> ids;
  if (!read_indices(ctx, *index, &ids, "argument 2 (index)")) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int64_t len = nd == 0 ? 1 : in->size(d);
  for (int64_t& v : ids) {
    if (v < -len || v >= len)
      return fail(ctx, Error::InvalidArgument, "index (argument 2) holds %lld, out of range for size %lld", ll(v),
                  ll(len));
    if (v < 0) v += len;
  }
  Shape s = shape_of(*in);
  if (nd == 0) {
    if (ids.size() != 1)
      return fail(ctx, Error::InvalidArgument, "argument 2 (index) has %zu entries, expected 1 for a 0-d tensor",
                  ids.size());
    if (!resize_out(ctx, *out, s)) return;
    copy_operand(operand_of(*out), operand_of(*in), s);
    return;
  }
  s.d[d] = static_cast<int64_t>(ids.size());
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const Operand oi = operand_of(*in), oo = operand_of(*out);
  Shape sl = s;
  sl.d[d] = 1;
  for (size_t k = 0; k < ids.size(); ++k) {
    Operand src = oi, dst = oo;
    src.data += ids[k] * oi.strides[d] * oi.esize;
    src.sizes[d] = 1;
    dst.data += static_cast<int64_t>(k) * oo.strides[d] * oo.esize;
    dst.sizes[d] = 1;
    copy_operand(dst, src, sl);
  }
}

// gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
void gather_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  if (!in || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* index = arg_tensor(ctx, args, 2);
  bool sparse;
  if (!index || !arg_bool(ctx, args, 3, &sparse)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  const int ind = static_cast<int>(index->dim());
  if (!(ind == nd || (nd == 0 && ind <= 1) || (ind == 0 && nd <= 1)))
    return fail(ctx, Error::InvalidArgument, "argument 2 (index) is %d-d, argument 0 %d-d: expected the same rank", ind,
                nd);
  if (nd > 0 && ind == nd)
    for (int k = 0; k < nd; ++k)
      if (k != d && index->size(k) > in->size(k))
        return fail(ctx, Error::InvalidArgument,
                    "argument 2 (index) has shape %s, larger than argument 0 (%s) at dim %d",
                    shape_string(*index).c_str(), shape_string(*in).c_str(), k);
  std::vector<int64_t> ids;
  if (!read_indices(ctx, *index, &ids, "argument 2 (index)")) return;
  if (!resize_out(ctx, *out, shape_of(*index))) return;
  const int64_t n = index->numel();
  if (n == 0) return;
  const int64_t len = nd == 0 ? 1 : in->size(d);
  std::vector<int64_t> ooffs;
  tensor_offsets(*out, &ooffs);
  const Operand oi = operand_of(*in);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = ids[static_cast<size_t>(i)];
    if (v < -len || v >= len)
      return fail(ctx, Error::InvalidArgument, "index (argument 2) holds %lld, out of range for size %lld", ll(v),
                  ll(len));
    if (v < 0) v += len;
    int64_t rem = i, off = 0;
    for (int j = ind - 1; j >= 0; --j) {
      const int64_t c = rem % index->size(j);
      rem /= index->size(j);
      if (nd == 0) continue;
      off += (j == d ? v : c) * oi.strides[j];
    }
    if (ind == 0 && nd == 1) off = v * oi.strides[0];
    copy_elem(ob, ooffs[static_cast<size_t>(i)], ib, off, es);
  }
}

namespace {
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
    for (int k = static_cast<int>(d); k + 1 < dst.ndim; ++k) {
      dst.sizes[k] = dst.sizes[k + 1];
      dst.strides[k] = dst.strides[k + 1];
    }
    dst.ndim--;
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
}  // namespace

// select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
void select_scatter_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 5)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  int64_t dim, index;
  if (!src || !arg_int(ctx, args, 2, &dim) || !arg_int(ctx, args, 3, &index)) return;
  const Tensor* out = arg_tensor(ctx, args, 4);
  if (!out) return;
  if (!same_or_fail(ctx, self->scalar_type(), out->scalar_type())) return;
  if (!is_supported_dtype(src->scalar_type()))
    return fail(ctx, Error::InvalidType, "src (argument 1) has dtype %s, which this kernel does not take",
                dtype_name(src->scalar_type()));
  const int nd = static_cast<int>(self->dim());
  int64_t d;
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to scatter into");
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  const int64_t len = self->size(d);
  if (index < -len || index >= len)
    return fail(ctx, Error::InvalidArgument, "index %lld (argument 3) is out of range for size %lld (dim %lld)",
                ll(index), ll(len), ll(d));
  if (index < 0) index += len;
  scatter_view(ctx, *self, *src, *out, d, index, 1, 1, true);
}

// slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *,
//                   Tensor(a!) out)
void slice_scatter_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 7)) return;
  const Tensor* self = arg_tensor(ctx, args, 0);
  const Tensor* src = self ? arg_tensor(ctx, args, 1) : nullptr;
  int64_t dim, start = 0, end = 0, step;
  bool hs = false, he = false;
  if (!src || !arg_int(ctx, args, 2, &dim) || !arg_opt_int(ctx, args, 3, &start, &hs) ||
      !arg_opt_int(ctx, args, 4, &end, &he) || !arg_int(ctx, args, 5, &step))
    return;
  const Tensor* out = arg_tensor(ctx, args, 6);
  if (!out) return;
  if (!same_or_fail(ctx, self->scalar_type(), out->scalar_type())) return;
  if (!is_supported_dtype(src->scalar_type()))
    return fail(ctx, Error::InvalidType, "src (argument 1) has dtype %s, which this kernel does not take",
                dtype_name(src->scalar_type()));
  const int nd = static_cast<int>(self->dim());
  int64_t d;
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to scatter into");
  if (step <= 0) return fail(ctx, Error::InvalidArgument, "step (argument 5) is %lld, expected > 0", ll(step));
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  const int64_t len = self->size(d);
  if (!hs) start = 0;
  if (!he) end = len;
  if (start < 0) start += len;
  if (end < 0) end += len;
  start = std::min(std::max<int64_t>(start, 0), len);
  end = std::min(std::max<int64_t>(end, start), len);
  const int64_t n = (end - start + step - 1) / step;
  scatter_view(ctx, *self, *src, *out, d, n > 0 ? start : 0, n, step, false);
}

// flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
void flip_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> dims;
  if (!in || !arg_int_list(ctx, args, 1, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  Operand src = operand_of(*in);
  bool seen[kMaxDim] = {};
  for (int64_t v : dims) {
    int64_t d;
    if (!norm_dim(v, nd, &d)) return fail_dim(ctx, v, 1, nd);
    if (nd == 0) continue;
    if (seen[d]) return fail(ctx, Error::InvalidArgument, "argument 1 (dims) names dim %lld more than once", ll(d));
    seen[d] = true;
    if (src.sizes[d] > 0) src.data += (src.sizes[d] - 1) * src.strides[d] * src.esize;
    src.strides[d] = -src.strides[d];
  }
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  if (in->numel() == 0) return;
  copy_operand(operand_of(*out), src, s);
}

// roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
void roll_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> shifts, dims;
  if (!in || !arg_int_list(ctx, args, 1, &shifts) || !arg_int_list(ctx, args, 2, &dims)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  int64_t sh[kMaxDim] = {};
  const bool flat = dims.empty();
  int64_t flat_shift = 0;
  if (flat) {
    if (shifts.size() != 1)
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (shifts) has %zu entries, expected 1 when argument 2 (dims) is empty", shifts.size());
    flat_shift = n > 0 ? ((shifts[0] % n) + n) % n : 0;
  } else {
    if (shifts.size() != dims.size())
      return fail(ctx, Error::InvalidArgument, "argument 1 (shifts) has %zu entries, argument 2 (dims) %zu",
                  shifts.size(), dims.size());
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t d;
      if (nd == 0)
        return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, it has no dim %lld to roll", ll(dims[k]));
      if (!norm_dim(dims[k], nd, &d)) return fail_dim(ctx, dims[k], 2, nd);
      const int64_t len = in->size(d);
      if (len > 0) sh[d] = (((sh[d] + shifts[k]) % len) + len) % len;
    }
  }
  if (n == 0) return;
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t srci;
    if (flat) {
      srci = (i - flat_shift + n) % n;
    } else {
      int64_t rem = i, mul = 1;
      srci = 0;
      for (int d = nd - 1; d >= 0; --d) {
        const int64_t len = s.d[d];
        const int64_t c = rem % len;
        rem /= len;
        srci += ((c - sh[d] + len) % len) * mul;
        mul *= len;
      }
    }
    copy_elem(ob, ooffs[static_cast<size_t>(i)], ib, ioffs[static_cast<size_t>(srci)], es);
  }
}

// repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
void repeat_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  std::vector<int64_t> reps;
  if (!in || !arg_int_list(ctx, args, 1, &reps)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(reps.size());
  const int ind = static_cast<int>(in->dim());
  if (nd < ind || nd > kMaxDim)
    return fail(ctx, Error::InvalidArgument,
                "argument 1 (repeats) has %d entries, expected %d (argument 0's rank) to %d", nd, ind, kMaxDim);
  Shape s;
  s.ndim = nd;
  Operand src;  // the input viewed with nd dims
  Operand oi = operand_of(*in);
  src.ndim = nd;
  src.dtype = oi.dtype;
  src.esize = oi.esize;
  src.data = oi.data;
  for (int k = 0; k < nd; ++k) {
    const int id = k - (nd - ind);
    const int64_t isz = id >= 0 ? oi.sizes[id] : 1;
    if (reps[static_cast<size_t>(k)] < 0)
      return fail(ctx, Error::InvalidArgument, "argument 1 (repeats) holds %lld, expected >= 0",
                  ll(reps[static_cast<size_t>(k)]));
    int64_t v;
    if (!checked_mul(isz, reps[static_cast<size_t>(k)], &v) || v > kMaxSize)
      return fail(ctx, Error::InvalidArgument, "repeating dim %d (size %lld) %lld times is too large", k, ll(isz),
                  ll(reps[static_cast<size_t>(k)]));
    s.d[k] = v;
    src.sizes[k] = isz;
    src.strides[k] = id >= 0 ? oi.strides[id] : 0;
  }
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  // Copy the input into every tile: iterate tiles as a loop over the repeat counts.
  Operand oo = operand_of(*out);
  Shape ts;
  ts.ndim = nd;
  for (int k = 0; k < nd; ++k) ts.d[k] = src.sizes[k];
  int64_t tiles = 1;
  for (int k = 0; k < nd; ++k) tiles *= reps[static_cast<size_t>(k)];
  for (int64_t t = 0; t < tiles; ++t) {
    Operand dst = oo;
    int64_t rem = t;
    for (int k = nd - 1; k >= 0; --k) {
      const int64_t r = reps[static_cast<size_t>(k)];
      const int64_t c = rem % r;
      rem /= r;
      dst.data += c * src.sizes[k] * oo.strides[k] * oo.esize;
      dst.sizes[k] = src.sizes[k];
    }
    copy_operand(dst, src, ts);
  }
}

namespace {
void tri_impl(KernelRuntimeContext& ctx, Args args, bool upper) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t diag;
  if (!in || !arg_int(ctx, args, 1, &diag)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (!same_or_fail(ctx, in->scalar_type(), out->scalar_type())) return;
  const int nd = static_cast<int>(in->dim());
  if (nd < 2) return fail(ctx, Error::InvalidArgument, "argument 0 is %d-d, expected at least 2-d", nd);
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  if (n == 0) return;
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const size_t es = static_cast<size_t>(in->element_size());
  const int64_t R = s.d[nd - 2], C = s.d[nd - 1];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = i % C, r = (i / C) % R;
    const bool keep = upper ? (c - r >= diag) : (c - r <= diag);
    char* dst = ob + ooffs[static_cast<size_t>(i)] * static_cast<int64_t>(es);
    if (keep)
      std::memcpy(dst, ib + ioffs[static_cast<size_t>(i)] * static_cast<int64_t>(es), es);
    else
      std::memset(dst, 0, es);
  }
}
}  // namespace

void triu_out(KernelRuntimeContext& ctx, Args args) { tri_impl(ctx, args, true); }
void tril_out(KernelRuntimeContext& ctx, Args args) { tri_impl(ctx, args, false); }

// cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
void cumsum_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  ScalarType dt;
  bool has_dt = false;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_opt_dtype(ctx, args, 2, &dt, &has_dt)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  const ScalarType it = in->scalar_type(), ot = out->scalar_type();
  if (!is_supported_dtype(it) || !is_supported_dtype(ot) || ot == ScalarType::Bool)
    return fail(ctx, Error::InvalidType,
                "argument 0 has dtype %s, the output %s: expected numeric dtypes, a non-Bool output", dtype_name(it),
                dtype_name(ot));
  if (has_dt && dt != ot)
    return fail(ctx, Error::InvalidType, "argument 2 (dtype) is %s, the output %s: expected the same", dtype_name(dt),
                dtype_name(ot));
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  Shape s = shape_of(*in);
  if (!resize_out(ctx, *out, s)) return;
  const int64_t n = in->numel();
  if (n == 0) return;
  const int64_t len = nd == 0 ? 1 : s.d[d];
  std::vector<int64_t> ioffs, ooffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*out, &ooffs);
  int64_t inner = 1;
  for (int k = static_cast<int>(d) + 1; k < nd; ++k) inner *= s.d[k];
  const int64_t outer = n / (len * inner);
  const char* ib = static_cast<const char*>(in->const_data_ptr());
  char* ob = static_cast<char*>(out->mutable_data_ptr());
  const int64_t ies = in->element_size(), oes = out->element_size();
  const bool fp = is_floating(it) || is_floating(ot);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t q = 0; q < inner; ++q) {
      double facc = 0;
      uint64_t iacc = 0;
      for (int64_t k = 0; k < len; ++k) {
        const size_t li = static_cast<size_t>((o * len + k) * inner + q);
        const char* src = ib + ioffs[li] * ies;
        char* dst = ob + ooffs[li] * oes;
        if (fp) {
          facc += load_as<double>(src, it);
          store_as<double>(dst, ot, facc);
        } else {
          iacc += static_cast<uint64_t>(load_as<int64_t>(src, it));
          store_as<int64_t>(dst, ot, static_cast<int64_t>(iacc));
        }
      }
    }
  }
}

// topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values,
//             Tensor(b!) indices)
void topk_values(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 7)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t k, dim;
  bool largest, sorted;
  if (!in || !arg_int(ctx, args, 1, &k) || !arg_int(ctx, args, 2, &dim) || !arg_bool(ctx, args, 3, &largest) ||
      !arg_bool(ctx, args, 4, &sorted))
    return;
  const Tensor* vals = arg_tensor(ctx, args, 5);
  const Tensor* idxs = vals ? arg_tensor(ctx, args, 6) : nullptr;
  if (!idxs) return;
  const ScalarType t = in->scalar_type();
  if (!same_or_fail(ctx, t, vals->scalar_type())) return;
  if (t == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "argument 0 has dtype Bool, expected a numeric dtype");
  if (idxs->scalar_type() != ScalarType::Long)
    return fail(ctx, Error::InvalidType, "argument 6 (indices) has dtype %s, expected Long",
                dtype_name(idxs->scalar_type()));
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 2, nd);
  Shape s = shape_of(*in);
  const int64_t len = nd == 0 ? 1 : s.d[d];
  if (k < 0 || k > len)
    return fail(ctx, Error::InvalidArgument, "k %lld (argument 1) is out of range [0, %lld]", ll(k), ll(len));
  if (nd > 0) s.d[d] = k;
  if (!resize_out(ctx, *vals, s) || !resize_out(ctx, *idxs, s)) return;
  if (vals->numel() == 0) return;
  std::vector<int64_t> ioffs, voffs, xoffs;
  tensor_offsets(*in, &ioffs);
  tensor_offsets(*vals, &voffs);
  tensor_offsets(*idxs, &xoffs);
  int64_t inner = 1;
  for (int q = static_cast<int>(d) + 1; q < nd; ++q) inner *= s.d[q];
  const int64_t outer = in->numel() / (len * inner);
  int64_t* xb = idxs->mutable_data_ptr<int64_t>();
  dispatch_numeric(t, [&](auto z) {
    using T = decltype(z);
    const T* ib = in->const_data_ptr<T>();
    T* vb = vals->mutable_data_ptr<T>();
    std::vector<std::pair<T, int64_t>> lane(static_cast<size_t>(len));
    // NaN counts as the largest value (PyTorch's order).
    auto greater = [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool an = a.first != a.first, bn = b.first != b.first;
      if (an || bn) return an && !bn ? true : (an && bn ? a.second < b.second : false);
      if (a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    };
    auto less = [](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool an = a.first != a.first, bn = b.first != b.first;
      if (an || bn) return !an && bn ? true : (an && bn ? a.second < b.second : false);
      if (a.first != b.first) return a.first < b.first;
      return a.second < b.second;
    };
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t q = 0; q < inner; ++q) {
        for (int64_t j = 0; j < len; ++j)
          lane[static_cast<size_t>(j)] = {ib[ioffs[static_cast<size_t>((o * len + j) * inner + q)]], j};
        if (largest)
          std::partial_sort(lane.begin(), lane.begin() + k, lane.end(), greater);
        else
          std::partial_sort(lane.begin(), lane.begin() + k, lane.end(), less);
        for (int64_t j = 0; j < k; ++j) {
          const size_t li = static_cast<size_t>((o * k + j) * inner + q);
          vb[voffs[li]] = lane[static_cast<size_t>(j)].first;
          xb[xoffs[li]] = lane[static_cast<size_t>(j)].second;
        }
      }
    }
  });
}

namespace {
void arange_impl(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end, const Scalar& step,
                 const Tensor& out) {
  const ScalarType ot = out.scalar_type();
  if (!is_supported_dtype(ot) || ot == ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "the output has dtype %s, expected a numeric non-Bool dtype", dtype_name(ot));
  if (out.dim() != 1)
    return fail(ctx, Error::InvalidArgument, "the output is %d-d, expected 1-d", static_cast<int>(out.dim()));
  const double a = start.to_double(), b = end.to_double(), st = step.to_double();
  if (!(st != 0) || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(st))
    return fail(ctx, Error::InvalidArgument, "step %g must be nonzero and start %g, end %g, step finite", st, a, b);
  if ((st > 0 && b < a) || (st < 0 && b > a))
    return fail(ctx, Error::InvalidArgument, "step %g goes away from end %g (start %g)", st, b, a);
  const double nd = std::ceil((b - a) / st);
  if (!(nd >= 0) || nd > static_cast<double>(kMaxSize))
    return fail(ctx, Error::InvalidArgument, "arange from %g to %g by %g has too many elements", a, b, st);
  const int64_t n = static_cast<int64_t>(nd);
  Shape s;
  s.ndim = 1;
  s.d[0] = n;
  if (!resize_out(ctx, out, s)) return;
  char* ob = static_cast<char*>(out.mutable_data_ptr());
  const int64_t es = out.element_size(), stride = n > 0 ? out.strides()[0] : 0;
  const bool ints =
      !is_floating(ot) && start.kind != Scalar::kDouble && end.kind != Scalar::kDouble && step.kind != Scalar::kDouble;
  for (int64_t i = 0; i < n; ++i) {
    if (ints)
      store_as<int64_t>(ob + i * stride * es, ot, start.to_int() + i * step.to_int());
    else
      store_as<double>(ob + i * stride * es, ot, a + static_cast<double>(i) * st);
  }
}
}  // namespace

// arange.out(Scalar end, *, Tensor(a!) out)
void arange_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  Scalar end;
  if (!arg_scalar(ctx, args, 0, &end)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  Scalar zero, one;
  one.i = 1;
  arange_impl(ctx, zero, end, one, *out);
}

// arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
void arange_start_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  Scalar start, end, step;
  if (!arg_scalar(ctx, args, 0, &start) || !arg_scalar(ctx, args, 1, &end) || !arg_scalar(ctx, args, 2, &step)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  arange_impl(ctx, start, end, step, *out);
}

// scalar_tensor.out(Scalar s, *, Tensor(a!) out)
void scalar_tensor_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 2)) return;
  Scalar v;
  if (!arg_scalar(ctx, args, 0, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  if (!is_supported_dtype(out->scalar_type()))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, which cannot be filled",
                dtype_name(out->scalar_type()));
  if (out->dim() != 0)
    return fail(ctx, Error::InvalidArgument, "the output is %d-d, expected 0-d", static_cast<int>(out->dim()));
  fill_scalar(*out, v);
}

namespace {
void fill_sized(KernelRuntimeContext& ctx, Args args, int64_t value) {
  if (!check_nargs(ctx, args, 2)) return;
  std::vector<int64_t> size;
  if (!arg_int_list(ctx, args, 0, &size)) return;
  const Tensor* out = arg_tensor(ctx, args, 1);
  if (!out) return;
  if (!is_supported_dtype(out->scalar_type()))
    return fail(ctx, Error::InvalidType, "the output has dtype %s, which cannot be filled",
                dtype_name(out->scalar_type()));
  if (size.size() > static_cast<size_t>(kMaxDim))
    return fail(ctx, Error::InvalidArgument, "argument 0 (size) has %zu dims, at most %d are supported", size.size(),
                kMaxDim);
  if (!resize_out(ctx, *out, shape_from(size))) return;
  Scalar v;
  v.i = value;
  fill_scalar(*out, v);
}
}  // namespace

// zeros.out(SymInt[] size, *, Tensor(a!) out) / ones.out(SymInt[] size, *, Tensor(a!) out)
void zeros_out(KernelRuntimeContext& ctx, Args args) { fill_sized(ctx, args, 0); }
void ones_out(KernelRuntimeContext& ctx, Args args) { fill_sized(ctx, args, 1); }

// stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void stack_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  std::vector<Tensor> ts;
  int64_t dim;
  if (!arg_tensor_list(ctx, args, 0, &ts) || !arg_int(ctx, args, 1, &dim)) return;
  const Tensor* out = arg_tensor(ctx, args, 2);
  if (!out) return;
  if (ts.empty()) return fail(ctx, Error::InvalidArgument, "argument 0 (tensors) is empty");
  const int nd = static_cast<int>(ts[0].dim());
  if (nd + 1 > kMaxDim)
    return fail(ctx, Error::InvalidArgument, "argument 0 holds %d-d tensors; stacking them exceeds %d dims", nd,
                kMaxDim);
  if (dim < -(nd + 1) || dim > nd)
    return fail(ctx, Error::InvalidArgument, "dim %lld (argument 1) is out of range [%d, %d] for stacking %d-d tensors",
                ll(dim), -(nd + 1), nd, nd);
  const int d = static_cast<int>(dim < 0 ? dim + nd + 1 : dim);
  for (const Tensor& t : ts) {
    if (!is_supported_dtype(t.scalar_type()) || !is_supported_dtype(out->scalar_type()))
      return fail(ctx, Error::InvalidType, "a tensor in argument 0 has dtype %s, the output %s: not supported",
                  dtype_name(t.scalar_type()), dtype_name(out->scalar_type()));
    if (t.dim() != nd)
      return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: expected the same",
                  shape_string(ts[0]).c_str(), shape_string(t).c_str());
    for (int k = 0; k < nd; ++k)
      if (t.size(k) != ts[0].size(k))
        return fail(ctx, Error::InvalidArgument, "tensors in argument 0 have shapes %s and %s: expected the same",
                    shape_string(ts[0]).c_str(), shape_string(t).c_str());
  }
  if (static_cast<int64_t>(ts.size()) > kMaxSize)
    return fail(ctx, Error::InvalidArgument, "argument 0 holds %zu tensors, too many", ts.size());
  Shape s;
  s.ndim = nd + 1;
  for (int k = 0, j = 0; k < nd + 1; ++k) s.d[k] = k == d ? static_cast<int64_t>(ts.size()) : ts[0].size(j++);
  if (!resize_out(ctx, *out, s)) return;
  if (out->numel() == 0) return;
  const Operand oo = operand_of(*out);
  for (size_t i = 0; i < ts.size(); ++i) {
    Operand dst = oo;
    dst.data += static_cast<int64_t>(i) * oo.strides[d] * oo.esize;
    for (int k = d; k + 1 < dst.ndim; ++k) {
      dst.sizes[k] = dst.sizes[k + 1];
      dst.strides[k] = dst.strides[k + 1];
    }
    dst.ndim--;
    copy_operand(dst, operand_of(ts[i]), shape_of(ts[i]));
  }
}

// unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out)
void unbind_copy_int_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 3)) return;
  const Tensor* in = arg_tensor(ctx, args, 0);
  int64_t dim;
  std::vector<Tensor> outs;
  if (!in || !arg_int(ctx, args, 1, &dim) || !arg_tensor_list(ctx, args, 2, &outs)) return;
  const int nd = static_cast<int>(in->dim());
  int64_t d;
  if (nd == 0) return fail(ctx, Error::InvalidArgument, "argument 0 is 0-d, there is no dim to unbind");
  if (!norm_dim(dim, nd, &d)) return fail_dim(ctx, dim, 1, nd);
  if (static_cast<int64_t>(outs.size()) != in->size(d))
    return fail(ctx, Error::InvalidArgument, "argument 2 (out) holds %zu tensors, dim %lld of argument 0 has size %lld",
                outs.size(), ll(d), ll(in->size(d)));
  const Operand oi = operand_of(*in);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!is_supported_dtype(in->scalar_type()) || !is_supported_dtype(outs[i].scalar_type()))
      return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, output %zu in argument 2 %s: not supported",
                  dtype_name(in->scalar_type()), i, dtype_name(outs[i].scalar_type()));
    Operand src = oi;
    src.data += static_cast<int64_t>(i) * oi.strides[d] * oi.esize;
    for (int k = static_cast<int>(d); k + 1 < src.ndim; ++k) {
      src.sizes[k] = src.sizes[k + 1];
      src.strides[k] = src.strides[k + 1];
    }
    src.ndim--;
    Shape s;
    s.ndim = src.ndim;
    for (int k = 0; k < s.ndim; ++k) s.d[k] = src.sizes[k];
    if (!resize_out(ctx, outs[i], s)) return;
    if (s.numel() > 0) copy_operand(operand_of(outs[i]), src, s);
  }
}

}  // namespace etk
