#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstring>

#include "internal.h"
#include "program_state.h"

namespace executorch {
namespace runtime {
namespace internal {

uint64_t ProgramState::segment_offset(size_t i) const {
  return header.segment_base_offset + (*program->segments())[i]->offset();
}
uint64_t ProgramState::segment_size(size_t i) const { return (*program->segments())[i]->size(); }

Result<FreeableBuffer> ProgramState::load_segment(size_t i, DataLoader::SegmentInfo::Type type) const {
  if (segment_size(i) == 0) return FreeableBuffer();  // empty segments need not lie inside the file
  return loader->load(segment_offset(i), segment_size(i), DataLoader::SegmentInfo(type, i));
}

// The program's named data: key -> segment, loaded on demand through the program's loader.
class ProgramNamedData final : public NamedDataMap {
 public:
  explicit ProgramNamedData(const ProgramState* state) : state_(state) {}
  Result<FreeableBuffer> get_data(const char* key) const override {
    if (key == nullptr) return Error::InvalidArgument;
    for (const auto* nd : *state_->program->named_data()) {
      if (std::strcmp(nd->key()->c_str(), key) == 0) {
        return state_->load_segment(nd->segment_index(), DataLoader::SegmentInfo::Type::External);
      }
    }
    return set_last_error(Error::NotFound, "named data '%s' is not in the program", key);
  }
  Result<uint32_t> get_num_keys() const override { return state_->program->named_data()->size(); }
  Result<const char*> get_key(uint32_t index) const override {
    if (index >= state_->program->named_data()->size()) return Error::InvalidArgument;
    return (*state_->program->named_data())[index]->key()->c_str();
  }

 private:
  const ProgramState* state_;
};

}  // namespace internal

Program::Program(std::shared_ptr<internal::ProgramState> state) : state_(std::move(state)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Program::HeaderStatus Program::check_header(const void* data, size_t size) {
  if (data == nullptr || size < 8) return HeaderStatus::ShortData;
  const auto* b = static_cast<const uint8_t*>(data);
  if (std::memcmp(b + 4, "ET12", 4) == 0) return HeaderStatus::CompatibleVersion;
  if (b[4] == 'E' && b[5] == 'T') return HeaderStatus::IncompatibleVersion;
  return HeaderStatus::NotPresent;
}

Result<Program> Program::load(DataLoader* loader, Verification /*verification*/) {
  runtime_init();
  if (loader == nullptr) return set_last_error(Error::InvalidArgument, "no data loader given");
  auto state = std::make_shared<internal::ProgramState>();
  state->loader = loader;
  Result<size_t> file_size = loader->size();
  if (!file_size.ok()) return set_last_error(file_size.error(), "cannot get the size of the program data");
  state->file_size = *file_size;
  const size_t head_size = std::min<size_t>(64, state->file_size);
  {
    Result<FreeableBuffer> head = loader->load(0, head_size, DataLoader::SegmentInfo());
    if (!head.ok()) return set_last_error(head.error(), "cannot read the program header");
    ET_CHECK_OK_OR_RETURN_ERROR(internal::parse_pte_header(static_cast<const uint8_t*>(head->data()), head->size(),
                                                           state->file_size, &state->header));
  }
  Result<FreeableBuffer> data = loader->load(0, state->header.program_size, DataLoader::SegmentInfo());
  if (!data.ok()) return set_last_error(data.error(), "cannot read the program data");
  state->program_data = std::move(*data);
  const auto* bytes = static_cast<const uint8_t*>(state->program_data.data());
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) {
    return set_last_error(Error::InvalidArgument, "program data must be 8-byte aligned; use an aligned buffer");
  }
  ET_CHECK_OK_OR_RETURN_ERROR(
      internal::verify_program(bytes, state->program_data.size(), state->header, state->file_size));
  state->program = et_pte::GetProgram(bytes);

  const auto* cs = state->program->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    if (state->program->constant_buffer() != nullptr && state->program->constant_buffer()->size() > 0) {
      return set_last_error(Error::InvalidProgram, "program has both a constant segment and inline constants");
    }
    Result<FreeableBuffer> seg = state->load_segment(cs->segment_index(), DataLoader::SegmentInfo::Type::Constant);
    if (!seg.ok()) return set_last_error(seg.error(), "cannot read the constant segment");
    state->constant_segment = std::move(*seg);
  }
  for (const auto* plan : *state->program->execution_plan()) state->plans.push_back(internal::PlanView{plan});
  if (state->program->named_data() != nullptr && state->program->named_data()->size() > 0) {
    state->named_data = std::make_unique<internal::ProgramNamedData>(state.get());
  }
  return Program(std::move(state));
}

size_t Program::num_methods() const { return state_->plans.size(); }

Result<const char*> Program::get_method_name(size_t index) const {
  if (index >= state_->plans.size())
    return set_last_error(Error::InvalidArgument, "method index %zu out of range", index);
  return state_->plans[index].plan->name()->c_str();
}

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  if (method_name == nullptr) return Error::InvalidArgument;
  for (const auto& pv : state_->plans) {
    if (std::strcmp(pv.plan->name()->c_str(), method_name) == 0) return MethodMeta(&pv);
  }
  std::string names;
  for (const auto& pv : state_->plans) names += std::string(names.empty() ? "" : ", ") + pv.plan->name()->c_str();
  return set_last_error(Error::InvalidArgument, "the program has no method '%s' (it has: %s)", method_name,
                        names.c_str());
}

const NamedDataMap* Program::get_named_data_map() const { return state_->named_data.get(); }

}  // namespace runtime
}  // namespace executorch
