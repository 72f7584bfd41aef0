#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

#define ET_MERGED_DATA_MAP_NAMESPACE merged_data_map

namespace executorch::extension {
namespace ET_MERGED_DATA_MAP_NAMESPACE {

// Several named data maps (e.g. the .ptd files of one program) seen as one: how an application passes more than
// one data file to Program::load_method. Every key must be in exactly one map. The maps are not owned.
class EXECUTORCH_API MergedDataMap final : public executorch::ET_RUNTIME_NAMESPACE::NamedDataMap {
 public:
  // Null and empty maps are skipped. InvalidArgument when no map has a key, or a key is in two maps.
  static executorch::runtime::Result<MergedDataMap> load(
      executorch::runtime::Span<const executorch::ET_RUNTIME_NAMESPACE::NamedDataMap*> named_data_maps);

  ET_NODISCARD executorch::runtime::Result<const executorch::ET_RUNTIME_NAMESPACE::TensorLayout> get_tensor_layout(
      std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> get_data(
      std::string_view key) const override;
  ET_NODISCARD executorch::runtime::Error load_data_into(std::string_view key, void* buffer,
                                                         size_t size) const override;
  ET_NODISCARD executorch::runtime::Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD executorch::runtime::Result<const char*> get_key(uint32_t index) const override;

  MergedDataMap(MergedDataMap&&) noexcept = default;
  ~MergedDataMap() override = default;

 private:
  MergedDataMap(std::vector<const executorch::ET_RUNTIME_NAMESPACE::NamedDataMap*> named_data_maps,
                std::unordered_map<std::string, uint32_t> key_to_map_index)
      : named_data_maps_(std::move(named_data_maps)), key_to_map_index_(std::move(key_to_map_index)) {}
  MergedDataMap(const MergedDataMap&) = delete;
  MergedDataMap& operator=(MergedDataMap&&) noexcept = delete;
  MergedDataMap& operator=(const MergedDataMap&) = delete;

  // The map holding `key`, or null.
  const executorch::ET_RUNTIME_NAMESPACE::NamedDataMap* map_of(std::string_view key) const;

  std::vector<const executorch::ET_RUNTIME_NAMESPACE::NamedDataMap*> named_data_maps_;
  std::unordered_map<std::string, uint32_t> key_to_map_index_;
};

}  // namespace ET_MERGED_DATA_MAP_NAMESPACE
}  // namespace executorch::extension
