#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace runtime {

class EventTracer;

namespace internal {
struct ProgramState;
}

// A verified .pte program. Cheap to move; methods loaded from it keep its data alive.
class EXECUTORCH_API Program final {
 public:
  // Both levels run the full check in this runtime: the flatbuffer verifier and a bounds/consistency check of
  // every index, size and offset. The enum is kept for source compatibility.
  enum class Verification : uint8_t { Minimal, InternalConsistency };
  enum class HeaderStatus { CompatibleVersion, IncompatibleVersion, NotPresent, ShortData };

  static Result<Program> load(DataLoader* loader, Verification verification = Verification::InternalConsistency);
  // Looks at the first bytes of a file: is it a .pte of the version this runtime reads?
  static HeaderStatus check_header(const void* data, size_t size);

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  size_t num_methods() const;
  Result<const char*> get_method_name(size_t index) const;
  Result<MethodMeta> method_meta(const char* method_name) const;
  // Loads a method: parses its values, places planned tensors in memory_manager's planned buffers, initialises
  // delegates and resolves kernels (loading component libraries on demand, see platform/components.h).
  Result<Method> load_method(const char* method_name, MemoryManager* memory_manager,
                             EventTracer* event_tracer = nullptr, const NamedDataMap* named_data_map = nullptr) const;
  // The program's own named data (null when it has none).
  const NamedDataMap* get_named_data_map() const;

 private:
  explicit Program(std::shared_ptr<internal::ProgramState> state);
  std::shared_ptr<internal::ProgramState> state_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Method;
using ::executorch::runtime::Program;
}  // namespace executor
}  // namespace torch
