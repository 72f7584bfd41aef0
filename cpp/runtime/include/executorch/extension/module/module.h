#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {
namespace module {

// Loads a program lazily and runs its methods. Each loaded method gets its own planned memory.
class EXECUTORCH_API Module {
 public:
  enum class LoadMode { File, Mmap, MmapUseMlock, MmapUseMlockIgnoreErrors };

  // `event_tracer` (e.g. executorch::etdump::ETDumpGen) is given to every method this module loads; each
  // execute() then records its events there (see executorch/runtime/core/event_tracer.h).
  explicit Module(const std::string& file_path, LoadMode load_mode = LoadMode::File,
                  std::unique_ptr<executorch::runtime::EventTracer> event_tracer = nullptr);
  explicit Module(std::unique_ptr<executorch::runtime::DataLoader> data_loader);
  explicit Module(std::shared_ptr<executorch::runtime::Program> program);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;
  ~Module();

  executorch::runtime::Error load(executorch::runtime::Program::Verification verification =
                                      executorch::runtime::Program::Verification::InternalConsistency);
  bool is_loaded() const { return program_ != nullptr; }
  std::shared_ptr<executorch::runtime::Program> program() const { return program_; }
  // The event tracer given to the constructor (null when none).
  executorch::runtime::EventTracer* event_tracer() const { return event_tracer_.get(); }

  executorch::runtime::Result<size_t> num_methods();
  executorch::runtime::Result<std::unordered_set<std::string>> method_names();
  executorch::runtime::Error load_method(const std::string& method_name);
  bool is_method_loaded(const std::string& method_name) const;
  bool unload_method(const std::string& method_name);
  executorch::runtime::Result<executorch::runtime::MethodMeta> method_meta(const std::string& method_name);

  // Loads the method if needed, sets the inputs, runs it and returns its outputs (which alias the method's
  // planned memory until the next call of the same method).
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> execute(
      const std::string& method_name, const std::vector<executorch::runtime::EValue>& input_values);
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> execute(
      const std::string& method_name, const executorch::runtime::EValue& input_value) {
    return execute(method_name, std::vector<executorch::runtime::EValue>{input_value});
  }
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> execute(const std::string& method_name) {
    return execute(method_name, std::vector<executorch::runtime::EValue>{});
  }
  // First output of execute().
  executorch::runtime::Result<executorch::runtime::EValue> get(
      const std::string& method_name, const std::vector<executorch::runtime::EValue>& input_values = {});

  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> forward(
      const std::vector<executorch::runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> forward(
      const executorch::runtime::EValue& input_value) {
    return execute("forward", input_value);
  }
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> forward() { return execute("forward"); }

  executorch::runtime::Error set_input(const std::string& method_name, const executorch::runtime::EValue& input_value,
                                       size_t input_index);
  executorch::runtime::Error set_inputs(const std::string& method_name,
                                        const std::vector<executorch::runtime::EValue>& input_values);

 private:
  struct MethodHolder {
    std::unique_ptr<PlannedMemory> memory;
    std::unique_ptr<executorch::runtime::Method> method;
  };

  executorch::runtime::Result<MethodHolder*> loaded_method(const std::string& method_name);
  executorch::runtime::Result<std::vector<executorch::runtime::EValue>> run(
      const std::string& method_name, const std::vector<executorch::runtime::EValue>& input_values);

  std::string file_path_;
  LoadMode load_mode_ = LoadMode::File;
  std::unique_ptr<executorch::runtime::EventTracer> event_tracer_;  // destroyed after the methods that use it
  std::unique_ptr<executorch::runtime::DataLoader> data_loader_;
  std::shared_ptr<executorch::runtime::Program> program_;
  std::map<std::string, std::unique_ptr<MethodHolder>> methods_;
};

}  // namespace module
using ::executorch::extension::module::Module;
}  // namespace extension
}  // namespace executorch
