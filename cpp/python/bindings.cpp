// executorch._C: a thin pybind11 layer over libexecutorch. It links the shared runtime (and the shared thread
// pool) dynamically and holds no copy of either: registries, kernels and the pool are the process-wide ones.
//
// Data policy: input arrays are read in place (the runtime copies each into the method's planned input buffer);
// outputs alias planned memory that the next execute() overwrites, so they are always copied into new arrays.
#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tokenizers.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;
using executorch::aten::ScalarType;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::Result;

namespace {

PyObject* g_error_type = nullptr;

// Call before a runtime operation whose failure raise() reports, so that its message is not an older one.
void clear_error() { executorch::runtime::clear_last_error(); }

[[noreturn]] void raise(Error e, const std::string& context) {
  std::string msg = context;
  const char* detail = executorch::runtime::last_error_message();
  if (detail != nullptr && *detail != '\0') msg += ": " + std::string(detail);
  clear_error();
  py::object err =
      py::reinterpret_borrow<py::object>(g_error_type)(msg, static_cast<int>(e), executorch::runtime::to_string(e));
  PyErr_SetObject(g_error_type, err.ptr());
  throw py::error_already_set();
}

template <typename T>
T check(Result<T>&& r, const std::string& context) {
  if (!r.ok()) raise(r.error(), context);
  return std::move(*r);
}

void check(Error e, const std::string& context) {
  if (e != Error::Ok) raise(e, context);
}

// numpy dtype <-> ScalarType. bfloat16 has no numpy type of its own: it is ml_dtypes.bfloat16 (numpy's usual bf16
// type, optional), or, between this extension and executorch.runtime's torch conversion, uint16 bits whose dtype
// carries the metadata {"executorch_dtype": "bfloat16"} (so torch users need no ml_dtypes).
constexpr const char* kDtypeKey = "executorch_dtype";

py::dtype bfloat16_bits_dtype() {
  py::dict metadata;
  metadata[kDtypeKey] = "bfloat16";
  return py::reinterpret_steal<py::dtype>(
      py::module_::import("numpy").attr("dtype")("uint16", py::arg("metadata") = metadata).release());
}

py::dtype to_numpy_dtype(ScalarType t, bool bf16_bits = false) {
  switch (t) {
    case ScalarType::Float: return py::dtype("float32");
    case ScalarType::Double: return py::dtype("float64");
    case ScalarType::Half: return py::dtype("float16");
    case ScalarType::Long: return py::dtype("int64");
    case ScalarType::Int: return py::dtype("int32");
    case ScalarType::Short: return py::dtype("int16");
    case ScalarType::Char: return py::dtype("int8");
    case ScalarType::Byte: return py::dtype("uint8");
    case ScalarType::Bool: return py::dtype("bool");
    case ScalarType::UInt16: return py::dtype("uint16");
    case ScalarType::UInt32: return py::dtype("uint32");
    case ScalarType::UInt64: return py::dtype("uint64");
    case ScalarType::BFloat16: {
      if (bf16_bits) return bfloat16_bits_dtype();
      py::module_ ml_dtypes;
      try {
        ml_dtypes = py::module_::import("ml_dtypes");
      } catch (const py::error_already_set&) {
        throw py::type_error(
            "this value is bfloat16, which numpy represents with the ml_dtypes package: pip install ml_dtypes "
            "(or pass torch tensors to get torch tensors back)");
      }
      return py::dtype::from_args(ml_dtypes.attr("bfloat16"));
    }
    default: throw py::type_error(std::string("dtype ") + executorch::aten::toString(t) + " has no numpy equivalent");
  }
}

ScalarType from_numpy_dtype(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  py::object metadata = d.attr("metadata");  // None, or a read-only mapping
  if (!metadata.is_none() && size == 2) {
    py::object tag = metadata.attr("get")(kDtypeKey);
    if (!tag.is_none() && py::str(tag).cast<std::string>() == "bfloat16") return ScalarType::BFloat16;
  }
  if (kind == 'f' && size == 4) return ScalarType::Float;
  if (kind == 'f' && size == 8) return ScalarType::Double;
  if (kind == 'f' && size == 2) return ScalarType::Half;
  if (kind == 'i' && size == 8) return ScalarType::Long;
  if (kind == 'i' && size == 4) return ScalarType::Int;
  if (kind == 'i' && size == 2) return ScalarType::Short;
  if (kind == 'i' && size == 1) return ScalarType::Char;
  if (kind == 'u' && size == 1) return ScalarType::Byte;
  if (kind == 'u' && size == 2) return ScalarType::UInt16;
  if (kind == 'u' && size == 4) return ScalarType::UInt32;
  if (kind == 'u' && size == 8) return ScalarType::UInt64;
  if (kind == 'b') return ScalarType::Bool;
  // ml_dtypes.bfloat16 (a numpy extension type: kind 'V', named "bfloat16").
  if (size == 2 && py::str(d).cast<std::string>() == "bfloat16") return ScalarType::BFloat16;
  throw py::type_error("numpy dtype " + std::string(py::str(d)) + " is not supported by the runtime");
}

std::string dtype_name(ScalarType t) {
  if (t == ScalarType::BFloat16) return "bfloat16";
  try {
    return py::str(to_numpy_dtype(t));
  } catch (const py::type_error&) {
    return executorch::aten::toString(t);
  }
}

py::dict tensor_info_dict(const executorch::runtime::TensorInfo& info) {
  py::dict d;
  d["scalar_type"] = static_cast<int>(info.scalar_type());
  d["scalar_type_name"] = std::string(executorch::runtime::toString(info.scalar_type()));
  d["shape"] = py::tuple(py::cast(std::vector<int32_t>(info.sizes().begin(), info.sizes().end())));
  d["dim_order"] = py::tuple(py::cast(std::vector<uint8_t>(info.dim_order().begin(), info.dim_order().end())));
  d["dtype_name"] = dtype_name(info.scalar_type());
  d["dynamic"] = info.shape_dynamism() != TensorShapeDynamism::STATIC;
  d["memory_planned"] = info.is_memory_planned();
  d["size_bytes"] = info.nbytes();
  return d;
}

py::dict method_meta_dict(const MethodMeta& meta) {
  py::dict d;
  d["method_name"] = meta.name();
  auto io = [&](bool input) {
    py::list out;
    const size_t n = input ? meta.num_inputs() : meta.num_outputs();
    for (size_t i = 0; i < n; ++i) {
      py::dict e;
      e["name"] = std::string(input ? "input" : "output") + std::to_string(i);
      const auto tag = input ? meta.input_tag(i) : meta.output_tag(i);
      e["kind"] = tag.ok() ? executorch::runtime::tag_to_string(*tag) : "Unknown";
      auto info = input ? meta.input_tensor_meta(i) : meta.output_tensor_meta(i);
      if (info.ok()) e.attr("update")(tensor_info_dict(*info));
      out.append(e);
    }
    return out;
  };
  d["inputs"] = io(true);
  d["outputs"] = io(false);
  py::list attributes;
  for (size_t i = 0; i < meta.num_attributes(); ++i) {
    auto info = meta.attribute_tensor_meta(i);
    if (!info.ok()) continue;
    py::dict e = tensor_info_dict(*info);
    e["name"] = std::string(info->name());
    e["kind"] = "Tensor";
    attributes.append(e);
  }
  d["attributes"] = attributes;
  py::list backends;
  for (size_t i = 0; i < meta.num_backends(); ++i) backends.append(*meta.get_backend_name(i));
  d["backends"] = backends;
  py::list planned;
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) planned.append(*meta.memory_planned_buffer_size(i));
  d["planned_buffer_sizes"] = planned;
  return d;
}

