#pragma once
#include <cstddef>
#include <new>
#include <string>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

// Reads ranges of a file with pread() into freshly allocated buffers aligned to the loader's alignment; safe to use
// from several threads at once.
class EXECUTORCH_API FileDataLoader final : public executorch::runtime::DataLoader {
 public:
  // Opens file_name for reading. InvalidArgument when alignment is not a power of 2 or file_name is null,
  // AccessFailed when the file cannot be opened or is not a regular file.
  static executorch::runtime::Result<FileDataLoader> from(const char* file_name,
                                                          size_t alignment = alignof(std::max_align_t));

  ET_DEPRECATED static executorch::runtime::Result<FileDataLoader> From(const char* file_name,
                                                                        size_t alignment = alignof(std::max_align_t)) {
    return from(file_name, alignment);
  }

  // The moved-from loader is left without a file: its loads fail with InvalidState.
  FileDataLoader(FileDataLoader&& rhs) noexcept;
  ~FileDataLoader() override;

  // InvalidArgument when [offset, offset + size) is not inside the file, MemoryAllocationFailed, AccessFailed when
  // reading fails. A zero-size load gives an empty buffer.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const DataLoader::SegmentInfo& segment_info) const override;

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override;

  // Reads straight into buffer (no allocation). InvalidArgument also when buffer is null.
  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                                    void* buffer) const override;

 private:
  FileDataLoader(int fd, size_t file_size, size_t alignment, std::string file_name)
      : file_name_(std::move(file_name)), file_size_(file_size), alignment_(alignment), fd_(fd) {}
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  FileDataLoader& operator=(FileDataLoader&&) = delete;

  std::string file_name_;
  size_t file_size_;
  size_t alignment_;
  int fd_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::FileDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
