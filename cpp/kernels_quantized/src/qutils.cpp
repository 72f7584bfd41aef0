#include "qutils.h"

#include <cstdarg>
#include <cstdio>

namespace etq {

void fail(KernelRuntimeContext& ctx, Error e, const char* fmt, ...) {
  if (ctx.failure_state() != Error::Ok) return;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  ctx.fail(e, "%s", buf);
}

const char* dtype_name(ScalarType t) { return ::executorch::runtime::etensor::toString(t); }

std::string shape_string(const Tensor& t) {
  std::string s = "[";
  for (ssize_t d = 0; d < t.dim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}

namespace {

const char* value_kind(const EValue* v) {
  if (v == nullptr) return "missing";
  if (v->isNone()) return "None";
  if (v->isTensor()) return "a Tensor";
  if (v->isInt()) return "an int";
  if (v->isDouble()) return "a float";
  if (v->isBool()) return "a bool";
  if (v->isString()) return "a string";
  if (v->isIntList() || v->isDoubleList() || v->isBoolList() || v->isTensorList() || v->isListOptionalTensor())
    return "a list";
  return "a value of another kind";
}

bool wrong(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, const char* expected) {
  fail(ctx, Error::InvalidArgument, "argument %zu (%s) is %s, expected %s", i, name,
       i < args.size() ? value_kind(args[i]) : "missing", expected);
  return false;
}

bool valid_tensor(const Tensor& t) {
  const auto* impl = t.unsafeGetTensorImpl();
  if (impl == nullptr) return false;
  const ssize_t nd = impl->dim();
  if (nd < 0 || nd > kMaxDim) return false;
  if (!rt::etensor::isValid(impl->scalar_type())) return false;
  auto sizes = impl->sizes();
  auto strides = impl->strides();
  if (nd > 0 && (sizes.data() == nullptr || strides.data() == nullptr)) return false;
  int64_t n = 1;
  for (ssize_t d = 0; d < nd; ++d) {
    if (sizes[d] < 0) return false;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(sizes[d]), &n)) return false;
  }
  if (n != impl->numel()) return false;
  if (n > 0) {
    if (impl->data() == nullptr) return false;
    int64_t max_off = 0;
    for (ssize_t d = 0; d < nd; ++d) {
      if (strides[d] < 0) return false;
      int64_t term;
      if (__builtin_mul_overflow(static_cast<int64_t>(sizes[d]) - 1, static_cast<int64_t>(strides[d]), &term))
        return false;
      if (__builtin_add_overflow(max_off, term, &max_off)) return false;
    }
    if (max_off >= n) return false;
  }
  return true;
}

}  // namespace

bool check_nargs(KernelRuntimeContext& ctx, Args args, size_t n) {
  if (args.data() == nullptr && args.size() > 0) {
    fail(ctx, Error::InvalidArgument, "the argument list is null");
    return false;
  }
  if (args.size() < n) {
    fail(ctx, Error::InvalidArgument, "%zu arguments given, the schema has %zu (out included)", args.size(), n);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (args[i] == nullptr) {
      fail(ctx, Error::InvalidArgument, "argument %zu is missing", i);
      return false;
    }
  }
  return true;
}

const Tensor* arg_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const char* name) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isTensor()) {
    wrong(ctx, args, i, name, "a Tensor");
    return nullptr;
  }
  const Tensor& t = args[i]->payload.as_tensor;
  if (!valid_tensor(t)) {
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) is not a valid tensor (sizes, strides, dtype or data)", i,
         name);
    return nullptr;
  }
  return &t;
}

bool arg_opt_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, const Tensor** t) {
  if (i < args.size() && args[i] != nullptr && args[i]->isNone()) {
    *t = nullptr;
    return true;
  }
  *t = arg_tensor(ctx, args, i, name);
  return *t != nullptr;
}