// An aligned copy of a bytes object (the flatbuffer readers need 8-byte alignment; bytes gives no guarantee).
std::shared_ptr<void> aligned_copy(const py::bytes& b, size_t* size) {
  char* src = nullptr;
  ssize_t n = 0;
  PyBytes_AsStringAndSize(b.ptr(), &src, &n);
  void* buf = std::aligned_alloc(64, (static_cast<size_t>(n) + 63) / 64 * 64 + 64);
  if (buf == nullptr) throw std::bad_alloc();
  std::memcpy(buf, src, static_cast<size_t>(n));
  *size = static_cast<size_t>(n);
  return std::shared_ptr<void>(buf, std::free);
}

// The ETDump (profiling events in upstream's ETDump format) of the methods it was given to; shared by them.
struct PyETDump {
  std::shared_ptr<executorch::etdump::ETDumpGen> gen = std::make_shared<executorch::etdump::ETDumpGen>();
  // Methods sharing this ETDump may run on several threads (with the GIL released): one records at a time.
  std::mutex mutex;
  py::bytes data() {
    std::lock_guard<std::mutex> lock(mutex);
    executorch::etdump::ETDumpResult r = gen->get_etdump_data();
    if (r.buf == nullptr) return py::bytes();
    py::bytes out(static_cast<const char*>(r.buf), r.size);
    std::free(r.buf);
    return out;
  }
};

