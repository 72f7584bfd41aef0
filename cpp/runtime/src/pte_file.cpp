// Reading and checking the .pte container: identifier, extended header, flatbuffer verification and a
// consistency check of every index, size and offset the runtime later uses without checking again.
#include <cstring>

#include <executorch/runtime/executor/program_validation.h>

#include "internal.h"
#include "program_state.h"

namespace executorch {
namespace runtime {
namespace internal {
namespace {

constexpr size_t kMaxRank = 16;
// Largest planned arena or tensor this runtime accepts (1 TiB); anything larger is treated as corrupt.
constexpr uint64_t kMaxBytes = uint64_t(1) << 40;

uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

#define ET_BAD(...) return set_last_error(Error::InvalidProgram, __VA_ARGS__)

// The flatbuffers verifier checks the alignment of a vector's length prefix, not of its 8-byte elements.
template <typename T>
bool aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

}  // namespace

Error parse_pte_header(const uint8_t* head, size_t head_size, size_t file_size, PteHeader* out) {
  if (head_size < 8) ET_BAD("file is %zu bytes, too small to be a .pte program", file_size);
  if (std::memcmp(head + 4, "ET12", 4) != 0) {
    if (head[4] == 'E' && head[5] == 'T') {
      ET_BAD("program format version %c%c%c%c is not supported; this runtime reads ET12 (ExecuTorch 1.x exports)",
             head[4], head[5], head[6], head[7]);
    }
    ET_BAD("not an ExecuTorch program: the file identifier is not ET12");
  }
  *out = PteHeader{};
  if (head_size >= 16 && std::memcmp(head + 8, "eh00", 4) == 0) {
    const uint32_t len = read_u32(head + 12);
    if (len < 24 || head_size < 8 + size_t(len)) ET_BAD("extended header length %u is invalid", len);
    out->has_extended_header = true;
    out->program_size = read_u64(head + 16);
    out->segment_base_offset = read_u64(head + 24);
    out->segment_data_size = len >= 32 ? read_u64(head + 32) : 0;
    if (out->program_size < 8 || out->program_size > file_size) {
      ET_BAD("extended header says the program is %llu bytes but the file has %zu (truncated file?)",
             (unsigned long long)out->program_size, file_size);
    }
    if (out->segment_base_offset != 0) {
      if (out->segment_base_offset < out->program_size) ET_BAD("segments start inside the program data");
      if (!range_ok(out->segment_base_offset, out->segment_data_size, file_size)) {
        ET_BAD("segment data (%llu bytes at offset %llu) extends past the end of the %zu-byte file (truncated?)",
               (unsigned long long)out->segment_data_size, (unsigned long long)out->segment_base_offset, file_size);
      }
    }
  } else {
    out->program_size = file_size;
  }
  return Error::Ok;
}

uint64_t tensor_nbytes(const et_pte::Tensor* t) {
  uint64_t n = elementSize(static_cast<etensor::ScalarType>(t->scalar_type()));
  if (t->sizes() != nullptr) {
    for (int32_t s : *t->sizes()) n *= static_cast<uint64_t>(s);
  }
  return n;
}

namespace {

struct Checker {
  const et_pte::Program* program;
  const PteHeader& header;
  size_t file_size;
  uint64_t segments_total = 0;

  uint64_t segment_size(uint32_t i) const { return (*program->segments())[i]->size(); }
  size_t num_segments() const { return program->segments() ? program->segments()->size() : 0; }

  Error check_segments() {
    const size_t n = num_segments();
    if (n == 0) return Error::Ok;
    if (!header.has_extended_header || header.segment_base_offset == 0) {
      // The exporter writes the extended header only when some segment holds data; empty segments (e.g. the
      // constant segment of a program without constants) may be listed without it.
      for (size_t i = 0; i < n; ++i) {
        const auto* s = (*program->segments())[i];
        if (s == nullptr || s->size() != 0) ET_BAD("program lists segment %zu but the file has no segment data", i);
      }
      return Error::Ok;
    }
    // Files written before segment_data_size existed leave it 0: bound by the file instead.
    const uint64_t limit =
        header.segment_data_size != 0 ? header.segment_data_size : file_size - header.segment_base_offset;
    for (size_t i = 0; i < n; ++i) {
      const auto* s = (*program->segments())[i];
      if (s == nullptr) ET_BAD("segment %zu is missing", i);
      if (!range_ok(s->offset(), s->size(), limit)) {
        ET_BAD("segment %zu (%llu bytes at %llu) lies outside the segment data (%llu bytes)", i,
               (unsigned long long)s->size(), (unsigned long long)s->offset(), (unsigned long long)limit);
      }
    }
    return Error::Ok;
  }

