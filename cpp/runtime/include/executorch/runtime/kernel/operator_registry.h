#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// Kernel ABI: arguments in schema order plus one trailing return slot (for .out ops the same value as `out`).
using OpFunction = void (*)(KernelRuntimeContext&, Span<EValue*>);

// An operator implementation, registered under its qualified name with overload, e.g. "aten::add.out".
struct Kernel {
  const char* name_;
  OpFunction op_;
  constexpr Kernel(const char* name, OpFunction func) : name_(name), op_(func) {}
};

// Maximum number of kernels the registry holds; registering more fails with RegistrationExceedingMaxKernels.
constexpr size_t kMaxRegisteredKernels = 8192;

// Registers kernels into the process-wide registry (which lives in libexecutorch only). A name that is already
// registered fails with RegistrationAlreadyRegistered (the batch is rejected as a whole and nothing is added);
// the process never aborts.
EXECUTORCH_API Error register_kernels(Span<const Kernel> kernels);
EXECUTORCH_API Error register_kernel(const Kernel& kernel);

// True when `name` is registered.
EXECUTORCH_API bool registry_has_op_function(const char* name);
// The kernel registered under `name`, or OperatorMissing.
EXECUTORCH_API Result<OpFunction> get_op_function_from_registry(const char* name);
// Number of registered kernels and their names (a snapshot, sorted).
EXECUTORCH_API size_t get_num_registered_kernels();
EXECUTORCH_API std::vector<std::string> get_registered_kernel_names();

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Kernel;
using ::executorch::runtime::register_kernels;
}  // namespace executor
}  // namespace torch
