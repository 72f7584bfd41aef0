#pragma once
// The kernel-authoring base shared by the kernel components (libexecutorch_kernels_quantized, libexecutorch_llm):
// failing with a reason, arguments by schema index and name, tensor validation, and the exception-guarded kernel
// table a component descriptor registers. Compiled into each component (an OBJECT library, nothing exported).
#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/log.h>

namespace etkb {

namespace rt = ::executorch::runtime;
using rt::Error;
using rt::EValue;
using rt::KernelRuntimeContext;
using rt::Span;
using Tensor = ::executorch::aten::Tensor;
using ScalarType = ::executorch::aten::ScalarType;
using SizesType = ::executorch::aten::SizesType;
using Args = Span<EValue*>;

constexpr int kMaxDim = 16;
// Elements of work below which a loop stays on the calling thread.
constexpr int64_t kGrain = 32768;

// ---------------------------------------------------------------------------------------------------------
// Failing. The first failure of a call wins. Reasons name the argument by its schema index and name
// ("argument 1 (scale) is 0, ..."); Method::execute prefixes the method and the operator.
void fail(KernelRuntimeContext& ctx, Error e, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
inline bool failed(const KernelRuntimeContext& ctx) { return ctx.failure_state() != Error::Ok; }
const char* dtype_name(ScalarType t);
std::string shape_string(const Tensor& t);
// What an argument holds, for messages: "a Tensor", "an int list", "None", ...
const char* value_kind(const EValue* v);
// Sizes, strides and dtype consistent, within a storage that exists when non-empty.
bool valid_tensor(const Tensor& t);

// ---------------------------------------------------------------------------------------------------------
// Arguments, by schema index (counting from 0) and name. Each returns false after failing ctx.
bool check_nargs(KernelRuntimeContext& ctx, Args args, size_t n);
// A validated tensor (dense, within its storage, with data when non-empty); nullptr after failing ctx.
const Tensor* arg_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const char* name);
// None -> *t = nullptr.
bool arg_opt_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, const Tensor** t);
bool arg_int(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, int64_t* v);
bool arg_double(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, double* v);
// A ScalarType (given as an int); any valid dtype.
bool arg_dtype(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, ScalarType* t);
bool arg_opt_dtype(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, ScalarType* t, bool* has);
bool arg_bool(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, bool* v);
// A float, or None (-> *has = false).
bool arg_opt_double(KernelRuntimeContext& ctx, Args args, size_t i, const char* name, double* v, bool* has);
// Row-major contiguous (size-1 dims ignored).
bool is_contiguous(const Tensor& t);

// ---------------------------------------------------------------------------------------------------------
// Registration. Kernels never let an exception (e.g. std::bad_alloc from a scratch buffer) escape into the runtime.
template <void (*F)(KernelRuntimeContext&, Args)>
void guarded(KernelRuntimeContext& ctx, Args args) {
  try {
    F(ctx, args);
  } catch (const std::bad_alloc&) {
    fail(ctx, Error::MemoryAllocationFailed, "out of memory for the kernel's scratch buffers");
  } catch (...) {
    fail(ctx, Error::Internal, "the kernel threw an exception (a bug: please report it)");
  }
}

// Registers a component's kernel table (what its descriptor's register_all() returns), logging a failure.
uint32_t register_table(const char* library, Span<const rt::Kernel> kernels);

}  // namespace etkb
