// Method loading (values, planned memory, delegates, kernels) and execution.
// The experimental and deprecated members of Method are defined here too.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/executor/merged_data_map.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/platform_memory_allocator.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/components.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "internal.h"
#include "program_state.h"

namespace executorch {
namespace runtime {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;

namespace internal {

struct TensorStore {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  TensorImpl impl;
  bool planned = false;   // data lives in planned memory (inputs are copied in)
  bool constant = false;  // data points into the program
};

enum class InstrKind { Kernel, Delegate, Move, JumpFalse, Free };

struct Instr {
  InstrKind kind;
  OpFunction fn = nullptr;
  size_t op_index = 0;
  size_t delegate_index = 0;
  std::vector<EValue*> args;
  size_t a = 0, b = 0;  // move from/to, jump condition/destination, free value
};

struct DelegateInstance {
  std::string id;
  BackendInterface* backend = nullptr;
  DelegateHandle* handle = nullptr;
};

struct MethodState {
  std::shared_ptr<ProgramState> program;
  const PlanView* view = nullptr;
  const et_pte::ExecutionPlan* plan = nullptr;
  const char* name = "";
  MemoryManager* memory_manager = nullptr;
  MemoryAllocator* temp_allocator = nullptr;
  std::unique_ptr<PlatformMemoryAllocator> own_temp_allocator;  // when the memory manager has no temp allocator
  EventTracer* event_tracer = nullptr;                          // null: no profiling, no clock read
  const NamedDataMap* external_data = nullptr;                  // the data files given to load_method (null: none)
  const LoadBackendOptionsMap* backend_options = nullptr;
  Span<const Kernel> kernel_registry;
  // Data of the tensors kept in a data file, one buffer per key (several tensors may share a key).
  std::vector<std::pair<std::string, FreeableBuffer>> external_constants;
  std::optional<MergedDataMap> merged_data;     // the program's named data and external_data, for delegates
  const NamedDataMap* delegate_data = nullptr;  // what delegates read named data from
  size_t step_chain = 0;                        // the next instruction step() runs
  size_t step_instr = 0;
  std::vector<EValue> values;
  std::vector<std::unique_ptr<TensorStore>> tensors;
  std::vector<TensorStore*> store_of_value;  // by value index; null for non-tensors
  std::vector<std::vector<EValue*>> list_wrapped;
  std::vector<std::vector<int64_t>> int_lists;
  std::vector<std::vector<Tensor>> tensor_lists;
  std::vector<std::vector<std::optional<Tensor>>> optional_tensor_lists;
  std::vector<std::unique_ptr<bool[]>> bool_lists;
  std::vector<std::string> op_names;
  std::vector<std::vector<Instr>> chains;
  std::vector<DelegateInstance> delegates;
  std::vector<size_t> inputs;
  std::vector<size_t> outputs;
  std::vector<bool> input_set;

  ~MethodState() {
    for (auto& d : delegates) {
      if (d.backend != nullptr && d.handle != nullptr) d.backend->destroy(d.handle);
    }
  }

