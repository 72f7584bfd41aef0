#include <executorch/extension/memory_allocator/planned_memory.h>

#include <cstdlib>

#include "internal.h"

namespace executorch {
namespace extension {

using executorch::runtime::Error;
using executorch::runtime::set_last_error;

PlannedMemory::~PlannedMemory() = default;

executorch::runtime::Result<std::unique_ptr<PlannedMemory>> PlannedMemory::create(
    const executorch::runtime::MethodMeta& meta, size_t temp_bytes) {
  std::unique_ptr<PlannedMemory> m(new PlannedMemory());
  auto alloc = [&](size_t size) -> uint8_t* {
    uint8_t* p = static_cast<uint8_t*>(std::calloc(size == 0 ? 1 : size, 1));
    if (p != nullptr) m->buffers_.emplace_back(p, std::free);
    return p;
  };
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    const size_t size = static_cast<size_t>(*meta.memory_planned_buffer_size(i));
    uint8_t* p = alloc(size);
    if (p == nullptr) {
      return set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes of planned memory for method %s",
                            size, meta.name());
    }
    m->spans_.emplace_back(p, size);
  }
  if (temp_bytes > UINT32_MAX) temp_bytes = UINT32_MAX;
  uint8_t* temp = alloc(temp_bytes);
  if (temp == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate temporary memory");
  m->planned_ = std::make_unique<executorch::runtime::HierarchicalAllocator>(
      executorch::runtime::Span<executorch::runtime::Span<uint8_t>>(m->spans_.data(), m->spans_.size()));
  m->temp_allocator_ = std::make_unique<executorch::runtime::MemoryAllocator>(static_cast<uint32_t>(temp_bytes), temp);
  m->manager_ =
      std::make_unique<executorch::runtime::MemoryManager>(nullptr, m->planned_.get(), m->temp_allocator_.get());
  return m;
}

}  // namespace extension
}  // namespace executorch
