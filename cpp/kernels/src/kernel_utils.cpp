// Operands, shapes, copies and fills of libexecutorch_kernels (kernel_utils.h).
#include "kernel_utils.h"

#include <string>

namespace etk {

bool checked_mul(int64_t a, int64_t b, int64_t* r) {
  if (a < 0 || b < 0) return false;
  int64_t v;
  if (__builtin_mul_overflow(a, b, &v)) return false;
  *r = v;
  return true;
}

void fail_dim(KernelRuntimeContext& ctx, int64_t dim, int argi, int64_t nd) {
  fail(ctx, Error::InvalidArgument, "dim %lld (argument %d) is out of range for a %lld-d tensor", ll(dim), argi,
       ll(nd));
}

Operand operand_of(const Tensor& t) {
  Operand o;
  o.data = static_cast<char*>(t.mutable_data_ptr());
  o.dtype = t.scalar_type();
  o.esize = t.element_size();
  o.ndim = static_cast<int>(t.dim());
  auto sz = t.sizes();
  auto st = t.strides();
  for (int d = 0; d < o.ndim; ++d) {
    o.sizes[d] = sz[d];
    o.strides[d] = st[d];
  }
  return o;
}

ScalarType scalar_dtype_next_to(ScalarType t, const Scalar& s) {
  if (is_floating(t)) return t;
  if (s.kind == Scalar::kDouble) return ScalarType::Double;
  if (t == ScalarType::Bool) return s.kind == Scalar::kBool ? ScalarType::Bool : ScalarType::Long;
  if (is_integral(t, false)) return t;
  return ScalarType::Double;
}

Operand scalar_operand(const Scalar& s, ScalarType as, void* storage) {
  Operand o;
  o.data = static_cast<char*>(storage);
  o.dtype = as;
  o.esize = static_cast<int64_t>(rt::etensor::elementSize(as));
  o.ndim = 0;
  std::memset(storage, 0, 8);
  if (is_floating(as)) {
    store_as<double>(o.data, as, s.to_double());
  } else if (s.kind == Scalar::kDouble) {
    store_as<double>(o.data, as, s.d);
  } else {
    store_as<int64_t>(o.data, as, s.to_int());
  }
  return o;
}

Shape shape_of(const Tensor& t) {
  Shape s;
  s.ndim = static_cast<int>(t.dim());
  for (int d = 0; d < s.ndim; ++d) s.d[d] = t.size(d);
  return s;
}

bool broadcast_shape(const Operand* const* ops, int n, Shape* out) {
  int nd = 0;
  for (int k = 0; k < n; ++k) nd = ops[k]->ndim > nd ? ops[k]->ndim : nd;
  out->ndim = nd;
  for (int d = 0; d < nd; ++d) {
    int64_t v = 1;
    for (int k = 0; k < n; ++k) {
      int od = d - (nd - ops[k]->ndim);
      if (od < 0) continue;
      int64_t s = ops[k]->sizes[od];
      if (s == v || s == 1) continue;
      if (v == 1) {
        v = s;
        continue;
      }
      return false;
    }
    out->d[d] = v;
  }
  return true;
}

bool resize_out(KernelRuntimeContext& ctx, const Tensor& out, const Shape& shape) {
  const auto out_fail = [&](Error e, const char* why) {
    fail(ctx, e, "the output (shape %s) cannot take the result's shape %s: %s", shape_string(out).c_str(),
         shape_string(shape.d, shape.ndim).c_str(), why);
    return false;
  };
  if (shape.ndim != out.dim() || shape.ndim > kMaxDim) return out_fail(Error::InvalidArgument, "rank differs");
  {
    // Already the right shape (the common case for static programs): the tensor was validated on entry.
    auto cur = out.sizes();
    bool same = true;
    for (int d = 0; d < shape.ndim; ++d) same = same && cur[d] == shape.d[d];
    if (same) return true;
  }
  SizesType sz[kMaxDim];
  int64_t n = 1;
  for (int d = 0; d < shape.ndim; ++d) {
    if (shape.d[d] < 0 || shape.d[d] > kMaxSize || !checked_mul(n, shape.d[d], &n))
      return out_fail(Error::InvalidArgument, "a size is out of range");
    sz[d] = static_cast<SizesType>(shape.d[d]);
  }
  Error e = rt::resize_tensor(out, ArrayRef<SizesType>(sz, static_cast<size_t>(shape.ndim)));
  if (e != Error::Ok) return out_fail(e, "the output is static, or its memory is smaller");
  bool ok = valid_tensor(out) && out.numel() == n;
  for (int d = 0; ok && d < shape.ndim; ++d) ok = out.size(d) == shape.d[d];
  if (!ok) return out_fail(Error::InvalidArgument, "the resize did not take");
  return true;
}

bool norm_dim(int64_t dim, int64_t ndim, int64_t* out) {
  int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n) return false;
  *out = dim < 0 ? dim + n : dim;
  return true;
}