  Error parse_values(MemoryManager* mm);
  Result<void*> external_constant(const et_pte::Tensor* t, const char* fqn, uint64_t nbytes);
  Error check_external_layout(const et_pte::Tensor* t, const char* fqn);
  Error setup_delegate_data();
  Error init_delegates();
  Error resolve_kernel(Instr& instr);
  Error resolve_instructions();
  Error run_instruction(size_t chain, size_t& pc);
  Error run_traced_instruction(size_t chain, size_t& pc, bool profile, bool log_values);
  void log_outputs();
  const char* instruction_name(const Instr& in) const;
};

Error MethodState::parse_values(MemoryManager* mm) {
  const size_t nv = plan->values() ? plan->values()->size() : 0;
  values.resize(nv);
  store_of_value.assign(nv, nullptr);
  HierarchicalAllocator* planned = mm != nullptr ? mm->planned_memory() : nullptr;
  const size_t needed_buffers = plan->non_const_buffer_sizes() && plan->non_const_buffer_sizes()->size() > 1
                                    ? plan->non_const_buffer_sizes()->size() - 1
                                    : 0;
  if (needed_buffers > 0 && (planned == nullptr || planned->num_buffers() < needed_buffers)) {
    return set_last_error(Error::InvalidArgument,
                          "method %s needs %zu planned memory buffers but the memory manager has %zu", name,
                          needed_buffers, planned ? planned->num_buffers() : size_t(0));
  }
  const auto* program_fb = program->program;
  for (size_t i = 0; i < nv; ++i) {
    const auto* v = (*plan->values())[i];
    switch (v->val_type()) {
      case et_pte::KernelTypes::Null: values[i] = EValue(); break;
      case et_pte::KernelTypes::Int: values[i] = EValue(static_cast<int64_t>(v->val_as_Int()->int_val())); break;
      case et_pte::KernelTypes::Bool: values[i] = EValue(static_cast<bool>(v->val_as_Bool()->bool_val())); break;
      case et_pte::KernelTypes::Double: values[i] = EValue(v->val_as_Double()->double_val()); break;
      case et_pte::KernelTypes::String: {
        const auto* s = v->val_as_String()->string_val();
        values[i] = EValue(s->c_str(), s->size());
        break;
      }
      case et_pte::KernelTypes::DoubleList: {
        const auto* items = v->val_as_DoubleList()->items();
        values[i] = EValue(ArrayRef<double>(items->data(), items->size()));
        break;
      }
      case et_pte::KernelTypes::BoolList: {
        const auto* items = v->val_as_BoolList()->items();
        std::unique_ptr<bool[]> copy(new bool[items->size() + 1]);
        for (size_t k = 0; k < items->size(); ++k) copy[k] = items->Get(k) != 0;
        values[i] = EValue(ArrayRef<bool>(copy.get(), items->size()));
        bool_lists.push_back(std::move(copy));
        break;
      }
      case et_pte::KernelTypes::IntList: {
        const auto* items = v->val_as_IntList()->items();
        std::vector<EValue*> wrapped;
        for (int64_t it : *items) wrapped.push_back(&values[static_cast<size_t>(it)]);
        list_wrapped.push_back(std::move(wrapped));
        int_lists.emplace_back(items->size());
        values[i] =
            EValue(BoxedEvalueList<int64_t>(list_wrapped.back().data(), int_lists.back().data(), items->size()));
        break;
      }
      case et_pte::KernelTypes::TensorList: {
        const auto* items = v->val_as_TensorList()->items();
        std::vector<EValue*> wrapped;
        for (int32_t it : *items) wrapped.push_back(&values[static_cast<size_t>(it)]);
        list_wrapped.push_back(std::move(wrapped));
        tensor_lists.emplace_back(items->size());
        values[i] =
            EValue(BoxedEvalueList<Tensor>(list_wrapped.back().data(), tensor_lists.back().data(), items->size()));
        break;
      }
      case et_pte::KernelTypes::OptionalTensorList: {
        const auto* items = v->val_as_OptionalTensorList()->items();
        std::vector<EValue*> wrapped;
        for (int32_t it : *items) wrapped.push_back(it < 0 ? nullptr : &values[static_cast<size_t>(it)]);
        list_wrapped.push_back(std::move(wrapped));
        optional_tensor_lists.emplace_back(items->size());
        values[i] = EValue(BoxedEvalueList<std::optional<Tensor>>(list_wrapped.back().data(),
                                                                  optional_tensor_lists.back().data(), items->size()));
        break;
      }
      case et_pte::KernelTypes::Tensor: {
        const auto* t = v->val_as_Tensor();
        auto store = std::make_unique<TensorStore>();
        const size_t rank = t->sizes() ? t->sizes()->size() : 0;
        store->sizes.resize(rank);
        store->dim_order.resize(rank);
        store->strides.resize(rank);
        for (size_t k = 0; k < rank; ++k) {
          store->sizes[k] = t->sizes()->Get(k);
          store->dim_order[k] = t->dim_order()->Get(k);
        }
        const auto dyn = t->shape_dynamism() == et_pte::TensorShapeDynamism::DYNAMIC_BOUND
                             ? TensorShapeDynamism::DYNAMIC_BOUND
                             : TensorShapeDynamism::STATIC;
        void* data = nullptr;
        const uint64_t nbytes = tensor_nbytes(t);
        const uint32_t idx = t->data_buffer_idx();
        const auto* info = t->extra_tensor_info();
        const char* fqn = info != nullptr && info->location() == et_pte::TensorDataLocation::EXTERNAL
                              ? info->fully_qualified_name()->c_str()
                              : nullptr;
        if (fqn != nullptr && t->allocation_info() == nullptr) {
          // A constant kept in a data file.
          Result<void*> p = external_constant(t, fqn, nbytes);
          if (!p.ok()) return p.error();
          data = *p;
          store->constant = true;
        } else if (t->allocation_info() != nullptr) {
          const auto* a = t->allocation_info();
          const uint64_t off = uint64_t(a->memory_offset_low()) | (uint64_t(a->memory_offset_high()) << 32);
          uint8_t* p = nullptr;
          if (planned != nullptr) {
            Result<void*> addr = planned->get_offset_address(a->memory_id() - 1, off, nbytes);
            if (addr.ok()) p = static_cast<uint8_t*>(*addr);
          }
          if (p == nullptr) {
            return set_last_error(Error::InvalidArgument,
                                  "method %s: value %zu (%llu bytes at offset %llu of memory_id %u) "
                                  "does not fit the planned buffers given",
                                  name, i, (unsigned long long)nbytes, (unsigned long long)off, a->memory_id());
          }
          data = p;
          store->planned = true;
          if (fqn != nullptr) {
            // Planned (mutable) memory whose initial value lives in a data file.
            if (external_data == nullptr) {
              return set_last_error(Error::InvalidExternalData,
                                    "method %s: the initial value of tensor '%s' is in a data file (.ptd) but "
                                    "none was given; pass the program's data file",
                                    name, fqn);
            }
            ET_CHECK_OK_OR_RETURN_ERROR(check_external_layout(t, fqn));
            const Error err = external_data->load_data_into(fqn, p, nbytes);
            if (err != Error::Ok) {
              return set_last_error(err, "method %s: cannot read tensor '%s' from the data file", name, fqn);
            }
          } else if (idx > 0) {
            std::lock_guard<std::mutex> lock(program->mutable_mu);
            const auto* m = (*program_fb->mutable_data_segments())[0];
            if (!program->mutable_loaded) {
              Result<FreeableBuffer> seg =
                  program->load_segment(m->segment_index(), DataLoader::SegmentInfo::Type::Mutable);
              if (!seg.ok()) return set_last_error(seg.error(), "cannot read the mutable data segment");
              program->mutable_segment = std::move(*seg);
              program->mutable_loaded = true;
            }
            std::memcpy(p, static_cast<const uint8_t*>(program->mutable_segment.data()) + m->offsets()->Get(idx),
                        nbytes);
          }
        } else if (idx > 0) {
          const auto* cs = program_fb->constant_segment();
          if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
            data = const_cast<uint8_t*>(static_cast<const uint8_t*>(program->constant_segment.data()) +
                                        cs->offsets()->Get(idx));
          } else {
            data = const_cast<uint8_t*>((*program_fb->constant_buffer())[idx]->storage()->data());
          }
          store->constant = true;
        }
        const size_t esize = executorch::aten::elementSize(static_cast<ScalarType>(t->scalar_type()));
        if (reinterpret_cast<uintptr_t>(data) % esize != 0) {
          return set_last_error(Error::InvalidProgram,
                                "method %s: data of value %zu is not aligned to its element size", name, i);
        }
        store->impl = TensorImpl(static_cast<ScalarType>(t->scalar_type()), static_cast<ssize_t>(rank),
                                 store->sizes.data(), data, store->dim_order.data(), store->strides.data(), dyn);
        values[i] = EValue(Tensor(&store->impl));
        store_of_value[i] = store.get();
        tensors.push_back(std::move(store));
        break;
      }
      default: return set_last_error(Error::InvalidProgram, "value %zu has an unknown type", i);
    }
  }
  return Error::Ok;
}

// The kernel of a KernelCall, as upstream chooses it: by the dtypes and dim orders of the instruction's tensor
// arguments (kernel keys), the exact key before the fallback kernel, the method's own kernels before the registry.
Error MethodState::resolve_kernel(Instr& instr) {
  std::vector<TensorMeta> meta;
  for (EValue* arg : instr.args) {
    if (!arg->isTensor()) continue;
    const Tensor& t = arg->toTensor();
    auto order = t.dim_order();
    meta.emplace_back(t.scalar_type(), Span<executorch::aten::DimOrderType>(
                                           const_cast<executorch::aten::DimOrderType*>(order.data()), order.size()));
  }
  const char* op = op_names[instr.op_index].c_str();
  Result<OpFunction> f = get_op_function_from_registry(op, {meta.data(), meta.size()}, kernel_registry);
  if (!f.ok()) f = get_op_function_from_registry(op, {meta.data(), meta.size()});
  if (!f.ok()) {
    char key[internal::kKernelKeyBufSize] = "";
    (void)internal::make_kernel_key_string({meta.data(), meta.size()}, key, sizeof(key));
    return set_last_error(Error::OperatorMissing, "method %s: operator %s has no kernel for the argument types %s",
                          name, op, key);
  }
  instr.fn = *f;
  return Error::Ok;
}

// Compares the layout of `fqn` in the data files with the tensor the program declares.
Error MethodState::check_external_layout(const et_pte::Tensor* t, const char* fqn) {
  Result<const TensorLayout> layout = external_data->get_tensor_layout(fqn);
  if (!layout.ok()) {
    if (layout.error() == Error::NotFound) {
      return set_last_error(Error::NotFound,
                            "method %s: tensor '%s' is not in the data file(s) given (is it the program's own "
                            ".ptd file?)",
                            name, fqn);
    }
    return set_last_error(layout.error(), "method %s: cannot read the layout of tensor '%s' from the data file", name,
                          fqn);
  }
  auto describe = [](ScalarType type, const int32_t* sizes, size_t rank) {
    std::string out = executorch::aten::toString(type);
    out += "[";
    for (size_t i = 0; i < rank; ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
    return out + "]";
  };
  const size_t rank = t->sizes() ? t->sizes()->size() : 0;
  const ScalarType want = static_cast<ScalarType>(t->scalar_type());
  bool same = layout->scalar_type() == want && layout->sizes().size() == rank;
  for (size_t i = 0; same && i < rank; ++i) {
    same = layout->sizes()[i] == t->sizes()->Get(i) && layout->dim_order()[i] == t->dim_order()->Get(i);
  }
  if (!same) {
    return set_last_error(Error::InvalidExternalData,
                          "method %s: tensor '%s' in the data file is %s but the program expects %s (a data file "
                          "of another export?)",
                          name, fqn,
                          describe(layout->scalar_type(), layout->sizes().data(), layout->sizes().size()).c_str(),
                          describe(want, t->sizes() ? t->sizes()->data() : nullptr, rank).c_str());
  }
  return Error::Ok;
}

Result<void*> MethodState::external_constant(const et_pte::Tensor* t, const char* fqn, uint64_t nbytes) {
  for (auto& [key, buffer] : external_constants) {
    if (key == fqn) return const_cast<void*>(buffer.data());
  }
  if (external_data == nullptr) {
    return set_last_error(Error::InvalidState,
                          "method %s needs tensor '%s' from a data file (.ptd) but none was given; pass the "
                          "program's data file (Module(path, data_path), executor_runner --data_path, "
                          "load_program(path, data_path=...))",
                          name, fqn);
  }
  ET_CHECK_OK_OR_RETURN_ERROR(check_external_layout(t, fqn));
  Result<FreeableBuffer> data = external_data->get_data(fqn);
  if (!data.ok())
    return set_last_error(data.error(), "method %s: cannot read tensor '%s' from the data file", name, fqn);
  if (data->size() < nbytes) {
    return set_last_error(Error::InvalidExternalData, "method %s: tensor '%s' needs %llu bytes, the data file has %zu",
                          name, fqn, (unsigned long long)nbytes, data->size());
  }
  void* p = const_cast<void*>(data->data());
  external_constants.emplace_back(fqn, std::move(*data));
  return p;
}

// Delegates read named data from the program's own map and the data files, as one map (data files first).
Error MethodState::setup_delegate_data() {
  const NamedDataMap* own = program->named_data.has_value() ? &*program->named_data : nullptr;
  if (own != nullptr && external_data != nullptr) {
    Result<MergedDataMap> merged = MergedDataMap::load(external_data, own);
    if (!merged.ok()) {
      return set_last_error(merged.error(), "method %s: the data file and the program's own named data conflict: %s",
                            name, last_error_message());
    }
    merged_data.emplace(std::move(*merged));
    delegate_data = &*merged_data;
  } else {
    delegate_data = external_data != nullptr ? external_data : own;
  }
  return Error::Ok;
}

Error MethodState::init_delegates() {
  const size_t nd = plan->delegates() ? plan->delegates()->size() : 0;
  delegates.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    const auto* d = (*plan->delegates())[i];
    const char* id = d->id()->c_str();
    delegates[i].id = id;
    BackendInterface* backend = get_backend_class(id);
    if (backend == nullptr) {
      if (const ComponentInfo* c = component_for_backend(id)) {
        clear_last_error();
        const Error load_err = load_component(c->name);
        const std::string load_why = last_error_message();
        backend = get_backend_class(id);
        if (backend == nullptr) {
          // A library that is there but does not load (a missing dependency such as libcublas) says why.
          const bool failed_load = load_err != Error::Ok && load_err != Error::NotFound && !load_why.empty();
          return set_last_error(Error::NotFound,
                                "method %s uses backend %s, which is not registered: install the %s package "
                                "(%s) next to libexecutorch, or load it with load_library()%s%s%s",
                                name, id, c->package, c->library, failed_load ? " (" : "",
                                failed_load ? load_why.c_str() : "", failed_load ? ")" : "");
        }
      } else {
        return set_last_error(Error::NotFound,
                              "method %s uses backend %s, which is not registered and is not provided by any "
                              "component of this SDK; load the library that provides it with load_library()",
                              name, id);
      }
    }
    FreeableBuffer processed;
    const auto* ref = d->processed();
    if (ref->location() == et_pte::DataLocation::INLINE) {
      const auto* data = (*program->program->backend_delegate_data())[ref->index()]->data();
      processed = FreeableBuffer(data->data(), data->size(), nullptr);
    } else {
      Result<FreeableBuffer> seg = program->load_segment(ref->index(), DataLoader::SegmentInfo::Type::Backend);
      if (!seg.ok()) return set_last_error(seg.error(), "cannot read the data of delegate %zu (%s)", i, id);
      processed = std::move(*seg);
    }
    std::vector<CompileSpec> specs;
    if (d->compile_specs() != nullptr) {
      for (const auto* cs : *d->compile_specs()) {
        void* buf = cs->value() ? const_cast<uint8_t*>(cs->value()->data()) : nullptr;
        specs.push_back(CompileSpec{cs->key()->c_str(), SizedBuffer{buf, cs->value() ? cs->value()->size() : 0}});
      }
    }
    const Span<const BackendOption> options =
        backend_options != nullptr ? backend_options->get_options(id) : Span<const BackendOption>();
    BackendInitContext ctx(memory_manager != nullptr ? memory_manager->method_allocator() : nullptr, event_tracer, name,
                           delegate_data, options);
    clear_last_error();  // a backend may record why it is not available (e.g. "no device: ...")
    if (!backend->is_available()) {
      const std::string why = last_error_message();
      clear_last_error();
      const Error invalid = backend->validate(ctx, &processed, ArrayRef<CompileSpec>(specs.data(), specs.size()));
      if (invalid != Error::Ok) {
        const std::string bad = *last_error_message() != '\0' ? last_error_message() : "no reason given";
        return set_last_error(invalid, "backend %s cannot run delegate %zu of method %s: %s", id, i, name, bad.c_str());
      }
      return set_last_error(Error::NotFound, "backend %s is registered but not available on this machine%s%s", id,
                            why.empty() ? "" : ": ", why.c_str());
    }
    clear_last_error();  // so the message below is the backend's own, not a stale one
    Result<DelegateHandle*> handle = backend->init(ctx, &processed, ArrayRef<CompileSpec>(specs.data(), specs.size()));
    processed.Free();
    if (!handle.ok()) {
      const std::string why = *last_error_message() != '\0' ? last_error_message() : "no reason given";
      return set_last_error(handle.error(), "backend %s could not initialise delegate %zu of method %s: %s", id, i,
                            name, why.c_str());
    }
    delegates[i].backend = backend;
    delegates[i].handle = *handle;
  }
  return Error::Ok;
}

Error MethodState::resolve_instructions() {
  const size_t nops = plan->operators() ? plan->operators()->size() : 0;
  for (size_t i = 0; i < nops; ++i) {
    const auto* op = (*plan->operators())[i];
    std::string n = op->name()->str();
    if (op->overload() != nullptr && op->overload()->size() > 0) n += "." + op->overload()->str();
    op_names.push_back(std::move(n));
  }
  std::vector<bool> used(nops, false);
  // Whether any kernel of an operator is registered, whatever its key (for the missing-operator report).
  auto registered = [this](const char* op) {
    for (const Span<const Kernel>& list : {kernel_registry, get_registered_kernels()}) {
      for (const Kernel& k : list) {
        if (k.name_ != nullptr && std::strcmp(k.name_, op) == 0) return true;
      }
    }
    return false;
  };
  const size_t nchains = plan->chains() ? plan->chains()->size() : 0;
  for (size_t ci = 0; ci < nchains; ++ci) {
    const auto* ins = (*plan->chains())[ci]->instructions();
    if (ins == nullptr) continue;
    for (const auto* in : *ins) {
      if (in->instr_args_type() == et_pte::InstructionArguments::KernelCall) {
        used[static_cast<size_t>(in->instr_args_as_KernelCall()->op_index())] = true;
      }
    }
  }
  std::vector<std::string> missing;
  for (int attempt = 0; attempt < 2; ++attempt) {
    missing.clear();
    std::set<std::string> to_load;
    for (size_t i = 0; i < nops; ++i) {
      if (!used[i] || registered(op_names[i].c_str())) continue;
      missing.push_back(op_names[i]);
      if (const ComponentInfo* c = component_for_operator(op_names[i].c_str())) to_load.insert(c->name);
    }
    if (missing.empty() || to_load.empty() || attempt > 0) break;
    for (const auto& c : to_load) (void)load_component(c.c_str());
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t k = 0; k < missing.size() && k < 10; ++k) list += (k ? ", " : "") + missing[k];
    if (missing.size() > 10) list += ", ...";
    const ComponentInfo* c = component_for_operator(missing[0].c_str());
    std::string hint;
    if (c == nullptr) {
      hint =
          "they are not provided by this SDK: load the custom-kernel library that registers them with "
          "load_library()";
    } else if (component_loaded(c->name)) {
      hint = std::string("the installed ") + c->package + " package does not implement them";
    } else {
      hint = std::string("they are provided by the ") + c->package + " package (" + c->library +
             "), which could not be loaded: " + last_error_message();
    }
    return set_last_error(Error::OperatorMissing, "method %s: %zu operator(s) not registered: %s; %s", name,
                          missing.size(), list.c_str(), hint.c_str());
  }

