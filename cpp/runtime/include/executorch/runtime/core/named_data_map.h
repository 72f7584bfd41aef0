#pragma once
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>

namespace executorch {
namespace runtime {

// Blobs addressed by key: the program's named data (e.g. delegate weights stored under sha256 keys).
class EXECUTORCH_API NamedDataMap {
 public:
  virtual ~NamedDataMap();
  // The bytes stored under `key`; NotFound when there is no such key.
  virtual Result<FreeableBuffer> get_data(const char* key) const = 0;
  virtual Result<uint32_t> get_num_keys() const = 0;
  virtual Result<const char*> get_key(uint32_t index) const = 0;
};

}  // namespace runtime
}  // namespace executorch
