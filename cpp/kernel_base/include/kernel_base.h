#pragma once
// The kernel-authoring base of every kernel library (libexecutorch_kernels, libexecutorch_kernels_quantized, the
// LLM kernels of libexecutorch_llm, and CPU fallback kernels of a delegate): the one way to
//   - define an operator: ET_KERNEL_OP(name, function, schema) next to the function registers it, records its schema
//     and wraps it (exceptions become errors, the library's call policy runs it);
//   - read its arguments: arg_*(ctx, args, i, ...) by schema index; a failure names the argument by index and by its
//     name in the schema ("argument 1 (other) is a float, expected a Tensor"), and the caller (Method::execute, the
//     op harness) names the operator;
//   - fail: fail(ctx, error, fmt, ...) or upstream's ET_KERNEL_CHECK_MSG; the first failure of a call wins, and the
//     kernel returns (it never throws or aborts);
//   - register the library: ET_KERNEL_LIBRARY(...) defines its component descriptor over every ET_KERNEL_OP.
// Compiled into each library (an OBJECT library, nothing exported). docs/architecture.md, "Kernel libraries".
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/component.h>
#include <executorch/runtime/version.h>

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

// The largest rank a kernel takes.
constexpr int kMaxDim = 16;
// The largest size of one dim (and of a computed extent) a kernel takes.
constexpr int64_t kMaxSize = std::numeric_limits<int32_t>::max();
// Elements of work below which a loop stays on the calling thread.
constexpr int64_t kParallelGrain = 32768;

