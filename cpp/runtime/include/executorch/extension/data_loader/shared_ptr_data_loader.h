#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

// Serves ranges of a buffer it co-owns through a shared_ptr: the data lives at least as long as the loader (and
// as long as any other owner keeps it). Loads are views into it, valid while the loader lives.
class SharedPtrDataLoader final : public executorch::runtime::DataLoader {
 public:
  SharedPtrDataLoader(std::shared_ptr<void> data, size_t size) : data_(std::move(data)), size_(size) {}

  // InvalidArgument when [offset, offset + size) is not inside the data.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, ET_UNUSED const DataLoader::SegmentInfo& segment_info) const override {
    size_t end = 0;
    if (__builtin_add_overflow(offset, size, &end) || end > size_) {
      ET_LOG(Error, "offset %zu + size %zu > size_ %zu, or overflow detected", offset, size, size_);
      return executorch::runtime::Error::InvalidArgument;
    }
    return executorch::runtime::FreeableBuffer(static_cast<const uint8_t*>(data_.get()) + offset, size, nullptr);
  }

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override { return size_; }

 private:
  const std::shared_ptr<void> data_;
  const size_t size_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::SharedPtrDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
