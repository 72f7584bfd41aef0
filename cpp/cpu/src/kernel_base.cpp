#include "kernel_base.h"

#include <cstdarg>
#include <cstdio>

namespace etkb {

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

const char* value_kind(const EValue* v) {
  if (v == nullptr) return "missing";
  if (v->isNone()) return "None";
  if (v->isTensor()) return "a Tensor";
  if (v->isInt()) return "an int";
  if (v->isDouble()) return "a float";
  if (v->isBool()) return "a bool";
  if (v->isString()) return "a string";
  if (v->isIntList()) return "an int list";
  if (v->isDoubleList()) return "a float list";
  if (v->isBoolList()) return "a bool list";
  if (v->isTensorList()) return "a Tensor list";
  if (v->isListOptionalTensor()) return "an optional-Tensor list";
  return "a value of another kind";
}

namespace {

bool wrong(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, const char* expected) {
  fail(ctx, Error::InvalidArgument, "argument %zu (%s) is %s, expected %s", i, name,
       i < args.size() ? value_kind(args[i]) : "missing", expected);
  return false;
}

}  // namespace

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
      *v = args[i]->payload.copyable_union.as_int;
      return true;
    }
    if (args[i]->isBool()) {
      *v = args[i]->payload.copyable_union.as_bool ? 1 : 0;
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

bool arg_bool(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, bool* v) {
  if (i < args.size() && args[i] != nullptr && args[i]->isBool()) {
    *v = args[i]->payload.copyable_union.as_bool;
    return true;
  }
  return wrong(ctx, args, i, name, "a bool");
}

bool arg_opt_double(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, double* v, bool* has) {
  *has = !(i < args.size() && args[i] != nullptr && args[i]->isNone());
  return !*has || arg_double(ctx, args, i, name, v);
}

bool arg_dtype(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, ScalarType* t) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->isInt()) return wrong(ctx, args, i, name, "a ScalarType");
  const int64_t v = args[i]->payload.copyable_union.as_int;
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

uint32_t register_table(const char* library, Span<const rt::Kernel> kernels) {
  const Error e = rt::register_kernels(kernels);
  if (e != Error::Ok) {
    ET_LOG(Error, "%s: registering %zu kernels failed (error 0x%x)", library, kernels.size(), static_cast<unsigned>(e));
  }
  return static_cast<uint32_t>(e);
}

}  // namespace etkb