// A bundled program (.bpte): the file's bytes, kept alive for its program and for test inputs set from it.
struct PyBundledProgram {
  std::shared_ptr<void> data;
  size_t size = 0;
  const void* program = nullptr;
  size_t program_size = 0;
};

// The .ptd data files of a program (upstream's program-data separation) seen as one NamedDataMap. Owns the bytes,
// loaders and maps the runtime reads through; shared by the program and every method loaded from it, since a
// method keeps pointers into the map (and, for mmapped files, into their pages).
struct DataFiles {
  std::vector<std::string> names;              // a path, or "data buffer <i>", for messages
  std::vector<std::shared_ptr<void>> buffers;  // aligned copies of the bytes objects
  std::vector<std::unique_ptr<executorch::runtime::DataLoader>> loaders;
  std::vector<std::unique_ptr<executorch::extension::FlatTensorDataMap>> maps;
  std::unique_ptr<executorch::extension::merged_data_map::MergedDataMap> merged;  // when there are several

  const executorch::runtime::NamedDataMap* map() const {
    if (merged != nullptr) return merged.get();
    return maps.empty() ? nullptr : maps.front().get();
  }
  std::string joined_names() const {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
};

// Opens data files given as paths (str, mmapped) or contents (bytes). Raises naming the file that cannot be read,
// is not a valid .ptd, or clashes with another (a key in two files).
std::shared_ptr<DataFiles> open_data_files(const py::list& items) {
  if (items.empty()) return nullptr;
  auto files = std::make_shared<DataFiles>();
  for (size_t i = 0; i < items.size(); ++i) {
    py::handle item = items[i];
    clear_error();
    if (py::isinstance<py::bytes>(item)) {
      files->names.push_back("data buffer " + std::to_string(i));
      size_t n = 0;
      files->buffers.push_back(aligned_copy(py::reinterpret_borrow<py::bytes>(item), &n));
      files->loaders.push_back(
          std::make_unique<executorch::extension::BufferDataLoader>(files->buffers.back().get(), n));
    } else {
      const std::string path = item.cast<std::string>();
      files->names.push_back(path);
      auto loader = executorch::extension::MmapDataLoader::from(
          path.c_str(), executorch::extension::MmapDataLoader::MlockConfig::NoMlock);
      if (!loader.ok()) raise(loader.error(), "data file " + path + " cannot be read");
      files->loaders.push_back(std::make_unique<executorch::extension::MmapDataLoader>(std::move(*loader)));
    }
    clear_error();
    auto map = executorch::extension::FlatTensorDataMap::load(files->loaders.back().get());
    if (!map.ok()) raise(map.error(), files->names.back() + " is not a valid .ptd data file");
    files->maps.push_back(std::make_unique<executorch::extension::FlatTensorDataMap>(std::move(*map)));
  }
  if (files->maps.size() > 1) {
    std::vector<const executorch::runtime::NamedDataMap*> views;
    for (const auto& m : files->maps) views.push_back(m.get());
    clear_error();
    auto merged = executorch::extension::merged_data_map::MergedDataMap::load(
        executorch::runtime::Span<const executorch::runtime::NamedDataMap*>(views.data(), views.size()));
    if (!merged.ok()) raise(merged.error(), "data files " + files->joined_names() + " cannot be used together");
    files->merged = std::make_unique<executorch::extension::merged_data_map::MergedDataMap>(std::move(*merged));
  }
  return files;
}

// A loaded program: the bytes (or file loader) it reads and its data files stay alive as long as the program or
// any method.
struct ProgramHolder {
  std::shared_ptr<void> data;   // aligned copy of a bytes object (or the bundled program's), when loaded from memory
  const void* bytes = nullptr;  // the program's bytes when in memory (for the buffer protocol)
  size_t size = 0;
  std::shared_ptr<DataFiles> data_files;  // null when none were given
  // Members are destroyed in reverse order: the program before what it reads.
  std::unique_ptr<executorch::runtime::DataLoader> loader;
  std::unique_ptr<executorch::runtime::Program> program;
};

// A 64-byte aligned allocation (nbytes may be 0).
std::shared_ptr<void> aligned_buffer(size_t nbytes) {
  void* buf = std::aligned_alloc(64, (nbytes + 63) / 64 * 64 + 64);
  if (buf == nullptr) throw std::bad_alloc();
  return std::shared_ptr<void>(buf, std::free);
}

class PyMethod {
 public:
  PyMethod(std::shared_ptr<ProgramHolder> holder, const std::string& name, std::shared_ptr<PyETDump> etdump)
      : holder_(std::move(holder)), etdump_(std::move(etdump)), name_(name) {
    using namespace executorch::runtime;
    clear_error();
    MethodMeta meta = check(holder_->program->method_meta(name.c_str()), "loading method " + name);
    memory_ = check(executorch::extension::PlannedMemory::create(meta), "loading method " + name);
    const NamedDataMap* data_map = holder_->data_files != nullptr ? holder_->data_files->map() : nullptr;
    Result<Method> m = [&] {
      py::gil_scoped_release release;
      clear_error();
      return holder_->program->load_method(name.c_str(), memory_->memory_manager(),
                                           etdump_ != nullptr ? etdump_->gen.get() : nullptr, data_map);
    }();
    std::string context = "loading method " + name;
    if (holder_->data_files != nullptr) context += " (data files: " + holder_->data_files->joined_names() + ")";
    method_ = std::make_unique<Method>(check(std::move(m), context));
    allocate_unplanned_outputs();
  }

