// Reading a kernel's arguments by schema index (kernel_base.h). Every failure names the argument by its index and
// by its name in the running operator's schema.
#include "kernel_base.h"

#include <cstdio>
#include <cstring>

namespace etkb {

const char* arg_name(size_t i, char (&buf)[64]) {
  buf[0] = '\0';
  const OpSchema* op = call_state().op;
  if (op == nullptr || op->schema == nullptr) return buf;
  // The schema's argument list: "(Tensor self, Tensor(a!) out, *, int[2] stride=[1, 1], ...) -> ...". Arguments
  // are split at the commas outside brackets; "*" is not an argument; the name is the last word before any default.
  const char* p = std::strchr(op->schema, '(');
  if (p == nullptr) return buf;
  ++p;
  size_t index = 0;
  while (*p != '\0') {
    const char* begin = p;
    const char* eq = nullptr;
    int depth = 0;
    for (; *p != '\0'; ++p) {
      if (*p == '(' || *p == '[') ++depth;
      if (depth == 0 && (*p == ',' || *p == ')')) break;
      if (*p == ')' || *p == ']') --depth;
      if (depth == 0 && *p == '=' && eq == nullptr) eq = p;
    }
    const char* end = eq != nullptr ? eq : p;
    while (end > begin && end[-1] == ' ') --end;
    const char* name = end;
    while (name > begin && name[-1] != ' ') --name;
    const bool is_arg = !(end - begin == 1 && *begin == '*');
    if (is_arg && index++ == i) {
      const size_t n = std::min(static_cast<size_t>(end - name), sizeof(buf) - 1);
      std::memcpy(buf, name, n);
      buf[n] = '\0';
      return buf;
    }
    if (*p != ',') break;
    ++p;
    while (*p == ' ') ++p;
  }
  return buf;
}

namespace {

// "argument 1 (other)", or "argument 1" when the schema does not say.
struct Ref {
  char text[96];
  explicit Ref(size_t i) {
    char name[64];
    if (*arg_name(i, name) != '\0')
      std::snprintf(text, sizeof(text), "argument %zu (%s)", i, name);
    else
      std::snprintf(text, sizeof(text), "argument %zu", i);
  }
};

const EValue* at(Args args, size_t i) { return i < args.size() ? args[i] : nullptr; }

// Argument i is not what the schema says: names what it is and what was expected.
bool wrong(KernelRuntimeContext& ctx, Args args, size_t i, const char* expected) {
  fail(ctx, Error::InvalidArgument, "%s is %s, expected %s", Ref(i).text, value_kind(at(args, i)), expected);
  return false;
}

bool is_none(Args args, size_t i) { return at(args, i) != nullptr && args[i]->isNone(); }

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
      fail(ctx, Error::InvalidArgument, "%s is missing", Ref(i).text);
      return false;
    }
  }
  return true;
}

const Tensor* arg_tensor(KernelRuntimeContext& ctx, Args args, size_t i) {
  const EValue* v = at(args, i);
  if (v == nullptr || !v->isTensor()) {
    wrong(ctx, args, i, "a Tensor");
    return nullptr;
  }
  const Tensor& t = v->payload.as_tensor;
  if (!valid_tensor(t)) {
    fail(ctx, Error::InvalidArgument, "%s is not a valid tensor (sizes, strides, dtype or data)", Ref(i).text);
    return nullptr;
  }
  return &t;
}

bool arg_opt_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const Tensor** t) {
  if (is_none(args, i)) {
    *t = nullptr;
    return true;
  }
  *t = arg_tensor(ctx, args, i);
  return *t != nullptr;
}

bool arg_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v) {
  const EValue* e = at(args, i);
  if (e != nullptr && e->isInt()) {
    *v = e->payload.copyable_union.as_int;
    return true;
  }
  if (e != nullptr && e->isBool()) {
    *v = e->payload.copyable_union.as_bool ? 1 : 0;
    return true;
  }
  return wrong(ctx, args, i, "an int");
}

bool arg_opt_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v, bool* has) {
  *has = !is_none(args, i);
  return !*has || arg_int(ctx, args, i, v);
}

bool arg_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v) {
  const EValue* e = at(args, i);
  if (e != nullptr && e->isBool()) {
    *v = e->payload.copyable_union.as_bool;
    return true;
  }
  if (e != nullptr && e->isInt()) {
    *v = e->payload.copyable_union.as_int != 0;
    return true;
  }
  return wrong(ctx, args, i, "a bool");
}

bool arg_opt_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v, bool dflt) {
  if (is_none(args, i)) {
    *v = dflt;
    return true;
  }
  return arg_bool(ctx, args, i, v);
}

bool arg_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v) {
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isScalar()) return wrong(ctx, args, i, "a number");
  *v = e->toScalarDouble();
  return true;
}

bool arg_opt_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v, bool* has) {
  *has = !is_none(args, i);
  return !*has || arg_double(ctx, args, i, v);
}

