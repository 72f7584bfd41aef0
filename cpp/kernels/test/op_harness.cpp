// Calls ONE registered operator with arguments given on the command line and writes its outputs as .npy files,
// so tests can check kernels against an independent reference (tests/kernels). Arguments are given in schema
// order; each flag appends one argument:
//
//   --tensor FILE.npy            a tensor (logical contents from the file)
//   --empty DT:SHAPE             a tensor of that dtype/shape filled with zeros (e.g. f32:0,3)
//   --none                       None
//   --int N | --double X | --bool 0|1 | --string S
//   --scalar V                   an Int, or a Double when V looks like a float (1.0, 1e3, inf, nan)
//   --ints 1,2,3                 int list ("" is the empty list)
//   --doubles 1.5,2              double list
//   --bools 1,0                  bool list
//   --tensors A.npy,B.npy        tensor list ("" is the empty list)
//   --opt-tensors A.npy,none     list of optional tensors
//   --out DT:SHAPE               an output tensor (DT: f32 f64 f16 bf16 i64 i32 i16 u16 i8 u8 bool; SHAPE "" is
//                                rank 0)
//   --out-list DT:SHAPE;DT:SHAPE a list of output tensors
//
// Modifiers of the previous tensor argument (or of every tensor of the previous list):
//   --dim-order 0,2,3,1          lay the tensor out in that dim order
//   --dynamic                    DYNAMIC_BOUND shape (resizable within its initial element count)
//   --as DT                      reinterpret the elements as dtype DT of the same size (e.g. a uint16 .npy of bit
//                                patterns as bf16, which NumPy has no type for)
//
// Other options: --outdir DIR (default .) receives out0.npy, out1.npy, ... for the output tensors in order,
// with their final shapes and logical contents (a bf16 output as its uint16 bit patterns); --no-return omits the
// trailing return slot.
//
// The operator's kernels come from the component that declares its namespace (as a program would load them).
//
// Exit status: 0 on success, the kernel's Error code when it fails (e.g. 18 = InvalidArgument), 100+ for a
// harness usage problem.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/components.h>

#include "npy.h"

using namespace executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch_tools::NpyArray;

namespace {

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr, "executorch_op_harness: %s\n", msg.c_str());
  std::exit(100);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  if (s.empty()) return r;
  size_t p = 0;
  while (true) {
    const size_t q = s.find(sep, p);
    r.push_back(s.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return r;
}

int64_t parse_int(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0) usage("not an integer: '" + s + "'");
  return v;
}

double parse_double(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') usage("not a number: '" + s + "'");
  return v;
}

ScalarType parse_dtype(const std::string& s) {
  static const struct {
    const char* n;
    ScalarType t;
  } table[] = {{"f32", ScalarType::Float},     {"f64", ScalarType::Double}, {"f16", ScalarType::Half},
               {"bf16", ScalarType::BFloat16}, {"i64", ScalarType::Long},   {"i32", ScalarType::Int},
               {"i16", ScalarType::Short},     {"u16", ScalarType::UInt16}, {"i8", ScalarType::Char},
               {"u8", ScalarType::Byte},       {"bool", ScalarType::Bool}};
  for (const auto& e : table)
    if (s == e.n) return e.t;
  usage("unknown dtype '" + s + "'");
}

// A tensor owning its metadata and storage (with guard space the kernel must not touch).
struct OwnedTensor {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  std::vector<int32_t> strides;
  std::vector<uint8_t> storage;
  std::unique_ptr<TensorImpl> impl;