  chains.resize(nchains);
  for (size_t ci = 0; ci < nchains; ++ci) {
    const auto* ins = (*plan->chains())[ci]->instructions();
    if (ins == nullptr) continue;
    for (const auto* in : *ins) {
      Instr instr{};
      auto collect = [&](const flatbuffers::Vector<int32_t>* args) {
        if (args == nullptr) return;
        for (int32_t a : *args) instr.args.push_back(&values[static_cast<size_t>(a)]);
      };
      switch (in->instr_args_type()) {
        case et_pte::InstructionArguments::KernelCall: {
          const auto* k = in->instr_args_as_KernelCall();
          instr.kind = InstrKind::Kernel;
          instr.op_index = static_cast<size_t>(k->op_index());
          collect(k->args());
          ET_CHECK_OK_OR_RETURN_ERROR(resolve_kernel(instr));
          break;
        }
        case et_pte::InstructionArguments::DelegateCall: {
          const auto* d = in->instr_args_as_DelegateCall();
          instr.kind = InstrKind::Delegate;
          instr.delegate_index = static_cast<size_t>(d->delegate_index());
          collect(d->args());
          break;
        }
        case et_pte::InstructionArguments::MoveCall:
          instr.kind = InstrKind::Move;
          instr.a = static_cast<size_t>(in->instr_args_as_MoveCall()->move_from());
          instr.b = static_cast<size_t>(in->instr_args_as_MoveCall()->move_to());
          break;
        case et_pte::InstructionArguments::JumpFalseCall:
          instr.kind = InstrKind::JumpFalse;
          instr.a = static_cast<size_t>(in->instr_args_as_JumpFalseCall()->cond_value_index());
          instr.b = static_cast<size_t>(in->instr_args_as_JumpFalseCall()->destination_instruction());
          break;
        case et_pte::InstructionArguments::FreeCall:
          instr.kind = InstrKind::Free;
          instr.a = static_cast<size_t>(in->instr_args_as_FreeCall()->value_index());
          break;
        default: return set_last_error(Error::InvalidProgram, "unknown instruction kind");
      }
      chains[ci].push_back(std::move(instr));
    }
  }
  return Error::Ok;
}

Error MethodState::run_instruction(size_t chain, size_t& pc) {
  Instr& in = chains[chain][pc];
  switch (in.kind) {
    case InstrKind::Kernel: {
      KernelRuntimeContext ctx(event_tracer, temp_allocator);
      in.fn(ctx, Span<EValue*>(in.args.data(), in.args.size()));
      if (temp_allocator != nullptr) temp_allocator->reset();
      if (ctx.failure_state() != Error::Ok) {
        const char* why = ctx.failure_message();
        if (*why != '\0')
          return set_last_error(ctx.failure_state(), "method %s: operator %s failed at instruction %zu: %s", name,
                                op_names[in.op_index].c_str(), pc, why);
        return set_last_error(ctx.failure_state(),
                              "method %s: operator %s failed at instruction %zu (the kernel gave no "
                              "reason)",
                              name, op_names[in.op_index].c_str(), pc);
      }
      ++pc;
      return Error::Ok;
    }
    case InstrKind::Delegate: {
      DelegateInstance& d = delegates[in.delegate_index];
      BackendExecutionContext ctx(event_tracer, temp_allocator, name);
      const Error err = d.backend->execute(ctx, d.handle, Span<EValue*>(in.args.data(), in.args.size()));
      if (err != Error::Ok) {
        return set_last_error(err, "method %s: backend %s failed at instruction %zu", name, d.id.c_str(), pc);
      }
      ++pc;
      return Error::Ok;
    }
    case InstrKind::Move:
      values[in.b] = values[in.a];
      ++pc;
      return Error::Ok;
    case InstrKind::JumpFalse: {
      const EValue& c = values[in.a];
      bool cond = false;
      if (c.isBool()) {
        cond = c.toBool();
      } else if (c.isTensor() && c.toTensor().scalar_type() == ScalarType::Bool) {
        const Tensor& t = c.toTensor();
        if (t.numel() > 0 && t.const_data_ptr() == nullptr) {
          return set_last_error(Error::InvalidState, "jump condition tensor has no data");
        }
        cond = true;
        const uint8_t* p = t.const_data_ptr<uint8_t>();
        for (ssize_t k = 0; k < t.numel(); ++k) cond = cond && p[k] != 0;
      } else {
        return set_last_error(Error::InvalidProgram, "jump condition is neither a Bool nor a bool tensor");
      }
      pc = cond ? pc + 1 : in.b;
      return Error::Ok;
    }
    case InstrKind::Free:
      if (values[in.a].isTensor()) values[in.a].toTensor().unsafeGetTensorImpl()->set_data(nullptr);
      ++pc;
      return Error::Ok;
  }
  return Error::Internal;
}

// Runs one instruction under the event tracer: as a profiling event named after it, and/or logging the values it
// wrote (a kernel's out argument, the last of its arguments; every argument of a delegate call).
Error MethodState::run_traced_instruction(size_t chain, size_t& pc, bool profile, bool log_values) {
  const Instr& in = chains[chain][pc];
  const ChainID chain_id = static_cast<ChainID>(chain);
  const DebugHandle handle = static_cast<DebugHandle>(pc);
  event_tracer->set_chain_debug_handle(chain_id, handle);
  EventTracerEntry e{};
  if (profile) e = event_tracer->start_profiling(instruction_name(in), chain_id, handle);
  const Error err = run_instruction(chain, pc);
  if (profile) event_tracer->end_profiling(e);
  if (err == Error::Ok && log_values) {
    if (in.kind == InstrKind::Kernel && !in.args.empty()) {
      (void)event_tracer->log_evalue(*in.args.back(), LoggedEValueType::kIntermediateOutput);
    } else if (in.kind == InstrKind::Delegate) {
      for (const EValue* v : in.args) (void)event_tracer->log_evalue(*v, LoggedEValueType::kIntermediateOutput);
    }
  }
  return err;
}

// Logs the method's outputs when the event tracer collects them.
void MethodState::log_outputs() {
  if (event_tracer == nullptr || event_tracer->event_tracer_debug_level() < EventTracerDebugLogLevel::kProgramOutputs) {
    return;
  }
  for (size_t i : outputs) (void)event_tracer->log_evalue(values[i], LoggedEValueType::kProgramOutput);
}

// The name of an instruction's profiling event: the operator of a KernelCall, the backend id of a DelegateCall,
// upstream's names for the others.
const char* MethodState::instruction_name(const Instr& in) const {
  switch (in.kind) {
    case InstrKind::Kernel: return op_names[in.op_index].c_str();
    case InstrKind::Delegate: return delegates[in.delegate_index].id.c_str();
    case InstrKind::Move: return "MOVE_CALL";
    case InstrKind::JumpFalse: return "JF_CALL";
    case InstrKind::Free: return "FREE_CALL";
  }
  return "INSTRUCTION";
}

}  // namespace internal

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory_manager, EventTracer* event_tracer,
                                    const NamedDataMap* named_data_map, const LoadBackendOptionsMap* backend_options,
                                    Span<const Kernel> kernel_registry) const {
  if (method_name == nullptr) return Error::InvalidArgument;
  const internal::PlanView* view = nullptr;
  for (const auto& pv : state_->plans) {
    if (std::strcmp(pv.plan->name()->c_str(), method_name) == 0) view = &pv;
  }
  if (view == nullptr) {
    Result<MethodMeta> meta = method_meta(method_name);  // builds the "no method" message
    return meta.error();
  }
  auto st = std::make_unique<internal::MethodState>();
  st->program = state_;
  st->view = view;
  st->plan = view->plan;
  st->name = view->plan->name()->c_str();
  st->memory_manager = memory_manager;
  st->temp_allocator = memory_manager != nullptr ? memory_manager->temp_allocator() : nullptr;
  if (st->temp_allocator == nullptr) {
    // As upstream: kernels and delegates still get scratch memory, from the platform allocator.
    st->own_temp_allocator = std::make_unique<internal::PlatformMemoryAllocator>();
    st->temp_allocator = st->own_temp_allocator.get();
  }
  st->event_tracer = event_tracer;
  st->external_data = named_data_map;
  st->backend_options = backend_options;
  st->kernel_registry = kernel_registry;
  ET_CHECK_OK_OR_RETURN_ERROR(st->parse_values(memory_manager));
  ET_CHECK_OK_OR_RETURN_ERROR(st->setup_delegate_data());
  ET_CHECK_OK_OR_RETURN_ERROR(st->init_delegates());
  ET_CHECK_OK_OR_RETURN_ERROR(st->resolve_instructions());
  if (st->plan->inputs()) {
    for (int32_t i : *st->plan->inputs()) st->inputs.push_back(static_cast<size_t>(i));
  }
  if (st->plan->outputs()) {
    for (int32_t i : *st->plan->outputs()) st->outputs.push_back(static_cast<size_t>(i));
  }
  st->input_set.assign(st->inputs.size(), false);
  for (size_t i = 0; i < st->inputs.size(); ++i) {
    if (!st->values[st->inputs[i]].isTensor()) st->input_set[i] = true;  // scalars keep their traced value
  }
  return Method(std::move(st));
}

