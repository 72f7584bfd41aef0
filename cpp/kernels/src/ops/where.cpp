// Selection: where, masked_fill.
#include "pointwise.h"

namespace etk {

// where over one dtype, its elements copied as T (of their size): a run whose condition is one element (broadcast
// along it, as a row mask is) copies one source.
template <typename T>
void where_copy(const Loop<4>& L, char* obase, const char* cb, const char* ab, const char* bb) {
  L.run([=](int64_t n, const int64_t* off, const int64_t* st) {
    T* o = reinterpret_cast<T*>(obase) + off[0];
    const uint8_t* c = reinterpret_cast<const uint8_t*>(cb) + off[1];
    const T* a = reinterpret_cast<const T*>(ab) + off[2];
    const T* b = reinterpret_cast<const T*>(bb) + off[3];
    const int64_t so = st[0], sc = st[1], sa = st[2], sb = st[3];
    if (sc == 0) {
      const T* src = c[0] != 0 ? a : b;
      const int64_t ss = c[0] != 0 ? sa : sb;
      if (so == 1 && ss == 1) {
        std::memcpy(o, src, static_cast<size_t>(n) * sizeof(T));
        return;
      }
      for (int64_t i = 0; i < n; ++i) o[i * so] = src[i * ss];
      return;
    }
    for (int64_t i = 0; i < n; ++i) o[i * so] = c[i * sc] != 0 ? a[i * sa] : b[i * sb];
  });
}

ET_KERNEL_OP("aten::where.self_out", where_self_out,
             "(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
void where_self_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* c = arg_tensor(ctx, args, 0);
  const Tensor* a = c ? arg_tensor(ctx, args, 1) : nullptr;
  const Tensor* b = a ? arg_tensor(ctx, args, 2) : nullptr;
  const Tensor* out = b ? arg_tensor(ctx, args, 3) : nullptr;
  if (!out) return;
  if (c->scalar_type() != ScalarType::Bool && c->scalar_type() != ScalarType::Byte)
    return fail(ctx, Error::InvalidType, "argument 0 (condition) has dtype %s, expected Bool or Byte",
                dtype_name(c->scalar_type()));
  Operand oc = operand_of(*c), oa = operand_of(*a), ob = operand_of(*b);
  alignas(8) char sa[8], sb[8];
  harmonize(&oa, &ob, out->scalar_type(), sa, sb);
  const ScalarType t = out->scalar_type();
  if (!is_supported_dtype(t) || !is_supported_dtype(oa.dtype) || !is_supported_dtype(ob.dtype))
    return fail(ctx, Error::InvalidType, "self, other, out (arguments 1, 2, 3) have dtypes %s, %s, %s: not supported",
                dtype_name(oa.dtype), dtype_name(ob.dtype), dtype_name(t));
  const Operand* ins[3] = {&oc, &oa, &ob};
  Shape shape;
  if (!broadcast_shape(ins, 3, &shape))
    return fail(ctx, Error::InvalidArgument,
                "condition, self, other (arguments 0, 1, 2) have shapes %s, %s, %s: they do not broadcast",
                shape_string(*c).c_str(), shape_string(*a).c_str(), shape_string(*b).c_str());
  if (!resize_out(ctx, *out, shape)) return;
  Operand oo = operand_of(*out);
  const Operand* ops[4] = {&oo, &oc, &oa, &ob};
  Loop<4> L;
  if (!L.init(shape, ops))
    return fail(ctx, Error::InvalidArgument, "the broadcast shape %s is too large",
                shape_string(shape.d, shape.ndim).c_str());
  if (L.numel == 0) return;
  if (oa.dtype == t && ob.dtype == t) {
    const char *cb = oc.data, *ab = oa.data, *bb = ob.data;
    switch (oo.esize) {
      case 1: return where_copy<uint8_t>(L, oo.data, cb, ab, bb);
      case 2: return where_copy<uint16_t>(L, oo.data, cb, ab, bb);
      case 4: return where_copy<uint32_t>(L, oo.data, cb, ab, bb);
      case 8: return where_copy<uint64_t>(L, oo.data, cb, ab, bb);
      default: break;
    }
    const int64_t es = oo.esize;
    char* obase = oo.data;
    L.run([=](int64_t n, const int64_t* off, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const bool cv = reinterpret_cast<const uint8_t*>(cb)[off[1] + i * st[1]] != 0;
        const char* src = cv ? ab + (off[2] + i * st[2]) * es : bb + (off[3] + i * st[3]) * es;
        std::memmove(obase + (off[0] + i * st[0]) * es, src, static_cast<size_t>(es));
      }
    });
    return;
  }
  const bool dbl = is_floating(t) || is_floating(oa.dtype) || is_floating(ob.dtype);
  auto run = [&](auto zero) {
    using C = decltype(zero);
    detail::map_slow<C, 3>(L, ops, [](C cv, C x, C y) { return cv != C(0) ? x : y; });
  };
  if (dbl)
    run(0.0);
  else
    run(int64_t{0});
}

ET_KERNEL_OP("aten::masked_fill.Scalar_out", masked_fill_scalar_out,
             "(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out) -> Tensor(a!)")
void masked_fill_scalar_out(KernelRuntimeContext& ctx, Args args) {
  if (!check_nargs(ctx, args, 4)) return;
  const Tensor* x = arg_tensor(ctx, args, 0);
  const Tensor* m = x ? arg_tensor(ctx, args, 1) : nullptr;
  if (!m) return;
  Scalar v;
  if (!arg_scalar(ctx, args, 2, &v)) return;
  const Tensor* out = arg_tensor(ctx, args, 3);
  if (!out) return;
  if (m->scalar_type() != ScalarType::Bool)
    return fail(ctx, Error::InvalidType, "argument 1 (mask) has dtype %s, expected Bool", dtype_name(m->scalar_type()));
  if (out->scalar_type() != x->scalar_type())
    return fail(ctx, Error::InvalidType, "argument 0 has dtype %s, the output %s: expected the same",
                dtype_name(x->scalar_type()), dtype_name(out->scalar_type()));
  Operand ox = operand_of(*x), om = operand_of(*m);
  alignas(8) char sv[8];
  Operand ov = scalar_operand(v, x->scalar_type(), sv);
  // Only the mask and self decide the shape (the mask must broadcast to self).
  const Operand* ins[3] = {&om, &ov, &ox};
  Shape s;
  if (!broadcast_shape(ins, 3, &s) || s.ndim != x->dim())
    return fail(ctx, Error::InvalidArgument,
                "argument 1 (mask) has shape %s, which does not broadcast to argument 0's %s", shape_string(*m).c_str(),
                shape_string(*x).c_str());
  for (int d = 0; d < s.ndim; ++d)
    if (s.d[d] != x->size(d))
      return fail(ctx, Error::InvalidArgument,
                  "argument 1 (mask) has shape %s, which does not broadcast to argument 0's %s",
                  shape_string(*m).c_str(), shape_string(*x).c_str());
  elementwise<MapKind::kArith, 3>(ctx, *out, ins,
                                  [](auto c, auto val, auto a) { return c != decltype(c)(0) ? val : a; });
}

}  // namespace etk
