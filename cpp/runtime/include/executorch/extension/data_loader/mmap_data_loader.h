#pragma once
#include <cstddef>
#include <string>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

// Serves ranges of a file by mapping them read-only: each load maps the pages that cover its range (shared with
// other processes mapping the same file) and its buffer unmaps them when freed, so loaded data stays valid after
// the loader is gone. Data is at the same offset within a page as in the file.
class EXECUTORCH_API MmapDataLoader final : public executorch::runtime::DataLoader {
 public:
  // What each load does with the pages it maps.
  enum class MlockConfig {
    NoMlock,               // nothing: the OS pages them in on use
    UseMlock,              // locks them in memory; a load fails with NotSupported when that is not allowed
    UseMlockIgnoreErrors,  // locks them when allowed
    UseMadvise,            // advises the OS that they will be read soon, sequentially
  };

  // Opens file_name. AccessFailed when it cannot be opened or is not a regular file; InvalidArgument for null.
  static executorch::runtime::Result<MmapDataLoader> from(const char* file_name,
                                                          MlockConfig mlock_config = MlockConfig::UseMlock);

  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(
      const char* file_name, MlockConfig mlock_config = MlockConfig::UseMlock) {
    return from(file_name, mlock_config);
  }
  ET_DEPRECATED static executorch::runtime::Result<MmapDataLoader> From(const char* file_name, bool use_mlock) {
    return from(file_name, use_mlock ? MlockConfig::UseMlock : MlockConfig::NoMlock);
  }

  // The moved-from loader is left without a file: its loads fail with InvalidState.
  MmapDataLoader(MmapDataLoader&& rhs) noexcept;
  ~MmapDataLoader() override;

  // InvalidArgument when [offset, offset + size) is not inside the file, AccessFailed when mapping fails,
  // NotSupported when UseMlock cannot lock the pages. A zero-size load gives an empty buffer.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const DataLoader::SegmentInfo& segment_info) const override;

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override;

  // Copies the range into buffer. InvalidArgument also when buffer is null.
  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                                    void* buffer) const override;

 private:
  MmapDataLoader(int fd, size_t file_size, std::string file_name, size_t page_size, MlockConfig mlock_config)
      : file_name_(std::move(file_name)),
        file_size_(file_size),
        page_size_(page_size),
        fd_(fd),
        mlock_config_(mlock_config) {}
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;

  ET_NODISCARD executorch::runtime::Error validate_input(size_t offset, size_t size) const;

  std::string file_name_;
  size_t file_size_;
  size_t page_size_;
  int fd_;
  MlockConfig mlock_config_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MmapDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