// ---------------------------------------------------------------------------------------------------------
// Failing. The first failure of a call wins. Give the reason; name an argument by its schema index and name
// ("argument 1 (scale) is 0, ..."). Method::execute prefixes the method, operator and instruction.
void fail(KernelRuntimeContext& ctx, Error e, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
inline bool failed(const KernelRuntimeContext& ctx) { return ctx.failure_state() != Error::Ok; }
const char* dtype_name(ScalarType t);
// "[2, 3, 4]", for messages.
std::string shape_string(const Tensor& t);
std::string shape_string(const int64_t* d, int n);
// What an argument holds, for messages: "a Tensor", "an int list", "None", ...
const char* value_kind(const EValue* v);
// Sizes, strides and dtype consistent, within a storage that exists when non-empty.
bool valid_tensor(const Tensor& t);
// Row-major contiguous (size-1 dims ignored).
bool is_contiguous(const Tensor& t);

// ---------------------------------------------------------------------------------------------------------
// Operators. ET_KERNEL_OP("aten::add.out", add_out, "(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// -> Tensor(a!)") declares `void add_out(KernelRuntimeContext&, Args)` in the enclosing namespace and registers it
// under that name when the library's descriptor is asked to (ET_KERNEL_LIBRARY), with upstream's schema (the argument
// names of messages come from it). One ET_KERNEL_OP per registered name; a function may be registered under several.
struct OpSchema {
  const char* name;    // "aten::add.out"
  const char* schema;  // upstream's argument list and returns, "(Tensor self, ...) -> Tensor(a!)"
};
struct OpDef {
  const OpSchema* op;
  rt::OpFunction entry;  // the wrapped kernel that is registered
};

// What the running kernel call is: its operator (for argument names), and whether Half / BFloat16 arguments run as
// float32 copies (a library's call policy sets it; arg_opt_dtype then reads Half / BFloat16 as Float). Per thread.
struct CallState {
  const OpSchema* op = nullptr;
  bool reduced_as_float = false;
};
CallState& call_state();

// The name of argument i of the running operator's schema ("" when unknown), into buf.
const char* arg_name(size_t i, char (&buf)[64]);

// The call policy of a library that runs every kernel as it is (a library names its policy `KernelPolicy` in its
// namespace; libexecutorch_kernels' runs Half / BFloat16 calls on float32 copies).
struct DirectCall {
  static void run(KernelRuntimeContext& ctx, Args args, rt::OpFunction f) { f(ctx, args); }
};

// The registered function of an operator: sets the call state, runs F through the library's policy, and turns an
// exception (e.g. std::bad_alloc of a scratch buffer) into a failure; nothing escapes into the runtime.
template <void (*F)(KernelRuntimeContext&, Args), const OpSchema* S, typename Policy>
void run_op(KernelRuntimeContext& ctx, Args args) {
  CallState& state = call_state();
  const CallState saved = state;
  state = CallState{S, false};
  try {
    Policy::run(ctx, args, F);
  } catch (const std::bad_alloc&) {
    fail(ctx, Error::MemoryAllocationFailed, "out of memory for the kernel's scratch buffers");
  } catch (...) {
    fail(ctx, Error::Internal, "the kernel threw an exception (a bug: please report it)");
  }
  state = saved;
}

#define ETKB_CAT2_(a, b) a##b
#define ETKB_CAT_(a, b) ETKB_CAT2_(a, b)
#define ETKB_KERNEL_OP_(NAME, FN, SCHEMA, ID)                                                               \
  void FN(::etkb::KernelRuntimeContext& ctx, ::etkb::Args args);                                            \
  namespace {                                                                                               \
  constexpr ::etkb::OpSchema ETKB_CAT_(ID, _schema){NAME, SCHEMA};                                          \
  constexpr ::etkb::OpDef ETKB_CAT_(ID, _def){&ETKB_CAT_(ID, _schema),                                      \
                                              &::etkb::run_op<&FN, &ETKB_CAT_(ID, _schema), KernelPolicy>}; \
  __attribute__((used, section("et_kernel_ops"))) const ::etkb::OpDef* const ID = &ETKB_CAT_(ID, _def);     \
  }
#define ET_KERNEL_OP(NAME, FN, SCHEMA) ETKB_KERNEL_OP_(NAME, FN, SCHEMA, ETKB_CAT_(etkb_op_, __COUNTER__))

// Every ET_KERNEL_OP of this library, sorted by name.
std::vector<const OpDef*> library_ops();
// Registers them into the runtime's registry (what a descriptor's register_all() does), logging a failure.
uint32_t register_library_ops(const char* library);

// The component descriptor of a kernel library (platform/component.h): its name ("kernels"), package
// ("executorch-kernels"), the operator namespaces it declares (components.toml's operator_namespaces) and the
// library file's name for messages; register_all() registers every ET_KERNEL_OP. One per library.
#define ET_KERNEL_LIBRARY(NAME, PACKAGE, LIBRARY, ...)                           \
  namespace {                                                                    \
  uint32_t etkb_register_all() { return ::etkb::register_library_ops(LIBRARY); } \
  const char* const etkb_namespaces[] = {__VA_ARGS__, nullptr};                  \
  const char* const etkb_backends[] = {nullptr};                                 \
  const ExecutorchComponent etkb_component = {EXECUTORCH_COMPONENT_API_VERSION,  \
                                              NAME,                              \
                                              PACKAGE,                           \
                                              EXECUTORCH_VERSION,                \
                                              etkb_namespaces,                   \
                                              etkb_backends,                     \
                                              &etkb_register_all};               \
  }                                                                              \
  EXECUTORCH_COMPONENT(etkb_component)

// ---------------------------------------------------------------------------------------------------------
// Arguments, by schema index (counting from 0). Each returns false (nullptr) after failing ctx with a reason that
// names the argument. Call check_nargs(ctx, args, n) first: n is the schema's argument count, out included.
bool check_nargs(KernelRuntimeContext& ctx, Args args, size_t n);

// A Scalar argument (int, float or bool).
struct Scalar {
  enum Kind { kInt, kDouble, kBool } kind = kInt;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  double to_double() const { return kind == kDouble ? d : kind == kInt ? static_cast<double>(i) : (b ? 1.0 : 0.0); }
  bool is_floating() const { return kind == kDouble; }
  int64_t to_int() const {
    if (kind == kInt) return i;
    if (kind == kBool) return b ? 1 : 0;
    if (!(d == d)) return 0;
    if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
    if (d <= -9.2e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  }
};

// A validated tensor (dense, within its storage, with data when non-empty).
const Tensor* arg_tensor(KernelRuntimeContext& ctx, Args args, size_t i);
// Tensor or None (-> *t = nullptr).
bool arg_opt_tensor(KernelRuntimeContext& ctx, Args args, size_t i, const Tensor** t);
// An int (a bool reads as 0 / 1).
bool arg_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v);
bool arg_opt_int(KernelRuntimeContext& ctx, Args args, size_t i, int64_t* v, bool* has);
// A bool (an int reads as != 0).
bool arg_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v);
// Bool, or None (-> dflt).
bool arg_opt_bool(KernelRuntimeContext& ctx, Args args, size_t i, bool* v, bool dflt);
// A float (an int or bool converts).
bool arg_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v);
bool arg_opt_double(KernelRuntimeContext& ctx, Args args, size_t i, double* v, bool* has);
bool arg_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s);
bool arg_opt_scalar(KernelRuntimeContext& ctx, Args args, size_t i, Scalar* s, bool* has);
// A ScalarType (given as an int) this runtime knows; Half / BFloat16 read as Float while the call runs on float32
// copies (CallState::reduced_as_float).
bool arg_dtype(KernelRuntimeContext& ctx, Args args, size_t i, ScalarType* t);
bool arg_opt_dtype(KernelRuntimeContext& ctx, Args args, size_t i, ScalarType* t, bool* has);
// An int list of at most 4096 ints; None -> *has = false (an empty list).
bool arg_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v);
bool arg_opt_int_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<int64_t>* v, bool* has);
// A float list of at most 4096 floats, or None (-> *has = false).
bool arg_opt_double_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<double>* v, bool* has);
// A list of at most 65536 validated tensors.
bool arg_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<Tensor>* v);
// A list of at most kMaxDim optional tensors (None -> nullptr entries, validated tensors otherwise).
bool arg_opt_tensor_list(KernelRuntimeContext& ctx, Args args, size_t i, std::vector<const Tensor*>* v);
// A string, or None.
bool arg_opt_string(KernelRuntimeContext& ctx, Args args, size_t i, std::string_view* s, bool* has);

}  // namespace etkb
