#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

namespace internal {
struct ProgramState;
}

// A verified .pte program. Cheap to move; methods loaded from it keep its data alive.
class EXECUTORCH_API Program final {
 public:
  // Both levels run the full check in this runtime: the flatbuffer verifier and a bounds/consistency check of
  // every index, size and offset. The enum is kept for source compatibility.
  enum class Verification : uint8_t { Minimal, InternalConsistency };

  // The newest program schema version this runtime reads.
  static constexpr uint32_t kMaxSupportedSchemaVersion = 0;

  // `loader` must outlive the program and every method loaded from it.
  ET_NODISCARD static Result<Program> load(DataLoader* loader, Verification verification = Verification::Minimal);
  ET_DEPRECATED ET_NODISCARD static Result<Program> Load(DataLoader* loader,
                                                         Verification verification = Verification::Minimal) {
    return load(loader, verification);
  }

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  // `nbytes` bytes of constant buffer `buffer_idx` (an index of the program's constant table, 0 is reserved).
  Result<const void*> get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const;
  // The program's own named data (e.g. delegate weights); NotFound when it has none.
  Result<const NamedDataMap*> get_named_data_map() const;
  size_t num_methods() const;
  Result<const char*> get_method_name(size_t method_index) const;

  // Loads a method: parses its values, places planned tensors in memory_manager's planned buffers, resolves the
  // tensors kept outside the program through `named_data_map` (a .ptd's FlatTensorDataMap, or several merged),
  // initialises delegates (they read named data from the program's own map merged with `named_data_map`, and get
  // `backend_options` for their backend) and resolves kernels, first in `kernel_registry` when given, then in the
  // process-wide registry (loading component libraries on demand, see platform/components.h).
  Result<Method> load_method(const char* method_name, MemoryManager* memory_manager,
                             EventTracer* event_tracer = nullptr, const NamedDataMap* named_data_map = nullptr,
                             const LoadBackendOptionsMap* backend_options = nullptr,
                             Span<const Kernel> kernel_registry = {}) const;
  Result<MethodMeta> method_meta(const char* method_name) const;
  ET_DEPRECATED Result<const char*> get_output_flattening_encoding(const char* method_name = "forward") const;

  enum HeaderStatus {
    CompatibleVersion,
    IncompatibleVersion,
    NotPresent,
    ShortData,
  };
  // How many bytes of the file's head check_header needs.
  static constexpr size_t kMinHeadBytes = 64;
  // Looks at the first bytes of a file: is it a .pte of the version this runtime reads?
  static HeaderStatus check_header(const void* data, size_t size);

 private:
  explicit Program(std::shared_ptr<internal::ProgramState> state);
  std::shared_ptr<internal::ProgramState> state_;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::ET_RUNTIME_NAMESPACE::Program;
}  // namespace executor
}  // namespace torch
