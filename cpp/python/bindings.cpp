// executorch._C: a thin pybind11 layer over libexecutorch. It links the shared runtime (and the shared thread
// pool) dynamically and holds no copy of either: registries, kernels and the pool are the process-wide ones.
//
// Data policy: input arrays are read in place (the runtime copies each into the method's planned input buffer);
// outputs alias planned memory that the next execute() overwrites, so they are always copied into new arrays.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/planned_memory.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <cstring>
#include <memory>
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

[[noreturn]] void raise(Error e, const std::string& context) {
  std::string msg = context;
  const char* detail = executorch::runtime::last_error_message();
  if (detail != nullptr && *detail != '\0') msg += ": " + std::string(detail);
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
  py::object metadata = d.attr("metadata");
  if (!metadata.is_none() && py::isinstance<py::dict>(metadata)) {
    py::dict m = metadata;
    if (m.contains(kDtypeKey) && py::str(m[kDtypeKey]).cast<std::string>() == "bfloat16" && size == 2) {
      return ScalarType::BFloat16;
    }
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
  d["shape"] = py::tuple(py::cast(std::vector<int32_t>(info.sizes().begin(), info.sizes().end())));
  d["dim_order"] = py::tuple(py::cast(std::vector<uint8_t>(info.dim_order().begin(), info.dim_order().end())));
  d["dtype"] = dtype_name(info.scalar_type());
  d["dynamic"] = info.shape_dynamism() != TensorShapeDynamism::STATIC;
  d["memory_planned"] = info.is_memory_planned();
  d["nbytes"] = info.nbytes();
  return d;
}

py::dict method_meta_dict(const MethodMeta& meta) {
  py::dict d;
  d["name"] = meta.name();
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
  py::list backends;
  for (size_t i = 0; i < meta.num_backends(); ++i) backends.append(*meta.get_backend_name(i));
  d["backends"] = backends;
  py::list planned;
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) planned.append(*meta.memory_planned_buffer_size(i));
  d["planned_buffer_sizes"] = planned;
  return d;
}

// A loaded program: the bytes (or file loader) it reads stay alive as long as the program or any method.
struct ProgramHolder {
  std::shared_ptr<void> data;  // aligned copy of a bytes object, when loaded from memory
  std::unique_ptr<executorch::runtime::DataLoader> loader;
  std::unique_ptr<executorch::runtime::Program> program;
};

class PyMethod {
 public:
  PyMethod(std::shared_ptr<ProgramHolder> holder, const std::string& name) : holder_(std::move(holder)), name_(name) {
    using namespace executorch::runtime;
    MethodMeta meta = check(holder_->program->method_meta(name.c_str()), "loading method " + name);
    memory_ = check(executorch::extension::PlannedMemory::create(meta), "loading method " + name);
    Result<Method> m = [&] {
      py::gil_scoped_release release;
      return holder_->program->load_method(name.c_str(), memory_->memory_manager());
    }();
    method_ = std::make_unique<Method>(check(std::move(m), "loading method " + name));
  }