Method::Method(std::unique_ptr<internal::MethodState> state) : state_(std::move(state)) {}
Method::Method(Method&&) noexcept = default;
Method::~Method() = default;

size_t Method::inputs_size() const { return state_->inputs.size(); }
size_t Method::outputs_size() const { return state_->outputs.size(); }
const EValue& Method::get_input(size_t i) const {
  state_->input_set.at(i) = true;  // as upstream: whoever reads an input this way is trusted to fill it
  return state_->values[state_->inputs.at(i)];
}
EValue& Method::mutable_input(size_t i) {
  state_->input_set.at(i) = true;
  return state_->values[state_->inputs.at(i)];
}
const EValue& Method::get_output(size_t i) const { return state_->values[state_->outputs.at(i)]; }
EValue& Method::mutable_output(size_t i) { return state_->values[state_->outputs.at(i)]; }
MethodMeta Method::method_meta() const { return MethodMeta(state_->view); }
EventTracer* Method::get_event_tracer() { return state_->event_tracer; }

Error Method::get_outputs(EValue* output_evalues, size_t length) {
  if (output_evalues == nullptr || length < state_->outputs.size()) {
    return set_last_error(Error::InvalidArgument, "output array holds %zu values, the method has %zu outputs", length,
                          state_->outputs.size());
  }
  for (size_t i = 0; i < state_->outputs.size(); ++i) output_evalues[i] = state_->values[state_->outputs[i]];
  for (size_t i = state_->outputs.size(); i < length; ++i) output_evalues[i] = EValue();
  return Error::Ok;
}

