#pragma once
// The process-wide kernel registry (it lives in libexecutorch only), with upstream ExecuTorch's API: kernels are
// registered under their qualified operator name with overload ("aten::add.out"), optionally specialised by a
// kernel key (the dtypes and dim orders of their tensor arguments); a kernel without a key is the operator's
// fallback. Lookups with tensor metadata find the kernel whose key matches, else the fallback.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

#if defined(ET_OP_REGISTRY_DEBUG)
#include <ostream>
#endif

// Log a KernelKey / a list of TensorMeta at Info level.
#define ET_LOG_KERNEL_KEY(k) ET_LOG(Info, "key: %s, is_fallback: %s", k.data(), k.is_fallback() ? "true" : "false");
#define ET_LOG_TENSOR_META(meta_list)                                \
  for (const auto& meta : meta_list) {                               \
    ET_LOG(Info, "dtype: %d | dim order: [", int(meta.dtype_));      \
    for (size_t i = 0; i < meta.dim_order_.size(); i++) {            \
      ET_LOG(Info, "%d,", static_cast<int32_t>(meta.dim_order_[i])); \
    }                                                                \
    ET_LOG(Info, "]");                                               \
  }

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

class KernelRuntimeContext;

// Kernel ABI: arguments in schema order plus one trailing return slot (for .out ops the same value as `out`).
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);

// The dtype and dim order of one tensor argument: one element of a kernel key.
struct TensorMeta {
  executorch::aten::ScalarType dtype_;
  Span<executorch::aten::DimOrderType> dim_order_;

  TensorMeta() = default;
  TensorMeta(executorch::aten::ScalarType dtype, Span<executorch::aten::DimOrderType> order)
      : dtype_(dtype), dim_order_(order) {}

  bool operator==(const TensorMeta& other) const { return equals(other); }
  bool operator!=(const TensorMeta& other) const { return !equals(other); }
  bool equals(const TensorMeta& other) const {
    if (dtype_ != other.dtype_ || dim_order_.size() != other.dim_order_.size()) return false;
    for (size_t i = 0; i < dim_order_.size(); i++) {
      if (dim_order_[i] != other.dim_order_[i]) return false;
    }
    return true;
  }

#if defined(ET_OP_REGISTRY_DEBUG)
  friend std::ostream& operator<<(std::ostream& os, const TensorMeta& meta) {
    os << "dtype: " << int(meta.dtype_) << " | dim order: [";
    for (size_t i = 0; i < meta.dim_order_.size(); i++) os << static_cast<int32_t>(meta.dim_order_[i]) << ", ";
    return os << "]";
  }
#endif
};

// Which tensor dtypes and dim orders a kernel is specialised for, as a string
// "v1/<dtype>;<dim>,<dim>,...|<dtype>;<dim>,..." (one entry per tensor argument; dtype as its ScalarType number).
// A default-constructed key (null data) is the fallback key: the kernel serves any argument types. The key does not
// own its string.
struct KernelKey {
 public:
  constexpr KernelKey() = default;
  // Implicit, as upstream's: a kernel key string converts to a key.
  constexpr KernelKey(const char* kernel_key_data) : kernel_key_data_(kernel_key_data) {}

  bool operator==(const KernelKey& other) const { return equals(other); }
  bool operator!=(const KernelKey& other) const { return !equals(other); }
  bool equals(const KernelKey& other) const {
    if (is_fallback() != other.is_fallback()) return false;
    return is_fallback() || std::strcmp(kernel_key_data_, other.kernel_key_data_) == 0;
  }
  bool is_fallback() const { return kernel_key_data_ == nullptr; }
  const char* data() const { return kernel_key_data_; }

#if defined(ET_OP_REGISTRY_DEBUG)
  friend std::ostream& operator<<(std::ostream& os, const KernelKey& key) {
    return os << (key.kernel_key_data_ != nullptr ? key.kernel_key_data_ : "(fallback)") << std::endl;
  }
#endif

 private:
  const char* kernel_key_data_ = nullptr;
};

// An operator implementation: its qualified name with overload, its key (fallback by default) and the function.
struct Kernel {
  const char* name_;
  KernelKey kernel_key_;
  OpFunction op_;

