#pragma once
// What a component library (kernels, a delegate) says about itself, and how the runtime finds it.
//
// Every component library exports one C function, `executorch_component`, returning a static descriptor. The
// runtime looks in its component directory (components.h) for files named libexecutorch_<name>.so.<SOVERSION>,
// loads one when a program needs an operator namespace or backend that nobody has registered yet, reads the
// descriptor, checks `api_version`, and only then calls `register_all()`. A library built for another API
// version is refused with both versions and its package named; it never touches the registries.
//
// The first four fields keep their place in every API version, so that any runtime can name a mismatched
// component. Define a descriptor with EXECUTORCH_COMPONENT(...) in exactly one source file of the component.
#include <stdint.h>

#include <executorch/runtime/export.h>

// Bumped when the descriptor or the registries' ABI change incompatibly.
#define EXECUTORCH_COMPONENT_API_VERSION 1u
#define EXECUTORCH_COMPONENT_ENTRY_POINT "executorch_component"

extern "C" {

struct ExecutorchComponent {
  uint32_t api_version;  // EXECUTORCH_COMPONENT_API_VERSION the component was built with
  const char* name;      // short name: "kernels", "xnnpack"
  const char* package;   // the package that ships it: "executorch-kernels"
  const char* version;   // its release: "0.1.0"
  // What it provides, each list ending with a null pointer: operator namespaces ("aten" covers every aten::
  // operator) and backend ids ("XnnpackBackend").
  const char* const* operator_namespaces;
  const char* const* backends;
  // Registers its kernels / backends into this runtime; returns 0 or an executorch::runtime::Error code.
  uint32_t (*register_all)(void);
};

typedef const ExecutorchComponent* (*ExecutorchComponentEntryPoint)(void);

}  // extern "C"

// Defines the entry point returning `descriptor` (an ExecutorchComponent with static storage).
#define EXECUTORCH_COMPONENT(descriptor) \
  extern "C" EXECUTORCH_API const ExecutorchComponent* executorch_component(void) { return &(descriptor); }