  // Sets the method's inputs (in its input order). The arrays stay referenced until the next set_inputs(): an
  // input the program does not memory-plan keeps pointing at the caller's array.
  void set_inputs(const py::sequence& inputs) {
    using namespace executorch::runtime;
    const size_t n = py::len(inputs);
    if (n != method_->inputs_size()) {
      raise(Error::InvalidArgument, "method " + name_ + " takes " + std::to_string(method_->inputs_size()) +
                                        " inputs, got " + std::to_string(n));
    }
    MethodMeta meta = method_->method_meta();
    py::module_ np = py::module_::import("numpy");
    std::vector<py::object>& keep = inputs_keep_;
    std::vector<executorch::extension::TensorPtr>& tensors = input_tensors_;
    keep.clear();
    tensors.clear();
    for (size_t i = 0; i < n; ++i) {
      py::object obj = inputs[i];
      const Tag tag = check(meta.input_tag(i), "input " + std::to_string(i));
      const std::string where = "method " + name_ + " input " + std::to_string(i);
      Error err = Error::Ok;
      clear_error();
      if (tag == Tag::Tensor) {
        if (!py::isinstance<py::array>(obj)) {
          raise(Error::InvalidArgument,
                where + " must be an array, got " + std::string(py::str(py::type::handle_of(obj))));
        }
        TensorInfo info = *meta.input_tensor_meta(i);
        py::array arr = py::reinterpret_borrow<py::array>(obj);
        const ScalarType type = from_numpy_dtype(arr.dtype());
        if (static_cast<size_t>(arr.ndim()) != info.sizes().size()) {
          raise(Error::InvalidArgument, where + " must have " + std::to_string(info.sizes().size()) +
                                            " dimensions, got " + std::to_string(arr.ndim()));
        }
        std::vector<executorch::aten::SizesType> sizes;
        for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
          if (arr.shape(d) > INT32_MAX) raise(Error::InvalidArgument, where + " is too large");
          sizes.push_back(static_cast<executorch::aten::SizesType>(arr.shape(d)));
        }
        std::vector<executorch::aten::DimOrderType> order(info.dim_order().begin(), info.dim_order().end());
        // Lay the data out in the program's dim order (e.g. channels-last) and make it contiguous.
        py::tuple perm(order.size());
        for (size_t d = 0; d < order.size(); ++d) perm[d] = py::int_(order[d]);
        py::object physical = np.attr("ascontiguousarray")(arr.attr("transpose")(perm));
        keep.push_back(physical);
        void* data = py::reinterpret_borrow<py::array>(physical).mutable_data();
        tensors.push_back(executorch::extension::make_tensor_ptr(sizes, data, order, {}, type));
        if (tensors.back() == nullptr) raise(Error::InvalidArgument, where);
        err = method_->set_input(EValue(tensors.back()), i);
      } else if (obj.is_none()) {
        err = method_->set_input(EValue(), i);
      } else if (py::isinstance<py::bool_>(obj)) {
        err = method_->set_input(EValue(obj.cast<bool>()), i);
      } else if (py::isinstance<py::int_>(obj)) {
        err = method_->set_input(EValue(obj.cast<int64_t>()), i);
      } else if (py::isinstance<py::float_>(obj)) {
        err = method_->set_input(EValue(obj.cast<double>()), i);
      } else {
        raise(Error::InvalidArgument, where + " must be a " + tag_to_string(tag));
      }
      check(err, "setting " + where);
    }
  }

