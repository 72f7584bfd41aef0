#pragma once
// Small helpers of the ETDump writer and its data sinks.
#include <cstddef>
#include <cstdint>

namespace executorch {
namespace etdump {
namespace internal {

// `ptr` rounded up to a multiple of `alignment` (a power of two).
inline uint8_t* align_pointer(void* ptr, size_t alignment) {
  intptr_t addr = reinterpret_cast<intptr_t>(ptr);
  if ((addr & (alignment - 1)) == 0) return reinterpret_cast<uint8_t*>(ptr);
  addr = (addr | static_cast<intptr_t>(alignment - 1)) + 1;
  return reinterpret_cast<uint8_t*>(addr);
}

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