  // bf16_bits: return bfloat16 outputs as uint16 bits (for executorch.runtime's conversion to torch tensors).
  py::list execute(const py::sequence& inputs, bool bf16_bits) {
    using namespace executorch::runtime;
    const size_t n = py::len(inputs);
    if (n != method_->inputs_size()) {
      raise(Error::InvalidArgument, "method " + name_ + " takes " + std::to_string(method_->inputs_size()) +
                                        " inputs, got " + std::to_string(n));
    }
    MethodMeta meta = method_->method_meta();
    py::module_ np = py::module_::import("numpy");
    std::vector<py::object> keep;  // arrays whose memory the tensors point at, alive until execute() returns
    std::vector<executorch::extension::TensorPtr> tensors;
    for (size_t i = 0; i < n; ++i) {
      py::object obj = inputs[i];
      const Tag tag = check(meta.input_tag(i), "input " + std::to_string(i));
      const std::string where = "method " + name_ + " input " + std::to_string(i);
      Error err = Error::Ok;
      if (tag == Tag::Tensor) {
        if (!py::isinstance<py::array>(obj)) {
          raise(Error::InvalidArgument, where + " must be an array, got " + std::string(py::str(obj.get_type())));
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
    Error err;
    {
      py::gil_scoped_release release;
      err = method_->execute();
    }
    check(err, "executing method " + name_);
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

  py::dict metadata() const { return method_meta_dict(method_->method_meta()); }

 private:
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
  std::string name_;
  std::unique_ptr<executorch::extension::PlannedMemory> memory_;
  std::unique_ptr<executorch::runtime::Method> method_;
};

class PyProgram {
 public:
  static std::shared_ptr<PyProgram> from_bytes(const py::bytes& b) {
    auto h = std::make_shared<ProgramHolder>();
    char* src = nullptr;
    ssize_t n = 0;
    PyBytes_AsStringAndSize(b.ptr(), &src, &n);
    void* buf = std::aligned_alloc(64, (static_cast<size_t>(n) + 63) / 64 * 64 + 64);
    if (buf == nullptr) throw std::bad_alloc();
    std::memcpy(buf, src, static_cast<size_t>(n));
    h->data = std::shared_ptr<void>(buf, std::free);
    h->loader = std::make_unique<executorch::extension::BufferDataLoader>(buf, static_cast<size_t>(n));
    return finish(std::move(h), "loading the program from bytes");
  }
  static std::shared_ptr<PyProgram> from_path(const std::string& path) {
    auto h = std::make_shared<ProgramHolder>();
    auto loader = check(executorch::extension::FileDataLoader::from(path.c_str()), "opening " + path);
    h->loader = std::make_unique<executorch::extension::FileDataLoader>(std::move(loader));
    return finish(std::move(h), "loading " + path);
  }

  std::vector<std::string> method_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < holder_->program->num_methods(); ++i) names.push_back(*holder_->program->get_method_name(i));
    return names;
  }
  py::dict metadata(const std::string& name) const {
    return method_meta_dict(check(holder_->program->method_meta(name.c_str()), "method " + name));
  }
  std::shared_ptr<PyMethod> load_method(const std::string& name) const {
    return std::make_shared<PyMethod>(holder_, name);
  }

 private:
  static std::shared_ptr<PyProgram> finish(std::shared_ptr<ProgramHolder> h, const std::string& what) {
    Result<executorch::runtime::Program> r = [&] {
      py::gil_scoped_release release;
      return executorch::runtime::Program::load(h->loader.get());
    }();
    h->program = std::make_unique<executorch::runtime::Program>(check(std::move(r), what));
    auto p = std::make_shared<PyProgram>();
    p->holder_ = std::move(h);
    return p;
  }
  std::shared_ptr<ProgramHolder> holder_;
};

std::vector<std::string> backend_names() {
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

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "Native layer of the executorch package (links the shared libexecutorch runtime).";
  executorch::runtime::runtime_init();
  m.def("_register_error_type", [](py::object type) {
    g_error_type = type.ptr();
    Py_INCREF(g_error_type);
  });
  m.def("version", [] { return std::string(EXECUTORCH_VERSION); });
  m.def("registered_backend_names", &backend_names);
  m.def("backend_is_available", &backend_is_available);
  m.def("operator_names", [] {
    // Every installed component's operators (kernels, quantized kernels, ...): what a program could use here.
    for (const std::string& name : executorch::runtime::installed_components())
      (void)executorch::runtime::load_component(name.c_str());
    return executorch::runtime::get_registered_kernel_names();
  });
  m.def("load_library",
        [](const std::string& path) { check(executorch::runtime::load_library(path.c_str()), "loading " + path); });
  m.def("load_component", [](const std::string& name) {
    check(executorch::runtime::load_component(name.c_str()), "loading component " + name);
  });
  m.def("thread_count", [] { return executorch::extension::threadpool::get_threadpool()->get_thread_count(); });
  m.def("set_thread_count", [](uint32_t n) {
    if (!executorch::extension::threadpool::get_threadpool()->_unsafe_reset_threadpool(n)) {
      throw py::value_error("thread count must be between 1 and 1024");
    }
  });
  m.def("num_threadpools", [] { return executorch::extension::threadpool::num_threadpools_created(); });
  py::class_<PyProgram, std::shared_ptr<PyProgram>>(m, "Program")
      .def_static("from_bytes", &PyProgram::from_bytes)
      .def_static("from_path", &PyProgram::from_path)
      .def_property_readonly("method_names", &PyProgram::method_names)
      .def("metadata", &PyProgram::metadata)
      .def("load_method", &PyProgram::load_method);
  py::class_<PyMethod, std::shared_ptr<PyMethod>>(m, "Method")
      .def("execute", &PyMethod::execute, py::arg("inputs"), py::arg("bf16_bits") = false)
      .def_property_readonly("metadata", &PyMethod::metadata);
}