  // bf16_bits: return bfloat16 outputs as uint16 bits (for executorch.runtime's conversion to torch tensors).
  py::list execute(const py::sequence& inputs, bool bf16_bits) {
    set_inputs(inputs);
    return run(bf16_bits);
  }

  // Runs the method on the inputs it holds (set by execute() or load_bundled_input()) and returns its outputs.
  py::list run(bool bf16_bits) {
    executorch::runtime::Error err;
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock;
      if (etdump_ != nullptr) lock = std::unique_lock<std::mutex>(etdump_->mutex);
      clear_error();
      err = method_->execute();
    }
    check(err, "executing method " + name_);
    return outputs(bf16_bits);
  }

  // The outputs of the last run, copied out of planned memory.
  py::list outputs(bool bf16_bits) {
    py::module_ np = py::module_::import("numpy");
    py::list outputs;
    for (size_t i = 0; i < method_->outputs_size(); ++i) {
      try {
        outputs.append(to_python(method_->get_output(i), np, bf16_bits));
      } catch (const py::type_error& e) {
        throw py::type_error("method " + name_ + " output " + std::to_string(i) + ": " + e.what());
      }
    }
    return outputs;
  }

  // A copy of the method's tensor named `name` (an attribute: a mutable buffer or a weight with a fully qualified
  // name), as it is now.
  py::object get_attribute(const std::string& name, bool bf16_bits) {
    clear_error();
    auto t = method_->get_attribute(name);
    if (!t.ok()) {
      std::string names;
      const auto meta = method_->method_meta();
      for (size_t i = 0; i < meta.num_attributes(); ++i) {
        auto info = meta.attribute_tensor_meta(i);
        if (info.ok()) names += (names.empty() ? "" : ", ") + std::string(info->name());
      }
      clear_error();  // the runtime's message says no more than this one
      raise(t.error(), "method " + name_ + " has no attribute '" + name +
                           "' (its attributes: " + (names.empty() ? "none" : names) + ")");
    }
    return to_python(EValue(*t), py::module_::import("numpy"), bf16_bits);
  }

  py::dict metadata() const { return method_meta_dict(method_->method_meta()); }

  void load_bundled_input(const std::shared_ptr<PyBundledProgram>& bundle, size_t index) {
    bundle_ = bundle;  // tensor inputs may point into it until the method has run
    clear_error();
    check(executorch::bundled_program::load_bundled_input(*method_, bundle->data.get(), index),
          "method " + name_ + ": loading the inputs of test case " + std::to_string(index));
  }

  // The error statistics of the current outputs against a test case, and whether they match within rtol/atol.
  py::dict verify_bundled_outputs(const std::shared_ptr<PyBundledProgram>& bundle, size_t index, double rtol,
                                  double atol) {
    clear_error();
    const auto stats =
        executorch::bundled_program::compute_method_output_error_stats(*method_, bundle->data.get(), index);
    check(stats.status, "method " + name_ + ": comparing with test case " + std::to_string(index));
    clear_error();
    const Error match =
        executorch::bundled_program::verify_method_outputs(*method_, bundle->data.get(), index, rtol, atol);
    py::dict d;
    d["passed"] = match == Error::Ok;
    d["message"] = match == Error::Ok ? std::string() : std::string(executorch::runtime::last_error_message());
    d["max_abs_error"] = stats.max_abs_error;
    d["max_relative_error"] = stats.max_relative_error;
    clear_error();
    return d;
  }

 private:
  // A program exported without memory planning of its outputs (MemoryPlanningPass(alloc_graph_output=False))
  // leaves the caller to provide their storage, as upstream's pybindings do: one buffer per such tensor output, of
  // its nbytes (the upper bound for a dynamic shape), given to the method once. Outputs are copied out of it after
  // every run, like planned ones.
  void allocate_unplanned_outputs() {
    using namespace executorch::runtime;
    const MethodMeta meta = method_->method_meta();
    for (size_t i = 0; i < meta.num_outputs(); ++i) {
      auto tag = meta.output_tag(i);
      if (!tag.ok() || *tag != Tag::Tensor) continue;
      auto info = meta.output_tensor_meta(i);
      if (!info.ok() || info->is_memory_planned()) continue;
      output_storage_.push_back(aligned_buffer(info->nbytes()));
      clear_error();
      check(method_->set_output_data_ptr(output_storage_.back().get(), info->nbytes(), i),
            "method " + name_ + ": giving storage to output " + std::to_string(i) + " (not memory planned)");
    }
  }

  static py::object to_python(const EValue& v, const py::module_& np, bool bf16_bits) {
    if (v.isTensor()) {
      const auto& t = v.toTensor();
      // Copy out of planned memory in physical order, then view it in logical order.
      std::vector<py::ssize_t> physical_shape;
      for (auto d : t.dim_order()) physical_shape.push_back(t.size(d));
      py::array out(to_numpy_dtype(t.scalar_type(), bf16_bits), physical_shape);
      if (t.nbytes() > 0) std::memcpy(out.mutable_data(), t.const_data_ptr(), t.nbytes());
      bool identity = true;
      std::vector<size_t> inverse(t.dim_order().size());
      for (size_t d = 0; d < inverse.size(); ++d) {
        inverse[t.dim_order()[d]] = d;
        identity = identity && t.dim_order()[d] == d;
      }
      if (identity) return std::move(out);
      return np.attr("ascontiguousarray")(out.attr("transpose")(py::tuple(py::cast(inverse))));
    }
    if (v.isInt()) return py::int_(v.toInt());
    if (v.isDouble()) return py::float_(v.toDouble());
    if (v.isBool()) return py::bool_(v.toBool());
    if (v.isNone()) return py::none();
    if (v.isString()) return py::str(std::string(v.toString()));
    throw py::type_error(std::string("cannot return a value of kind ") + executorch::runtime::tag_to_string(v.tag));
  }

  std::shared_ptr<ProgramHolder> holder_;
  std::shared_ptr<PyETDump> etdump_;  // outlives method_, which records into it
  std::shared_ptr<PyBundledProgram> bundle_;
  std::vector<py::object> inputs_keep_;
  std::vector<executorch::extension::TensorPtr> input_tensors_;
  std::string name_;
  std::unique_ptr<executorch::extension::PlannedMemory> memory_;
  std::vector<std::shared_ptr<void>> output_storage_;  // outlives method_, which writes into it
  std::unique_ptr<executorch::runtime::Method> method_;
};

