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

Result<PteDataMap> PteDataMap::create(const ProgramState* program) {
  if (program == nullptr || program->program->named_data() == nullptr) return Error::InvalidArgument;
  return PteDataMap(program);
}

Result<const TensorLayout> PteDataMap::get_tensor_layout(std::string_view) const { return Error::NotImplemented; }

Result<FreeableBuffer> PteDataMap::get_data(std::string_view key) const {
  for (const auto* nd : *program_->program->named_data()) {
    if (nd->key()->string_view() == key) {
      return program_->load_segment(nd->segment_index(), DataLoader::SegmentInfo::Type::External);
    }
  }
  return set_last_error(Error::NotFound, "named data '%.*s' is not in the program", static_cast<int>(key.size()),
                        key.data());
}

Error PteDataMap::load_data_into(std::string_view, void*, size_t) const { return Error::NotImplemented; }

Result<uint32_t> PteDataMap::get_num_keys() const { return program_->program->named_data()->size(); }

Result<const char*> PteDataMap::get_key(uint32_t index) const {
  if (index >= program_->program->named_data()->size()) return Error::InvalidArgument;
  return (*program_->program->named_data())[index]->key()->c_str();
}

}  // namespace internal

Program::Program(std::shared_ptr<internal::ProgramState> state) : state_(std::move(state)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Program::HeaderStatus Program::check_header(const void* data, size_t size) {
  if (data == nullptr || size < kMinHeadBytes) return HeaderStatus::ShortData;
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
  if (state->program->named_data() != nullptr) {
    Result<internal::PteDataMap> map = internal::PteDataMap::create(state.get());
    if (!map.ok()) return map.error();
    state->named_data.emplace(std::move(*map));
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

Result<const NamedDataMap*> Program::get_named_data_map() const {
  if (!state_->named_data.has_value()) return Error::NotFound;
  return static_cast<const NamedDataMap*>(&*state_->named_data);
}

Result<const void*> Program::get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const {
  const auto* program = state_->program;
  const auto* cs = program->constant_segment();
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    if (buffer_idx >= cs->offsets()->size()) {
      return set_last_error(Error::InvalidArgument, "constant buffer %zu out of range (%u buffers)", buffer_idx,
                            cs->offsets()->size());
    }
    const uint64_t offset = cs->offsets()->Get(static_cast<uint32_t>(buffer_idx));
    if (!internal::range_ok(offset, nbytes, state_->constant_segment.size())) {
      return set_last_error(Error::InvalidArgument, "constant buffer %zu holds fewer than %zu bytes", buffer_idx,
                            nbytes);
    }
    return static_cast<const void*>(static_cast<const uint8_t*>(state_->constant_segment.data()) + offset);
  }
  const auto* cb = program->constant_buffer();
  if (cb == nullptr || buffer_idx >= cb->size()) {
    return set_last_error(Error::InvalidArgument, "constant buffer %zu out of range", buffer_idx);
  }
  const auto* storage = (*cb)[static_cast<uint32_t>(buffer_idx)]->storage();
  if (storage == nullptr || storage->size() < nbytes) {
    return set_last_error(Error::InvalidArgument, "constant buffer %zu holds fewer than %zu bytes", buffer_idx, nbytes);
  }
  return static_cast<const void*>(storage->data());
}

Result<const char*> Program::get_output_flattening_encoding(const char* method_name) const {
  if (method_name == nullptr) return Error::InvalidArgument;
  for (const auto& pv : state_->plans) {
    if (std::strcmp(pv.plan->name()->c_str(), method_name) != 0) continue;
    const auto* meta = pv.plan->container_meta_type();
    if (meta == nullptr || meta->encoded_out_str() == nullptr) return Error::NotFound;
    return meta->encoded_out_str()->c_str();
  }
  return set_last_error(Error::InvalidArgument, "the program has no method '%s'", method_name);
}

}  // namespace runtime
}  // namespace executorch
