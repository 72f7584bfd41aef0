#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/export.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/compiler.h>

#define ET_MODULE_NAMESPACE module

namespace executorch {
namespace extension {

using ET_RUNTIME_NAMESPACE::Kernel;
using ET_RUNTIME_NAMESPACE::Method;
using ET_RUNTIME_NAMESPACE::MethodMeta;
using ET_RUNTIME_NAMESPACE::NamedDataMap;
using ET_RUNTIME_NAMESPACE::Program;
using runtime::LoadBackendOptionsMap;

class ExecuTorchJni;

namespace ET_MODULE_NAMESPACE {

// Loads a program lazily (on the first call that needs it) and runs its methods; each loaded method gets its own
// memory-planned buffers unless `share_memory_arenas` is set. Data files (.ptd) hold tensors the program keeps
// outside itself: they are opened with the program, merged into one map and given to every method it loads.
// Not thread-safe: one thread at a time per Module (Modules sharing one Program may run concurrently).
class EXECUTORCH_API Module {
 public:
  // How the program and data files are read: File reads them into memory, the Mmap modes map them (MmapUseMlock
  // locks the pages and fails when that is not allowed; MmapUseMadvise advises sequential reading).
  enum class LoadMode {
    File,
    Mmap,
    MmapUseMlock,
    MmapUseMlockIgnoreErrors,
    MmapUseMadvise,
  };

  // `event_tracer` (e.g. executorch::etdump::ETDumpGen) is given to every method this module loads.
  // `memory_allocator` / `temp_allocator` default to malloc-backed allocators. With `share_memory_arenas`, all
  // methods use one set of buffers for memory ids 1 and 2 (sized for the largest method), as programs exported
  // with shared mutable buffers need; outputs of one method may then be overwritten by running another.
  explicit Module(const std::string& file_path, const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr, bool share_memory_arenas = false);
  // With one data file (.ptd); an empty path means none.
  explicit Module(const std::string& file_path, const std::string& data_map_path,
                  const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr, bool share_memory_arenas = false);
  // With several data files; every key must be in exactly one of them.
  explicit Module(const std::string& file_path, std::vector<std::string> data_files,
                  const LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr, bool share_memory_arenas = false);
  // The program from `data_loader`, the data file (if any) from `data_map_loader`.
  explicit Module(std::unique_ptr<runtime::DataLoader> data_loader,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr, bool share_memory_arenas = false);
  // A program already loaded (e.g. another Module's program()); it keeps its data loader alive itself.
  explicit Module(std::shared_ptr<Program> program,
                  std::unique_ptr<runtime::MemoryAllocator> memory_allocator = nullptr,
                  std::unique_ptr<runtime::MemoryAllocator> temp_allocator = nullptr,
                  std::unique_ptr<runtime::EventTracer> event_tracer = nullptr,
                  std::unique_ptr<runtime::DataLoader> data_map_loader = nullptr, bool share_memory_arenas = false);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;
  virtual ~Module();

  // Loads the program and opens the data files, once. Errors name the file; last_error_message() has the
  // detail. InvalidArgument when data files were given to a program that keeps all its data inside the .pte.
  ET_NODISCARD virtual runtime::Error load(const Program::Verification verification = Program::Verification::Minimal);
  // As load(), and keeps a copy of `backend_options` for every method loaded later without options of its own.
  // On failure the options stored before are kept.
  ET_NODISCARD virtual runtime::Error load(const LoadBackendOptionsMap& backend_options,
                                           const Program::Verification verification = Program::Verification::Minimal);
  // The options stored by load(backend_options) (empty before).
  inline const LoadBackendOptionsMap& backend_options() const { return backend_options_map_; }
  virtual inline bool is_loaded() const { return program_ != nullptr; }
  // Null until loaded. The program keeps its data loader alive, so it may outlive this Module.
  inline std::shared_ptr<Program> program() const { return program_; }

  runtime::Result<size_t> num_methods();
  runtime::Result<std::unordered_set<std::string>> method_names();