class PyProgram {
 public:
  using Verification = executorch::runtime::Program::Verification;

  static std::shared_ptr<PyProgram> from_bytes(const py::bytes& b, const py::list& data, int verification) {
    auto h = std::make_shared<ProgramHolder>();
    h->data = aligned_copy(b, &h->size);
    h->bytes = h->data.get();
    h->loader = std::make_unique<executorch::extension::BufferDataLoader>(h->bytes, h->size);
    return finish(std::move(h), data, verification, "loading the program from bytes");
  }
  // The program inside a bundled program.
  static std::shared_ptr<PyProgram> from_bundled(const std::shared_ptr<PyBundledProgram>& bundle,
                                                 const py::list& data) {
    auto h = std::make_shared<ProgramHolder>();
    h->data = bundle->data;
    h->bytes = bundle->program;
    h->size = bundle->program_size;
    h->loader = std::make_unique<executorch::extension::BufferDataLoader>(h->bytes, h->size);
    return finish(std::move(h), data, 1, "loading the program of the bundled program");
  }
  static std::shared_ptr<PyProgram> from_path(const std::string& path, const py::list& data, int verification) {
    auto h = std::make_shared<ProgramHolder>();
    clear_error();
    // Mapped, as upstream's Python runtime maps it: constants are paged in as they are read (an LLM's embedding
    // table: only the rows of its tokens), and a delegate's payload goes once it is unpacked.
    auto loader = check(executorch::extension::MmapDataLoader::from(
                            path.c_str(), executorch::extension::MmapDataLoader::MlockConfig::NoMlock),
                        "opening " + path);
    h->loader = std::make_unique<executorch::extension::MmapDataLoader>(std::move(loader));
    return finish(std::move(h), data, verification, "loading " + path);
  }