  Error check_subsegment(const et_pte::SubsegmentOffsets* sub, const char* what) {
    if (sub != nullptr && !aligned(sub->offsets())) ET_BAD("%s offsets are misaligned", what);
    if (sub == nullptr || sub->offsets() == nullptr || sub->offsets()->size() <= 1) return Error::Ok;
    if (sub->segment_index() >= num_segments()) {
      ET_BAD("%s refers to segment %u but the program has %zu", what, sub->segment_index(), num_segments());
    }
    const uint64_t size = segment_size(sub->segment_index());
    for (uint64_t off : *sub->offsets()) {
      if (off > size)
        ET_BAD("%s offset %llu is past its segment (%llu bytes)", what, (unsigned long long)off,
               (unsigned long long)size);
    }
    return Error::Ok;
  }

  Error check_tensor(const et_pte::Tensor* t, size_t vi) {
    const auto st = static_cast<etensor::ScalarType>(t->scalar_type());
    if (!etensor::isValid(st)) ET_BAD("value %zu: unknown tensor dtype %d", vi, int(t->scalar_type()));
    const size_t rank = t->sizes() ? t->sizes()->size() : 0;
    if (rank > kMaxRank) ET_BAD("value %zu: tensor rank %zu exceeds the maximum of %zu", vi, rank, kMaxRank);
    const size_t order_len = t->dim_order() ? t->dim_order()->size() : 0;
    if (order_len != rank) ET_BAD("value %zu: dim_order has %zu entries for a rank-%zu tensor", vi, order_len, rank);
    bool seen[kMaxRank] = {};
    for (size_t i = 0; i < rank; ++i) {
      const uint8_t d = t->dim_order()->Get(i);
      if (d >= rank || seen[d]) ET_BAD("value %zu: dim_order is not a permutation", vi);
      seen[d] = true;
    }
    const uint64_t esize = elementSize(st);
    uint64_t numel = 1;
    uint64_t span = 1;  // product of sizes with 0 counted as 1: the largest stride
    for (size_t i = 0; i < rank; ++i) {
      const int32_t s = t->sizes()->Get(i);
      if (s < 0) ET_BAD("value %zu: negative size %d", vi, s);
      // Strides are 32-bit, so a tensor holds fewer than 2^31 elements.
      numel *= static_cast<uint64_t>(s);
      span *= static_cast<uint64_t>(s == 0 ? 1 : s);
      if (span > uint64_t(INT32_MAX)) ET_BAD("value %zu: tensor of absurd size", vi);
    }
    const uint64_t n = numel * esize;
    if (t->storage_offset() != 0) ET_BAD("value %zu: storage_offset %d is not supported", vi, t->storage_offset());
    const auto dyn = t->shape_dynamism();
    if (dyn == et_pte::TensorShapeDynamism::DYNAMIC_UNBOUND) {
      return set_last_error(Error::NotSupported, "value %zu: tensors with unbounded dynamic shape are not supported",
                            vi);
    }
    if (dyn != et_pte::TensorShapeDynamism::STATIC && dyn != et_pte::TensorShapeDynamism::DYNAMIC_BOUND) {
      ET_BAD("value %zu: unknown shape dynamism %d", vi, int(dyn));
    }
    if (t->extra_tensor_info() != nullptr) {
      const auto* info = t->extra_tensor_info();
      const auto loc = info->location();
      if (loc != et_pte::TensorDataLocation::SEGMENT && loc != et_pte::TensorDataLocation::EXTERNAL) {
        ET_BAD("value %zu: unknown tensor data location %d", vi, int(loc));
      }
      if (loc == et_pte::TensorDataLocation::EXTERNAL) {
        // Its data comes from a data file (.ptd), looked up by this name when the method loads.
        if (info->fully_qualified_name() == nullptr || info->fully_qualified_name()->size() == 0) {
          ET_BAD("value %zu: external tensor without a fully qualified name", vi);
        }
        if (t->allocation_info() != nullptr && t->allocation_info()->memory_id() == 0) {
          ET_BAD("value %zu: memory_id 0 is reserved", vi);
        }
        return Error::Ok;
      }
      if (info->device_type() != et_pte::DeviceType::CPU && info->device_type() != et_pte::DeviceType::CUDA) {
        ET_BAD("value %zu: unknown device type %d", vi, int(info->device_type()));
      }
    }
    const uint32_t idx = t->data_buffer_idx();
    if (t->allocation_info() != nullptr) {
      const auto* a = t->allocation_info();
      if (a->memory_id() == 0) ET_BAD("value %zu: memory_id 0 is reserved", vi);
      if (idx > 0) {
        const auto* m = program->mutable_data_segments();
        if (m == nullptr || m->size() == 0 || (*m)[0]->offsets() == nullptr || idx >= (*m)[0]->offsets()->size()) {
          ET_BAD("value %zu: initial data index %u has no entry in mutable_data_segments", vi, idx);
        }
        const uint64_t off = (*m)[0]->offsets()->Get(idx);
        if (!range_ok(off, n, segment_size((*m)[0]->segment_index()))) {
          ET_BAD("value %zu: initial data lies outside its segment", vi);
        }
      }
    } else if (idx > 0) {
      const auto* cs = program->constant_segment();
      if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
        if (idx >= cs->offsets()->size()) {
          ET_BAD("value %zu: constant index %u out of range (%u constants)", vi, idx, cs->offsets()->size());
        }
        if (!range_ok(cs->offsets()->Get(idx), n, segment_size(cs->segment_index()))) {
          ET_BAD("value %zu: constant data lies outside the constant segment", vi);
        }
        if (cs->offsets()->Get(idx) % esize != 0) ET_BAD("value %zu: constant data is misaligned", vi);
      } else {
        const auto* cb = program->constant_buffer();
        if (cb == nullptr || idx >= cb->size()) ET_BAD("value %zu: constant index %u out of range", vi, idx);
        const auto* storage = (*cb)[idx]->storage();
        if (storage == nullptr || storage->size() < n) ET_BAD("value %zu: constant buffer too small", vi);
      }
    }
    return Error::Ok;
  }