  constexpr explicit Kernel(const char* name, OpFunction func) : name_(name), op_(func) {}
  constexpr explicit Kernel(const char* name, KernelKey key, OpFunction func)
      : name_(name), kernel_key_(key), op_(func) {}
  constexpr Kernel() : name_(nullptr), op_(nullptr) {}
};

namespace internal {
// Room for the longest key string make_kernel_key_string writes, terminator included.
constexpr size_t kKernelKeyBufSize = 659;
// Writes the kernel key string of `key` into buf (an empty string for an empty list). InvalidArgument when it does
// not fit in buf_size bytes or a dtype or dim-order entry is outside [0, 99].
EXECUTORCH_API Error make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size);
}  // namespace internal

// Whether a kernel for `name` is registered that serves arguments described by meta_list (the one whose key
// matches, or the fallback).
EXECUTORCH_API bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list = {});

// The kernel for `name` and meta_list: the one whose key matches exactly, else the fallback; OperatorMissing when
// there is neither, InvalidArgument when name is null or meta_list has no valid key string.
EXECUTORCH_API ::executorch::runtime::Result<OpFunction> get_op_function_from_registry(
    const char* name, Span<const TensorMeta> meta_list = {});

// The same lookup in kernel_list instead of the registry.
EXECUTORCH_API ::executorch::runtime::Result<OpFunction> get_op_function_from_registry(const char* name,
                                                                                       Span<const TensorMeta> meta_list,
                                                                                       Span<const Kernel> kernel_list);

// Every registered kernel, in registration order. The span stays valid for the life of the process; kernels
// registered later are not in it (call again). The registry keeps its own copies of names and key strings.
EXECUTORCH_API Span<const Kernel> get_registered_kernels();

// Registers kernels. The batch is all-or-nothing: RegistrationAlreadyRegistered when a kernel with the same name
// and key is already registered (or appears twice in the batch), RegistrationExceedingMaxKernels past
// kMaxRegisteredKernels, InvalidArgument for a kernel without name or function; nothing is added then. Unlike
// upstream, a failed registration never aborts the process.
ET_NODISCARD EXECUTORCH_API Error register_kernels(const Span<const Kernel>);

ET_NODISCARD inline Error register_kernel(const Kernel& kernel) { return register_kernels({&kernel, 1}); }

// Extras of this runtime.
// Maximum number of kernels the registry holds.
constexpr size_t kMaxRegisteredKernels = 8192;
// Number of registered kernels, and the distinct operator names among them (sorted).
EXECUTORCH_API size_t get_num_registered_kernels();
EXECUTORCH_API std::vector<std::string> get_registered_kernel_names();

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Kernel;
using ::executorch::ET_RUNTIME_NAMESPACE::KernelKey;
using ::executorch::ET_RUNTIME_NAMESPACE::KernelRuntimeContext;
using ::executorch::ET_RUNTIME_NAMESPACE::OpFunction;
using ::executorch::ET_RUNTIME_NAMESPACE::TensorMeta;

inline ::executorch::runtime::Error register_kernels(::executorch::runtime::ArrayRef<Kernel> kernels) {
  return ::executorch::ET_RUNTIME_NAMESPACE::register_kernels({kernels.data(), kernels.size()});
}
// The kernel for `name`; aborts when there is none (as upstream's).
inline OpFunction getOpsFn(const char* name, ::executorch::runtime::ArrayRef<TensorMeta> meta_list = {}) {
  auto result =
      ::executorch::ET_RUNTIME_NAMESPACE::get_op_function_from_registry(name, {meta_list.data(), meta_list.size()});
  ET_CHECK(result.ok());
  return *result;
}
inline bool hasOpsFn(const char* name, ::executorch::runtime::ArrayRef<TensorMeta> meta_list = {}) {
  return ::executorch::ET_RUNTIME_NAMESPACE::registry_has_op_function(name, {meta_list.data(), meta_list.size()});
}
inline ::executorch::runtime::ArrayRef<Kernel> get_kernels() {
  ::executorch::runtime::Span<const Kernel> kernels = ::executorch::ET_RUNTIME_NAMESPACE::get_registered_kernels();
  return ::executorch::runtime::ArrayRef<Kernel>(kernels.data(), kernels.size());
}
}  // namespace executor
}  // namespace torch