  void build(TensorShapeDynamism dyn) {
    if (order.empty())
      for (size_t i = 0; i < sizes.size(); ++i) order.push_back(static_cast<uint8_t>(i));
    strides.assign(sizes.size(), 0);
    // Rebuilt in place: argument values hold pointers to this TensorImpl.
    TensorImpl fresh(dtype, static_cast<ssize_t>(sizes.size()), sizes.data(),
                     storage.empty() ? nullptr : storage.data(), sizes.empty() ? nullptr : order.data(),
                     sizes.empty() ? nullptr : strides.data(), dyn);
    if (impl)
      *impl = fresh;
    else
      impl.reset(new TensorImpl(fresh));
  }
  size_t esize() const { return executorch::aten::elementSize(dtype); }
  // Storage element offset of logical (row-major) element i.
  int64_t offset(int64_t i) const {
    int64_t off = 0;
    for (int d = static_cast<int>(impl->dim()) - 1; d >= 0; --d) {
      const int64_t sz = impl->size(d);
      off += (i % sz) * impl->strides()[d];
      i /= sz;
    }
    return off;
  }
  // Re-lays out logical contents (row-major) into the current dim order.
  void set_logical(const std::vector<uint8_t>& logical) {
    const size_t es = esize();
    const int64_t n = impl->numel();
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(storage.data() + offset(i) * es, logical.data() + static_cast<size_t>(i) * es, es);
  }
  std::vector<uint8_t> logical() const {
    const size_t es = esize();
    const int64_t n = impl->numel();
    std::vector<uint8_t> r(static_cast<size_t>(n) * es);
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(r.data() + static_cast<size_t>(i) * es, storage.data() + offset(i) * es, es);
    return r;
  }
};

std::unique_ptr<OwnedTensor> make_tensor(ScalarType t, const std::vector<int32_t>& shape) {
  auto o = std::make_unique<OwnedTensor>();
  o->dtype = t;
  o->sizes = shape;
  size_t n = 1;
  for (int32_t s : shape) {
    if (s < 0) usage("negative size");
    n *= static_cast<size_t>(s);
  }
  o->storage.assign(n * o->esize(), 0);
  o->build(TensorShapeDynamism::STATIC);
  return o;
}

std::unique_ptr<OwnedTensor> tensor_from_npy(const std::string& path) {
  NpyArray a;
  const std::string err = executorch_tools::read_npy(path, &a);
  if (!err.empty()) usage(err);
  auto o = make_tensor(a.dtype, a.shape);
  o->storage = a.data;
  if (o->storage.empty()) o->storage.resize(1);
  o->build(TensorShapeDynamism::STATIC);
  return o;
}

std::unique_ptr<OwnedTensor> tensor_from_spec(const std::string& spec, bool fill_nan) {
  const size_t c = spec.find(':');
  if (c == std::string::npos) usage("expected DT:SHAPE, got '" + spec + "'");
  std::vector<int32_t> shape;
  for (const std::string& s : split(spec.substr(c + 1), ',')) shape.push_back(static_cast<int32_t>(parse_int(s)));
  auto o = make_tensor(parse_dtype(spec.substr(0, c)), shape);
  if (o->storage.empty()) o->storage.resize(1);
  // Outputs start as a recognizable garbage pattern, so unwritten elements show up in the comparison.
  if (fill_nan) std::memset(o->storage.data(), 0x7f, o->storage.size());
  o->build(TensorShapeDynamism::STATIC);
  return o;
}

