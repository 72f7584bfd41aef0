#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace executorch {
namespace extension {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::internal::range_ok;

namespace {

void free_aligned(void*, void* data, size_t) { std::free(data); }

// Returns `size` bytes of fresh memory aligned to `alignment` (at least one byte is allocated).
void* alloc_aligned(size_t size, size_t alignment) {
  void* p = nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) return nullptr;
  return p;
}

}  // namespace

Result<FileDataLoader> FileDataLoader::from(const char* file_path, size_t alignment) {
  if (file_path == nullptr) return set_last_error(Error::InvalidArgument, "no file path given");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return set_last_error(Error::InvalidArgument, "alignment %zu is not a power of two", alignment);
  }
  const int fd = ::open(file_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_last_error(Error::AccessFailed, "cannot open %s: %s", file_path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return set_last_error(Error::AccessFailed, "%s is not a regular file", file_path);
  }
  return FileDataLoader(fd, static_cast<size_t>(st.st_size), alignment, file_path);
}

FileDataLoader::FileDataLoader(FileDataLoader&& o) noexcept
    : fd_(o.fd_), file_size_(o.file_size_), alignment_(o.alignment_), path_(std::move(o.path_)) {
  o.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> FileDataLoader::size() const { return file_size_; }

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  if (!range_ok(offset, size, file_size_)) {
    return set_last_error(Error::InvalidArgument, "range [%zu, +%zu) is outside %s (%zu bytes; truncated file?)",
                          offset, size, path_.c_str(), file_size_);
  }
  void* buf = alloc_aligned(size, alignment_);
  if (buf == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes", size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, static_cast<uint8_t*>(buf) + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::free(buf);
      return set_last_error(Error::AccessFailed, "reading %s failed", path_.c_str());
    }
    done += static_cast<size_t>(n);
  }
  return FreeableBuffer(buf, size, free_aligned);
}

Result<MmapDataLoader> MmapDataLoader::from(const char* file_path, MlockConfig mlock_config) {
  if (file_path == nullptr) return set_last_error(Error::InvalidArgument, "no file path given");
  const int fd = ::open(file_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return set_last_error(Error::AccessFailed, "cannot open %s: %s", file_path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return set_last_error(Error::AccessFailed, "%s is not a regular file", file_path);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* base = nullptr;
  if (size > 0) {
    base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      ::close(fd);
      return set_last_error(Error::AccessFailed, "cannot map %s: %s", file_path, std::strerror(errno));
    }
    if (mlock_config != MlockConfig::NoMlock && ::mlock(base, size) != 0 && mlock_config == MlockConfig::UseMlock) {
      ::munmap(base, size);
      ::close(fd);
      return set_last_error(Error::AccessFailed, "cannot lock %s in memory: %s", file_path, std::strerror(errno));
    }
  }
  ::close(fd);
  return MmapDataLoader(base, size);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& o) noexcept : base_(o.base_), size_(o.size_) {
  o.base_ = nullptr;
  o.size_ = 0;
}

MmapDataLoader::~MmapDataLoader() {
  if (base_ != nullptr) ::munmap(base_, size_);
}

Result<size_t> MmapDataLoader::size() const { return size_; }

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  if (!range_ok(offset, size, size_)) {
    return set_last_error(Error::InvalidArgument, "range [%zu, +%zu) is outside the %zu-byte file (truncated?)", offset,
                          size, size_);
  }
  const uint8_t* p = static_cast<const uint8_t*>(base_) + offset;
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
    // Segments are aligned in valid files; copy so callers always get aligned data.
    void* buf = alloc_aligned(size, 16);
    if (buf == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes", size);
    std::memcpy(buf, p, size);
    return FreeableBuffer(buf, size, free_aligned);
  }
  return FreeableBuffer(p, size, nullptr);
}

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size, const SegmentInfo&) const {
  if (!range_ok(offset, size, size_)) {
    return set_last_error(Error::InvalidArgument, "range [%zu, +%zu) is outside the %zu-byte buffer (truncated?)",
                          offset, size, size_);
  }
  const uint8_t* p = data_ + offset;
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
    void* buf = alloc_aligned(size, 16);
    if (buf == nullptr) return set_last_error(Error::MemoryAllocationFailed, "cannot allocate %zu bytes", size);
    if (size > 0) std::memcpy(buf, p, size);
    return FreeableBuffer(buf, size, free_aligned);
  }
  return FreeableBuffer(p, size, nullptr);
}

}  // namespace extension
}  // namespace executorch
