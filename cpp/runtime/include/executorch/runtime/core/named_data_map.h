#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

// Blobs addressed by key: a program's own named data (delegate weights under sha256 keys), a .ptd file
// (FlatTensorDataMap: the weights of a program exported with its data separated), or several of them merged.
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  // The layout of the tensor stored under `key`. NotFound when there is no such key (or the entry is a blob
  // without a tensor layout), NotImplemented for maps that hold no layouts.
  ET_NODISCARD virtual Result<const TensorLayout> get_tensor_layout(std::string_view key) const = 0;
  // The bytes stored under `key`; NotFound when there is no such key.
  ET_NODISCARD virtual Result<FreeableBuffer> get_data(std::string_view key) const = 0;
  // Copies the data under `key` into `buffer`, which holds `size` bytes (the tensor layout's nbytes).
  ET_NODISCARD virtual Error load_data_into(std::string_view key, void* buffer, size_t size) const = 0;
  ET_NODISCARD virtual Result<uint32_t> get_num_keys() const = 0;
  // The key at `index` (owned by the map, valid as long as it lives); InvalidArgument when out of range.
  ET_NODISCARD virtual Result<const char*> get_key(uint32_t index) const = 0;
};

}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