bool is_contiguous(const Operand& o) {
  int64_t expected = 1;
  for (int d = o.ndim - 1; d >= 0; --d) {
    if (o.sizes[d] != 1 && o.strides[d] != expected) return false;
    expected *= o.sizes[d];
  }
  return true;
}

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

void drop_dim(Operand* o, int d) {
  for (int k = d; k + 1 < o->ndim; ++k) {
    o->sizes[k] = o->sizes[k + 1];
    o->strides[k] = o->strides[k + 1];
  }
  o->ndim--;
}

namespace {
template <typename T>
void copy_same(const Operand& dst, const Operand& src, const Loop<2>& L) {
  char* dbase = dst.data;
  const char* sbase = src.data;
  L.run([dbase, sbase](int64_t n, const int64_t* off, const int64_t* st) {
    T* d = reinterpret_cast<T*>(dbase) + off[0];
    const T* s = reinterpret_cast<const T*>(sbase) + off[1];
    if (st[0] == 1 && st[1] == 1) {
      std::memmove(d, s, static_cast<size_t>(n) * sizeof(T));
    } else if (st[0] == 1 && st[1] == 0) {
      const T v = *s;
      for (int64_t i = 0; i < n; ++i) d[i] = v;
    } else {
      const int64_t a = st[0], b = st[1];
      for (int64_t i = 0; i < n; ++i) d[i * a] = s[i * b];
    }
  });
}
template <typename C>
void copy_convert(const Operand& dst, const Operand& src, const Loop<2>& L) {
  char* dbase = dst.data;
  const char* sbase = src.data;
  const int64_t de = dst.esize, se = src.esize;
  const ScalarType dt = dst.dtype, stp = src.dtype;
  L.run([=](int64_t n, const int64_t* off, const int64_t* st) {
    char* d = dbase + off[0] * de;
    const char* s = sbase + off[1] * se;
    for (int64_t i = 0; i < n; ++i) store_as<C>(d + i * st[0] * de, dt, load_as<C>(s + i * st[1] * se, stp));
  });
}
}  // namespace

void copy_operand(const Operand& dst, const Operand& src, const Shape& shape) {
  Loop<2> L;
  const Operand* ops[2] = {&dst, &src};
  if (!L.init(shape, ops)) return;
  if (L.numel == 0) return;
  if (dst.dtype == src.dtype) {
    switch (dst.esize) {
      case 1: copy_same<uint8_t>(dst, src, L); return;
      case 2: copy_same<uint16_t>(dst, src, L); return;
      case 4: copy_same<uint32_t>(dst, src, L); return;
      case 8: copy_same<uint64_t>(dst, src, L); return;
      default: break;
    }
  }
  if (is_floating(dst.dtype) || is_floating(src.dtype)) {
    copy_convert<double>(dst, src, L);
  } else {
    copy_convert<int64_t>(dst, src, L);
  }
}

void fill_operand(const Operand& dst, double v, int64_t iv, bool use_int) {
  alignas(8) char buf[8];
  Scalar s;
  if (use_int) {
    s.kind = Scalar::kInt;
    s.i = iv;
  } else {
    s.kind = Scalar::kDouble;
    s.d = v;
  }
  Operand src = scalar_operand(s, dst.dtype, buf);
  Shape sh;
  sh.ndim = dst.ndim;
  for (int d = 0; d < dst.ndim; ++d) sh.d[d] = dst.sizes[d];
  copy_operand(dst, src, sh);
}

void fill_scalar(const Tensor& out, const Scalar& v) {
  if (out.numel() == 0) return;
  if (v.kind == Scalar::kDouble)
    fill_operand(operand_of(out), v.d, 0, false);
  else
    fill_operand(operand_of(out), 0, v.to_int(), true);
}

const float* contiguous_float(const Tensor& t, std::vector<float>* storage) {
  if (is_contiguous(t)) return t.const_data_ptr<float>();
  storage->assign(static_cast<size_t>(t.numel()), 0.f);
  const Operand src = operand_of(t);
  copy_operand(contiguous_like(src, reinterpret_cast<char*>(storage->data())), src, shape_of(t));
  return storage->data();
}

ContigOut::ContigOut(const Tensor& out) : t(&out) {
  if (is_contiguous(out)) {
    ptr = out.mutable_data_ptr<float>();
  } else {
    storage.assign(static_cast<size_t>(out.numel()), 0.f);
    ptr = storage.data();
  }
}

void ContigOut::finish() {
  if (storage.empty()) return;
  const Operand dst = operand_of(*t);
  copy_operand(dst, contiguous_like(dst, reinterpret_cast<char*>(storage.data())), shape_of(*t));
}

}  // namespace etk
