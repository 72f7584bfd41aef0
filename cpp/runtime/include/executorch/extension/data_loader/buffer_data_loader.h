#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

// Serves ranges of a caller-owned buffer, which must outlive the loader and everything loaded from it. Loads are
// views into the buffer; a range whose start is not 16-byte aligned is copied into aligned memory instead (an
// extra of this runtime: loaded data is always aligned).
class EXECUTORCH_API BufferDataLoader final : public executorch::runtime::DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  // InvalidArgument when [offset, offset + size) is not inside the buffer.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const DataLoader::SegmentInfo& segment_info) const override;

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override { return size_; }

  // InvalidArgument when buffer is null or the range is not inside the buffer.
  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                                    void* buffer) const override;

 private:
  const uint8_t* const data_;
  const size_t size_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