  // Loads a method once (later calls do nothing). `planned_memory`: the caller's buffers instead of the Module's
  // own; `event_tracer`: instead of the Module's; `backend_options`: instead of those stored by load();
  // `kernel_registry`: kernels searched before the process-wide registry.
  ET_NODISCARD runtime::Error load_method(const std::string& method_name,
                                          runtime::HierarchicalAllocator* planned_memory = nullptr,
                                          torch::executor::EventTracer* event_tracer = nullptr,
                                          const LoadBackendOptionsMap* backend_options = nullptr,
                                          std::vector<Kernel> kernel_registry = {});
  ET_DEPRECATED ET_NODISCARD runtime::Error inline load_method(const std::string& method_name,
                                                               torch::executor::EventTracer* event_tracer) {
    return load_method(method_name, nullptr, event_tracer, nullptr);
  }
  // True when the method was loaded (its outputs are invalid afterwards).
  inline bool unload_method(const std::string& method_name) { return methods_.erase(method_name); }
  // The loaded method itself (loading it if needed); the Module still owns it.
  ET_DEPRECATED ET_NODISCARD runtime::Result<Method*> method(const std::string& method_name);

  ET_NODISCARD inline runtime::Error load_forward(runtime::HierarchicalAllocator* planned_memory = nullptr,
                                                  torch::executor::EventTracer* event_tracer = nullptr,
                                                  const LoadBackendOptionsMap* backend_options = nullptr,
                                                  std::vector<Kernel> kernel_registry = {}) {
    return load_method("forward", planned_memory, event_tracer, backend_options, std::move(kernel_registry));
  }
  ET_DEPRECATED ET_NODISCARD inline runtime::Error load_forward(torch::executor::EventTracer* event_tracer) {
    return load_forward(nullptr, event_tracer, nullptr);
  }
  inline bool unload_forward() { return unload_method("forward"); }
  inline bool is_method_loaded(const std::string& method_name) const { return methods_.count(method_name); }

  // Loads the program (not the method) if needed.
  runtime::Result<MethodMeta> method_meta(const std::string& method_name);

