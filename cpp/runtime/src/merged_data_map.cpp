#include <executorch/extension/named_data_map/merged_data_map.h>

namespace executorch::extension {
namespace ET_MERGED_DATA_MAP_NAMESPACE {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::Span;
using executorch::runtime::TensorLayout;

Result<MergedDataMap> MergedDataMap::load(Span<const NamedDataMap*> named_data_maps) {
  std::vector<const NamedDataMap*> maps;
  for (const NamedDataMap* m : named_data_maps) {
    if (m != nullptr && m->get_num_keys().ok() && m->get_num_keys().get() > 0) maps.push_back(m);
  }
  if (maps.empty()) return set_last_error(Error::InvalidArgument, "no data map with any key was given to merge");
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < maps.size(); ++i) {
    const uint32_t n = maps[i]->get_num_keys().get();
    for (uint32_t k = 0; k < n; ++k) {
      Result<const char*> key = maps[i]->get_key(k);
      if (!key.ok()) return key.error();
      const auto [it, inserted] = index.emplace(key.get(), i);
      if (!inserted) {
        return set_last_error(Error::InvalidArgument, "key '%s' is in data map %u and data map %u", key.get(),
                              it->second, i);
      }
    }
  }
  return MergedDataMap(std::move(maps), std::move(index));
}

const NamedDataMap* MergedDataMap::map_of(std::string_view key) const {
  const auto it = key_to_map_index_.find(std::string(key));
  return it == key_to_map_index_.end() ? nullptr : named_data_maps_[it->second];
}

Result<const TensorLayout> MergedDataMap::get_tensor_layout(std::string_view key) const {
  const NamedDataMap* m = map_of(key);
  if (m == nullptr) return Error::NotFound;
  return m->get_tensor_layout(key);
}

Result<FreeableBuffer> MergedDataMap::get_data(std::string_view key) const {
  const NamedDataMap* m = map_of(key);
  if (m == nullptr) return Error::NotFound;
  return m->get_data(key);
}

Error MergedDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  const NamedDataMap* m = map_of(key);
  if (m == nullptr) return Error::NotFound;
  return m->load_data_into(key, buffer, size);
}

Result<uint32_t> MergedDataMap::get_num_keys() const { return static_cast<uint32_t>(key_to_map_index_.size()); }

Result<const char*> MergedDataMap::get_key(uint32_t index) const {
  for (const NamedDataMap* m : named_data_maps_) {
    const uint32_t n = m->get_num_keys().get();
    if (index < n) return m->get_key(index);
    index -= n;
  }
  return Error::InvalidArgument;
}

}  // namespace ET_MERGED_DATA_MAP_NAMESPACE
}  // namespace executorch::extension