bool arg_int(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, int64_t* v) {
  if (i < args.size() && args[i] != nullptr) {
    if (args[i]->isInt()) {
      *v = args[i]->payload.as_int;
      return true;
    }
    if (args[i]->isBool()) {
      *v = args[i]->payload.as_bool ? 1 : 0;
      return true;
    }
  }
  return wrong(ctx, args, i, name, "an int");
}

bool arg_double(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, double* v) {
  if (i < args.size() && args[i] != nullptr && (args[i]->isDouble() || args[i]->isInt())) {
    *v = args[i]->toScalarDouble();
    return true;
  }
  return wrong(ctx, args, i, name, "a float");
}

bool arg_dtype(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, ScalarType* t) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isInt()) return wrong(ctx, args, i, name, "a ScalarType");
  const int64_t v = args[i]->payload.as_int;
  if (v < 0 || v >= static_cast<int64_t>(ScalarType::NumOptions) || !rt::etensor::isValid(static_cast<ScalarType>(v))) {
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) is %lld, which is no ScalarType", i, name,
         static_cast<long long>(v));
    return false;
  }
  *t = static_cast<ScalarType>(v);
  return true;
}

bool arg_opt_dtype(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, ScalarType* t, bool* has) {
  if (i < args.size() && args[i] != nullptr && args[i]->isNone()) {
    *has = false;
    return true;
  }
  *has = true;
  return arg_dtype(ctx, args, i, name, t);
}

bool is_contiguous(const Tensor& t) {
  int64_t expected = 1;
  for (ssize_t d = t.dim() - 1; d >= 0; --d) {
    if (t.size(d) != 1 && t.strides()[d] != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

bool same_shape(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (ssize_t d = 0; d < a.dim(); ++d)
    if (a.size(d) != b.size(d)) return false;
  return true;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  if (!same_shape(a, b)) return false;
  for (ssize_t d = 0; d < a.dim(); ++d)
    if (a.size(d) != 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

bool resize_out(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const SizesType* sizes, int ndim,
                const char* name) {
  if (out.dim() != ndim) {
    fail(ctx, Error::InvalidArgument, "argument %zu (%s) has rank %zd, the result has rank %d", out_index, name,
         out.dim(), ndim);
    return false;
  }
  const Error e = rt::resize_tensor(out, rt::ArrayRef<SizesType>(sizes, static_cast<size_t>(ndim > 0 ? ndim : 0)));
  if (e != Error::Ok) {
    std::string want = "[";
    for (int d = 0; d < ndim; ++d) want += (d ? ", " : "") + std::to_string(sizes[d]);
    want += "]";
    fail(ctx, e, "argument %zu (%s) has shape %s and cannot be resized to the result's shape %s", out_index, name,
         shape_string(out).c_str(), want.c_str());
    return false;
  }
  return true;
}

bool resize_like(KernelRuntimeContext& ctx, const Tensor& out, size_t out_index, const Tensor& like) {
  SizesType sizes[kMaxDim];
  for (ssize_t d = 0; d < like.dim(); ++d) sizes[d] = like.size(d);
  return resize_out(ctx, out, out_index, sizes, static_cast<int>(like.dim()));
}

int64_t logical_offset(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (ssize_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t sz = t.size(d);
    off += (i % sz) * t.strides()[d];
    i /= sz;
  }
  return off;
}

Walker::Walker(const Tensor& t, int64_t begin) {
  nd = static_cast<int>(t.dim());
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    sizes[d] = t.size(d);
    strides[d] = t.strides()[d];
    idx[d] = sizes[d] > 0 ? rem % sizes[d] : 0;
    rem = sizes[d] > 0 ? rem / sizes[d] : 0;
    off += idx[d] * strides[d];
  }
}

bool quant_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0, *hi = 255; return true;
    case ScalarType::Char: *lo = -128, *hi = 127; return true;
    case ScalarType::Short: *lo = -32768, *hi = 32767; return true;
    case ScalarType::Int:
      *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max();
      return true;
    case ScalarType::UInt16:
    case ScalarType::Bits16: *lo = 0, *hi = 65535; return true;
    default: return false;
  }
}

}  // namespace etq
