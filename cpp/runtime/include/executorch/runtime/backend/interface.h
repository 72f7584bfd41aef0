#pragma once
#include <cstddef>

#include <executorch/runtime/backend/backend_execution_context.h>
#include <executorch/runtime/backend/backend_init_context.h>
#include <executorch/runtime/backend/backend_option_context.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

struct SizedBuffer {
  void* buffer;
  size_t nbytes;
};

// One compile spec of a delegate: key and raw bytes, both pointing into the program.
struct CompileSpec {
  const char* key;
  SizedBuffer value;
};

using DelegateHandle = void;

// A delegate backend, registered under its id (e.g. "XnnpackBackend") with register_backend.
class EXECUTORCH_API BackendInterface {
 public:
  virtual ~BackendInterface() = 0;
  ET_NODISCARD virtual bool is_available() const = 0;
  // `processed` is the delegate's payload; the backend may Free() it once it no longer needs it.
  ET_NODISCARD virtual Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                                                    ArrayRef<CompileSpec> compile_specs) const = 0;
  // args: the DelegateCall's arguments, delegate inputs first, then outputs.
  ET_NODISCARD virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                                     Span<EValue*> args) const = 0;
  ET_NODISCARD virtual Error set_option(ET_UNUSED BackendOptionContext& context,
                                        const Span<BackendOption>& backend_options) {
    (void)backend_options;
    return Error::Ok;
  }
  ET_NODISCARD virtual Error get_option(ET_UNUSED BackendOptionContext& context, Span<BackendOption>& backend_options) {
    (void)backend_options;
    return Error::Ok;
  }
  virtual void destroy(ET_UNUSED DelegateHandle* handle) const {}
  // An extension of this SDK. Called only when is_available() is false, before the method fails: checks, without
  // touching any device, whether the payload is one this backend could run at all, so that a program made for
  // another runtime (or a damaged payload) is named as such even on machines where the backend is unavailable.
  // The default accepts.
  virtual Error validate(BackendInitContext& context, FreeableBuffer* processed,
                         ArrayRef<CompileSpec> compile_specs) const;
};

struct Backend {
  const char* name;
  BackendInterface* backend;
};

// Maximum number of backends; registering more fails with OutOfResources.
constexpr size_t kMaxRegisteredBackends = 64;

// Registers a backend into the process-wide registry (which lives in libexecutorch only). A name that is already
// registered fails with RegistrationAlreadyRegistered and keeps the first one.
ET_NODISCARD EXECUTORCH_API Error register_backend(const Backend& backend);
// The backend registered under `name`, or null.
EXECUTORCH_API BackendInterface* get_backend_class(const char* name);
EXECUTORCH_API size_t get_num_registered_backends();
EXECUTORCH_API Result<const char*> get_backend_name(size_t index);

// Sets / reads options of a registered backend (BackendInterface::set_option / get_option). NotFound when no
// backend `backend_name` is registered.
EXECUTORCH_API Error set_option(const char* backend_name, const Span<BackendOption> backend_options);
EXECUTORCH_API Error get_option(const char* backend_name, Span<BackendOption> backend_options);

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Backend;
using ::executorch::ET_RUNTIME_NAMESPACE::BackendInterface;
using ::executorch::ET_RUNTIME_NAMESPACE::CompileSpec;
using ::executorch::ET_RUNTIME_NAMESPACE::DelegateHandle;
using ::executorch::ET_RUNTIME_NAMESPACE::get_backend_class;
using ::executorch::ET_RUNTIME_NAMESPACE::register_backend;
using ::executorch::ET_RUNTIME_NAMESPACE::SizedBuffer;
using PyTorchBackendInterface = ::executorch::ET_RUNTIME_NAMESPACE::BackendInterface;
}  // namespace executor
}  // namespace torch
