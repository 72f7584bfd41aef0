// CudaBackend payload reader (docs/cuda.md): "ETCUDA01" + u64 length + an ET12 Program flatbuffer holding one
// plan of KernelCalls. Everything is checked here, on the host, before any device is touched: the flatbuffer with
// the flatbuffers verifier, then every index, type and argument, then a dry run of the shape planning with the
// serialized shapes. Upstream AOTInductor payloads (a compiled .so) are recognised and rejected by name.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include <executorch/runtime/core/error.h>

#include "executor.h"
#include "graph.h"
#include "program_generated.h"

namespace etcuda {
namespace {

using executorch::runtime::set_last_error;

constexpr int64_t kMaxNumel = int64_t(1) << 42;
constexpr const char kMagic[] = "ETCUDA01";
constexpr const char kAotiMessage[] =
    "this is an upstream AOTInductor CUDA payload (a compiled .so); this runtime does not run AOTInductor code; "
    "lower a portable program with `python -m executorch.lower --backend cuda in.pte -o out.pte`";

// The operator called `name` ("name.overload") when ops.def has it.
bool find_op(const std::string& name, Op* op) {
  for (size_t i = 0; i < kNumOps; ++i) {
    if (name == kOps[i].name) {
      *op = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

bool contains_ci(const std::string& hay, const char* needle) {
  std::string h = hay, n = needle;
  for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return h.find(n) != std::string::npos;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Signs of an upstream AOTInductor CUDA lowering: its compile specs ("method_name", ...) and named data
// ("<method>_so_blob", "<method>_weights_blob").
bool looks_like_aoti(ArrayRef<CompileSpec> specs, const NamedDataMap* named_data) {
  for (const CompileSpec& cs : specs) {
    const std::string key = cs.key ? cs.key : "";
    std::string value;
    if (cs.value.buffer != nullptr && cs.value.nbytes < 4096) {
      value.assign(static_cast<const char*>(cs.value.buffer), cs.value.nbytes);
    }
    if (key == "method_name" || contains_ci(key, "aoti") || contains_ci(key, "inductor") ||
        contains_ci(value, "aoti") || ends_with(value, ".so")) {
      return true;
    }
  }
  if (named_data != nullptr) {
    auto n = named_data->get_num_keys();
    if (n.ok()) {
      for (uint32_t i = 0; i < *n && i < 100000; ++i) {
        auto k = named_data->get_key(i);
        if (!k.ok() || *k == nullptr) continue;
        const std::string key = *k;
        if (ends_with(key, "_so_blob") || contains_ci(key, "aoti")) return true;
      }
    }
  }
  return false;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "None";
    case Kind::Int: return "Int";
    case Kind::Double: return "Double";
    case Kind::Bool: return "Bool";
    case Kind::String: return "String";
    case Kind::IntList: return "IntList";
    case Kind::DoubleList: return "DoubleList";
    case Kind::BoolList: return "BoolList";
    case Kind::Tensor: return "Tensor";
    case Kind::TensorList: return "TensorList";
    case Kind::OptionalTensorList: return "OptionalTensorList";
  }
  return "?";
}

// The argument letters of ops.def: the value kinds each accepts, and how a mismatch names what it wanted.
struct ArgKind {
  char letter;
  uint16_t kinds;  // a bit per Kind
  const char* want;
};
constexpr uint16_t bit(Kind k) { return static_cast<uint16_t>(1u << static_cast<unsigned>(k)); }
constexpr uint16_t kScalar = bit(Kind::Int) | bit(Kind::Double) | bit(Kind::Bool);
constexpr ArgKind kArgKinds[] = {
    {'T', bit(Kind::Tensor), "Tensor"},                            // tensor
    {'O', bit(Kind::Tensor), "Tensor"},                            // output tensor (written by the call)
    {'t', bit(Kind::Tensor) | bit(Kind::None), "Tensor or None"},  // optional tensor
    {'L', bit(Kind::TensorList), "TensorList"},                    // tensor list
    {'S', kScalar, "Scalar"},                                      // scalar
    {'D', kScalar, "Scalar"},                                      // double
    {'s', kScalar | bit(Kind::None), "Scalar or None"},            // optional scalar
    {'I', bit(Kind::Int) | bit(Kind::Bool), "Int"},                // int
    {'i', bit(Kind::Int) | bit(Kind::None), "Int or None"},        // optional int
    {'B', bit(Kind::Bool), "Bool"},                                // bool
    {'N', bit(Kind::IntList), "IntList"},                          // int list
    {'g', bit(Kind::String) | bit(Kind::None), "String or None"},  // optional string
};

Error read_tensor(const et_pte::Program* program, const et_pte::Tensor* t, size_t vi, Value* v) {
  v->kind = Kind::Tensor;
  if (t->scalar_type() != et_pte::ScalarType::FLOAT) {
    return ETCUDA_FAIL(
        Error::NotSupported, "value %zu is a %s tensor; the CUDA delegate runs fp32 tensors only", vi,
        et_pte::EnumNameScalarType(t->scalar_type())[0] ? et_pte::EnumNameScalarType(t->scalar_type()) : "non-float");
  }
  if (t->sizes() == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "tensor value %zu has no sizes", vi);
  const size_t rank = t->sizes()->size();
  if (rank > static_cast<size_t>(kMaxDim)) {
    return ETCUDA_FAIL(Error::NotSupported, "tensor value %zu has rank %zu (the CUDA delegate supports up to %d)", vi,
                       rank, kMaxDim);
  }
  int64_t numel = 1;
  for (size_t k = 0; k < rank; ++k) {
    const int64_t d = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (d < 0) return ETCUDA_FAIL(Error::InvalidProgram, "tensor value %zu has a negative size", vi);
    v->sizes.push_back(d);
    if (d != 0 && numel > kMaxNumel / d) return ETCUDA_FAIL(Error::InvalidProgram, "tensor value %zu is too large", vi);
    numel *= d;
  }
  if (t->dim_order() != nullptr && t->dim_order()->size() != 0) {
    if (t->dim_order()->size() != rank) {
      return ETCUDA_FAIL(Error::InvalidProgram, "tensor value %zu: dim_order has %u entries for rank %zu", vi,
                         t->dim_order()->size(), rank);
    }
    for (size_t k = 0; k < rank; ++k) {
      if (t->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(k)) != k) {
        return ETCUDA_FAIL(Error::NotSupported,
                           "tensor value %zu is not in contiguous dim order (channels-last tensors "
                           "are not supported by the CUDA delegate)",
                           vi);
      }
    }
  }
  if (t->storage_offset() != 0) return ETCUDA_FAIL(Error::InvalidProgram, "tensor value %zu has a storage offset", vi);
  if (t->allocation_info() != nullptr) {
    return ETCUDA_FAIL(Error::InvalidProgram,
                       "tensor value %zu has allocation_info (the CUDA delegate owns its memory; "
                       "the payload's tensors must not be memory-planned)",
                       vi);
  }
  if (t->extra_tensor_info() != nullptr && t->extra_tensor_info()->location() == et_pte::TensorDataLocation::EXTERNAL) {
    return ETCUDA_FAIL(Error::NotSupported,
                       "tensor value %zu refers to external data; the CUDA payload carries its "
                       "constants inline",
                       vi);
  }
  const uint32_t bi = t->data_buffer_idx();
  if (bi != 0) {
    const auto* buffers = program->constant_buffer();
    if (buffers == nullptr || bi >= buffers->size()) {
      return ETCUDA_FAIL(Error::InvalidProgram,
                         "tensor value %zu: constant buffer %u does not exist (the program has %u)", vi, bi,
                         buffers ? buffers->size() : 0u);
    }
    const auto* storage = buffers->Get(bi)->storage();
    const uint64_t need = static_cast<uint64_t>(numel) * sizeof(float);
    if (storage == nullptr || storage->size() < need) {
      return ETCUDA_FAIL(Error::InvalidProgram,
                         "tensor value %zu: constant buffer %u has %u bytes, the tensor needs %llu", vi, bi,
                         storage ? storage->size() : 0u, static_cast<unsigned long long>(need));
    }
    v->constant = true;
    v->data = storage->data();
  }
  return Error::Ok;
}

Error read_values(const et_pte::Program* program, const et_pte::ExecutionPlan* plan, Graph* g) {
  const auto* values = plan->values();
  if (values == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "the plan has no values");
  if (values->size() > kMaxValues) return ETCUDA_FAIL(Error::InvalidProgram, "the plan has too many values");
  const size_t nv = values->size();
  g->values.resize(nv);
  std::vector<std::vector<int32_t>> int_list_items(nv);
  for (size_t i = 0; i < nv; ++i) {
    const auto* ev = values->Get(static_cast<flatbuffers::uoffset_t>(i));
    Value& v = g->values[i];
    if (ev == nullptr || (ev->val_type() != et_pte::KernelTypes::NONE && ev->val() == nullptr)) {
      return ETCUDA_FAIL(Error::InvalidProgram, "value %zu has a type but no data", i);
    }
    switch (ev->val_type()) {
      case et_pte::KernelTypes::Null: v.kind = Kind::None; break;
      case et_pte::KernelTypes::Int:
        v.kind = Kind::Int;
        v.i = ev->val_as_Int()->int_val();
        break;
      case et_pte::KernelTypes::Bool:
        v.kind = Kind::Bool;
        v.b = ev->val_as_Bool()->bool_val();
        break;
      case et_pte::KernelTypes::Double:
        v.kind = Kind::Double;
        v.d = ev->val_as_Double()->double_val();
        break;
      case et_pte::KernelTypes::String: {
        v.kind = Kind::String;
        const auto* s = ev->val_as_String()->string_val();
        if (s != nullptr) v.s = s->str();
        break;
      }
      case et_pte::KernelTypes::IntList: {
        v.kind = Kind::IntList;
        const auto* items = ev->val_as_IntList()->items();
        if (items == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "int list value %zu has no items", i);
        for (int64_t it : *items) {
          if (it < 0 || static_cast<uint64_t>(it) >= nv) {
            return ETCUDA_FAIL(Error::InvalidProgram, "int list value %zu refers to value %lld (the plan has %zu)", i,
                               static_cast<long long>(it), nv);
          }
          int_list_items[i].push_back(static_cast<int32_t>(it));
        }
        break;
      }
      case et_pte::KernelTypes::DoubleList: v.kind = Kind::DoubleList; break;
      case et_pte::KernelTypes::BoolList: v.kind = Kind::BoolList; break;
      case et_pte::KernelTypes::TensorList:
      case et_pte::KernelTypes::OptionalTensorList: {
        const bool optional = ev->val_type() == et_pte::KernelTypes::OptionalTensorList;
        v.kind = optional ? Kind::OptionalTensorList : Kind::TensorList;
        const auto* items = optional ? ev->val_as_OptionalTensorList()->items() : ev->val_as_TensorList()->items();
        if (items == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "tensor list value %zu has no items", i);
        for (int32_t it : *items) {
          if ((it < 0 && !(optional && it == -1)) || (it >= 0 && static_cast<size_t>(it) >= nv)) {
            return ETCUDA_FAIL(Error::InvalidProgram, "tensor list value %zu refers to value %d (the plan has %zu)", i,
                               it, nv);
          }
          v.items.push_back(it);
        }
        break;
      }
      case et_pte::KernelTypes::Tensor: {
        const Error e = read_tensor(program, ev->val_as_Tensor(), i, &v);
        if (e != Error::Ok) return e;
        break;
      }
      default:
        return ETCUDA_FAIL(Error::InvalidProgram, "value %zu has no or an unknown type (%d)", i,
                           static_cast<int>(ev->val_type()));
    }
  }
  // List members, now that every value's kind is known.
  for (size_t i = 0; i < nv; ++i) {
    Value& v = g->values[i];
    if (v.kind == Kind::IntList) {
      for (int32_t it : int_list_items[i]) {
        if (g->values[it].kind != Kind::Int) {
          return ETCUDA_FAIL(Error::InvalidProgram, "int list value %zu: member value %d is a %s, not an Int", i, it,
                             kind_name(g->values[it].kind));
        }
        v.ints.push_back(g->values[it].i);
      }
    } else if (v.kind == Kind::TensorList || v.kind == Kind::OptionalTensorList) {
      for (int32_t it : v.items) {
        if (it >= 0 && g->values[it].kind != Kind::Tensor) {
          return ETCUDA_FAIL(Error::InvalidProgram, "tensor list value %zu: member value %d is a %s, not a Tensor", i,
                             it, kind_name(g->values[it].kind));
        }
      }
    }
  }
  return Error::Ok;
}

Error read_io(const flatbuffers::Vector<int32_t>* list, const char* what, Graph* g, std::vector<int32_t>* out) {
  if (list == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "the plan has no %s", what);
  for (int32_t idx : *list) {
    if (idx < 0 || static_cast<size_t>(idx) >= g->values.size()) {
      return ETCUDA_FAIL(Error::InvalidProgram, "plan %s: value index %d is out of range (the plan has %zu values)",
                         what, idx, g->values.size());
    }
    if (g->values[idx].kind != Kind::Tensor) {
      return ETCUDA_FAIL(Error::NotSupported,
                         "plan %s: value %d is a %s; the CUDA delegate takes and returns tensors only", what, idx,
                         kind_name(g->values[idx].kind));
    }
    out->push_back(idx);
  }
  return Error::Ok;
}

// Checks a call's argument kinds against its operator's argument letters and marks its outputs.
Error check_args(const OpInfo& op, size_t si, Step* step, Graph* g) {
  const size_t n = std::strlen(op.args);
  if (step->args.size() != n) {
    return ETCUDA_FAIL(Error::InvalidProgram, "kernel call %zu (%s) has %zu arguments, expected %zu", si, op.name,
                       step->args.size(), n);
  }
  for (size_t a = 0; a < n; ++a) {
    const int32_t idx = step->args[a];
    const Value& v = g->values[idx];
    const char c = op.args[a];
    bool ok = false;
    const char* want = "";
    for (const ArgKind& k : kArgKinds) {
      if (k.letter != c) continue;
      ok = (k.kinds & bit(v.kind)) != 0;
      want = k.want;
    }
    if (!ok) {
      return ETCUDA_FAIL(Error::InvalidProgram,
                         "kernel call %zu (%s): argument %zu (value %d) is of kind %s, expected %s", si, op.name, a,
                         idx, kind_name(v.kind), want);
    }
    if (c == 'O') {
      if (v.constant || v.input) {
        return ETCUDA_FAIL(Error::InvalidProgram, "kernel call %zu (%s) writes value %d, which is a %s", si, op.name,
                           idx, v.constant ? "constant" : "plan input");
      }
      for (size_t b = 0; b < n; ++b) {
        bool alias = b != a && step->args[b] == idx;
        if (op.args[b] == 'L') {
          for (int32_t it : g->values[step->args[b]].items) alias = alias || it == idx;
        }
        if (alias) {
          return ETCUDA_FAIL(Error::NotSupported, "kernel call %zu (%s): output value %d is also argument %zu", si,
                             op.name, idx, b);
        }
      }
    }
  }
  // Data flow: every tensor read is an input, a constant or written by an earlier call.
  for (size_t a = 0; a < n; ++a) {
    const char c = op.args[a];
    std::vector<int32_t> reads;
    if (c == 'T' || (c == 't' && g->values[step->args[a]].kind == Kind::Tensor)) reads.push_back(step->args[a]);
    if (c == 'L') reads = g->values[step->args[a]].items;
    for (int32_t r : reads) {
      const Value& v = g->values[r];
      if (!v.input && !v.constant && !v.written) {
        return ETCUDA_FAIL(Error::InvalidProgram, "kernel call %zu (%s) reads value %d before anything writes it", si,
                           op.name, r);
      }
    }
  }
  for (size_t a = 0; a < n; ++a) {
    if (op.args[a] == 'O') g->values[step->args[a]].written = true;
  }
  return Error::Ok;
}

}  // namespace

Error parse_payload(const uint8_t* data, size_t size, ArrayRef<CompileSpec> specs, const NamedDataMap* named_data,
                    Graph* g) {
  *g = Graph();
  if (data == nullptr && size != 0) return ETCUDA_FAIL(Error::InvalidArgument, "no payload");
  if (size >= 4 && std::memcmp(data,
                               "\x7f"
                               "ELF",
                               4) == 0)
    return ETCUDA_FAIL(Error::NotSupported, "%s", kAotiMessage);
  if (size < kMagicSize || std::memcmp(data, kMagic, kMagicSize) != 0) {
    if (looks_like_aoti(specs, named_data)) return ETCUDA_FAIL(Error::NotSupported, "%s", kAotiMessage);
    if (size < kMagicSize && (size == 0 || std::memcmp(data, kMagic, size) == 0)) {
      return ETCUDA_FAIL(Error::InvalidProgram, "truncated payload: %zu bytes, the header alone is %zu", size,
                         kHeaderSize);
    }
    char got[3 * kMagicSize + 1] = {};
    for (size_t i = 0; i < kMagicSize && i < size; ++i) {
      std::snprintf(got + 3 * i, 4, i + 1 < kMagicSize && i + 1 < size ? "%02x " : "%02x", data[i]);
    }
    return ETCUDA_FAIL(Error::InvalidProgram,
                       "bad magic: the payload does not start with \"ETCUDA01\" (first bytes: %s); "
                       "produce it with `python -m executorch.lower --backend cuda in.pte -o out.pte`",
                       got);
  }
  if (size < kHeaderSize) {
    return ETCUDA_FAIL(Error::InvalidProgram, "truncated payload: %zu bytes, the header alone is %zu", size,
                       kHeaderSize);
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[kMagicSize + i];
  const uint64_t avail = size - kHeaderSize;
  if (n > avail) {
    return ETCUDA_FAIL(Error::InvalidProgram,
                       "truncated payload: the header announces a %llu-byte program, only %llu "
                       "bytes follow",
                       static_cast<unsigned long long>(n), static_cast<unsigned long long>(avail));
  }
  if (n != avail) {
    return ETCUDA_FAIL(Error::InvalidProgram,
                       "length mismatch: the header announces a %llu-byte program, %llu bytes follow",
                       static_cast<unsigned long long>(n), static_cast<unsigned long long>(avail));
  }
  const uint8_t* fb = data + kHeaderSize;
  if (n < 8 || !flatbuffers::BufferHasIdentifier(fb, et_pte::ProgramIdentifier())) {
    return ETCUDA_FAIL(Error::InvalidProgram, "the embedded program is not an ET12 Program flatbuffer");
  }
  // The verifier and the accessors want the buffer aligned; a copy fixes an odd placement.
  if (reinterpret_cast<uintptr_t>(fb) % 16 != 0) {
    g->storage.resize(static_cast<size_t>((n + 15) / 16));
    std::memcpy(g->storage.data(), fb, static_cast<size_t>(n));
    fb = reinterpret_cast<const uint8_t*>(g->storage.data());
  }
  if (n >= FLATBUFFERS_MAX_BUFFER_SIZE) return ETCUDA_FAIL(Error::NotSupported, "the embedded program is too large");
  flatbuffers::Verifier verifier(fb, static_cast<size_t>(n));
  if (!et_pte::VerifyProgramBuffer(verifier)) {
    return ETCUDA_FAIL(Error::InvalidProgram,
                       "the embedded ET12 program fails flatbuffer verification (damaged payload)");
  }
  const et_pte::Program* program = et_pte::GetProgram(fb);
  if (program->execution_plan() == nullptr || program->execution_plan()->size() != 1) {
    return ETCUDA_FAIL(Error::InvalidProgram, "the embedded program has %u execution plans, expected exactly 1",
                       program->execution_plan() ? program->execution_plan()->size() : 0u);
  }
  const et_pte::ExecutionPlan* plan = program->execution_plan()->Get(0);
  Error e = read_values(program, plan, g);
  if (e != Error::Ok) return e;
  e = read_io(plan->inputs(), "inputs", g, &g->inputs);
  if (e != Error::Ok) return e;
  e = read_io(plan->outputs(), "outputs", g, &g->outputs);
  if (e != Error::Ok) return e;
  for (int32_t i : g->inputs) {
    if (g->values[i].constant) return ETCUDA_FAIL(Error::InvalidProgram, "plan input value %d is a constant", i);
    if (g->values[i].input) return ETCUDA_FAIL(Error::InvalidProgram, "value %d is listed twice as a plan input", i);
    g->values[i].input = true;
  }
  if (plan->delegates() != nullptr && plan->delegates()->size() != 0) {
    return ETCUDA_FAIL(Error::NotSupported, "the embedded program has nested delegates");
  }

  // Operators: every one must be in ops.def (the list cpp/cuda/operators.txt is generated from).
  std::vector<Op> ops;
  if (plan->operators() != nullptr) {
    for (size_t i = 0; i < plan->operators()->size(); ++i) {
      const auto* o = plan->operators()->Get(static_cast<flatbuffers::uoffset_t>(i));
      std::string name = o->name() ? o->name()->str() : "";
      if (o->overload() != nullptr && o->overload()->size() > 0) name += "." + o->overload()->str();
      Op op;
      if (!find_op(name, &op)) {
        return ETCUDA_FAIL(Error::NotSupported,
                           "operator %zu \"%s\" is not one the CUDA delegate runs (the list is "
                           "cpp/cuda/operators.txt, installed as executorch/cuda_operators.txt)",
                           i, name.c_str());
      }
      ops.push_back(op);
    }
  }

  const auto* chains = plan->chains();
  if (chains == nullptr || chains->size() != 1) {
    return ETCUDA_FAIL(Error::InvalidProgram, "the plan has %u chains, expected exactly 1",
                       chains ? chains->size() : 0u);
  }
  const auto* instructions = chains->Get(0)->instructions();
  const size_t ni = instructions ? instructions->size() : 0;
  if (ni > kMaxSteps) return ETCUDA_FAIL(Error::InvalidProgram, "the plan has too many instructions");
  for (size_t si = 0; si < ni; ++si) {
    const auto* ins = instructions->Get(static_cast<flatbuffers::uoffset_t>(si));
    if (ins->instr_args_type() != et_pte::InstructionArguments::KernelCall) {
      return ETCUDA_FAIL(Error::NotSupported, "instruction %zu is a %s; the CUDA payload holds kernel calls only", si,
                         et_pte::EnumNameInstructionArguments(ins->instr_args_type()));
    }
    const auto* kc = ins->instr_args_as_KernelCall();
    if (kc == nullptr) return ETCUDA_FAIL(Error::InvalidProgram, "instruction %zu has no kernel call data", si);
    if (kc->op_index() < 0 || static_cast<size_t>(kc->op_index()) >= ops.size()) {
      return ETCUDA_FAIL(Error::InvalidProgram, "kernel call %zu: operator index %d is out of range (%zu operators)",
                         si, kc->op_index(), ops.size());
    }
    const Op id = ops[static_cast<size_t>(kc->op_index())];
    const OpInfo& op = kOps[static_cast<size_t>(id)];
    Step step{id, op.name, {}};
    if (kc->args() != nullptr) {
      for (int32_t a : *kc->args()) {
        if (a < 0 || static_cast<size_t>(a) >= g->values.size()) {
          return ETCUDA_FAIL(Error::InvalidProgram,
                             "kernel call %zu (%s): argument value %d is out of range (%zu values)", si, op.name, a,
                             g->values.size());
        }
        step.args.push_back(a);
      }
    }
    e = check_args(op, si, &step, g);
    if (e != Error::Ok) return e;
    g->steps.push_back(std::move(step));
  }
  for (int32_t o : g->outputs) {
    const Value& v = g->values[o];
    if (!v.input && !v.constant && !v.written) {
      return ETCUDA_FAIL(Error::InvalidProgram, "plan output value %d is never written", o);
    }
  }

  // Dry run with the serialized shapes: checks every call's parameters against its operands.
  std::vector<std::vector<int64_t>> shapes;
  for (int32_t i : g->inputs) shapes.push_back(g->values[i].sizes);
  Plan dry;
  return make_plan(*g, shapes, &dry);
}

// ---------------------------------------------------------------------------------------------------------------
// Shape planning

namespace {

using Shape = std::vector<int64_t>;

struct Planner {
  const Graph& g;
  Plan& p;
  size_t si = 0;
  const Step* step = nullptr;

  Error bad(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return ETCUDA_FAIL(Error::InvalidArgument, "kernel call %zu (%s): %s", si, step->name.c_str(), buf);
  }

  int32_t arg(size_t i) const { return step->args[i]; }
  const Value& val(size_t i) const { return g.values[step->args[i]]; }
  const Shape& shape(size_t i) const { return p.shapes[step->args[i]]; }
  bool has_tensor(size_t i) const { return val(i).kind == Kind::Tensor; }
  double scalar(size_t i) const {
    const Value& v = val(i);
    return v.kind == Kind::Int ? static_cast<double>(v.i) : v.kind == Kind::Bool ? (v.b ? 1.0 : 0.0) : v.d;
  }
  int64_t integer(size_t i) const {
    const Value& v = val(i);
    return v.kind == Kind::Bool ? (v.b ? 1 : 0) : v.i;
  }

  Error set_out(size_t i, const Shape& s) {
    if (s.size() > static_cast<size_t>(kMaxDim)) return bad("result rank %zu exceeds %d", s.size(), kMaxDim);
    int64_t n = 1;
    for (int64_t d : s) {
      if (d < 0) return bad("negative result size");
      if (d != 0 && n > kMaxNumel / d) return bad("result too large");
      n *= d;
    }
    p.shapes[arg(i)] = s;
    return Error::Ok;
  }

  static bool norm_dim(int64_t d, int64_t nd, int64_t* out) {
    const int64_t r = nd == 0 ? 1 : nd;
    if (d < -r || d >= r) return false;
    *out = d < 0 ? d + r : d;
    return true;
  }

  static Shape strides_of(const Shape& s) {
    Shape st(s.size(), 1);
    for (int k = static_cast<int>(s.size()) - 2; k >= 0; --k) st[k] = st[k + 1] * s[k + 1];
    return st;
  }

  static Copy contiguous_copy(int32_t src, int32_t dst, int64_t n) {
    Copy c;
    c.src = src;
    c.dst = dst;
    c.desc.ndim = 1;
    c.desc.n = n;
    c.desc.size[0] = n;
    c.desc.src_stride[0] = 1;
    c.desc.dst_stride[0] = 1;
    return c;
  }

  // `from` broadcast to `to` (right-aligned): source strides with 0 on broadcast dims.
  bool broadcast_strides(const Shape& from, const Shape& to, int64_t* strides) {
    if (from.size() > to.size()) return false;
    const Shape fs = strides_of(from);
    const size_t off = to.size() - from.size();
    for (size_t k = 0; k < to.size(); ++k) {
      if (k < off) {
        strides[k] = 0;
        continue;
      }
      const int64_t f = from[k - off];
      if (f == to[k]) {
        strides[k] = f == 1 ? 0 : fs[k - off];
      } else if (f == 1) {
        strides[k] = 0;
      } else {
        return false;
      }
    }
    return true;
  }

  bool cublas_dims(int64_t m, int64_t n, int64_t k, int64_t batch) {
    const int64_t lim = std::numeric_limits<int>::max();
    return m <= lim && n <= lim && k <= lim && batch <= lim && m * k <= kMaxNumel && k * n <= kMaxNumel;
  }

  // ---- the shape rules of ops.def: each checks its call's arguments against the operands' shapes, sets the
  // outputs' shapes and fills the call's StepPlan (sp.fn is the operator's function from ops.def already).

  size_t last() const { return step->args.size() - 1; }  // the output, for the one-output operators

  // gemm: out = alpha * a @ b + beta * (what sp.copies prefill), on cuBLAS.
  Error gemm_fits(const StepPlan& sp) {
    if (!cublas_dims(sp.m, sp.n, sp.k, sp.batch)) return bad("matrix sizes exceed cuBLAS's int range");
    return Error::Ok;
  }

  Error mm(StepPlan& sp) {
    const Shape &a = shape(0), &b = shape(1);
    if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
      return bad("cannot multiply %s by %s", str(a).c_str(), str(b).c_str());
    sp.a = arg(0), sp.b = arg(1), sp.out = arg(2);
    sp.m = a[0], sp.k = a[1], sp.n = b[1];
    if (Error e = set_out(2, {a[0], b[1]}); e != Error::Ok) return e;
    return gemm_fits(sp);
  }

  Error bmm(StepPlan& sp) {
    const Shape &a = shape(0), &b = shape(1);
    if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1]) {
      return bad("cannot batch-multiply %s by %s", str(a).c_str(), str(b).c_str());
    }
    sp.a = arg(0), sp.b = arg(1), sp.out = arg(2);
    sp.batch = a[0], sp.m = a[1], sp.k = a[2], sp.n = b[2];
    if (Error e = set_out(2, {a[0], a[1], b[2]}); e != Error::Ok) return e;
    return gemm_fits(sp);
  }

  Error addmm(StepPlan& sp) {
    const Shape &self = shape(0), &a = shape(1), &b = shape(2);
    if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
      return bad("cannot multiply %s by %s", str(a).c_str(), str(b).c_str());
    const Shape out = {a[0], b[1]};
    sp.a = arg(1), sp.b = arg(2), sp.out = arg(5);
    sp.m = a[0], sp.k = a[1], sp.n = b[1];
    sp.beta = static_cast<float>(scalar(3));
    sp.alpha = static_cast<float>(scalar(4));
    Copy c;
    if (self.size() > 2 || !broadcast_strides(self, out, c.desc.src_stride)) {
      return bad("self %s does not broadcast to %s", str(self).c_str(), str(out).c_str());
    }
    if (sp.beta != 0.f) {
      c.src = arg(0), c.dst = arg(5);
      c.desc.ndim = 2, c.desc.n = out[0] * out[1];
      c.desc.size[0] = out[0], c.desc.size[1] = out[1];
      c.desc.dst_stride[0] = out[1], c.desc.dst_stride[1] = 1;
      sp.copies.push_back(c);
    }
    if (Error e = set_out(5, out); e != Error::Ok) return e;
    return gemm_fits(sp);
  }

  Error linear(StepPlan& sp) {
    const Shape &x = shape(0), &w = shape(1);
    if (x.empty() || w.size() != 2 || x.back() != w[1]) {
      return bad("input %s does not fit weight %s", str(x).c_str(), str(w).c_str());
    }
    Shape out = x;
    out.back() = w[0];
    sp.a = arg(0), sp.b = arg(1), sp.out = arg(3);
    sp.b_transposed = true;
    sp.n = w[0], sp.k = w[1];
    sp.m = 1;
    for (size_t d = 0; d + 1 < x.size(); ++d) sp.m *= x[d];
    if (has_tensor(2)) {
      const Shape& bias = shape(2);
      const int64_t bn = numel_of(bias);
      if (bias.size() > 1 || !(bn == sp.n || bn == 1))
        return bad("bias %s does not fit %lld outputs", str(bias).c_str(), static_cast<long long>(sp.n));
      Copy c;
      c.src = arg(2), c.dst = arg(3);
      c.desc.ndim = 2, c.desc.n = sp.m * sp.n;
      c.desc.size[0] = sp.m, c.desc.size[1] = sp.n;
      c.desc.src_stride[0] = 0, c.desc.src_stride[1] = bn == 1 ? 0 : 1;
      c.desc.dst_stride[0] = sp.n, c.desc.dst_stride[1] = 1;
      sp.copies.push_back(c);
      sp.beta = 1.f;
    }
    if (Error e = set_out(3, out); e != Error::Ok) return e;
    return gemm_fits(sp);
  }

  // fn(a, b, alpha): b a tensor broadcast against a, or a scalar (the .Scalar_out overloads); alpha the argument
  // before the output where there is one (add, sub), else 1.
  Error binary(StepPlan& sp) {
    const size_t out_i = last();
    const bool scalar_b = !has_tensor(1);
    const bool has_alpha = out_i == 3;
    sp.a = arg(0);
    sp.out = arg(out_i);
    sp.alpha = has_alpha ? static_cast<float>(scalar(2)) : 1.f;
    const Shape& a = shape(0);
    Shape out = a;
    if (scalar_b) {
      sp.b_scalar = true;
      sp.scalar = static_cast<float>(scalar(1));
    } else {
      sp.b = arg(1);
      const Shape& b = shape(1);
      const size_t nd = std::max(a.size(), b.size());
      out.assign(nd, 1);
      for (size_t k = 0; k < nd; ++k) {
        const int64_t da = k + a.size() >= nd ? a[k + a.size() - nd] : 1;
        const int64_t db = k + b.size() >= nd ? b[k + b.size() - nd] : 1;
        if (da != db && da != 1 && db != 1)
          return bad("shapes %s and %s do not broadcast", str(a).c_str(), str(b).c_str());
        out[k] = da == 1 ? db : da;
      }
    }
    if (Error e = set_out(out_i, out); e != Error::Ok) return e;
    BinaryDesc& d = sp.bin;
    d.n = numel_of(out);
    const Shape* bs = scalar_b ? nullptr : &shape(1);
    if (a == out && (bs == nullptr || *bs == out)) {
      // Same shapes (or a scalar): one flat dimension.
      d.ndim = 1, d.size[0] = d.n, d.a_stride[0] = 1, d.b_stride[0] = bs ? 1 : 0;
    } else {
      d.ndim = static_cast<int>(out.size());
      for (size_t k = 0; k < out.size(); ++k) d.size[k] = out[k];
      broadcast_strides(a, out, d.a_stride);
      if (bs) broadcast_strides(*bs, out, d.b_stride);
    }
    sp.numel = d.n;
    return Error::Ok;
  }

  // fn(x, lo, hi) over argument 0 into the last argument.
  Error elementwise(StepPlan& sp, float lo, float hi) {
    sp.a = arg(0);
    sp.out = arg(last());
    sp.numel = numel_of(shape(0));
    sp.lo = lo;
    sp.hi = hi;
    return set_out(last(), shape(0));
  }

  Error unary(StepPlan& sp) {
    return elementwise(sp, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
  }

  // gelu(x, approximate): the erf form, or the tanh one for approximate="tanh".
  Error gelu(StepPlan& sp) {
    const Value& m = val(1);
    if (m.kind != Kind::None && m.s != "none") {
      if (m.s != "tanh") return bad("unknown approximation \"%s\" (none or tanh)", m.s.c_str());
      sp.fn = Fn::GeluTanh;
    }
    return unary(sp);
  }

  // clamp(x, min, max), hardtanh(x, min_val, max_val): a bound that is None stays infinite.
  Error clamp(StepPlan& sp) {
    const float inf = std::numeric_limits<float>::infinity();
    return elementwise(sp, val(1).kind != Kind::None ? static_cast<float>(scalar(1)) : -inf,
                       val(2).kind != Kind::None ? static_cast<float>(scalar(2)) : inf);
  }

  Error softmax(StepPlan& sp) {
    const Shape& x = shape(0);
    int64_t d;
    if (!norm_dim(integer(1), static_cast<int64_t>(x.size()), &d))
      return bad("dim %lld is out of range for %s", static_cast<long long>(integer(1)), str(x).c_str());
    if (val(2).b) return bad("half_to_float is not supported");
    sp.a = arg(0), sp.out = arg(3);
    sp.outer = 1, sp.len = 1, sp.inner = 1;
    for (size_t k = 0; k < x.size(); ++k) {
      if (static_cast<int64_t>(k) < d)
        sp.outer *= x[k];
      else if (static_cast<int64_t>(k) == d)
        sp.len = x[k];
      else
        sp.inner *= x[k];
    }
    if (sp.outer * sp.inner > std::numeric_limits<int>::max()) return bad("too many rows");
    return set_out(3, x);
  }

  Error log_softmax(StepPlan& sp) {
    sp.log = true;
    return softmax(sp);
  }

  Error layer_norm(StepPlan& sp) {
    const Shape& x = shape(0);
    const std::vector<int64_t>& ns = val(1).ints;
    const size_t nd = x.size(), nn = ns.size();
    if (nn < 1 || nn > nd) return bad("normalized_shape has %zu dims for input %s", nn, str(x).c_str());
    int64_t N = 1, M = 1;
    for (size_t k = 0; k < nn; ++k) {
      if (ns[k] != x[nd - nn + k]) return bad("normalized_shape does not match input %s", str(x).c_str());
      N *= ns[k];
    }
    for (size_t k = 0; k + nn < nd; ++k) M *= x[k];
    for (size_t i : {size_t(2), size_t(3)}) {
      if (has_tensor(i) && numel_of(shape(i)) != N)
        return bad("weight/bias %s does not have %lld elements", str(shape(i)).c_str(), static_cast<long long>(N));
    }
    if (M > std::numeric_limits<int>::max()) return bad("too many rows");
    sp.a = arg(0), sp.out = arg(5), sp.mean = arg(6), sp.rstd = arg(7);
    sp.weight = has_tensor(2) ? arg(2) : -1;
    sp.bias = has_tensor(3) ? arg(3) : -1;
    sp.outer = M, sp.len = N;
    sp.eps = static_cast<float>(scalar(4));
    Shape ss = x;
    for (size_t k = nd - nn; k < nd; ++k) ss[k] = 1;
    Error e = set_out(5, x);
    if (e == Error::Ok) e = set_out(6, ss);
    if (e == Error::Ok) e = set_out(7, ss);
    return e;
  }

  // The copy operators: strided copies (sp.copies) of the input, argument 0, into the output, the last argument.
  const Shape& copy_input(StepPlan& sp) {
    sp.out = arg(last());
    sp.a = arg(0);
    return shape(0);
  }

  // The input's elements in their order, with shape `out`: one contiguous copy.
  Error same_elements(StepPlan& sp, const Shape& out) {
    sp.copies.push_back(contiguous_copy(arg(0), sp.out, numel_of(shape(0))));
    return set_out(last(), out);
  }

  Error view(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const auto& size = val(1).ints;
    if (size.size() > static_cast<size_t>(kMaxDim)) return bad("view rank %zu exceeds %d", size.size(), kMaxDim);
    Shape out;
    int infer = -1;
    int64_t known = 1;
    for (size_t k = 0; k < size.size(); ++k) {
      if (size[k] == -1) {
        if (infer >= 0) return bad("more than one -1 in the view size");
        infer = static_cast<int>(k);
        out.push_back(1);
        continue;
      }
      if (size[k] < 0 || (size[k] != 0 && known > kMaxNumel / size[k])) return bad("bad view size");
      known *= size[k];
      out.push_back(size[k]);
    }
    const int64_t n = numel_of(x);
    if (infer >= 0) {
      if (known == 0 || n % known != 0) return bad("cannot view %s with an inferred dim", str(x).c_str());
      out[infer] = n / known;
    }
    if (numel_of(out) != n) return bad("cannot view %s as %s", str(x).c_str(), str(out).c_str());
    return same_elements(sp, out);
  }

  Error unsqueeze(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const int64_t nd = static_cast<int64_t>(x.size());
    const int64_t dim = integer(1);
    if (dim < -(nd + 1) || dim > nd) return bad("dim %lld is out of range", static_cast<long long>(dim));
    const int64_t at = dim < 0 ? dim + nd + 1 : dim;
    Shape out = x;
    out.insert(out.begin() + at, 1);
    return same_elements(sp, out);
  }

  Error squeeze(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const int64_t nd = static_cast<int64_t>(x.size());
    std::vector<bool> sq(x.size(), false);
    for (int64_t d : val(1).ints) {
      int64_t n;
      if (!norm_dim(d, nd, &n)) return bad("dim %lld is out of range", static_cast<long long>(d));
      if (nd > 0 && x[n] == 1) sq[n] = true;
    }
    Shape out;
    for (size_t k = 0; k < x.size(); ++k) {
      if (!sq[k]) out.push_back(x[k]);
    }
    return same_elements(sp, out);
  }

  Error clone(StepPlan& sp) { return same_elements(sp, copy_input(sp)); }

  Error permute(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const int64_t nd = static_cast<int64_t>(x.size());
    const Shape xs = strides_of(x);
    const auto& dims = val(1).ints;
    if (static_cast<int64_t>(dims.size()) != nd)
      return bad("%zu dims for a rank-%lld input", dims.size(), static_cast<long long>(nd));
    Copy c;
    c.src = arg(0), c.dst = sp.out;
    Shape out;
    std::vector<bool> seen(x.size(), false);
    for (int64_t k = 0; k < nd; ++k) {
      int64_t d;
      if (!norm_dim(dims[k], nd, &d) || seen[d]) return bad("dims is not a permutation");
      seen[d] = true;
      out.push_back(x[d]);
      c.desc.size[k] = x[d];
      c.desc.src_stride[k] = xs[d];
    }
    const Shape os = strides_of(out);
    c.desc.ndim = static_cast<int>(nd);
    c.desc.n = numel_of(out);
    for (int64_t k = 0; k < nd; ++k) c.desc.dst_stride[k] = os[k];
    sp.copies.push_back(c);
    return set_out(last(), out);
  }

  Error expand(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const int64_t nd = static_cast<int64_t>(x.size());
    const Shape xs = strides_of(x);
    const auto& size = val(1).ints;
    const int64_t n = static_cast<int64_t>(size.size());
    if (n > kMaxDim || n < nd) return bad("cannot expand %s to %zu dims", str(x).c_str(), size.size());
    Copy c;
    c.src = arg(0), c.dst = sp.out;
    Shape out;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t id = k - (n - nd);
      int64_t v = size[k];
      if (v == -1) {
        if (id < 0) return bad("-1 in a new leading dim");
        v = x[id];
      }
      if (v < 0 || v > kMaxNumel) return bad("bad expand size");
      if (id >= 0 && x[id] != v && x[id] != 1) return bad("cannot expand %s", str(x).c_str());
      out.push_back(v);
      c.desc.size[k] = v;
      c.desc.src_stride[k] = (id < 0 || x[id] != v || v == 1) ? 0 : xs[id];
    }
    if (Error e = set_out(last(), out); e != Error::Ok) return e;
    const Shape os = strides_of(out);
    c.desc.ndim = static_cast<int>(n);
    c.desc.n = numel_of(out);
    for (int64_t k = 0; k < n; ++k) c.desc.dst_stride[k] = os[k];
    sp.copies.push_back(c);
    return Error::Ok;
  }

  Error slice(StepPlan& sp) {
    const Shape& x = copy_input(sp);
    const int64_t nd = static_cast<int64_t>(x.size());
    const Shape xs = strides_of(x);
    if (nd == 0) return bad("cannot slice a 0-dim tensor");
    int64_t d;
    if (!norm_dim(integer(1), nd, &d)) return bad("dim %lld is out of range", static_cast<long long>(integer(1)));
    const int64_t step_v = integer(4);
    if (step_v <= 0) return bad("step must be positive");
    const int64_t len = x[d];
    int64_t start = val(2).kind == Kind::None ? 0 : val(2).i;
    int64_t end = val(3).kind == Kind::None ? len : val(3).i;
    if (start < 0) start += len;
    if (end < 0) end += len;
    start = std::min(std::max<int64_t>(start, 0), len);
    end = std::min(std::max<int64_t>(end, start), len);
    const int64_t cnt = (end - start + step_v - 1) / step_v;
    Shape out = x;
    out[d] = cnt;
    const Shape os = strides_of(out);
    Copy c;
    c.src = arg(0), c.dst = sp.out;
    c.src_offset = cnt > 0 ? start * xs[d] : 0;
    c.desc.ndim = static_cast<int>(nd);
    c.desc.n = numel_of(out);
    for (int64_t k = 0; k < nd; ++k) {
      c.desc.size[k] = out[k];
      c.desc.src_stride[k] = k == d ? xs[k] * step_v : xs[k];
      c.desc.dst_stride[k] = os[k];
    }
    sp.copies.push_back(c);
    return set_out(last(), out);
  }

  Error cat(StepPlan& sp) {
    sp.out = arg(last());
    const std::vector<int32_t>& ts = val(0).items;
    const Shape* ref = nullptr;
    for (int32_t t : ts) {
      const Shape& s = p.shapes[t];
      if (s.size() == 1 && s[0] == 0) continue;  // legacy empty tensors are skipped
      if (!ref) ref = &s;
    }
    const int64_t dim = integer(1);
    if (!ref) {
      Shape s = g.values[sp.out].sizes;
      int64_t d0;
      if (s.empty() || !norm_dim(dim, static_cast<int64_t>(s.size()), &d0)) return bad("bad dim for an empty cat");
      s[d0] = 0;
      return set_out(2, s);
    }
    const int64_t nd = static_cast<int64_t>(ref->size());
    int64_t d;
    if (nd == 0) return bad("cannot concatenate 0-dim tensors");
    if (!norm_dim(dim, nd, &d)) return bad("dim %lld is out of range", static_cast<long long>(dim));
    Shape out = *ref;
    out[d] = 0;
    for (int32_t t : ts) {
      const Shape& s = p.shapes[t];
      if (s.size() == 1 && s[0] == 0) continue;
      if (static_cast<int64_t>(s.size()) != nd) return bad("tensors of different ranks");
      for (int64_t k = 0; k < nd; ++k) {
        if (k != d && s[k] != (*ref)[k])
          return bad("shapes %s and %s differ outside dim %lld", str(s).c_str(), str(*ref).c_str(),
                     static_cast<long long>(d));
      }
      out[d] += s[d];
    }
    if (Error e = set_out(2, out); e != Error::Ok) return e;
    const Shape os = strides_of(out);
    int64_t at = 0;
    for (int32_t t : ts) {
      const Shape& s = p.shapes[t];
      if (s.size() == 1 && s[0] == 0) continue;
      const int64_t n = numel_of(s);
      if (n > 0) {
        const Shape ss = strides_of(s);
        Copy c;
        c.src = t, c.dst = sp.out;
        c.dst_offset = at * os[d];
        c.desc.ndim = static_cast<int>(nd);
        c.desc.n = n;
        for (int64_t k = 0; k < nd; ++k) {
          c.desc.size[k] = s[k];
          c.desc.src_stride[k] = ss[k];
          c.desc.dst_stride[k] = os[k];
        }
        sp.copies.push_back(c);
      }
      at += s[d];
    }
    return Error::Ok;
  }

  static std::string str(const Shape& s) {
    std::string r = "[";
    for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
    return r + "]";
  }

  Error run(const std::vector<Shape>& input_shapes) {
    p.shapes.assign(g.values.size(), Shape());
    p.steps.assign(g.steps.size(), StepPlan());
    if (input_shapes.size() != g.inputs.size()) {
      return ETCUDA_FAIL(Error::InvalidArgument, "%zu inputs given, the delegate takes %zu", input_shapes.size(),
                         g.inputs.size());
    }
    for (size_t i = 0; i < g.values.size(); ++i) {
      if (g.values[i].constant) p.shapes[i] = g.values[i].sizes;
    }
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const Shape& s = input_shapes[i];
      const Value& v = g.values[g.inputs[i]];
      if (s.size() != v.sizes.size()) {
        return ETCUDA_FAIL(Error::InvalidArgument, "input %zu has rank %zu, the program expects %zu", i, s.size(),
                           v.sizes.size());
      }
      int64_t n = 1;
      for (int64_t d : s) {
        if (d < 0 || (d != 0 && n > kMaxNumel / d))
          return ETCUDA_FAIL(Error::InvalidArgument, "input %zu: bad shape", i);
        n *= d;
      }
      p.shapes[g.inputs[i]] = s;
    }
    for (si = 0; si < g.steps.size(); ++si) {
      step = &g.steps[si];
      StepPlan& sp = p.steps[si];
      Error e = Error::Ok;
      switch (step->op) {
#define ETCUDA_OP(Id, name, arguments, shape_rule, launcher, function) \
  case Op::Id:                                                         \
    sp.fn = Fn::function;                                              \
    e = shape_rule(sp);                                                \
    break;
#include "ops.def"
      }
      if (e != Error::Ok) return e;
    }
    return Error::Ok;
  }
};

}  // namespace

Error make_plan(const Graph& graph, const std::vector<std::vector<int64_t>>& input_shapes, Plan* plan) {
  Planner planner{graph, *plan};
  return planner.run(input_shapes);
}

}  // namespace etcuda
