#pragma once
// What a loaded Program holds; shared by Program, Method and MethodMeta (not installed).
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/pte_data_map.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "program_generated.h"

namespace executorch {
namespace runtime {
namespace internal {

// Facts from the file's first bytes.
struct PteHeader {
  bool has_extended_header = false;
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

// Parses the identifier and the optional extended header. `head` holds the first min(64, file_size) bytes.
Error parse_pte_header(const uint8_t* head, size_t head_size, size_t file_size, PteHeader* out);

// Flatbuffer verification plus the consistency checks of every index, size and offset (see pte_file.cpp).
Error verify_program(const uint8_t* data, size_t size, const PteHeader& header, size_t file_size);

// Number of elements and bytes of a serialized tensor (checked for overflow by verify_program).
uint64_t tensor_nbytes(const et_pte::Tensor* t);

struct PlanView {
  const et_pte::ExecutionPlan* plan = nullptr;
};

struct ProgramState {
  DataLoader* loader = nullptr;
  FreeableBuffer program_data;
  const et_pte::Program* program = nullptr;
  PteHeader header;
  size_t file_size = 0;
  FreeableBuffer constant_segment;  // empty when the program has no segment constants
  std::vector<PlanView> plans;
  std::optional<PteDataMap> named_data;  // the program's own named data, when it has any

  // Absolute file offset and size of segment i (validated at load).
  uint64_t segment_offset(size_t i) const;
  uint64_t segment_size(size_t i) const;
  Result<FreeableBuffer> load_segment(size_t i, DataLoader::SegmentInfo::Type type) const;

  // Mutable-data segment 0, loaded on first use.
  std::mutex mutable_mu;
  bool mutable_loaded = false;
  FreeableBuffer mutable_segment;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