bool arg_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s) {
  const EValue* e = at(args, i);
  if (e != nullptr && e->isInt()) {
    s->kind = Scalar::kInt;
    s->i = e->payload.copyable_union.as_int;
  } else if (e != nullptr && e->isDouble()) {
    s->kind = Scalar::kDouble;
    s->d = e->payload.copyable_union.as_double;
  } else if (e != nullptr && e->isBool()) {
    s->kind = Scalar::kBool;
    s->b = e->payload.copyable_union.as_bool;
  } else {
    return wrong(ctx, args, i, "a scalar (int, float or bool)");
  }
  return true;
}

bool arg_opt_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s, bool* has) {
  *has = !is_none(args, i);
  return !*has || arg_scalar(ctx, args, i, s);
}

bool arg_dtype(KernelRuntimeContext& ctx, Args args, size_t i, ScalarType* t) {
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isInt()) return wrong(ctx, args, i, "a ScalarType");
  const int64_t v = e->payload.copyable_union.as_int;
  if (v < 0 || v >= static_cast<int64_t>(ScalarType::NumOptions) || !rt::etensor::isValid(static_cast<ScalarType>(v))) {
    fail(ctx, Error::InvalidArgument, "%s is %lld, which is no ScalarType this runtime knows", Ref(i).text,
         static_cast<long long>(v));
    return false;
  }
  *t = static_cast<ScalarType>(v);
  if (call_state().reduced_as_float && (*t == ScalarType::Half || *t == ScalarType::BFloat16)) *t = ScalarType::Float;
  return true;
}

bool arg_opt_dtype(KernelRuntimeContext& ctx, Args args, size_t i, ScalarType* t, bool* has) {
  *has = !is_none(args, i);
  return !*has || arg_dtype(ctx, args, i, t);
}

bool arg_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v) {
  static const char kExpected[] = "an int list of at most 4096 ints";
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isIntList()) return wrong(ctx, args, i, kExpected);
  const auto& l = e->payload.copyable_union.as_int_list;
  const size_t n = l.size();
  EValue* const* w = l.wrapped_vals();
  if (n > 4096 || (n > 0 && w == nullptr)) return wrong(ctx, args, i, kExpected);
  v->clear();
  v->reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || !w[k]->isInt()) return wrong(ctx, args, i, kExpected);
    v->push_back(w[k]->payload.copyable_union.as_int);
  }
  return true;
}

bool arg_opt_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v, bool* has) {
  *has = !is_none(args, i);
  if (*has) return arg_int_list(ctx, args, i, v);
  v->clear();
  return true;
}

bool arg_opt_double_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<double>* v, bool* has) {
  static const char kExpected[] = "None or a float list of at most 4096 floats";
  v->clear();
  *has = !is_none(args, i);
  if (!*has) return true;
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isDoubleList()) return wrong(ctx, args, i, kExpected);
  const auto& l = e->payload.copyable_union.as_double_list;
  if (l.size() > 4096 || (l.size() > 0 && l.data() == nullptr)) return wrong(ctx, args, i, kExpected);
  v->assign(l.begin(), l.end());
  return true;
}

bool arg_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<Tensor>* v) {
  static const char kExpected[] = "a list of at most 65536 valid Tensors";
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isTensorList()) return wrong(ctx, args, i, kExpected);
  const auto& l = e->payload.copyable_union.as_tensor_list;
  const size_t n = l.size();
  EValue* const* w = l.wrapped_vals();
  if (n > 65536 || (n > 0 && w == nullptr)) return wrong(ctx, args, i, kExpected);
  v->clear();
  v->reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || !w[k]->isTensor() || !valid_tensor(w[k]->payload.as_tensor))
      return wrong(ctx, args, i, kExpected);
    v->push_back(w[k]->payload.as_tensor);
  }
  return true;
}

bool arg_opt_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<const Tensor*>* v) {
  static const char kExpected[] = "a list of at most 16 optional Tensors";
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isListOptionalTensor()) return wrong(ctx, args, i, kExpected);
  const auto& l = e->payload.copyable_union.as_list_optional_tensor;
  const size_t n = l.size();
  EValue* const* w = l.wrapped_vals();
  if (n > kMaxDim || (n > 0 && w == nullptr)) return wrong(ctx, args, i, kExpected);
  v->clear();
  for (size_t k = 0; k < n; ++k) {
    if (w[k] == nullptr || w[k]->isNone()) {
      v->push_back(nullptr);
      continue;
    }
    if (!w[k]->isTensor() || !valid_tensor(w[k]->payload.as_tensor)) return wrong(ctx, args, i, kExpected);
    v->push_back(&w[k]->payload.as_tensor);
  }
  return true;
}

bool arg_opt_string(KernelRuntimeContext& ctx, Args args, size_t i, std::string_view* s, bool* has) {
  static const char kExpected[] = "None or a string";
  *has = !is_none(args, i);
  if (!*has) return true;
  const EValue* e = at(args, i);
  if (e == nullptr || !e->isString()) return wrong(ctx, args, i, kExpected);
  const auto& str = e->payload.copyable_union.as_string;
  if (str.size() > 0 && str.data() == nullptr) return wrong(ctx, args, i, kExpected);
  *s = std::string_view(str.data(), str.size());
  return true;
}

}  // namespace etkb
