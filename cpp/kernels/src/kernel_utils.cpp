#include "kernel_utils.h"
#include "reduced_float.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace etk {

bool checked_mul(int64_t a, int64_t b, int64_t* r) {
  if (a < 0 || b < 0) return false;
  int64_t v;
  if (__builtin_mul_overflow(a, b, &v)) return false;
  *r = v;
  return true;
}

namespace {
// Argument i is not what the schema says: names what it is and what was expected.
bool wrong(KernelRuntimeContext& ctx, Args args, size_t i, const char* expected) {
  fail(ctx, Error::InvalidArgument, "argument %zu is %s, expected %s", i,
       i < args.size() ? value_kind(args[i]) : "missing", expected);
  return false;
}
bool missing(KernelRuntimeContext& ctx, Args args, size_t i) {
  if (i < args.size() && args[i] != nullptr) return false;
  fail(ctx, Error::InvalidArgument, "argument %zu is missing (%zu arguments given)", i, args.size());
  return true;
}
}  // namespace

const Tensor* arg_tensor(KernelRuntimeContext& ctx, Args args, size_t i) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isTensor()) {
    wrong(ctx, args, i, "a Tensor");
    return nullptr;
  }
  const Tensor& t = args[i]->payload.as_tensor;
  if (!valid_tensor(t)) {
    fail(ctx, Error::InvalidArgument, "argument %zu is not a valid tensor (sizes, strides, dtype or data)", i);
    return nullptr;
  }
  return &t;
}

bool arg_opt_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const Tensor** t) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *t = nullptr;
    return true;
  }
  *t = arg_tensor(ctx, args, i);
  return *t != nullptr;
}

bool arg_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isInt()) {
    *v = args[i]->payload.copyable_union.as_int;
    return true;
  }
  if (args[i]->isBool()) {
    *v = args[i]->payload.copyable_union.as_bool ? 1 : 0;
    return true;
  }
  return wrong(ctx, args, i, "an int");
}

bool arg_opt_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v, bool* has) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *has = false;
    return true;
  }
  *has = true;
  return arg_int(ctx, args, i, v);
}

bool arg_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isBool()) {
    *v = args[i]->payload.copyable_union.as_bool;
    return true;
  }
  if (args[i]->isInt()) {
    *v = args[i]->payload.copyable_union.as_int != 0;
    return true;
  }
  return wrong(ctx, args, i, "a bool");
}

bool arg_opt_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v, bool dflt) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *v = dflt;
    return true;
  }
  return arg_bool(ctx, args, i, v);
}

bool arg_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isScalar()) return wrong(ctx, args, i, "a number");
  *v = args[i]->toScalarDouble();
  return true;
}

bool arg_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s) {
  if (missing(ctx, args, i)) return false;
  const EValue& e = *args[i];
  if (e.isInt()) {
    s->kind = Scalar::kInt;
    s->i = e.payload.copyable_union.as_int;
  } else if (e.isDouble()) {
    s->kind = Scalar::kDouble;
    s->d = e.payload.copyable_union.as_double;
  } else if (e.isBool()) {
    s->kind = Scalar::kBool;
    s->b = e.payload.copyable_union.as_bool;
  } else {
    return wrong(ctx, args, i, "a scalar (int, float or bool)");
  }
  return true;
}

bool arg_opt_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s, bool* has) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *has = false;
    return true;
  }
  *has = true;
  return arg_scalar(ctx, args, i, s);
}

bool arg_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isIntList())
    return wrong(ctx, args, i, "an int list of at most 4096 ints");
  const auto& l = args[i]->payload.copyable_union.as_int_list;
  const size_t n = l.size();
  if (n > 4096) return wrong(ctx, args, i, "an int list of at most 4096 ints");
  EValue* const* w = l.wrapped_vals();
  if (n > 0 && w == nullptr) return wrong(ctx, args, i, "an int list of at most 4096 ints");
  v->clear();
  v->reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || !w[k]->isInt()) return wrong(ctx, args, i, "an int list of at most 4096 ints");
    v->push_back(w[k]->payload.copyable_union.as_int);
  }
  return true;
}

bool arg_opt_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v, bool* has) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *has = false;
    v->clear();
    return true;
  }
  *has = true;
  return arg_int_list(ctx, args, i, v);
}

bool arg_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<Tensor>* v) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isTensorList())
    return wrong(ctx, args, i, "a list of at most 65536 valid Tensors");
  const auto& l = args[i]->payload.copyable_union.as_tensor_list;
  const size_t n = l.size();
  if (n > 65536) return wrong(ctx, args, i, "a list of at most 65536 valid Tensors");
  EValue* const* w = l.wrapped_vals();
  if (n > 0 && w == nullptr) return wrong(ctx, args, i, "a list of at most 65536 valid Tensors");
  v->clear();
  v->reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || !w[k]->isTensor()) return wrong(ctx, args, i, "a list of at most 65536 valid Tensors");
    const Tensor& t = w[k]->payload.as_tensor;
    if (!valid_tensor(t)) return wrong(ctx, args, i, "a list of at most 65536 valid Tensors");
    v->push_back(t);
  }
  return true;
}

