#pragma once
// Component libraries (kernels, delegates) that libexecutorch loads on demand.
//
// An application that links only libexecutorch still runs programs whose operators or delegates live in other
// component libraries: when an operator or backend is missing, the runtime loads the component that provides
// it from the directory holding libexecutorch itself (found with dladdr), once, and looks again.
//
//   EXECUTORCH_COMPONENT_DIR=<dir>   look in <dir> instead of libexecutorch's own directory
//   EXECUTORCH_AUTOLOAD=0            never load components on demand (link or load them yourself)
//
// Component file names carry the SONAME version, e.g. libexecutorch_kernels.so.0.1.
#include <string>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// A component library: its short name, file name and the package that ships it.
struct ComponentInfo {
  const char* name;          // "kernels"
  const char* library;       // "libexecutorch_kernels.so.0.1"
  const char* package;       // "executorch-kernels"
};

// The component providing `op_name` (all aten::, dim_order_ops:: and quantized_decomposed:: operators come from
// "kernels"), or null when no component of this SDK provides it.
EXECUTORCH_API const ComponentInfo* component_for_operator(const char* op_name);
// The component providing backend `backend_id` (e.g. "XnnpackBackend"), or null.
EXECUTORCH_API const ComponentInfo* component_for_backend(const char* backend_id);

// Loads a component by short name ("kernels", "xnnpack", "cuda") from the component directory. Loading an
// already loaded component is a no-op returning Ok. NotFound when the file is not there, AccessFailed when
// dlopen fails (last_error_message() has the reason), NotSupported when autoloading is turned off.
EXECUTORCH_API Error load_component(const char* name);

// Loads an arbitrary shared library (a custom-kernel or backend library) into the process; its static
// initializers register into this runtime's registries.
EXECUTORCH_API Error load_library(const char* path);

// The directory searched for components (without trailing slash).
EXECUTORCH_API std::string component_dir();

}  // namespace runtime
}  // namespace executorch
