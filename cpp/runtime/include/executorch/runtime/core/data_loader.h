#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {

// Reads byte ranges of a program file. Implementations: FileDataLoader, MmapDataLoader, BufferDataLoader.
class EXECUTORCH_API DataLoader {
 public:
  struct SegmentInfo {
    enum class Type { Program, Constant, Backend, Mutable, External };
    SegmentInfo() = default;
    explicit SegmentInfo(Type type_, size_t segment_index_ = 0, const char* descriptor_ = nullptr)
        : type(type_), segment_index(segment_index_), descriptor(descriptor_) {}
    Type type = Type::Program;
    size_t segment_index = 0;
    const char* descriptor = nullptr;
  };

  virtual ~DataLoader();
  // Returns `size` bytes starting at `offset`. The data is aligned to at least 16 bytes. Fails with
  // InvalidArgument when the range is outside the data.
  virtual Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& segment_info) const = 0;
  // Total size of the data in bytes.
  virtual Result<size_t> size() const = 0;
};

}  // namespace runtime
}  // namespace executorch
