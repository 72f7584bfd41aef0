#pragma once
#include <cstddef>
#include <string>

#include <executorch/runtime/core/data_loader.h>

namespace executorch {
namespace extension {

// Reads ranges of a file with pread into freshly allocated, aligned buffers.
class EXECUTORCH_API FileDataLoader final : public executorch::runtime::DataLoader {
 public:
  static executorch::runtime::Result<FileDataLoader> from(const char* file_path, size_t alignment = 16);
  FileDataLoader(FileDataLoader&& o) noexcept;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  ~FileDataLoader() override;
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(size_t offset, size_t size,
                                                                        const SegmentInfo& segment_info) const override;
  executorch::runtime::Result<size_t> size() const override;

 private:
  FileDataLoader(int fd, size_t file_size, size_t alignment, std::string path)
      : fd_(fd), file_size_(file_size), alignment_(alignment), path_(std::move(path)) {}
  int fd_;
  size_t file_size_;
  size_t alignment_;
  std::string path_;
};

}  // namespace extension
}  // namespace executorch
