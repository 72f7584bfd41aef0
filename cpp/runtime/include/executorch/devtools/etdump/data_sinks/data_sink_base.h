#pragma once
// Where ETDumpGen writes the data of logged tensors (the ETDump itself holds only their metadata and offsets):
// executorch::etdump::BufferDataSink (a caller's buffer) and FileDataSink (a file), or an implementation of the
// caller's own.
#include <cstddef>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace etdump {

class EXECUTORCH_API DataSinkBase {
 public:
  virtual ~DataSinkBase() = default;
  // Stores `length` bytes and returns the offset at which they were stored (what the ETDump records), or an error.
  virtual ::executorch::runtime::Result<size_t> write(const void* ptr, size_t length) = 0;
  // Bytes used so far (alignment padding included).
  virtual size_t get_used_bytes() const = 0;
};

}  // namespace etdump
}  // namespace executorch