  std::vector<std::string> method_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < holder_->program->num_methods(); ++i) names.push_back(*holder_->program->get_method_name(i));
    return names;
  }
  py::dict metadata(const std::string& name) const {
    clear_error();
    return method_meta_dict(check(holder_->program->method_meta(name.c_str()), "method " + name));
  }
  std::shared_ptr<PyMethod> load_method(const std::string& name, std::shared_ptr<PyETDump> etdump) const {
    return std::make_shared<PyMethod>(holder_, name, std::move(etdump));
  }
  std::vector<std::string> data_files() const {
    return holder_->data_files != nullptr ? holder_->data_files->names : std::vector<std::string>{};
  }
  // The program's bytes when it was loaded from memory (read-only buffer protocol); BufferError otherwise.
  py::buffer_info buffer() const {
    if (holder_->bytes == nullptr) throw py::buffer_error("the program was loaded from a file: read the file");
    return py::buffer_info(static_cast<uint8_t*>(const_cast<void*>(holder_->bytes)),
                           static_cast<py::ssize_t>(holder_->size), /*readonly=*/true);
  }
  bool in_memory() const { return holder_->bytes != nullptr; }

 private:
  static std::shared_ptr<PyProgram> finish(std::shared_ptr<ProgramHolder> h, const py::list& data, int verification,
                                           const std::string& what) {
    if (verification != 0 && verification != 1) throw py::value_error("verification must be 0 or 1");
    Result<executorch::runtime::Program> r = [&] {
      py::gil_scoped_release release;
      clear_error();
      return executorch::runtime::Program::load(h->loader.get(), static_cast<Verification>(verification));
    }();
    h->program = std::make_unique<executorch::runtime::Program>(check(std::move(r), what));
    h->data_files = open_data_files(data);
    auto p = std::make_shared<PyProgram>();
    p->holder_ = std::move(h);
    return p;
  }
  std::shared_ptr<ProgramHolder> holder_;
};

// Registers every installed component that can be loaded here (a component whose dependencies are missing, e.g.
// the CUDA one without the CUDA runtime, stays out): what a program could use, as upstream's lists show what its
// wheel links in. The runtime would load them on demand anyway.
void load_installed_components() {
  for (const std::string& name : executorch::runtime::installed_components())
    (void)executorch::runtime::load_component(name.c_str());
  clear_error();
}

std::vector<std::string> backend_names() {
  load_installed_components();
  std::vector<std::string> names;
  for (size_t i = 0; i < executorch::runtime::get_num_registered_backends(); ++i) {
    names.push_back(*executorch::runtime::get_backend_name(i));
  }
  return names;
}

bool backend_is_available(const std::string& name) {
  auto* b = executorch::runtime::get_backend_class(name.c_str());
  if (b == nullptr) {
    if (const auto* c = executorch::runtime::component_for_backend(name.c_str())) {
      (void)executorch::runtime::load_component(c->name);
      b = executorch::runtime::get_backend_class(name.c_str());
    }
  }
  return b != nullptr && b->is_available();
}

std::shared_ptr<PyBundledProgram> bundled_from_bytes(const py::bytes& b) {
  auto bundle = std::make_shared<PyBundledProgram>();
  bundle->data = aligned_copy(b, &bundle->size);
  check(executorch::bundled_program::get_program_data(bundle->data.get(), bundle->size, &bundle->program,
                                                      &bundle->program_size),
        "reading the bundled program");
  return bundle;
}