  static bool is_type(const et_pte::ExecutionPlan* plan, int64_t idx, et_pte::KernelTypes type) {
    return (*plan->values())[static_cast<uint32_t>(idx)]->val_type() == type;
  }

  Error check_plan(const et_pte::ExecutionPlan* plan, size_t pi) {
    if (plan->name() == nullptr) ET_BAD("method %zu has no name", pi);
    const char* name = plan->name()->c_str();
    const size_t nv = plan->values() ? plan->values()->size() : 0;
    auto in_range = [&](int64_t i) { return i >= 0 && static_cast<uint64_t>(i) < nv; };
    for (size_t vi = 0; vi < nv; ++vi) {
      const auto* v = (*plan->values())[vi];
      if (v == nullptr) ET_BAD("%s: value %zu is missing", name, vi);
      if (v->val_type() != et_pte::KernelTypes::Null && v->val() == nullptr) {
        ET_BAD("%s: value %zu has no payload", name, vi);
      }
      switch (v->val_type()) {
        case et_pte::KernelTypes::Null: break;
        case et_pte::KernelTypes::Int:
        case et_pte::KernelTypes::Bool:
        case et_pte::KernelTypes::Double: break;
        case et_pte::KernelTypes::String:
          if (v->val_as_String()->string_val() == nullptr) ET_BAD("%s: string value %zu is empty", name, vi);
          break;
        case et_pte::KernelTypes::Tensor: ET_CHECK_OK_OR_RETURN_ERROR(check_tensor(v->val_as_Tensor(), vi)); break;
        case et_pte::KernelTypes::IntList: {
          const auto* items = v->val_as_IntList()->items();
          if (items == nullptr || !aligned(items)) ET_BAD("%s: value %zu: int list is missing or misaligned", name, vi);
          for (int64_t it : *items) {
            if (!in_range(it) || !is_type(plan, it, et_pte::KernelTypes::Int)) {
              ET_BAD("%s: value %zu: int list item %lld is not an Int value", name, vi, (long long)it);
            }
          }
          break;
        }
        case et_pte::KernelTypes::DoubleList:
          if (v->val_as_DoubleList()->items() == nullptr || !aligned(v->val_as_DoubleList()->items())) {
            ET_BAD("%s: value %zu: double list is missing or misaligned", name, vi);
          }
          break;
        case et_pte::KernelTypes::BoolList:
          if (v->val_as_BoolList()->items() == nullptr) ET_BAD("%s: value %zu: list without items", name, vi);
          break;
        case et_pte::KernelTypes::TensorList: {
          const auto* items = v->val_as_TensorList()->items();
          if (items == nullptr) ET_BAD("%s: value %zu: tensor list without items", name, vi);
          for (int32_t it : *items) {
            if (!in_range(it) || !is_type(plan, it, et_pte::KernelTypes::Tensor)) {
              ET_BAD("%s: value %zu: tensor list item %d is not a Tensor value", name, vi, it);
            }
          }
          break;
        }
        case et_pte::KernelTypes::OptionalTensorList: {
          const auto* items = v->val_as_OptionalTensorList()->items();
          if (items == nullptr) ET_BAD("%s: value %zu: optional tensor list without items", name, vi);
          for (int32_t it : *items) {
            if (it == -1) continue;
            if (!in_range(it) ||
                !(is_type(plan, it, et_pte::KernelTypes::Tensor) || is_type(plan, it, et_pte::KernelTypes::Null))) {
              ET_BAD("%s: value %zu: optional tensor list item %d is not a Tensor or None", name, vi, it);
            }
          }
          break;
        }
        default: ET_BAD("%s: value %zu has unknown type %d", name, vi, int(v->val_type()));
      }
    }
    for (const auto* list : {plan->inputs(), plan->outputs()}) {
      if (list == nullptr) continue;
      for (int32_t i : *list) {
        if (!in_range(i)) ET_BAD("%s: input/output value index %d out of range (%zu values)", name, i, nv);
      }
    }
    const size_t nops = plan->operators() ? plan->operators()->size() : 0;
    for (size_t i = 0; i < nops; ++i) {
      const auto* op = (*plan->operators())[i];
      if (op == nullptr || op->name() == nullptr) ET_BAD("%s: operator %zu has no name", name, i);
      const size_t len = op->name()->size() + (op->overload() ? op->overload()->size() : 0);
      if (len > 250) ET_BAD("%s: operator %zu has a name of %zu characters", name, i, len);
    }
    const size_t ndel = plan->delegates() ? plan->delegates()->size() : 0;
    for (size_t i = 0; i < ndel; ++i) {
      const auto* d = (*plan->delegates())[i];
      if (d == nullptr || d->id() == nullptr || d->processed() == nullptr) {
        ET_BAD("%s: delegate %zu is incomplete", name, i);
      }
      const auto* ref = d->processed();
      if (ref->location() == et_pte::DataLocation::INLINE) {
        const auto* inl = program->backend_delegate_data();
        if (inl == nullptr || ref->index() >= inl->size() || (*inl)[ref->index()]->data() == nullptr) {
          ET_BAD("%s: delegate %zu refers to missing inline data %u", name, i, ref->index());
        }
      } else if (ref->location() == et_pte::DataLocation::SEGMENT) {
        if (ref->index() >= num_segments())
          ET_BAD("%s: delegate %zu refers to missing segment %u", name, i, ref->index());
      } else {
        ET_BAD("%s: delegate %zu has unknown data location", name, i);
      }
      if (d->compile_specs() != nullptr) {
        for (const auto* cs : *d->compile_specs()) {
          if (cs == nullptr || cs->key() == nullptr) ET_BAD("%s: delegate %zu has a compile spec without key", name, i);
        }
      }
    }
    if (!aligned(plan->non_const_buffer_sizes())) ET_BAD("%s: planned buffer sizes are misaligned", name);
    if (plan->non_const_buffer_sizes() != nullptr) {
      uint64_t total = 0;
      for (int64_t s : *plan->non_const_buffer_sizes()) {
        if (s < 0 || add_overflows(total, static_cast<uint64_t>(s), &total) || total > kMaxBytes) {
          ET_BAD("%s: planned memory size %lld is invalid", name, (long long)s);
        }
      }
    }
    // Planned tensors must fit their arena.
    const size_t nbuf = plan->non_const_buffer_sizes() ? plan->non_const_buffer_sizes()->size() : 0;
    if (plan->non_const_buffer_device() != nullptr) {
      for (const auto* d : *plan->non_const_buffer_device()) {
        if (d == nullptr || d->buffer_idx() < 1 || static_cast<size_t>(d->buffer_idx()) >= nbuf) {
          ET_BAD("%s: a planned-buffer device names no planned buffer", name);
        }
        if (d->device_type() != et_pte::DeviceType::CPU && d->device_type() != et_pte::DeviceType::CUDA) {
          ET_BAD("%s: planned buffer %d has unknown device type %d", name, d->buffer_idx(), int(d->device_type()));
        }
      }
    }
    for (size_t vi = 0; vi < nv; ++vi) {
      const auto* v = (*plan->values())[vi];
      if (v->val_type() != et_pte::KernelTypes::Tensor) continue;
      const auto* a = v->val_as_Tensor()->allocation_info();
      if (a == nullptr) continue;
      if (a->memory_id() >= nbuf) ET_BAD("%s: value %zu: memory_id %u has no planned buffer", name, vi, a->memory_id());
      const uint64_t off = uint64_t(a->memory_offset_low()) | (uint64_t(a->memory_offset_high()) << 32);
      const uint64_t size = static_cast<uint64_t>(plan->non_const_buffer_sizes()->Get(a->memory_id()));
      const auto* t = v->val_as_Tensor();
      if (!range_ok(off, tensor_nbytes(t), size)) {
        ET_BAD("%s: value %zu lies outside planned buffer %u", name, vi, a->memory_id());
      }
      if (off % elementSize(static_cast<etensor::ScalarType>(t->scalar_type())) != 0) {
        ET_BAD("%s: value %zu is misaligned in planned buffer %u", name, vi, a->memory_id());
      }
    }
    const size_t nchains = plan->chains() ? plan->chains()->size() : 0;
    for (size_t ci = 0; ci < nchains; ++ci) {
      const auto* chain = (*plan->chains())[ci];
      if (chain == nullptr) ET_BAD("%s: chain %zu is missing", name, ci);
      const size_t ni = chain->instructions() ? chain->instructions()->size() : 0;
      for (size_t ii = 0; ii < ni; ++ii) {
        const auto* ins = (*chain->instructions())[ii];
        if (ins == nullptr || ins->instr_args() == nullptr) ET_BAD("%s: instruction %zu is empty", name, ii);
        auto check_args = [&](const flatbuffers::Vector<int32_t>* args) -> Error {
          if (args == nullptr) return Error::Ok;
          for (int32_t a : *args) {
            if (!in_range(a)) ET_BAD("%s: instruction %zu: argument %d out of range (%zu values)", name, ii, a, nv);
          }
          return Error::Ok;
        };
        switch (ins->instr_args_type()) {
          case et_pte::InstructionArguments::KernelCall: {
            const auto* k = ins->instr_args_as_KernelCall();
            if (k->op_index() < 0 || static_cast<size_t>(k->op_index()) >= nops) {
              ET_BAD("%s: instruction %zu: operator index %d out of range (%zu operators)", name, ii, k->op_index(),
                     nops);
            }
            ET_CHECK_OK_OR_RETURN_ERROR(check_args(k->args()));
            break;
          }
          case et_pte::InstructionArguments::DelegateCall: {
            const auto* d = ins->instr_args_as_DelegateCall();
            if (d->delegate_index() < 0 || static_cast<size_t>(d->delegate_index()) >= ndel) {
              ET_BAD("%s: instruction %zu: delegate index %d out of range", name, ii, d->delegate_index());
            }
            ET_CHECK_OK_OR_RETURN_ERROR(check_args(d->args()));
            break;
          }
          case et_pte::InstructionArguments::MoveCall: {
            const auto* m = ins->instr_args_as_MoveCall();
            if (!in_range(m->move_from()) || !in_range(m->move_to())) {
              ET_BAD("%s: instruction %zu: move index out of range", name, ii);
            }
            if ((*plan->values())[m->move_from()]->val_type() != (*plan->values())[m->move_to()]->val_type()) {
              ET_BAD("%s: instruction %zu: move between values of different types", name, ii);
            }
            break;
          }
          case et_pte::InstructionArguments::JumpFalseCall: {
            const auto* j = ins->instr_args_as_JumpFalseCall();
            if (!in_range(j->cond_value_index())) ET_BAD("%s: instruction %zu: condition out of range", name, ii);
            if (j->destination_instruction() < 0 || static_cast<size_t>(j->destination_instruction()) > ni) {
              ET_BAD("%s: instruction %zu: jump destination out of range", name, ii);
            }
            break;
          }
          case et_pte::InstructionArguments::FreeCall: {
            const auto* f = ins->instr_args_as_FreeCall();
            if (!in_range(f->value_index()) || !is_type(plan, f->value_index(), et_pte::KernelTypes::Tensor)) {
              ET_BAD("%s: instruction %zu: free of a value that is not a tensor", name, ii);
            }
            break;
          }
          default: ET_BAD("%s: instruction %zu has unknown kind %d", name, ii, int(ins->instr_args_type()));
        }
      }
    }
    return Error::Ok;
  }