Error Method::get_inputs(EValue* input_evalues, size_t length) {
  if (input_evalues == nullptr || length < state_->inputs.size()) {
    return set_last_error(Error::InvalidArgument, "input array holds %zu values, the method has %zu inputs", length,
                          state_->inputs.size());
  }
  for (size_t i = 0; i < state_->inputs.size(); ++i) {
    input_evalues[i] = state_->values[state_->inputs[i]];
    state_->input_set[i] = true;
  }
  for (size_t i = state_->inputs.size(); i < length; ++i) input_evalues[i] = EValue();
  return Error::Ok;
}

Result<executorch::aten::Tensor> Method::get_attribute(std::string_view name) {
  const auto* values = state_->plan->values();
  for (size_t i = 0; values != nullptr && i < values->size(); ++i) {
    const auto* v = (*values)[i];
    if (v->val_type() != et_pte::KernelTypes::Tensor) continue;
    const auto* info = v->val_as_Tensor()->extra_tensor_info();
    if (info != nullptr && info->fully_qualified_name() != nullptr &&
        info->fully_qualified_name()->string_view() == name) {
      return state_->values[i].toTensor();
    }
  }
  return set_last_error(Error::NotFound, "method %s has no attribute '%.*s'", state_->name,
                        static_cast<int>(name.size()), name.data());
}

