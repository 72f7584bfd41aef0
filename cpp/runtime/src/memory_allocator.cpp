#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>

#include <cstdint>

#include "internal.h"

namespace executorch {
namespace runtime {

DataLoader::~DataLoader() = default;
NamedDataMap::~NamedDataMap() = default;
BackendInterface::~BackendInterface() = default;
void BackendInterface::destroy(DelegateHandle*) const {}
Error BackendInterface::validate(BackendInitContext&, FreeableBuffer*, ArrayRef<CompileSpec>) const {
  return Error::Ok;
}
MemoryAllocator::~MemoryAllocator() = default;

void* MemoryAllocator::allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  const uintptr_t cur = reinterpret_cast<uintptr_t>(cur_);
  const uintptr_t aligned = (cur + alignment - 1) & ~(uintptr_t(alignment) - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(end_);
  if (aligned < cur || aligned > end || size > end - aligned) return nullptr;
  cur_ = reinterpret_cast<uint8_t*>(aligned + size);
  return reinterpret_cast<void*>(aligned);
}

uint8_t* HierarchicalAllocator::get_offset_address(uint32_t memory_id, size_t offset, size_t size) const {
  if (memory_id >= buffers_.size()) return nullptr;
  const Span<uint8_t>& b = buffers_[memory_id];
  if (!internal::range_ok(offset, size, b.size())) return nullptr;
  return b.data() + offset;
}

}  // namespace runtime
}  // namespace executorch