  Error run() {
    ET_CHECK_OK_OR_RETURN_ERROR(check_segments());
    ET_CHECK_OK_OR_RETURN_ERROR(check_subsegment(program->constant_segment(), "constant segment"));
    if (program->mutable_data_segments() != nullptr) {
      for (const auto* m : *program->mutable_data_segments()) {
        if (m == nullptr) ET_BAD("mutable data segment entry is missing");
        ET_CHECK_OK_OR_RETURN_ERROR(check_subsegment(m, "mutable data segment"));
      }
    }
    if (program->named_data() != nullptr) {
      for (const auto* nd : *program->named_data()) {
        if (nd == nullptr || nd->key() == nullptr) ET_BAD("named data entry without key");
        if (nd->segment_index() >= num_segments()) {
          ET_BAD("named data '%s' refers to missing segment %u", nd->key()->c_str(), nd->segment_index());
        }
      }
    }
    if (program->execution_plan() == nullptr || program->execution_plan()->size() == 0) {
      ET_BAD("program has no methods");
    }
    for (size_t i = 0; i < program->execution_plan()->size(); ++i) {
      const auto* plan = (*program->execution_plan())[i];
      if (plan == nullptr) ET_BAD("method %zu is missing", i);
      ET_CHECK_OK_OR_RETURN_ERROR(check_plan(plan, i));
    }
    return Error::Ok;
  }
};

}  // namespace

Error verify_program(const uint8_t* data, size_t size, const PteHeader& header, size_t file_size) {
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/10000000);
  if (!et_pte::VerifyProgramBuffer(verifier)) {
    ET_BAD("program data is corrupt (flatbuffer verification failed)");
  }
  Checker checker{et_pte::GetProgram(data), header, file_size};
  return checker.run();
}

}  // namespace internal
}  // namespace runtime
}  // namespace executorch

