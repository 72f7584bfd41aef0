#pragma once
#include <cstddef>
#include <string>

#include <executorch/runtime/core/data_loader.h>

namespace executorch {
namespace extension {

// Maps the whole file read-only once; loads return views into the mapping (no copies).
class EXECUTORCH_API MmapDataLoader final : public executorch::runtime::DataLoader {
 public:
  enum class MlockConfig { NoMlock, UseMlock, UseMlockIgnoreErrors };
  static executorch::runtime::Result<MmapDataLoader> from(const char* file_path,
                                                          MlockConfig mlock_config = MlockConfig::NoMlock);
  MmapDataLoader(MmapDataLoader&& o) noexcept;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;
  ~MmapDataLoader() override;
  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(size_t offset, size_t size,
                                                                        const SegmentInfo& segment_info) const override;
  executorch::runtime::Result<size_t> size() const override;

 private:
  MmapDataLoader(void* base, size_t size) : base_(base), size_(size) {}
  void* base_;
  size_t size_;
};

}  // namespace extension
}  // namespace executorch
