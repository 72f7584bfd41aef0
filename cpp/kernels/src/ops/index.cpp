// Advanced indexing: index.Tensor (a gather through index tensors and masks) and index_put (the scatter).
#include "copy_util.h"
#include "index_util.h"

namespace etk {

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

ET_KERNEL_OP("aten::index.Tensor_out", index_tensor_out,
             "(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)")
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

// out = self, then out[indices] = values (broadcast to the indexed shape), or += with accumulate. Repeated
// indices: the last write wins (accumulate: every value is added), as in upstream's portable kernel.
ET_KERNEL_OP("aten::index_put.out", index_put_out,
             "(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, Tensor(a!) out) -> Tensor(a!)")
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

}  // namespace etk
