// Failing, tensor checks and messages, the call state, and registering a library's operators (kernel_base.h).
#include "kernel_base.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include <executorch/runtime/platform/log.h>

// The ET_KERNEL_OP entries of the library this object is linked into: the linker collects the section and defines
// these bounds (hidden: each library sees its own).
extern "C" {
extern const etkb::OpDef* const __start_et_kernel_ops[] __attribute__((weak, visibility("hidden")));
extern const etkb::OpDef* const __stop_et_kernel_ops[] __attribute__((weak, visibility("hidden")));
}

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

std::string shape_string(const int64_t* d, int n) {
  std::string r = "[";
  for (int k = 0; k < n; ++k) r += (k ? ", " : "") + std::to_string(d[k]);
  return r + "]";
}

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

CallState& call_state() {
  static thread_local CallState state;
  return state;
}

std::vector<const OpDef*> library_ops() {
  std::vector<const OpDef*> ops;
  if (__start_et_kernel_ops != nullptr) ops.assign(__start_et_kernel_ops, __stop_et_kernel_ops);
  std::sort(ops.begin(), ops.end(),
            [](const OpDef* a, const OpDef* b) { return std::strcmp(a->op->name, b->op->name) < 0; });
  return ops;
}

uint32_t register_library_ops(const char* library) {
  std::vector<rt::Kernel> kernels;
  try {
    for (const OpDef* d : library_ops()) kernels.emplace_back(d->op->name, d->entry);
  } catch (const std::bad_alloc&) {
    ET_LOG(Error, "%s: out of memory listing its kernels", library);
    return static_cast<uint32_t>(Error::MemoryAllocationFailed);
  }
  const Error e = rt::register_kernels(Span<const rt::Kernel>(kernels.data(), kernels.size()));
  if (e != Error::Ok) {
    ET_LOG(Error, "%s: registering %zu kernels failed (error 0x%x)", library, kernels.size(), static_cast<unsigned>(e));
  }
  return static_cast<uint32_t>(e);
}

}  // namespace etkb
