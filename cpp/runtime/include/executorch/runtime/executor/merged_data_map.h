#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

// Two named data maps seen as one, `first` searched before `second`; what Method gives its delegates when a
// program has named data of its own and data files were passed to load_method. Neither map is owned.
class MergedDataMap final : public NamedDataMap {
 public:
  // InvalidArgument when a map is null or a key is in both.
  static Result<MergedDataMap> load(const NamedDataMap* first, const NamedDataMap* second) {
    if (first == nullptr || second == nullptr) return Error::InvalidArgument;
    const uint32_t n_first = first->get_num_keys().ok() ? first->get_num_keys().get() : 0;
    const uint32_t n_second = second->get_num_keys().ok() ? second->get_num_keys().get() : 0;
    for (uint32_t i = 0; i < n_first; ++i) {
      Result<const char*> a = first->get_key(i);
      if (!a.ok()) return a.error();
      for (uint32_t j = 0; j < n_second; ++j) {
        Result<const char*> b = second->get_key(j);
        if (b.ok() && std::strcmp(a.get(), b.get()) == 0)
          return set_last_error(Error::InvalidArgument, "key '%s' is in two data maps", a.get());
      }
    }
    return MergedDataMap(first, second);
  }

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    Result<const TensorLayout> layout = first_->get_tensor_layout(key);
    if (layout.ok() || (layout.error() != Error::NotFound && layout.error() != Error::NotImplemented)) return layout;
    return second_->get_tensor_layout(key);
  }
  ET_NODISCARD Result<FreeableBuffer> get_data(std::string_view key) const override {
    Result<FreeableBuffer> data = first_->get_data(key);
    if (data.error() != Error::NotFound) return data;
    return second_->get_data(key);
  }
  ET_NODISCARD Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    const Error err = first_->load_data_into(key, buffer, size);
    if (err != Error::NotFound && err != Error::NotImplemented) return err;
    return second_->load_data_into(key, buffer, size);
  }
  ET_NODISCARD Result<uint32_t> get_num_keys() const override { return num_keys(first_) + num_keys(second_); }
  ET_NODISCARD Result<const char*> get_key(uint32_t index) const override {
    const uint32_t n_first = num_keys(first_);
    if (index < n_first) return first_->get_key(index);
    if (index - n_first < num_keys(second_)) return second_->get_key(index - n_first);
    return Error::InvalidArgument;
  }

  MergedDataMap(MergedDataMap&&) noexcept = default;
  ~MergedDataMap() override = default;

 private:
  MergedDataMap(const NamedDataMap* first, const NamedDataMap* second) : first_(first), second_(second) {}
  MergedDataMap(const MergedDataMap&) = delete;
  MergedDataMap& operator=(MergedDataMap&&) noexcept = delete;
  MergedDataMap& operator=(const MergedDataMap&) = delete;
  static uint32_t num_keys(const NamedDataMap* m) {
    Result<uint32_t> n = m->get_num_keys();
    return n.ok() ? n.get() : 0;
  }

  const NamedDataMap* first_;
  const NamedDataMap* second_;
};

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
