#pragma once
#include <cstddef>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {

// Reads byte ranges of a program (or data) file. Implementations: FileDataLoader, MmapDataLoader,
// BufferDataLoader, SharedPtrDataLoader (executorch/extension/data_loader/).
class EXECUTORCH_API DataLoader {
 public:
  // What a load is for (loaders may treat kinds differently, e.g. place delegate payloads elsewhere).
  struct SegmentInfo {
    enum class Type {
      Program,   // the program flatbuffer (or a data file's header)
      Constant,  // constant tensor data
      Backend,   // a delegate's payload
      Mutable,   // initial values of mutable buffers
      External,  // data of a named data map (.ptd)
    };

    Type segment_type = Type::Program;
    // Index of the segment in the file's segment table (not meaningful for Program).
    size_t segment_index = 0;
    // For Backend: the backend id; for External: the key or file name; else null.
    const char* descriptor = nullptr;

    SegmentInfo() = default;
    explicit SegmentInfo(Type segment_type_, size_t segment_index_ = 0, const char* descriptor_ = nullptr)
        : segment_type(segment_type_), segment_index(segment_index_), descriptor(descriptor_) {}
  };

  virtual ~DataLoader();

  // `size` bytes starting at `offset`. InvalidArgument when the range is not inside the data.
  ET_NODISCARD virtual Result<FreeableBuffer> load(size_t offset, size_t size,
                                                   const SegmentInfo& segment_info) const = 0;

  // Copies `size` bytes starting at `offset` into `buffer` (which has room for them). Loaders that cannot do this
  // more cheaply than load() plus a copy may leave it as is: NotImplemented.
  ET_NODISCARD virtual Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                       void* buffer) const {
    (void)offset;
    (void)size;
    (void)segment_info;
    (void)buffer;
    ET_LOG(Error, "load_into() not implemented for this data loader.");
    return Error::NotImplemented;
  }

  // Total size of the data in bytes.
  ET_NODISCARD virtual Result<size_t> size() const = 0;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DataLoader;
}  // namespace executor
}  // namespace torch