  // Loads the method if needed, sets the given inputs (the first input_values.size() ones; the others keep what
  // set_input() gave them), runs it and returns its outputs. Output tensors alias the method's memory: they stay
  // valid until the method runs again or is unloaded.
  ET_NODISCARD virtual runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> execute(const std::string& method_name,
                                                                            const runtime::EValue& input_value) {
    return execute(method_name, std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> execute(const std::string& method_name) {
    return execute(method_name, std::vector<runtime::EValue>{});
  }

  // The first output of execute(); InvalidArgument when the method has no outputs.
  ET_NODISCARD inline runtime::Result<runtime::EValue> get(const std::string& method_name,
                                                           const std::vector<runtime::EValue>& input_values) {
    auto outputs = execute(method_name, input_values);
    if (!outputs.ok()) return outputs.error();
    if (outputs->empty()) return runtime::Error::InvalidArgument;
    return (*outputs)[0];
  }
  ET_NODISCARD inline runtime::Result<runtime::EValue> get(const std::string& method_name,
                                                           const runtime::EValue& input_value) {
    return get(method_name, std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD inline runtime::Result<runtime::EValue> get(const std::string& method_name) {
    return get(method_name, std::vector<runtime::EValue>{});
  }

  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward(
      const std::vector<runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }
  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward(const runtime::EValue& input_value) {
    return forward(std::vector<runtime::EValue>{input_value});
  }
  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> forward() {
    return forward(std::vector<runtime::EValue>{});
  }

  // Inputs kept by the method for the following runs (a default EValue clears nothing: set a new value instead).
  ET_NODISCARD runtime::Error set_input(const std::string& method_name, const runtime::EValue& input_value,
                                        size_t input_index);
  ET_NODISCARD inline runtime::Error set_input(const runtime::EValue& input_value, size_t input_index) {
    return set_input("forward", input_value, input_index);
  }
  ET_NODISCARD runtime::Error set_inputs(const std::string& method_name,
                                         const std::vector<runtime::EValue>& input_values);
  ET_NODISCARD inline runtime::Error set_inputs(const std::vector<runtime::EValue>& input_values) {
    return set_inputs("forward", input_values);
  }

  // The caller's tensor memory for an output the program does not memory-plan (exported without planning its
  // outputs); the method writes that output there on every run. InvalidArgument for a non-tensor value or a bad
  // index; the runtime's error for a planned output or a buffer that is too small.
  ET_NODISCARD runtime::Error set_output(const std::string& method_name, runtime::EValue output_value,
                                         size_t output_index = 0);
  ET_NODISCARD inline runtime::Error set_output(runtime::EValue output_value, size_t output_index = 0) {
    return set_output("forward", std::move(output_value), output_index);
  }
  // One value per output of the method.
  ET_NODISCARD runtime::Error set_outputs(const std::string& method_name,
                                          const std::vector<runtime::EValue>& output_values);
  ET_NODISCARD inline runtime::Error set_outputs(const std::vector<runtime::EValue>& output_values) {
    return set_outputs("forward", output_values);
  }

  // The outputs of the method's last run (loading it if needed).
  ET_NODISCARD runtime::Result<std::vector<runtime::EValue>> get_outputs(const std::string& method_name);
  ET_NODISCARD inline runtime::Result<std::vector<runtime::EValue>> get_outputs() { return get_outputs("forward"); }
  ET_NODISCARD runtime::Result<runtime::EValue> get_output(const std::string& method_name, size_t output_index = 0);
  ET_NODISCARD inline runtime::Result<runtime::EValue> get_output(size_t output_index = 0) {
    return get_output("forward", output_index);
  }

  // The event tracer given to the constructor (null when none).
  inline runtime::EventTracer* event_tracer() const { return event_tracer_.get(); }

  // Always empty: debug output goes to the event tracer.
  ET_DEPRECATED ET_NODISCARD runtime::Span<uint8_t> debug_buffer() {
    return runtime::Span<uint8_t>(debug_buffer_.data(), debug_buffer_.size());
  }

 private:
  // The buffers a method's planned memory lives in: zero-filled host blocks (calloc, so untouched pages cost
  // nothing), device blocks for buffers the program plans on an accelerator, and the allocator over them.
  struct PlannedMemory {
    std::vector<std::unique_ptr<uint8_t, void (*)(void*)>> planned_buffers;
    std::vector<runtime::Span<uint8_t>> planned_spans;
    std::vector<runtime::DeviceMemoryBuffer> device_buffers;
    std::vector<runtime::etensor::Device> planned_devices;
    std::unique_ptr<runtime::HierarchicalAllocator> planned_memory;
  };
  struct MethodHolder {
    std::unique_ptr<PlannedMemory> planned_memory;
    std::unique_ptr<runtime::MemoryManager> memory_manager;
    std::unique_ptr<Method> method;
    std::vector<Kernel> kernel_registry;
  };

  runtime::Error load_internal(const Program::Verification verification);
  runtime::Error open_data_files();
  runtime::Result<std::unique_ptr<PlannedMemory>> make_planned_memory(const MethodMeta& meta);
  runtime::Result<Method*> loaded_method(const std::string& method_name);
  // "a.ptd, b.ptd", for messages.
  std::string data_file_names() const;

  std::string file_path_;
  std::vector<std::string> data_files_;
  LoadMode load_mode_{LoadMode::File};
  // Destroyed after the methods (methods_ is declared last), which read the maps and use the allocators.
  std::unique_ptr<runtime::MemoryAllocator> memory_allocator_;
  std::unique_ptr<runtime::MemoryAllocator> temp_allocator_;
  std::unique_ptr<runtime::EventTracer> event_tracer_;
  std::shared_ptr<Program> program_;
  std::unique_ptr<runtime::DataLoader> data_loader_;  // until the program is loaded, then owned by program_
  std::unique_ptr<runtime::DataLoader> user_data_map_loader_;
  std::vector<std::unique_ptr<runtime::DataLoader>> data_map_loaders_;
  std::vector<std::unique_ptr<NamedDataMap>> named_data_maps_;
  std::unique_ptr<NamedDataMap> merged_data_map_;
  bool data_maps_open_ = false;
  std::vector<std::unique_ptr<uint8_t, void (*)(void*)>> shared_arenas_;
  std::vector<runtime::Span<uint8_t>> shared_arena_spans_;
  std::vector<uint8_t> debug_buffer_;
  std::vector<std::vector<runtime::BackendOption>> backend_options_storage_;
  LoadBackendOptionsMap backend_options_map_;
  bool share_memory_arenas_ = false;

 protected:
  std::unordered_map<std::string, MethodHolder> methods_;
  friend class executorch::extension::ExecuTorchJni;
};

}  // namespace ET_MODULE_NAMESPACE
using ::executorch::extension::ET_MODULE_NAMESPACE::Module;
}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::ET_MODULE_NAMESPACE::Module;
}  // namespace executor
}  // namespace torch