Error Method::set_input(const EValue& input, size_t input_idx) {
  auto& st = *state_;
  if (input_idx >= st.inputs.size()) {
    return set_last_error(Error::InvalidArgument, "method %s takes %zu inputs; there is no input %zu", st.name,
                          st.inputs.size(), input_idx);
  }
  EValue& target = st.values[st.inputs[input_idx]];
  if (target.isTensor()) {
    if (!input.isTensor()) {
      return set_last_error(Error::InvalidArgument, "method %s input %zu must be a tensor, got %s", st.name, input_idx,
                            tag_to_string(input.tag));
    }
    const Tensor& src = input.toTensor();
    Tensor dst = target.toTensor();
    if (src.unsafeGetTensorImpl() == nullptr)
      return set_last_error(Error::InvalidArgument, "input %zu is a null tensor", input_idx);
    if (src.scalar_type() != dst.scalar_type()) {
      return set_last_error(Error::InvalidArgument, "method %s input %zu must have dtype %s, got %s", st.name,
                            input_idx, executorch::aten::toString(dst.scalar_type()),
                            executorch::aten::toString(src.scalar_type()));
    }
    if (src.dim() != dst.dim()) {
      return set_last_error(Error::InvalidArgument, "method %s input %zu must have rank %zd, got %zd", st.name,
                            input_idx, dst.dim(), src.dim());
    }
    for (ssize_t d = 0; d < src.dim(); ++d) {
      if (src.dim_order()[d] != dst.dim_order()[d]) {
        return set_last_error(Error::InvalidArgument,
                              "method %s input %zu has a different dim order than the program expects", st.name,
                              input_idx);
      }
    }
    const Error err = dst.unsafeGetTensorImpl()->internal_resize_contiguous(src.sizes());
    if (err != Error::Ok) {
      // The program's sizes (the bounds of a dynamic input; dst holds the last call's shape).
      std::string want, got;
      auto meta = method_meta().input_tensor_meta(input_idx);
      if (meta.ok()) {
        for (size_t d = 0; d < meta->sizes().size(); ++d) want += (d ? "," : "") + std::to_string(meta->sizes()[d]);
      } else {
        for (ssize_t d = 0; d < dst.dim(); ++d) want += (d ? "," : "") + std::to_string(dst.size(d));
      }
      for (ssize_t d = 0; d < src.dim(); ++d) got += (d ? "," : "") + std::to_string(src.size(d));
      return set_last_error(Error::InvalidArgument, "method %s input %zu has shape [%s] but the program accepts [%s]%s",
                            st.name, input_idx, got.c_str(), want.c_str(),
                            dst.shape_dynamism() == TensorShapeDynamism::STATIC ? "" : " at most");
    }
    if (src.numel() > 0 && src.const_data_ptr() == nullptr) {
      return set_last_error(Error::InvalidArgument, "input %zu has no data", input_idx);
    }
    const internal::TensorStore* store = st.store_of_value[st.inputs[input_idx]];
    if (store != nullptr && store->planned) {
      if (dst.const_data_ptr() != src.const_data_ptr() && src.nbytes() > 0) {
        std::memcpy(dst.mutable_data_ptr(), src.const_data_ptr(), src.nbytes());
      }
    } else {
      dst.unsafeGetTensorImpl()->set_data(const_cast<void*>(src.const_data_ptr()));
    }
  } else if (target.isInt() || target.isDouble() || target.isBool()) {
    const bool same = (target.isInt() && input.isInt() && target.toInt() == input.toInt()) ||
                      (target.isBool() && input.isBool() && target.toBool() == input.toBool()) ||
                      (target.isDouble() && input.isDouble() &&
                       std::fabs(target.toDouble() - input.toDouble()) <= 1e-4 + 1e-5 * std::fabs(target.toDouble()));
    if (!same) {
      return set_last_error(Error::InvalidArgument,
                            "method %s input %zu is a %s fixed when the program was exported; pass the "
                            "same value",
                            st.name, input_idx, tag_to_string(target.tag));
    }
  } else if (!(target.isNone() && input.isNone())) {
    return set_last_error(Error::InvalidArgument, "method %s input %zu must be a %s, got %s", st.name, input_idx,
                          tag_to_string(target.tag), tag_to_string(input.tag));
  }
  st.input_set[input_idx] = true;
  return Error::Ok;
}