// Every test case of a bundled program: one dict per case (method, index, passed, error, errors, message).
py::list verify_bundled(const std::shared_ptr<PyBundledProgram>& bundle, double rtol, double atol,
                        const std::shared_ptr<PyETDump>& etdump) {
  executorch::runtime::Result<std::vector<executorch::bundled_program::TestCaseResult>> results = [&] {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock;
    if (etdump != nullptr) lock = std::unique_lock<std::mutex>(etdump->mutex);
    return executorch::bundled_program::verify_bundled_program(bundle->data.get(), bundle->size, rtol, atol,
                                                               etdump != nullptr ? etdump->gen.get() : nullptr);
  }();
  py::list out;
  for (const auto& r : check(std::move(results), "verifying the bundled program")) {
    py::dict d;
    d["method"] = r.method;
    d["index"] = r.index;
    d["passed"] = r.passed;
    d["error"] = executorch::runtime::to_string(r.status);
    d["max_abs_error"] = r.max_abs_error;
    d["max_relative_error"] = r.max_relative_error;
    d["message"] = r.message;
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "Native layer of the executorch package (links the shared libexecutorch runtime).";
  executorch::runtime::runtime_init();
  m.def("_register_error_type", [](py::object type) {
    g_error_type = type.ptr();
    Py_INCREF(g_error_type);
  });
  m.def("version", [] { return std::string(EXECUTORCH_VERSION); });
  bind_tokenizers(m);
  m.def("registered_backend_names", &backend_names);
  m.def("backend_is_available", &backend_is_available);
  m.def("operator_names", [] {
    // Every installed component's operators (kernels, quantized kernels, ...): what a program could use here.
    load_installed_components();
    return executorch::runtime::get_registered_kernel_names();
  });
  m.def("load_library",
        [](const std::string& path) { check(executorch::runtime::load_library(path.c_str()), "loading " + path); });
  m.def("load_component", [](const std::string& name) {
    check(executorch::runtime::load_component(name.c_str()), "loading component " + name);
  });
  m.def("thread_count", [] { return executorch::extension::threadpool::get_threadpool()->get_thread_count(); });
  m.def("set_thread_count", [](uint32_t n) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    // _unsafe_reset_threadpool is deprecated upstream (experimental), and takes 0 as "no change".
    if (n == 0 || !executorch::extension::threadpool::get_threadpool()->_unsafe_reset_threadpool(n)) {
      throw py::value_error("thread count must be between 1 and 1024");
    }
#pragma GCC diagnostic pop
  });
  m.def("num_threadpools", [] { return executorch::extension::threadpool::num_threadpools_created(); });
  // Programs: `data` is a list of .ptd data files, each a path (str) or its contents (bytes); `verification`
  // is Program::Verification's value.
  py::class_<PyProgram, std::shared_ptr<PyProgram>>(m, "Program", py::buffer_protocol())
      .def_static("from_bytes", &PyProgram::from_bytes, py::arg("data"), py::arg("data_files") = py::list(),
                  py::arg("verification") = 1)
      .def_static("from_path", &PyProgram::from_path, py::arg("path"), py::arg("data_files") = py::list(),
                  py::arg("verification") = 1)
      .def_static("from_bundled", &PyProgram::from_bundled, py::arg("bundle"), py::arg("data_files") = py::list())
      .def_property_readonly("method_names", &PyProgram::method_names)
      .def_property_readonly("data_files", &PyProgram::data_files)
      .def_property_readonly("in_memory", &PyProgram::in_memory)
      .def_buffer(&PyProgram::buffer)
      .def("metadata", &PyProgram::metadata)
      .def("load_method", &PyProgram::load_method, py::arg("name"), py::arg("etdump") = nullptr);
  py::class_<PyETDump, std::shared_ptr<PyETDump>>(m, "ETDump")
      .def(py::init<>())
      .def("data", &PyETDump::data)
      .def_property_readonly("num_blocks", [](PyETDump& e) { return e.gen->get_num_blocks(); });
  py::class_<PyBundledProgram, std::shared_ptr<PyBundledProgram>>(m, "BundledProgram")
      .def_static("from_bytes", &bundled_from_bytes)
      .def("verify", &verify_bundled, py::arg("rtol"), py::arg("atol"), py::arg("etdump") = nullptr);
  py::class_<PyMethod, std::shared_ptr<PyMethod>>(m, "Method")
      .def("set_inputs", &PyMethod::set_inputs, py::arg("inputs"))
      .def("execute", &PyMethod::execute, py::arg("inputs"), py::arg("bf16_bits") = false)
      .def("get_attribute", &PyMethod::get_attribute, py::arg("name"), py::arg("bf16_bits") = false)
      .def("run", &PyMethod::run, py::arg("bf16_bits") = false)
      .def("outputs", &PyMethod::outputs, py::arg("bf16_bits") = false)
      .def("load_bundled_input", &PyMethod::load_bundled_input)
      .def("verify_bundled_outputs", &PyMethod::verify_bundled_outputs)
      .def_property_readonly("metadata", &PyMethod::metadata);
}
