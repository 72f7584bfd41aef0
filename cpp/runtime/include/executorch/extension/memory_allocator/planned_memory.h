#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

// Owns what a loaded method needs in memory: one zero-filled buffer per planned arena (calloc'ed, so pages the
// method never touches cost nothing) and a temporary allocator for kernels, wired into a MemoryManager.
class EXECUTORCH_API PlannedMemory {
 public:
  static constexpr size_t kDefaultTempBytes = size_t(16) << 20;

  // MemoryAllocationFailed when an arena cannot be allocated.
  static executorch::runtime::Result<std::unique_ptr<PlannedMemory>> create(const executorch::runtime::MethodMeta& meta,
                                                                            size_t temp_bytes = kDefaultTempBytes);

  PlannedMemory(const PlannedMemory&) = delete;
  PlannedMemory& operator=(const PlannedMemory&) = delete;
  ~PlannedMemory();

  executorch::runtime::MemoryManager* memory_manager() { return manager_.get(); }

 private:
  PlannedMemory() = default;
  using Buffer = std::unique_ptr<uint8_t, void (*)(void*)>;
  std::vector<Buffer> buffers_;
  std::vector<executorch::runtime::Span<uint8_t>> spans_;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_;
  std::unique_ptr<executorch::runtime::MemoryAllocator> temp_allocator_;
  std::unique_ptr<executorch::runtime::MemoryManager> manager_;
};

}  // namespace extension
}  // namespace executorch