bool arg_opt_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<const Tensor*>* v) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isListOptionalTensor())
    return wrong(ctx, args, i, "a list of at most 16 optional Tensors");
  const auto& l = args[i]->payload.copyable_union.as_list_optional_tensor;
  const size_t n = l.size();
  if (n > kMaxDim) return wrong(ctx, args, i, "a list of at most 16 optional Tensors");
  EValue* const* w = l.wrapped_vals();
  if (n > 0 && w == nullptr) return wrong(ctx, args, i, "a list of at most 16 optional Tensors");
  v->clear();
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || w[k]->isNone()) {
      v->push_back(nullptr);
      continue;
    }
    if (!w[k]->isTensor()) return wrong(ctx, args, i, "a list of at most 16 optional Tensors");
    const Tensor& t = w[k]->payload.as_tensor;
    if (!valid_tensor(t)) return wrong(ctx, args, i, "a list of at most 16 optional Tensors");
    v->push_back(&t);
  }
  return true;
}

bool arg_opt_double_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<double>* v, bool* has) {
  if (missing(ctx, args, i)) return false;
  v->clear();
  if (args[i]->isNone()) {
    *has = false;
    return true;
  }
  if (!args[i]->isDoubleList()) return wrong(ctx, args, i, "None or a float list of at most 4096 floats");
  const auto& l = args[i]->payload.copyable_union.as_double_list;
  if (l.size() > 4096 || (l.size() > 0 && l.data() == nullptr))
    return wrong(ctx, args, i, "None or a float list of at most 4096 floats");
  v->assign(l.begin(), l.end());
  *has = true;
  return true;
}

bool arg_opt_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v, bool* has) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *has = false;
    return true;
  }
  *has = true;
  return arg_double(ctx, args, i, v);
}

bool arg_opt_string(KernelRuntimeContext& ctx, Args args, size_t i, std::string_view* s, bool* has) {
  if (missing(ctx, args, i)) return false;
  if (args[i]->isNone()) {
    *has = false;
    return true;
  }
  if (!args[i]->isString()) return wrong(ctx, args, i, "None or a string");
  const auto& str = args[i]->payload.copyable_union.as_string;
  if (str.size() > 0 && str.data() == nullptr) return wrong(ctx, args, i, "None or a string");
  *s = std::string_view(str.data(), str.size());
  *has = true;
  return true;
}

bool arg_opt_dtype(KernelRuntimeContext& ctx, Args args, size_t i, ScalarType* t, bool* has) {
  int64_t v = 0;
  if (!arg_opt_int(ctx, args, i, &v, has)) return false;
  if (!*has) return true;
  if (v < 0 || v >= static_cast<int64_t>(ScalarType::Undefined) || !rt::etensor::isValid(static_cast<ScalarType>(v))) {
    fail(ctx, Error::InvalidType, "argument %zu (%lld) is not a dtype code this runtime knows", i,
         static_cast<long long>(v));
    return false;
  }
  *t = static_cast<ScalarType>(v);
  if (in_float_call() && (*t == ScalarType::Half || *t == ScalarType::BFloat16)) *t = ScalarType::Float;
  return true;
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

std::string shape_string(const int64_t* d, int n) {
  std::string r = "[";
  for (int k = 0; k < n; ++k) r += (k ? ", " : "") + std::to_string(d[k]);
  return r + "]";
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

bool is_contiguous(const Tensor& t) {
  const auto* impl = t.unsafeGetTensorImpl();
  const int nd = static_cast<int>(impl->dim());
  auto sz = impl->sizes();
  auto st = impl->strides();
  int64_t expected = 1;
  for (int d = nd - 1; d >= 0; --d) {
    if (sz[d] != 1 && st[d] != expected) return false;
    expected *= sz[d];
  }
  return true;
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

const float* contiguous_float(const Tensor& t, std::vector<float>* storage) {
  if (is_contiguous(t)) return t.const_data_ptr<float>();
  storage->assign(static_cast<size_t>(t.numel()), 0.f);
  Operand src = operand_of(t);
  Operand dst = src;
  dst.data = reinterpret_cast<char*>(storage->data());
  int64_t s = 1;
  for (int d = dst.ndim - 1; d >= 0; --d) {
    dst.strides[d] = s;
    s *= dst.sizes[d];
  }
  copy_operand(dst, src, shape_of(t));
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
  Operand dst = operand_of(*t);
  Operand src = dst;
  src.data = reinterpret_cast<char*>(storage.data());
  int64_t s = 1;
  for (int d = src.ndim - 1; d >= 0; --d) {
    src.strides[d] = s;
    s *= src.sizes[d];
  }
  copy_operand(dst, src, shape_of(*t));
}

}  // namespace etk