Error Method::set_inputs(const ArrayRef<EValue>& inputs) {
  if (inputs.size() != state_->inputs.size()) {
    return set_last_error(Error::InvalidArgument, "method %s takes %zu inputs, got %zu", state_->name,
                          state_->inputs.size(), inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) ET_CHECK_OK_OR_RETURN_ERROR(set_input(inputs[i], i));
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* buffer, size_t size, size_t output_idx) {
  auto& st = *state_;
  if (output_idx >= st.outputs.size()) return set_last_error(Error::InvalidArgument, "no output %zu", output_idx);
  EValue& v = st.values[st.outputs[output_idx]];
  if (!v.isTensor()) return set_last_error(Error::InvalidArgument, "output %zu is not a tensor", output_idx);
  const internal::TensorStore* store = st.store_of_value[st.outputs[output_idx]];
  if (store != nullptr && (store->planned || store->constant)) {
    return set_last_error(Error::InvalidState, "output %zu is memory planned; it cannot take an external buffer",
                          output_idx);
  }
  if (buffer == nullptr || size < v.toTensor().nbytes()) {
    return set_last_error(Error::InvalidArgument, "output buffer too small");
  }
  v.toTensor().unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

Error Method::execute() {
  auto& st = *state_;
  if (in_progress()) {
    return set_last_error(Error::InvalidState, "method %s: a step-by-step execution is in progress", st.name);
  }
  for (size_t i = 0; i < st.inputs.size(); ++i) {
    if (!st.input_set[i]) {
      return set_last_error(Error::InvalidArgument, "method %s: input %zu was not set", st.name, i);
    }
  }
  if (st.temp_allocator != nullptr) st.temp_allocator->reset();
  constexpr uint64_t kMaxInstructions = 10000000;
  uint64_t steps = 0;
  EventTracer* const tracer = st.event_tracer;
  EventTracerEntry method_event{};
  bool profile_instructions = false;
  bool log_intermediates = false;
  if (tracer != nullptr) {
    tracer->create_event_block("Execute");
    tracer->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    method_event = tracer->start_profiling("Method::execute");
    profile_instructions = tracer->event_tracer_profiling_level() == EventTracerProfilingLevel::kProfileAllEvents;
    log_intermediates = tracer->event_tracer_debug_level() >= EventTracerDebugLogLevel::kIntermediateOutputs;
  }
  Error err = Error::Ok;
  for (size_t c = 0; c < st.chains.size() && err == Error::Ok; ++c) {
    size_t pc = 0;
    while (pc < st.chains[c].size()) {
      if (++steps > kMaxInstructions) {
        err = set_last_error(Error::InvalidProgram, "method %s ran more than %llu instructions (endless loop?)",
                             st.name, (unsigned long long)kMaxInstructions);
        break;
      }
      if (!profile_instructions && !log_intermediates) {
        err = st.run_instruction(c, pc);
      } else {
        err = st.run_traced_instruction(c, pc, profile_instructions, log_intermediates);
      }
      if (err != Error::Ok) break;
    }
  }
  if (tracer != nullptr) {
    tracer->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    tracer->end_profiling(method_event);
    if (err == Error::Ok) st.log_outputs();
  }
  return err;
}

Error Method::step() {
  auto& st = *state_;
  if (st.step_chain >= st.chains.size()) return Error::EndOfMethod;
  if (!in_progress()) {
    for (size_t i = 0; i < st.inputs.size(); ++i) {
      if (!st.input_set[i]) {
        return set_last_error(Error::InvalidArgument, "method %s: input %zu was not set", st.name, i);
      }
    }
  }
  if (st.step_instr < st.chains[st.step_chain].size()) {
    size_t pc = st.step_instr;
    const Error err = st.run_instruction(st.step_chain, pc);
    if (err != Error::Ok) return err;
    st.step_instr = pc;
  }
  if (st.step_instr >= st.chains[st.step_chain].size()) {
    st.step_chain += 1;
    st.step_instr = 0;
    if (st.step_chain == st.chains.size()) st.log_outputs();
  }
  return Error::Ok;
}

Error Method::experimental_step() { return step(); }

bool Method::in_progress() const {
  const auto& st = *state_;
  return (st.step_chain != 0 || st.step_instr != 0) && st.step_chain < st.chains.size();
}

Error Method::reset_execution() {
  auto& st = *state_;
  if (st.step_chain != st.chains.size()) {
    return set_last_error(Error::InvalidState, "method %s: reset_execution() before the end of the method", st.name);
  }
  st.step_chain = 0;
  st.step_instr = 0;
  return Error::Ok;
}

Error Method::experimental_reset_execution() { return reset_execution(); }

}  // namespace runtime
}  // namespace executorch
