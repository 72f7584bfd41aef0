#pragma once
// Component libraries (kernels, delegates) that libexecutorch loads on demand.
//
// An application that links only libexecutorch still runs programs whose operators or delegates live in other
// component libraries: when an operator or backend is missing, the runtime looks in its component directory (the
// directory holding libexecutorch itself, found with dladdr) for libexecutorch_<name>.so.<SOVERSION> files, loads
// the one whose descriptor (platform/component.h) declares the operator's namespace or the backend, checks its
// API version and registers it, once. The runtime's own catalog of this SDK's components (generated from
// components.toml at build time) only orders that search and names the package to install when a file is absent.
//
//   EXECUTORCH_COMPONENT_DIR=<dir>   look in <dir> instead of libexecutorch's own directory
//   EXECUTORCH_AUTOLOAD=0            never load components on demand (link or load them yourself)
#include <string>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

// A component library: its short name, file name and the package that ships it (for an installed component, as
// its descriptor says; for an absent one, as the SDK's catalog says).
struct ComponentInfo {
  const char* name;     // "kernels"
  const char* library;  // "libexecutorch_kernels.so.0.1"
  const char* package;  // "executorch-kernels"
};

// The component providing `op_name`'s namespace ("aten" for aten::add.out), or null when no installed component
// declares it and the SDK's catalog names none. May load component libraries to read their descriptors (it does
// not register them: load_component does).
EXECUTORCH_API const ComponentInfo* component_for_operator(const char* op_name);
// The component providing backend `backend_id` (e.g. "XnnpackBackend"), or null.
EXECUTORCH_API const ComponentInfo* component_for_backend(const char* backend_id);

// Loads and registers a component by short name ("kernels", "xnnpack") from the component directory. Loading
// an already registered component is a no-op returning Ok. NotFound when the file is not there, AccessFailed
// when dlopen fails or the component is refused (another API version; last_error_message() has the reason),
// NotSupported when autoloading is turned off, InvalidArgument for a name no file and no catalog entry has.
EXECUTORCH_API Error load_component(const char* name);

// True once component `name` is registered in this process.
EXECUTORCH_API bool component_loaded(const char* name);

// The short names of the component libraries in the component directory (libexecutorch_<name>.so.<SOVERSION>,
// sorted), loaded or not: what load_component could load here.
EXECUTORCH_API std::vector<std::string> installed_components();

// Loads an arbitrary shared library (a custom-kernel or backend library) into the process; its static
// initializers register into this runtime's registries.
EXECUTORCH_API Error load_library(const char* path);

// The directory searched for components (without trailing slash).
EXECUTORCH_API std::string component_dir();

}  // namespace runtime
}  // namespace executorch
