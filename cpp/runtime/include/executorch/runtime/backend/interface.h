#pragma once
#include <cstddef>
#include <string>
#include <vector>

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
namespace runtime {

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

// What a backend gets while a method initialises a delegate.
class BackendInitContext {
 public:
  BackendInitContext(MemoryAllocator* runtime_allocator, const char* method_name, const NamedDataMap* named_data_map)
      : runtime_allocator_(runtime_allocator), method_name_(method_name), named_data_map_(named_data_map) {}
  // May be null: this runtime keeps method metadata on the heap.
  MemoryAllocator* get_runtime_allocator() { return runtime_allocator_; }
  const char* get_method_name() const { return method_name_; }
  // The program's named data (may be null when the program has none).
  const NamedDataMap* get_named_data_map() const { return named_data_map_; }

 private:
  MemoryAllocator* runtime_allocator_;
  const char* method_name_;
  const NamedDataMap* named_data_map_;
};

class BackendExecutionContext {
 public:
  explicit BackendExecutionContext(const char* method_name = nullptr) : method_name_(method_name) {}
  const char* get_method_name() const { return method_name_; }

 private:
  const char* method_name_;
};

// A delegate backend. The processed blob passed to init() may be freed by the backend once it no longer needs it.
class EXECUTORCH_API BackendInterface {
 public:
  virtual ~BackendInterface();
  virtual bool is_available() const = 0;
  virtual Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                                       ArrayRef<CompileSpec> compile_specs) const = 0;
  // args: the DelegateCall's arguments, delegate inputs first, then outputs.
  virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle, Span<EValue*> args) const = 0;
  virtual void destroy(DelegateHandle* handle) const;
  // Called only when is_available() is false, before the method fails: checks, without touching any device,
  // whether the payload is one this backend could run at all, so that a program made for another runtime (or a
  // damaged payload) is named as such even on machines where the backend is unavailable. The default accepts.
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
EXECUTORCH_API Error register_backend(const Backend& backend);
// The backend registered under `name`, or null.
EXECUTORCH_API BackendInterface* get_backend_class(const char* name);
EXECUTORCH_API size_t get_num_registered_backends();
EXECUTORCH_API Result<const char*> get_backend_name(size_t index);

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendInterface;
using ::executorch::runtime::register_backend;
}  // namespace executor
}  // namespace torch