void relayout(OwnedTensor* t, const std::vector<uint8_t>& order, TensorShapeDynamism dyn) {
  const std::vector<uint8_t> logical = t->logical();
  if (!order.empty()) {
    if (order.size() != t->sizes.size()) usage("--dim-order has the wrong length");
    t->order = order;
  }
  t->build(dyn);
  t->set_logical(logical);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("usage: executorch_op_harness OPERATOR [arguments...] (see the source for the flags)");
  const std::string op_name = argv[1];
  std::string outdir = ".";
  bool with_return = true;

  // Storage that must stay put while EValues point into it.
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<std::unique_ptr<std::vector<EValue>>> item_store;
  std::vector<std::unique_ptr<std::vector<EValue*>>> ptr_store;
  std::vector<std::unique_ptr<std::vector<int64_t>>> int_scratch;
  std::vector<std::unique_ptr<std::vector<Tensor>>> tensor_scratch;
  std::vector<std::unique_ptr<std::vector<std::optional<Tensor>>>> opt_scratch;
  std::vector<std::unique_ptr<std::vector<double>>> double_store;
  std::vector<std::unique_ptr<bool[]>> bool_store;
  std::vector<std::unique_ptr<std::string>> string_store;

  std::vector<EValue> args;
  args.reserve(static_cast<size_t>(argc));
  std::vector<OwnedTensor*> outputs;
  std::vector<OwnedTensor*> last;  // tensors of the previous argument (for the modifiers)
  int last_out_arg = -1;

  auto list_of = [&](const std::vector<EValue>& items) -> std::vector<EValue*>* {
    item_store.emplace_back(new std::vector<EValue>(items));
    ptr_store.emplace_back(new std::vector<EValue*>());
    for (auto& e : *item_store.back()) ptr_store.back()->push_back(&e);
    return ptr_store.back().get();
  };

  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--outdir") {
      outdir = value();
    } else if (flag == "--no-return") {
      with_return = false;
    } else if (flag == "--dim-order" || flag == "--dynamic") {
      if (last.empty()) usage(flag + " must follow a tensor argument");
      std::vector<uint8_t> order;
      if (flag == "--dim-order")
        for (const std::string& s : split(value(), ',')) order.push_back(static_cast<uint8_t>(parse_int(s)));
      for (OwnedTensor* t : last)
        relayout(t, order, flag == "--dynamic" ? TensorShapeDynamism::DYNAMIC_BOUND : t->impl->shape_dynamism());
    } else if (flag == "--as") {
      if (last.empty()) usage(flag + " must follow a tensor argument");
      const ScalarType t = parse_dtype(value());
      for (OwnedTensor* o : last) {
        if (executorch::aten::elementSize(t) != o->esize()) usage("--as needs a dtype of the same element size");
        o->dtype = t;
        o->build(o->impl->shape_dynamism());
      }
    } else if (flag == "--tensor" || flag == "--empty" || flag == "--out") {
      const std::string v = value();
      tensors.push_back(flag == "--tensor" ? tensor_from_npy(v) : tensor_from_spec(v, flag == "--out"));
      last = {tensors.back().get()};
      if (flag == "--out") {
        outputs.push_back(tensors.back().get());
        last_out_arg = static_cast<int>(args.size());
      }
      args.emplace_back(Tensor(tensors.back()->impl.get()));
    } else if (flag == "--none") {
      args.emplace_back();
      last.clear();
    } else if (flag == "--int") {
      args.emplace_back(parse_int(value()));
      last.clear();
    } else if (flag == "--double") {
      args.emplace_back(parse_double(value()));
      last.clear();
    } else if (flag == "--bool") {
      args.emplace_back(parse_int(value()) != 0);
      last.clear();
    } else if (flag == "--scalar") {
      const std::string v = value();
      if (v.find_first_of(".eEnN") != std::string::npos)
        args.emplace_back(parse_double(v));
      else
        args.emplace_back(parse_int(v));
      last.clear();
    } else if (flag == "--string") {
      string_store.emplace_back(new std::string(value()));
      args.emplace_back(string_store.back()->data(), string_store.back()->size());
      last.clear();
    } else if (flag == "--ints") {
      std::vector<EValue> items;
      for (const std::string& s : split(value(), ',')) items.emplace_back(parse_int(s));
      auto* ptrs = list_of(items);
      int_scratch.emplace_back(new std::vector<int64_t>(ptrs->size() + 1));
      args.emplace_back(BoxedEvalueList<int64_t>(ptrs->data(), int_scratch.back()->data(), ptrs->size()));
      last.clear();
    } else if (flag == "--doubles") {
      double_store.emplace_back(new std::vector<double>());
      for (const std::string& s : split(value(), ',')) double_store.back()->push_back(parse_double(s));
      args.emplace_back(ArrayRef<double>(double_store.back()->data(), double_store.back()->size()));
      last.clear();
    } else if (flag == "--bools") {
      const auto parts = split(value(), ',');
      bool_store.emplace_back(new bool[parts.size() + 1]);
      for (size_t k = 0; k < parts.size(); ++k) bool_store.back()[k] = parse_int(parts[k]) != 0;
      args.emplace_back(ArrayRef<bool>(bool_store.back().get(), parts.size()));
      last.clear();
    } else if (flag == "--tensors" || flag == "--opt-tensors" || flag == "--out-list") {
      const bool opt = flag == "--opt-tensors";
      const bool is_out = flag == "--out-list";
      std::vector<EValue> items;
      last.clear();
      for (const std::string& s : split(value(), is_out ? ';' : ',')) {
        if (opt && s == "none") {
          items.emplace_back();
          continue;
        }
        tensors.push_back(is_out ? tensor_from_spec(s, true) : tensor_from_npy(s));
        last.push_back(tensors.back().get());
        if (is_out) outputs.push_back(tensors.back().get());
        items.emplace_back(Tensor(tensors.back()->impl.get()));
      }
      auto* ptrs = list_of(items);
      if (opt) {
        // None entries are null wrapped pointers.
        for (size_t k = 0; k < ptrs->size(); ++k)
          if ((*item_store.back())[k].isNone()) (*ptrs)[k] = nullptr;
        opt_scratch.emplace_back(new std::vector<std::optional<Tensor>>(ptrs->size() + 1));
        args.emplace_back(
            BoxedEvalueList<std::optional<Tensor>>(ptrs->data(), opt_scratch.back()->data(), ptrs->size()));
      } else {
        tensor_scratch.emplace_back(new std::vector<Tensor>(ptrs->size() + 1));
        args.emplace_back(BoxedEvalueList<Tensor>(ptrs->data(), tensor_scratch.back()->data(), ptrs->size()));
      }
      if (is_out) last_out_arg = static_cast<int>(args.size()) - 1;
    } else {
      usage("unknown flag " + flag);
    }
  }
  // The runtime passes the schema's arguments plus one trailing return slot (the last output value).
  if (with_return) args.push_back(last_out_arg >= 0 ? args[static_cast<size_t>(last_out_arg)] : EValue());

  // The component declaring the operator's namespace (the kernels library when none does).
  const ComponentInfo* provider = component_for_operator(op_name.c_str());
  const char* component = provider != nullptr ? provider->name : "kernels";
  if (load_component(component) != Error::Ok) {
    std::fprintf(stderr, "cannot load the %s component: %s\n", component, last_error_message());
    return 101;
  }
  auto fn = get_op_function_from_registry(op_name.c_str());
  if (!fn.ok()) {
    std::fprintf(stderr, "operator %s is not registered\n", op_name.c_str());
    return 102;
  }
  std::vector<EValue*> ptrs;
  for (auto& v : args) ptrs.push_back(&v);
  KernelRuntimeContext ctx;
  fn.get()(ctx, Span<EValue*>(ptrs.data(), ptrs.size()));
  const Error e = ctx.failure_state();
  if (e != Error::Ok) {
    std::fprintf(stderr, "%s failed with error 0x%x: %s\n", op_name.c_str(), static_cast<unsigned>(e),
                 ctx.failure_message());
    return static_cast<int>(e);
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const OwnedTensor& t = *outputs[k];
    std::vector<int64_t> shape;
    for (ssize_t d = 0; d < t.impl->dim(); ++d) shape.push_back(t.impl->size(d));
    const std::vector<uint8_t> data = t.logical();
    const std::string path = outdir + "/out" + std::to_string(k) + ".npy";
    const ScalarType as = t.dtype == ScalarType::BFloat16 ? ScalarType::UInt16 : t.dtype;
    const std::string err = executorch_tools::write_npy(path, as, shape, data.data(), data.size());
    if (!err.empty()) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 103;
    }
  }
  return 0;
}
