#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {
namespace utils {

// How many bytes to ask malloc for so that `size` bytes aligned to `alignment` fit in the block: `size` itself when
// malloc's own alignment is enough, else `size + alignment - 1`. InvalidArgument when that overflows.
inline runtime::Result<size_t> get_aligned_size(size_t size, size_t alignment) {
  static constexpr size_t kMallocAlignment = alignof(std::max_align_t);
  if (alignment > kMallocAlignment) {
    const size_t extra = alignment - 1;
    if ET_UNLIKELY (extra >= SIZE_MAX - size) {
      ET_LOG(Error, "Malloc size overflow: size=%zu + extra=%zu", size, extra);
      return runtime::Result<size_t>(runtime::Error::InvalidArgument);
    }
    size += extra;
  }
  return size;
}

}  // namespace utils
}  // namespace extension
}  // namespace executorch
