#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/extension/flat_tensor/serialize/flat_tensor_header.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace extension {

// A .ptd file (upstream's FlatTensor format) as a NamedDataMap: what Program::load_method takes to resolve the
// tensors a program keeps outside itself (EXTERNAL constants, found by fully qualified name) and the named data
// its delegates read (e.g. XNNPACK weights). Segments are loaded through the DataLoader on demand.
class EXECUTORCH_API FlatTensorDataMap final : public executorch::ET_RUNTIME_NAMESPACE::NamedDataMap {
 public:
  // The newest schema version this runtime reads.
  static constexpr uint32_t kMaxSupportedSchemaVersion = 0;

  // Reads and verifies the header and the flatbuffer (every segment reference checked against the file), so that
  // a truncated or corrupt file fails here with InvalidExternalData. `loader` must outlive the map.
  static executorch::runtime::Result<FlatTensorDataMap> load(executorch::runtime::DataLoader* loader);

  // NotFound for an unknown key or an entry without a tensor layout.
  ET_NODISCARD executorch::runtime::Result<const executorch::ET_RUNTIME_NAMESPACE::TensorLayout> get_tensor_layout(
      std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> get_data(
      std::string_view key) const override;
  // Copies the tensor under `key` into `buffer` (`size` bytes). InvalidArgument when `size` is not the tensor's
  // size in bytes.
  ET_NODISCARD executorch::runtime::Error load_data_into(std::string_view key, void* buffer,
                                                         size_t size) const override;
  ET_NODISCARD executorch::runtime::Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD executorch::runtime::Result<const char*> get_key(uint32_t index) const override;

  FlatTensorDataMap(FlatTensorDataMap&&) noexcept = default;
  ~FlatTensorDataMap() override = default;

 private:
  FlatTensorDataMap(const FlatTensorHeader& header, executorch::runtime::FreeableBuffer&& flat_tensor_data,
                    const void* flat_tensor, executorch::runtime::DataLoader* loader)
      : header_(header), flat_tensor_data_(std::move(flat_tensor_data)), flat_tensor_(flat_tensor), loader_(loader) {}
  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) noexcept = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;

  // The entry under `key` (a verified flatbuffer table), or null.
  const void* find(std::string_view key) const;

  const FlatTensorHeader header_;
  executorch::runtime::FreeableBuffer flat_tensor_data_;
  const void* flat_tensor_;  // the verified root table
  executorch::runtime::DataLoader* loader_;
};

}  // namespace extension
}  // namespace executorch
