#pragma once
// A DataSinkBase over a caller's buffer: each write() starts at the next address aligned to `alignment` (the
// padding is zeroed) and returns its offset from the start of the buffer; a write that does not fit fails with
// Error::OutOfResources and changes nothing. The buffer must outlive the sink.
#include <cstddef>
#include <cstdint>

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace etdump {

class EXECUTORCH_API BufferDataSink : public DataSinkBase {
 public:
  // Error::InvalidArgument when `alignment` is not a power of two.
  static ::executorch::runtime::Result<BufferDataSink> create(::executorch::runtime::Span<uint8_t> buffer,
                                                              size_t alignment = 64) noexcept;
  static ::executorch::runtime::Result<BufferDataSink> create(void* ptr, size_t size, size_t alignment = 64) noexcept;

  // An empty sink: every non-empty write fails.
  BufferDataSink() = default;
  BufferDataSink(const BufferDataSink&) = delete;
  BufferDataSink& operator=(const BufferDataSink&) = delete;
  BufferDataSink(BufferDataSink&&) = default;
  BufferDataSink& operator=(BufferDataSink&&) = default;
  ~BufferDataSink() override = default;

  // The offset of the stored bytes; for length 0, the current end of the used part.
  ::executorch::runtime::Result<size_t> write(const void* ptr, size_t size) override;
  // The size of the whole buffer.
  ::executorch::runtime::Result<size_t> get_storage_size() const;
  size_t get_used_bytes() const override;

 private:
  explicit BufferDataSink(::executorch::runtime::Span<uint8_t> buffer, size_t alignment)
      : debug_buffer_(buffer), offset_(0), alignment_(alignment) {}

  ::executorch::runtime::Span<uint8_t> debug_buffer_;
  size_t offset_ = 0;
  size_t alignment_ = 64;
};

}  // namespace etdump
}  // namespace executorch
