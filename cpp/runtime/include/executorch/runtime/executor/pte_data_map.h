#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

struct ProgramState;

// A program's own named data (Program::get_named_data_map()): blobs stored in the .pte's segments under keys,
// such as delegate weights; loaded through the program's DataLoader on demand. Holds no tensor layouts.
class EXECUTORCH_API PteDataMap final : public NamedDataMap {
 public:
  // Over the named data of a loaded program (which must outlive the map).
  static Result<PteDataMap> create(const ProgramState* program);

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(std::string_view key) const override;
  ET_NODISCARD Result<FreeableBuffer> get_data(std::string_view key) const override;
  ET_NODISCARD Error load_data_into(std::string_view key, void* buffer, size_t size) const override;
  ET_NODISCARD Result<uint32_t> get_num_keys() const override;
  ET_NODISCARD Result<const char*> get_key(uint32_t index) const override;

  PteDataMap(PteDataMap&&) noexcept = default;
  ~PteDataMap() override = default;

 private:
  explicit PteDataMap(const ProgramState* program) : program_(program) {}
  PteDataMap(const PteDataMap&) = delete;
  PteDataMap& operator=(PteDataMap&&) noexcept = delete;
  PteDataMap& operator=(const PteDataMap&) = delete;

  const ProgramState* program_;
};

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch
