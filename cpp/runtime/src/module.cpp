#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>

namespace executorch {
namespace extension {
namespace ET_MODULE_NAMESPACE {

using runtime::DataLoader;
using runtime::Error;
using runtime::EValue;
using runtime::MemoryAllocator;
using runtime::Result;
using runtime::set_last_error;

namespace {

using Buffer = std::unique_ptr<uint8_t, void (*)(void*)>;

// calloc'ed, so pages a method never touches are never committed.
Buffer zeroed(size_t size) { return Buffer(static_cast<uint8_t*>(std::calloc(size == 0 ? 1 : size, 1)), std::free); }

std::unique_ptr<MemoryAllocator> or_malloc(std::unique_ptr<MemoryAllocator> allocator) {
  return allocator != nullptr ? std::move(allocator) : std::make_unique<MallocMemoryAllocator>();
}

// The reason the last call failed, for wrapping into a message that names the file.
std::string why(Error error) {
  const char* msg = runtime::last_error_message();
  return msg != nullptr && *msg != '\0' ? std::string(msg) : std::string(runtime::to_string(error));
}

template <typename Loader>
Result<std::unique_ptr<DataLoader>> own(Result<Loader> loader) {
  if (!loader.ok()) return loader.error();
  return std::unique_ptr<DataLoader>(std::make_unique<Loader>(std::move(*loader)));
}

Result<std::unique_ptr<DataLoader>> make_data_loader(const std::string& path, Module::LoadMode mode) {
  using Mlock = MmapDataLoader::MlockConfig;
  switch (mode) {
    case Module::LoadMode::File: return own(FileDataLoader::from(path.c_str()));
    case Module::LoadMode::Mmap: return own(MmapDataLoader::from(path.c_str(), Mlock::NoMlock));
    case Module::LoadMode::MmapUseMlock: return own(MmapDataLoader::from(path.c_str(), Mlock::UseMlock));
    case Module::LoadMode::MmapUseMlockIgnoreErrors:
      return own(MmapDataLoader::from(path.c_str(), Mlock::UseMlockIgnoreErrors));
    case Module::LoadMode::MmapUseMadvise: return own(MmapDataLoader::from(path.c_str(), Mlock::UseMadvise));
  }
  return set_last_error(Error::InvalidArgument, "unknown Module::LoadMode %d", static_cast<int>(mode));
}

// Whether a data file can matter to the program: only tensors with a fully qualified name (EXTERNAL constants,
// named mutable buffers) and delegates (their named data) are looked up in one.
bool program_reads_data_files(const Program& program) {
  for (size_t i = 0; i < program.num_methods(); ++i) {
    Result<const char*> name = program.get_method_name(i);
    if (!name.ok()) return true;
    Result<MethodMeta> meta = program.method_meta(*name);
    if (!meta.ok() || meta->num_backends() > 0 || meta->num_attributes() > 0) return true;
  }
  return false;
}

}  // namespace

Module::Module(const std::string& file_path, const LoadMode load_mode,
               std::unique_ptr<runtime::EventTracer> event_tracer, std::unique_ptr<MemoryAllocator> memory_allocator,
               std::unique_ptr<MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : file_path_(file_path),
      load_mode_(load_mode),
      memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      share_memory_arenas_(share_memory_arenas) {
  runtime::runtime_init();
}

Module::Module(const std::string& file_path, const std::string& data_map_path, const LoadMode load_mode,
               std::unique_ptr<runtime::EventTracer> event_tracer, std::unique_ptr<MemoryAllocator> memory_allocator,
               std::unique_ptr<MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : Module(file_path, load_mode, std::move(event_tracer), std::move(memory_allocator), std::move(temp_allocator),
             share_memory_arenas) {
  if (!data_map_path.empty()) data_files_.push_back(data_map_path);
}

Module::Module(const std::string& file_path, std::vector<std::string> data_files, const LoadMode load_mode,
               std::unique_ptr<runtime::EventTracer> event_tracer, std::unique_ptr<MemoryAllocator> memory_allocator,
               std::unique_ptr<MemoryAllocator> temp_allocator, bool share_memory_arenas)
    : Module(file_path, load_mode, std::move(event_tracer), std::move(memory_allocator), std::move(temp_allocator),
             share_memory_arenas) {
  data_files_ = std::move(data_files);
}

Module::Module(std::unique_ptr<DataLoader> data_loader, std::unique_ptr<MemoryAllocator> memory_allocator,
               std::unique_ptr<MemoryAllocator> temp_allocator, std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<DataLoader> data_map_loader, bool share_memory_arenas)
    : memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      data_loader_(std::move(data_loader)),
      user_data_map_loader_(std::move(data_map_loader)),
      share_memory_arenas_(share_memory_arenas) {
  runtime::runtime_init();
}

Module::Module(std::shared_ptr<Program> program, std::unique_ptr<MemoryAllocator> memory_allocator,
               std::unique_ptr<MemoryAllocator> temp_allocator, std::unique_ptr<runtime::EventTracer> event_tracer,
               std::unique_ptr<DataLoader> data_map_loader, bool share_memory_arenas)
    : memory_allocator_(or_malloc(std::move(memory_allocator))),
      temp_allocator_(or_malloc(std::move(temp_allocator))),
      event_tracer_(std::move(event_tracer)),
      program_(std::move(program)),
      user_data_map_loader_(std::move(data_map_loader)),
      share_memory_arenas_(share_memory_arenas) {
  runtime::runtime_init();
}

Module::~Module() {
  methods_.clear();  // before the data maps, allocators and event tracer they use
}

std::string Module::data_file_names() const {
  std::string names;
  for (const std::string& f : data_files_) names += (names.empty() ? "" : ", ") + f;
  if (user_data_map_loader_ != nullptr) names += names.empty() ? "<data map loader>" : ", <data map loader>";
  return names;
}

Error Module::load(const Program::Verification verification) { return load_internal(verification); }

Error Module::load(const LoadBackendOptionsMap& backend_options, const Program::Verification verification) {
  ET_CHECK_OK_OR_RETURN_ERROR(load_internal(verification));
  // Deep copy: the caller's map only points at its option arrays, which may die right after this call. Built
  // aside and committed together, so a failure leaves the options stored before untouched.
  std::vector<std::vector<runtime::BackendOption>> storage;
  storage.reserve(backend_options.size());  // no reallocation: the spans below point into these vectors
  LoadBackendOptionsMap map;
  for (size_t i = 0; i < backend_options.size(); ++i) {
    const auto entry = backend_options.entry_at(i);
    storage.emplace_back(entry.options.begin(), entry.options.end());
    auto& owned = storage.back();
    ET_CHECK_OK_OR_RETURN_ERROR(
        map.set_options(entry.backend_id, runtime::Span<runtime::BackendOption>(owned.data(), owned.size())));
  }
  backend_options_storage_ = std::move(storage);  // moves the vectors' buffers, so the spans stay valid
  backend_options_map_ = map;
  return Error::Ok;
}

Error Module::open_data_files() {
  std::vector<std::unique_ptr<DataLoader>> loaders;
  std::vector<std::pair<DataLoader*, std::string>> sources;
  for (const std::string& file : data_files_) {
    runtime::clear_last_error();
    Result<std::unique_ptr<DataLoader>> loader = make_data_loader(file, load_mode_);
    if (!loader.ok()) {
      return set_last_error(loader.error(),
                            "data file %s cannot be read (%s); pass the path of the .ptd file exported with "
                            "this program",
                            file.c_str(), why(loader.error()).c_str());
    }
    sources.emplace_back(loader->get(), file);
    loaders.push_back(std::move(*loader));
  }
  if (user_data_map_loader_ != nullptr) sources.emplace_back(user_data_map_loader_.get(), "<data map loader>");
  if (sources.empty()) {
    data_maps_open_ = true;
    return Error::Ok;
  }
  std::vector<std::unique_ptr<NamedDataMap>> maps;
  std::vector<const NamedDataMap*> views;
  for (const auto& [loader, name] : sources) {
    runtime::clear_last_error();
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(loader);
    if (!map.ok()) {
      return set_last_error(map.error(), "data file %s is not a valid .ptd file: %s", name.c_str(),
                            why(map.error()).c_str());
    }
    maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*map)));
    views.push_back(maps.back().get());
  }
  runtime::clear_last_error();
  Result<merged_data_map::MergedDataMap> merged =
      merged_data_map::MergedDataMap::load(runtime::Span<const NamedDataMap*>(views.data(), views.size()));
  if (!merged.ok()) {
    return set_last_error(merged.error(), "data files %s cannot be used together: %s", data_file_names().c_str(),
                          why(merged.error()).c_str());
  }
  data_map_loaders_ = std::move(loaders);
  named_data_maps_ = std::move(maps);
  merged_data_map_ = std::make_unique<merged_data_map::MergedDataMap>(std::move(*merged));
  data_maps_open_ = true;
  return Error::Ok;
}

Error Module::load_internal(const Program::Verification verification) {
  if (program_ != nullptr && data_maps_open_) return Error::Ok;
  const bool opened_now = !data_maps_open_;
  if (opened_now) ET_CHECK_OK_OR_RETURN_ERROR(open_data_files());
  // A data file given to a program that reads none is a mistake (the wrong file, or the wrong export).
  auto check_needs_data = [&](const Program& program) {
    if (merged_data_map_ == nullptr || program_reads_data_files(program)) return Error::Ok;
    const std::string names = data_file_names();
    merged_data_map_.reset();
    named_data_maps_.clear();
    data_map_loaders_.clear();
    data_maps_open_ = false;
    return set_last_error(Error::InvalidArgument,
                          "%s: this program keeps all its data inside the .pte; it needs no data file", names.c_str());
  };
  if (program_ != nullptr) return opened_now ? check_needs_data(*program_) : Error::Ok;

  if (data_loader_ == nullptr) {
    runtime::clear_last_error();
    Result<std::unique_ptr<DataLoader>> loader = make_data_loader(file_path_, load_mode_);
    if (!loader.ok()) {
      return set_last_error(loader.error(), "program %s cannot be read (%s)", file_path_.c_str(),
                            why(loader.error()).c_str());
    }
    data_loader_ = std::move(*loader);
  }
  runtime::clear_last_error();
  Result<Program> program = Program::load(data_loader_.get(), verification);
  if (!program.ok()) {
    return set_last_error(program.error(), "program %s cannot be loaded: %s",
                          file_path_.empty() ? "(from the data loader)" : file_path_.c_str(),
                          why(program.error()).c_str());
  }
  ET_CHECK_OK_OR_RETURN_ERROR(check_needs_data(*program));
  // The program reads its segments through the loader for as long as it lives, which may be longer than this
  // Module (program() shares it), so the loader goes with it.
  std::shared_ptr<DataLoader> loader(std::move(data_loader_));
  program_ = std::shared_ptr<Program>(new Program(std::move(*program)), [loader](Program* p) { delete p; });
  return Error::Ok;
}

Result<size_t> Module::num_methods() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->num_methods();
}

Result<std::unordered_set<std::string>> Module::method_names() {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  std::unordered_set<std::string> names;
  names.reserve(program_->num_methods());
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    Result<const char*> name = program_->get_method_name(i);
    if (!name.ok()) return name.error();
    names.emplace(*name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  return program_->method_meta(method_name.c_str());
}

Result<std::unique_ptr<Module::PlannedMemory>> Module::make_planned_memory(const MethodMeta& meta) {
  const size_t n = meta.num_memory_planned_buffers();
  std::vector<size_t> sizes(n);
  std::vector<runtime::etensor::Device> devices(n, runtime::etensor::Device(runtime::etensor::DeviceType::CPU));
  bool on_device = false;
  for (size_t i = 0; i < n; ++i) {
    Result<int64_t> size = meta.memory_planned_buffer_size(i);
    if (!size.ok()) return size.error();
    sizes[i] = static_cast<size_t>(*size);
    Result<runtime::etensor::Device> device = meta.memory_planned_buffer_device(i);
    if (device.ok()) devices[i] = *device;
    on_device = on_device || !devices[i].is_cpu();
  }
  if (on_device && share_memory_arenas_) {
    return set_last_error(Error::NotSupported,
                          "method %s plans memory on a device, which share_memory_arenas does not support; "
                          "construct the Module without share_memory_arenas",
                          meta.name());
  }
  if (share_memory_arenas_ && shared_arenas_.empty()) {
    // Memory ids 1 and 2 (activations, shared mutable buffers) are shared, sized for the largest method; higher
    // ids are a custom plan and get their own buffers.
    std::vector<size_t> max_sizes;
    for (size_t m = 0; m < program_->num_methods(); ++m) {
      Result<const char*> name = program_->get_method_name(m);
      if (!name.ok()) return name.error();
      Result<MethodMeta> other = program_->method_meta(*name);
      if (!other.ok()) return other.error();
      for (size_t i = 0; i < other->num_memory_planned_buffers() && i < 2; ++i) {
        Result<int64_t> size = other->memory_planned_buffer_size(i);
        if (!size.ok()) return size.error();
        if (max_sizes.size() <= i) max_sizes.resize(i + 1, 0);
        max_sizes[i] = std::max(max_sizes[i], static_cast<size_t>(*size));
      }
    }
    for (size_t size : max_sizes) {
      Buffer arena = zeroed(size);
      if (arena == nullptr) {
        return set_last_error(Error::MemoryAllocationFailed, "cannot allocate a shared arena of %zu bytes", size);
      }
      shared_arena_spans_.emplace_back(arena.get(), size);
      shared_arenas_.push_back(std::move(arena));
    }
  }

  auto planned = std::make_unique<PlannedMemory>();
  planned->planned_spans.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!devices[i].is_cpu()) {
      Result<runtime::DeviceMemoryBuffer> block =
          runtime::DeviceMemoryBuffer::create(sizes[i], devices[i].type(), devices[i].index());
      if (!block.ok()) {
        return set_last_error(block.error(), "method %s: cannot allocate %zu bytes of device memory for buffer %zu: %s",
                              meta.name(), sizes[i], i, why(block.error()).c_str());
      }
      planned->planned_spans.push_back(block->as_span());
      planned->device_buffers.push_back(std::move(*block));
    } else if (share_memory_arenas_ && i < shared_arena_spans_.size()) {
      planned->planned_spans.push_back(shared_arena_spans_[i]);
    } else {
      Buffer buffer = zeroed(sizes[i]);
      if (buffer == nullptr) {
        return set_last_error(Error::MemoryAllocationFailed,
                              "method %s: cannot allocate %zu bytes of planned memory (buffer %zu)", meta.name(),
                              sizes[i], i);
      }
      planned->planned_spans.emplace_back(buffer.get(), sizes[i]);
      planned->planned_buffers.push_back(std::move(buffer));
    }
  }
  runtime::Span<runtime::Span<uint8_t>> spans(planned->planned_spans.data(), planned->planned_spans.size());
  if (on_device) {
    planned->planned_devices = std::move(devices);
    planned->planned_memory = std::make_unique<runtime::HierarchicalAllocator>(
        spans, runtime::Span<const runtime::etensor::Device>(planned->planned_devices.data(),
                                                             planned->planned_devices.size()));
  } else {
    planned->planned_memory = std::make_unique<runtime::HierarchicalAllocator>(spans);
  }
  return planned;
}

Error Module::load_method(const std::string& method_name, runtime::HierarchicalAllocator* planned_memory,
                          torch::executor::EventTracer* event_tracer, const LoadBackendOptionsMap* backend_options,
                          std::vector<Kernel> kernel_registry) {
  if (is_method_loaded(method_name)) return Error::Ok;
  ET_CHECK_OK_OR_RETURN_ERROR(load());
  // An empty stored map means the same as none.
  const LoadBackendOptionsMap* options = backend_options != nullptr
                                             ? backend_options
                                             : (backend_options_map_.size() > 0 ? &backend_options_map_ : nullptr);
  MethodHolder holder;
  if (planned_memory == nullptr) {
    Result<MethodMeta> meta = program_->method_meta(method_name.c_str());
    if (!meta.ok()) return meta.error();
    Result<std::unique_ptr<PlannedMemory>> planned = make_planned_memory(*meta);
    if (!planned.ok()) return planned.error();
    holder.planned_memory = std::move(*planned);
    planned_memory = holder.planned_memory->planned_memory.get();
  }
  holder.memory_manager =
      std::make_unique<runtime::MemoryManager>(memory_allocator_.get(), planned_memory, temp_allocator_.get());
  holder.kernel_registry = std::move(kernel_registry);
  runtime::clear_last_error();
  Result<Method> method = program_->load_method(
      method_name.c_str(), holder.memory_manager.get(), event_tracer != nullptr ? event_tracer : event_tracer_.get(),
      merged_data_map_.get(), options,
      runtime::Span<const Kernel>(holder.kernel_registry.data(), holder.kernel_registry.size()));
  if (!method.ok()) {
    if (merged_data_map_ == nullptr) return method.error();
    // Say which files the data was looked up in (the runtime's message names the key).
    return set_last_error(method.error(), "%s (data files: %s)", why(method.error()).c_str(),
                          data_file_names().c_str());
  }
  holder.method = std::make_unique<Method>(std::move(*method));
  methods_.emplace(method_name, std::move(holder));
  return Error::Ok;
}

Result<Method*> Module::loaded_method(const std::string& method_name) {
  ET_CHECK_OK_OR_RETURN_ERROR(load_method(method_name));
  return methods_.at(method_name).method.get();
}

Result<Method*> Module::method(const std::string& method_name) { return loaded_method(method_name); }

Result<std::vector<EValue>> Module::execute(const std::string& method_name, const std::vector<EValue>& input_values) {
  auto run = [&]() -> Result<std::vector<EValue>> {
    Result<Method*> m = loaded_method(method_name);
    if (!m.ok()) return m.error();
    Method& method = **m;
    if (input_values.size() > method.inputs_size()) {
      return set_last_error(Error::InvalidArgument, "method %s takes %zu inputs, got %zu", method_name.c_str(),
                            method.inputs_size(), input_values.size());
    }
    for (size_t i = 0; i < input_values.size(); ++i) ET_CHECK_OK_OR_RETURN_ERROR(method.set_input(input_values[i], i));
    ET_CHECK_OK_OR_RETURN_ERROR(method.execute());
    std::vector<EValue> outputs(method.outputs_size());
    ET_CHECK_OK_OR_RETURN_ERROR(method.get_outputs(outputs.data(), outputs.size()));
    return outputs;
  };
  Result<std::vector<EValue>> outputs = run();
  if (!outputs.ok()) {
    ET_LOG(Error, "Module::execute(\"%s\"): %s", method_name.c_str(), why(outputs.error()).c_str());
  }
  return outputs;
}

Error Module::set_input(const std::string& method_name, const EValue& input_value, size_t input_index) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  return (*m)->set_input(input_value, input_index);
}

Error Module::set_inputs(const std::string& method_name, const std::vector<EValue>& input_values) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  return (*m)->set_inputs(executorch::aten::ArrayRef<EValue>(input_values.data(), input_values.size()));
}

Error Module::set_output(const std::string& method_name, EValue output_value, size_t output_index) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  if (!output_value.isTensor()) {
    char tag[runtime::kTagNameBufferSize];
    runtime::tag_to_string(output_value.tag, tag, sizeof(tag));
    return set_last_error(Error::InvalidArgument, "method %s: output value %zu is a %s, not a tensor",
                          method_name.c_str(), output_index, tag);
  }
  if (output_index >= (*m)->outputs_size()) {
    return set_last_error(Error::InvalidArgument, "method %s has %zu outputs, there is no output %zu",
                          method_name.c_str(), (*m)->outputs_size(), output_index);
  }
  const auto& tensor = output_value.toTensor();
  return (*m)->set_output_data_ptr(tensor.mutable_data_ptr(), tensor.nbytes(), output_index);
}

Error Module::set_outputs(const std::string& method_name, const std::vector<EValue>& output_values) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  const size_t n = (*m)->outputs_size();
  if (output_values.size() != n) {
    return set_last_error(Error::InvalidArgument, "method %s has %zu outputs, got %zu values", method_name.c_str(), n,
                          output_values.size());
  }
  for (size_t i = 0; i < n; ++i) ET_CHECK_OK_OR_RETURN_ERROR(set_output(method_name, output_values[i], i));
  return Error::Ok;
}

Result<std::vector<EValue>> Module::get_outputs(const std::string& method_name) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  std::vector<EValue> outputs((*m)->outputs_size());
  ET_CHECK_OK_OR_RETURN_ERROR((*m)->get_outputs(outputs.data(), outputs.size()));
  return outputs;
}

Result<EValue> Module::get_output(const std::string& method_name, size_t output_index) {
  Result<Method*> m = loaded_method(method_name);
  if (!m.ok()) return m.error();
  if (output_index >= (*m)->outputs_size()) {
    return set_last_error(Error::InvalidArgument, "method %s has %zu outputs, there is no output %zu",
                          method_name.c_str(), (*m)->outputs_size(), output_index);
  }
  return (*m)->get_output(output_index);
}

}  // namespace ET_MODULE_NAMESPACE
}  // namespace extension
}  // namespace executorch
