#pragma once
#include <cstddef>

#include <executorch/runtime/core/data_loader.h>

namespace executorch {
namespace extension {

// Serves ranges of a caller-owned buffer (which must outlive the loader and everything loaded from it). The
// buffer should be 16-byte aligned; misaligned ranges are copied into aligned memory.
class EXECUTORCH_API BufferDataLoader final : public executorch::runtime::DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(static_cast<const uint8_t*>(data)), size_(size) {}
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(size_t offset, size_t size,
                                                                        const SegmentInfo& segment_info) const override;
  executorch::runtime::Result<size_t> size() const override { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace extension
}  // namespace executorch
