#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdlib>

#include "internal.h"

namespace executorch {
namespace extension {
namespace module {

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;

Module::Module(const std::string& file_path, LoadMode load_mode,
               std::unique_ptr<executorch::runtime::EventTracer> event_tracer)
    : file_path_(file_path), load_mode_(load_mode), event_tracer_(std::move(event_tracer)) {
  executorch::runtime::runtime_init();
}

Module::Module(std::unique_ptr<executorch::runtime::DataLoader> data_loader) : data_loader_(std::move(data_loader)) {
  executorch::runtime::runtime_init();
}

Module::Module(std::shared_ptr<Program> program) : program_(std::move(program)) { executorch::runtime::runtime_init(); }

Module::~Module() {
  methods_.clear();  // methods before the program and the loader they read from
  program_.reset();
}

Error Module::load(Program::Verification verification) {
  if (program_ != nullptr) return Error::Ok;
  if (data_loader_ == nullptr) {
    if (load_mode_ == LoadMode::File) {
      Result<FileDataLoader> loader = FileDataLoader::from(file_path_.c_str());
      if (!loader.ok()) return loader.error();
      data_loader_ = std::make_unique<FileDataLoader>(std::move(*loader));
    } else {
      const auto mlock = load_mode_ == LoadMode::Mmap           ? MmapDataLoader::MlockConfig::NoMlock
                         : load_mode_ == LoadMode::MmapUseMlock ? MmapDataLoader::MlockConfig::UseMlock
                                                                : MmapDataLoader::MlockConfig::UseMlockIgnoreErrors;
      Result<MmapDataLoader> loader = MmapDataLoader::from(file_path_.c_str(), mlock);
      if (!loader.ok()) return loader.error();
      data_loader_ = std::make_unique<MmapDataLoader>(std::move(*loader));
    }
  }
  Result<Program> program = Program::load(data_loader_.get(), verification);
  if (!program.ok()) return program.error();
  program_ = std::make_shared<Program>(std::move(*program));
  return Error::Ok;
}

Result<size_t> Module::num_methods() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->num_methods();
}

Result<std::unordered_set<std::string>> Module::method_names() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) names.insert(*program_->get_method_name(i));
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->method_meta(method_name.c_str());
}

Result<Module::MethodHolder*> Module::loaded_method(const std::string& method_name) {
  auto it = methods_.find(method_name);
  if (it != methods_.end()) return it->second.get();
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  Result<MethodMeta> meta = program_->method_meta(method_name.c_str());
  if (!meta.ok()) return meta.error();
  auto holder = std::make_unique<MethodHolder>();
  auto memory = PlannedMemory::create(*meta);
  if (!memory.ok()) return memory.error();
  holder->memory = std::move(*memory);
  Result<Method> method =
      program_->load_method(method_name.c_str(), holder->memory->memory_manager(), event_tracer_.get());
  if (!method.ok()) return method.error();
  holder->method = std::make_unique<Method>(std::move(*method));
  MethodHolder* raw = holder.get();
  methods_.emplace(method_name, std::move(holder));
  return raw;
}

Error Module::load_method(const std::string& method_name) {
  Result<MethodHolder*> m = loaded_method(method_name);
  return m.ok() ? Error::Ok : m.error();
}

bool Module::is_method_loaded(const std::string& method_name) const { return methods_.count(method_name) != 0; }

bool Module::unload_method(const std::string& method_name) { return methods_.erase(method_name) != 0; }

Error Module::set_input(const std::string& method_name, const EValue& input_value, size_t input_index) {
  Result<MethodHolder*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  return (*m)->method->set_input(input_value, input_index);
}

Error Module::set_inputs(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<MethodHolder*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  return (*m)->method->set_inputs(executorch::runtime::ArrayRef<EValue>(input_values.data(), input_values.size()));
}

Result<std::vector<EValue>> Module::execute(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<std::vector<EValue>> out = run(method_name, input_values);
  if (!out.ok())
    ET_LOG(Error, "Module::execute(\"%s\"): %s", method_name.c_str(), executorch::runtime::last_error_message());
  return out;
}

Result<std::vector<EValue>> Module::run(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<MethodHolder*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  Method& method = *(*m)->method;
  if (input_values.size() > method.inputs_size()) {
    return set_last_error(Error::InvalidArgument, "method %s takes %zu inputs, got %zu", method_name.c_str(),
                          method.inputs_size(), input_values.size());
  }
  for (size_t i = 0; i < input_values.size(); ++i) ET_CHECK_OK_OR_RETURN_ERROR(method.set_input(input_values[i], i));
  ET_CHECK_OK_OR_RETURN_ERROR(method.execute());
  std::vector<EValue> outputs(method.outputs_size());
  ET_CHECK_OK_OR_RETURN_ERROR(method.get_outputs(outputs.data(), outputs.size()));
  return outputs;
}

Result<EValue> Module::get(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<std::vector<EValue>> out = execute(method_name, input_values);
  if (!out.ok()) return out.error();
  if (out->empty()) return set_last_error(Error::InvalidArgument, "method %s has no outputs", method_name.c_str());
  return (*out)[0];
}

}  // namespace module
}  // namespace extension
}  // namespace executorch