// Upstream's validation entry points (runtime/executor/program_validation.h), over the same wire format.
namespace executorch {
namespace runtime {

Error validate_tensor(const executorch_flatbuffer::Tensor* tensor) {
  const auto* t = reinterpret_cast<const et_pte::Tensor*>(tensor);
  if (t == nullptr || t->sizes() == nullptr) return set_last_error(Error::InvalidProgram, "tensor without sizes");
  const auto type = static_cast<etensor::ScalarType>(t->scalar_type());
  if (!etensor::isValid(type)) return set_last_error(Error::InvalidProgram, "unknown tensor dtype %d", int(type));
  uint64_t nbytes = elementSize(type);
  for (int32_t s : *t->sizes()) {
    if (s < 0) return set_last_error(Error::InvalidProgram, "negative tensor size %d", s);
    if (internal::mul_overflows(nbytes, static_cast<uint64_t>(s), &nbytes)) {
      return set_last_error(Error::InvalidProgram, "tensor byte size overflows");
    }
  }
  return Error::Ok;
}

Error validate_program(const executorch_flatbuffer::Program* program) {
  const auto* p = reinterpret_cast<const et_pte::Program*>(program);
  if (p == nullptr || p->execution_plan() == nullptr) {
    return set_last_error(Error::InvalidProgram, "program without execution plans");
  }
  for (const auto* plan : *p->execution_plan()) {
    if (plan == nullptr || plan->values() == nullptr) {
      return set_last_error(Error::InvalidProgram, "method without values");
    }
    for (const auto* v : *plan->values()) {
      if (v == nullptr || v->val_type() != et_pte::KernelTypes::Tensor) continue;
      ET_CHECK_OK_OR_RETURN_ERROR(
          validate_tensor(reinterpret_cast<const executorch_flatbuffer::Tensor*>(v->val_as_Tensor())));
    }
  }
  return Error::Ok;
}

}  // namespace runtime
}  // namespace executorch
