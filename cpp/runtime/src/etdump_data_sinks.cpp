// The data sinks of ETDumpGen: BufferDataSink (a caller's buffer) and FileDataSink (a file).
#include <executorch/devtools/etdump/data_sinks/buffer_data_sink.h>
#include <executorch/devtools/etdump/data_sinks/file_data_sink.h>
#include <executorch/devtools/etdump/utils.h>

#include <cerrno>
#include <cstring>

namespace executorch {
namespace etdump {

using ::executorch::runtime::Error;
using ::executorch::runtime::Result;
using ::executorch::runtime::set_last_error;
using ::executorch::runtime::Span;

Result<BufferDataSink> BufferDataSink::create(Span<uint8_t> buffer, size_t alignment) noexcept {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return set_last_error(Error::InvalidArgument, "BufferDataSink: alignment %zu is not a power of two", alignment);
  }
  return BufferDataSink(buffer, alignment);
}

Result<BufferDataSink> BufferDataSink::create(void* ptr, size_t size, size_t alignment) noexcept {
  return create(Span<uint8_t>(static_cast<uint8_t*>(ptr), size), alignment);
}

Result<size_t> BufferDataSink::write(const void* ptr, size_t length) {
  if (length == 0) return offset_;
  // Alignment is of the address (what a reader mapping the buffer needs), not of the offset.
  uint8_t* const base = debug_buffer_.data();
  const uintptr_t used_end = reinterpret_cast<uintptr_t>(base) + offset_;
  const uintptr_t begin =
      reinterpret_cast<uintptr_t>(internal::align_pointer(reinterpret_cast<void*>(used_end), alignment_));
  const uintptr_t limit = reinterpret_cast<uintptr_t>(base) + debug_buffer_.size();
  if (base == nullptr || begin > limit || length > limit - begin) {
    return set_last_error(Error::OutOfResources,
                          "BufferDataSink: %zu more bytes do not fit (%zu of %zu bytes used, alignment %zu)", length,
                          offset_, debug_buffer_.size(), alignment_);
  }
  const size_t start = static_cast<size_t>(begin - reinterpret_cast<uintptr_t>(base));
  std::memset(base + offset_, 0, start - offset_);
  std::memcpy(base + start, ptr, length);
  offset_ = start + length;
  return start;
}

Result<size_t> BufferDataSink::get_storage_size() const { return debug_buffer_.size(); }

size_t BufferDataSink::get_used_bytes() const { return offset_; }

Result<FileDataSink> FileDataSink::create(const char* file_path) {
  FILE* file = file_path != nullptr ? std::fopen(file_path, "wb") : nullptr;
  if (file == nullptr) {
    return set_last_error(Error::AccessFailed, "FileDataSink: cannot create %s: %s",
                          file_path != nullptr ? file_path : "(null)", std::strerror(errno));
  }
  return FileDataSink(file);
}

FileDataSink::FileDataSink(FileDataSink&& other) noexcept
    : file_(other.file_), total_written_bytes_(other.total_written_bytes_) {
  other.file_ = nullptr;
}

FileDataSink& FileDataSink::operator=(FileDataSink&& other) noexcept {
  if (this != &other) {
    close();
    file_ = other.file_;
    total_written_bytes_ = other.total_written_bytes_;
    other.file_ = nullptr;
  }
  return *this;
}

FileDataSink::~FileDataSink() { close(); }

Result<size_t> FileDataSink::write(const void* ptr, size_t size) {
  if (file_ == nullptr) return set_last_error(Error::AccessFailed, "FileDataSink: the file is closed");
  const size_t offset = total_written_bytes_;
  if (size == 0) return offset;
  const size_t written = std::fwrite(ptr, 1, size, file_);
  total_written_bytes_ += written;  // what is in the file, so later offsets stay right
  if (written != size) {
    return set_last_error(Error::Internal, "FileDataSink: wrote %zu of %zu bytes: %s", written, size,
                          std::strerror(errno));
  }
  return offset;
}

size_t FileDataSink::get_used_bytes() const { return total_written_bytes_; }

void FileDataSink::close() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

}  // namespace etdump
}  // namespace executorch
