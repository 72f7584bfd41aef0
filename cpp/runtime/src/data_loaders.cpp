// The data loaders of executorch/extension/data_loader: FileDataLoader, MmapDataLoader, BufferDataLoader.
// Every failure also sets last_error_message() (the reason, with the file name).
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mman.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "internal.h"

namespace executorch {

runtime::DataLoader::~DataLoader() = default;

namespace extension {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::internal::range_ok;

namespace {

bool is_power_of_2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Memory from aligned operator new (nothrow); the FreeableBuffer's context carries the alignment for the delete.
void* alloc_aligned(size_t size, size_t alignment) {
  return ::operator new(size, std::align_val_t(alignment), std::nothrow);
}

void free_aligned(void* context, void* data, size_t) {
  ::operator delete(data, std::align_val_t(reinterpret_cast<uintptr_t>(context)));
}

FreeableBuffer aligned_buffer(void* data, size_t size, size_t alignment) {
  return FreeableBuffer(data, size, free_aligned, reinterpret_cast<void*>(static_cast<uintptr_t>(alignment)));
}

// Opens a regular file for reading; AccessFailed (with the reason) otherwise.
Result<int> open_regular_file(const char* file_name, size_t* file_size) {
  const int fd = ::open(file_name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_last_error(Error::AccessFailed, "cannot open %s: %s", file_name, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return set_last_error(Error::AccessFailed, "%s is not a regular file", file_name);
  }
  *file_size = static_cast<size_t>(st.st_size);
  return fd;
}

Error out_of_range(const char* what, size_t offset, size_t size, size_t total) {
  return set_last_error(Error::InvalidArgument, "range [%zu, +%zu) is outside %s (%zu bytes; truncated file?)", offset,
                        size, what, total);
}

}  // namespace

// FileDataLoader

Result<FileDataLoader> FileDataLoader::from(const char* file_name, size_t alignment) {
  if (!is_power_of_2(alignment)) {
    return set_last_error(Error::InvalidArgument, "alignment %zu is not a power of 2", alignment);
  }
  if (file_name == nullptr) return set_last_error(Error::InvalidArgument, "no file name given");
  size_t file_size = 0;
  Result<int> fd = open_regular_file(file_name, &file_size);
  if (!fd.ok()) return fd.error();
  return FileDataLoader(*fd, file_size, alignment, file_name);
}

FileDataLoader::FileDataLoader(FileDataLoader&& rhs) noexcept
    : file_name_(std::move(rhs.file_name_)), file_size_(rhs.file_size_), alignment_(rhs.alignment_), fd_(rhs.fd_) {
  rhs.file_size_ = 0;
  rhs.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> FileDataLoader::size() const {
  if (fd_ < 0) return set_last_error(Error::InvalidState, "the FileDataLoader was moved from");
  return file_size_;
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size, const SegmentInfo& segment_info) const {
  if (fd_ < 0) return set_last_error(Error::InvalidState, "the FileDataLoader was moved from");
  if (!range_ok(offset, size, file_size_)) return out_of_range(file_name_.c_str(), offset, size, file_size_);
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  void* buf = alloc_aligned(size, alignment_);
  if (buf == nullptr) {
    return set_last_error(Error::MemoryAllocationFailed, "reading %s: cannot allocate %zu bytes", file_name_.c_str(),
                          size);
  }
  const Error err = load_into(offset, size, segment_info, buf);
  if (err != Error::Ok) {
    free_aligned(reinterpret_cast<void*>(static_cast<uintptr_t>(alignment_)), buf, size);
    return err;
  }
  return aligned_buffer(buf, size, alignment_);
}

Error FileDataLoader::load_into(size_t offset, size_t size, const SegmentInfo&, void* buffer) const {
  if (fd_ < 0) return set_last_error(Error::InvalidState, "the FileDataLoader was moved from");
  if (!range_ok(offset, size, file_size_)) return out_of_range(file_name_.c_str(), offset, size, file_size_);
  if (buffer == nullptr) return set_last_error(Error::InvalidArgument, "load_into: the buffer is null");
  uint8_t* dst = static_cast<uint8_t*>(buffer);
  size_t done = 0;
  while (done < size) {
    const size_t chunk = std::min<size_t>(size - done, std::numeric_limits<int32_t>::max());
    const ssize_t n = ::pread(fd_, dst + done, chunk, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return set_last_error(Error::AccessFailed, "reading %zu bytes at offset %zu of %s failed: %s", size, offset,
                            file_name_.c_str(), n == 0 ? "end of file" : std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Error::Ok;
}

// MmapDataLoader

namespace {

// The whole pages that cover [offset, offset + size).
struct PageRange {
  size_t start;
  size_t size;
};

PageRange covering_pages(size_t offset, size_t size, size_t page_size) {
  const size_t mask = ~(page_size - 1);
  const size_t start = offset & mask;
  const size_t end = (offset + size + page_size - 1) & mask;
  return {start, end - start};
}

// Unmaps the pages of a loaded range; the context carries the page size.
void unmap_range(void* context, void* data, size_t size) {
  const PageRange pages = covering_pages(reinterpret_cast<uintptr_t>(data), size,
                                         static_cast<size_t>(reinterpret_cast<uintptr_t>(context)));
  ::munmap(reinterpret_cast<void*>(pages.start), pages.size);
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::from(const char* file_name, MlockConfig mlock_config) {
  if (file_name == nullptr) return set_last_error(Error::InvalidArgument, "no file name given");
  const long page_size = static_cast<long>(get_os_page_size());
  if (page_size <= 0 || !is_power_of_2(static_cast<size_t>(page_size))) {
    return set_last_error(Error::InvalidState, "the page size %ld is not a power of 2", page_size);
  }
  size_t file_size = 0;
  Result<int> fd = open_regular_file(file_name, &file_size);
  if (!fd.ok()) return fd.error();
  return MmapDataLoader(*fd, file_size, file_name, static_cast<size_t>(page_size), mlock_config);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& rhs) noexcept
    : file_name_(std::move(rhs.file_name_)),
      file_size_(rhs.file_size_),
      page_size_(rhs.page_size_),
      fd_(rhs.fd_),
      mlock_config_(rhs.mlock_config_) {
  rhs.file_size_ = 0;
  rhs.fd_ = -1;
  rhs.mlock_config_ = MlockConfig::NoMlock;
}

MmapDataLoader::~MmapDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Error MmapDataLoader::validate_input(size_t offset, size_t size) const {
  if (fd_ < 0) return set_last_error(Error::InvalidState, "the MmapDataLoader was moved from");
  if (!range_ok(offset, size, file_size_)) return out_of_range(file_name_.c_str(), offset, size, file_size_);
  return Error::Ok;
}

Result<size_t> MmapDataLoader::size() const {
  if (fd_ < 0) return set_last_error(Error::InvalidState, "the MmapDataLoader was moved from");
  return file_size_;
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  const Error err = validate_input(offset, size);
  if (err != Error::Ok) return err;
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  const PageRange pages = covering_pages(offset, size, page_size_);
  // The last page may extend past the end of the file; map only up to it.
  const size_t map_size = std::min(pages.size, file_size_ - pages.start);
  void* base = ::mmap(nullptr, map_size, PROT_READ, MAP_SHARED, fd_, get_mmap_offset(pages.start));
  if (base == MAP_FAILED) {
    return set_last_error(Error::AccessFailed, "cannot map %zu bytes at offset %zu of %s: %s", map_size, pages.start,
                          file_name_.c_str(), std::strerror(errno));
  }
  uint8_t* data = static_cast<uint8_t*>(base) + (offset - pages.start);
  if (mlock_config_ == MlockConfig::UseMlock || mlock_config_ == MlockConfig::UseMlockIgnoreErrors) {
    if (::mlock(data, size) != 0 && mlock_config_ == MlockConfig::UseMlock) {
      const int e = errno;
      ::munmap(base, map_size);
      return set_last_error(Error::NotSupported, "cannot lock %zu bytes of %s in memory: %s", size, file_name_.c_str(),
                            std::strerror(e));
    }
  } else if (mlock_config_ == MlockConfig::UseMadvise) {
    madvise_pages_willneed_sequential(base, map_size);
    fcntl_rdadvise_apple(fd_, file_size_);
  }
  return FreeableBuffer(data, size, unmap_range, reinterpret_cast<void*>(static_cast<uintptr_t>(page_size_)));
}

Error MmapDataLoader::load_into(size_t offset, size_t size, const SegmentInfo&, void* buffer) const {
  if (buffer == nullptr) return set_last_error(Error::InvalidArgument, "load_into: the buffer is null");
  const Error err = validate_input(offset, size);
  if (err != Error::Ok) return err;
  if (size == 0) return Error::Ok;
  const PageRange pages = covering_pages(offset, size, page_size_);
  const size_t map_size = std::min(pages.size, file_size_ - pages.start);
  void* base = ::mmap(nullptr, map_size, PROT_READ, MAP_PRIVATE, fd_, get_mmap_offset(pages.start));
  if (base == MAP_FAILED) {
    return set_last_error(Error::AccessFailed, "cannot map %zu bytes at offset %zu of %s: %s", map_size, pages.start,
                          file_name_.c_str(), std::strerror(errno));
  }
  std::memcpy(buffer, static_cast<const uint8_t*>(base) + (offset - pages.start), size);
  ::munmap(base, map_size);
  return Error::Ok;
}

// BufferDataLoader

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  if (!range_ok(offset, size, size_)) return out_of_range("the buffer", offset, size, size_);
  const uint8_t* p = data_ + offset;
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0 && size > 0) {
    // Programs keep their segments aligned; a misaligned range (a misaligned buffer) is copied so that loaded data
    // is always aligned.
    void* buf = alloc_aligned(size, 16);
    if (buf == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes", size);
    std::memcpy(buf, p, size);
    return aligned_buffer(buf, size, 16);
  }
  return FreeableBuffer(p, size, nullptr);
}

Error BufferDataLoader::load_into(size_t offset, size_t size, const SegmentInfo&, void* buffer) const {
  if (buffer == nullptr) return set_last_error(Error::InvalidArgument, "load_into: the buffer is null");
  if (!range_ok(offset, size, size_)) return out_of_range("the buffer", offset, size, size_);
  if (size > 0) std::memcpy(buffer, data_ + offset, size);
  return Error::Ok;
}

}  // namespace extension
}  // namespace executorch
