// Module (executorch/extension/module/module.h) as upstream's header and docs/source/extension-module.md describe
// it: every constructor, lazy loading, metadata, execute/forward/get, inputs and outputs set ahead, user planned
// memory, event tracers, backend options, shared arenas, and programs whose data lives in .ptd files
// (tests/fixtures/ptd, exported by upstream 1.5.1), with the errors a wrong or missing data file gives.
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <gtest/gtest.h>

#include <array>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <variant>
#include <vector>

#include "test_util.h"

using namespace ::executorch::extension;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::BackendOption;
using executorch::runtime::BackendOptions;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::LoadBackendOptionsMap;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;

static_assert(std::is_same_v<torch::executor::Module, executorch::extension::module::Module>);
static_assert(std::is_same_v<executorch::extension::Module, executorch::extension::module::Module>);
static_assert(!std::is_copy_constructible_v<Module> && !std::is_move_constructible_v<Module>);
static_assert(std::has_virtual_destructor_v<Module>);
static_assert(std::is_same_v<executorch::extension::Program, executorch::runtime::Program>);

namespace {

// ---- a small JSON reader for tests/fixtures/ptd/manifest.json -------------------------------------------------

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  const Json& operator[](const std::string& key) const {
    static const Json null;
    for (const auto& [k, v] : object) {
      if (k == key) return v;
    }
    return null;
  }
  const Json& operator[](size_t i) const { return array.at(i); }
  size_t size() const { return kind == Kind::Array ? array.size() : object.size(); }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : p_(text.c_str()), end_(text.c_str() + text.size()) {}
  Json read() {
    Json v = value();
    space();
    if (p_ != end_) fail("trailing text");
    return v;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  void fail(const char* what) {
    if (error_.empty()) error_ = what;
    p_ = end_;
  }
  void space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool take(char c) {
    space();
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  std::string str() {
    std::string out;
    if (!take('"')) {
      fail("expected a string");
      return out;
    }
    while (p_ != end_ && *p_ != '"') {
      char c = *p_++;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ == end_) break;
      c = *p_++;
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (end_ - p_ < 4) return fail("bad \\u escape"), out;
          const unsigned cp = static_cast<unsigned>(std::stoul(std::string(p_, 4), nullptr, 16));
          p_ += 4;
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: out += c;
      }
    }
    if (p_ == end_) return fail("unterminated string"), out;
    ++p_;
    return out;
  }
  Json value() {
    Json v;
    space();
    if (p_ == end_) return fail("unexpected end"), v;
    if (*p_ == '{') {
      ++p_;
      v.kind = Json::Kind::Object;
      if (take('}')) return v;
      do {
        std::string key = str();
        if (!take(':')) return fail("expected ':'"), v;
        v.object.emplace_back(std::move(key), value());
      } while (take(','));
      if (!take('}')) fail("expected '}'");
    } else if (*p_ == '[') {
      ++p_;
      v.kind = Json::Kind::Array;
      if (take(']')) return v;
      do v.array.push_back(value());
      while (take(','));
      if (!take(']')) fail("expected ']'");
    } else if (*p_ == '"') {
      v.kind = Json::Kind::String;
      v.string = str();
    } else if (std::strncmp(p_, "true", 4) == 0 || std::strncmp(p_, "false", 5) == 0) {
      v.kind = Json::Kind::Bool;
      v.boolean = *p_ == 't';
      p_ += v.boolean ? 4 : 5;
    } else if (std::strncmp(p_, "null", 4) == 0) {
      p_ += 4;
    } else {
      char* stop = nullptr;
      v.kind = Json::Kind::Number;
      v.number = std::strtod(p_, &stop);
      if (stop == p_) return fail("bad value"), v;
      p_ = stop;
    }
    return v;
  }
  const char* p_;
  const char* end_;
  std::string error_;
};

// ---- helpers ----------------------------------------------------------------------------------------------------

std::string fx(const std::string& rel) { return api_test::fixture(rel); }

bool exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string last_error() { return executorch::runtime::last_error_message(); }

// An input tensor holding a .npy file's array.
TensorPtr tensor_from_npy(const std::string& path) {
  api_test::Npy npy = api_test::load_npy(path);
  return make_tensor_ptr(std::vector<executorch::aten::SizesType>(npy.shape.begin(), npy.shape.end()),
                         std::move(npy.data), {}, {}, api_test::dtype_of(npy.descr));
}

// `got` equals the .npy reference within |got - want| <= atol + rtol * |want| (exactly for integers).
::testing::AssertionResult matches_npy(const EValue& got, const std::string& path, double atol = 1e-5,
                                       double rtol = 1e-5) {
  const api_test::Npy want = api_test::load_npy(path);
  if (!got.isTensor()) return ::testing::AssertionFailure() << "output is not a tensor (" << path << ")";
  const Tensor t = got.toTensor();
  if (t.scalar_type() != api_test::dtype_of(want.descr)) {
    return ::testing::AssertionFailure() << "dtype " << static_cast<int>(t.scalar_type()) << " vs " << want.descr;
  }
  if (static_cast<size_t>(t.dim()) != want.shape.size()) return ::testing::AssertionFailure() << "rank differs";
  for (size_t d = 0; d < want.shape.size(); ++d) {
    if (t.size(static_cast<ssize_t>(d)) != want.shape[d]) return ::testing::AssertionFailure() << "shape differs";
  }
  const size_t n = want.numel();
  for (size_t i = 0; i < n; ++i) {
    double g = 0, w = 0;
    switch (t.scalar_type()) {
      case ScalarType::Float:
        g = t.const_data_ptr<float>()[i];
        w = want.as<float>()[i];
        break;
      case ScalarType::Double:
        g = t.const_data_ptr<double>()[i];
        w = want.as<double>()[i];
        break;
      case ScalarType::Long:
        g = static_cast<double>(t.const_data_ptr<int64_t>()[i]);
        w = static_cast<double>(want.as<int64_t>()[i]);
        break;
      case ScalarType::Int:
        g = t.const_data_ptr<int32_t>()[i];
        w = want.as<int32_t>()[i];
        break;
      default:
        if (std::memcmp(t.const_data_ptr(), want.data.data(), want.data.size()) != 0)
          return ::testing::AssertionFailure() << "bytes differ from " << path;
        return ::testing::AssertionSuccess();
    }
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      return ::testing::AssertionFailure() << path << "[" << i << "]: got " << g << ", want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::vector<uint8_t>& bytes) {
    const char* dir = std::getenv("TMPDIR");
    path = std::string(dir != nullptr ? dir : "/tmp") + "/module_test_" + std::to_string(getpid()) + "_" + name;
    api_test::write_file(path, bytes);
  }
  ~TempFile() { std::remove(path.c_str()); }
};

const std::string kMlp = "mlp/portable.pte";

// The MLP fixture's input and reference for `case_index`.
TensorPtr mlp_input(int case_index = 0) {
  return tensor_from_npy(fx("mlp/forward_case" + std::to_string(case_index) + "_in0.npy"));
}
std::string mlp_ref(int case_index = 0) { return fx("mlp/forward_case" + std::to_string(case_index) + "_out0.npy"); }

}  // namespace

// ---- loading ---------------------------------------------------------------------------------------------------

TEST(Module, LoadsLazily) {
  Module module(fx(kMlp));
  EXPECT_FALSE(module.is_loaded());
  EXPECT_EQ(module.program(), nullptr);
  EXPECT_EQ(module.load(), Error::Ok);
  EXPECT_TRUE(module.is_loaded());
  EXPECT_NE(module.program(), nullptr);
  EXPECT_FALSE(module.is_method_loaded("forward"));
  EXPECT_EQ(module.load(executorch::runtime::Program::Verification::InternalConsistency), Error::Ok);  // no-op
}

TEST(Module, EveryLoadModeRuns) {
  for (Module::LoadMode mode : {Module::LoadMode::File, Module::LoadMode::Mmap, Module::LoadMode::MmapUseMlock,
                                Module::LoadMode::MmapUseMlockIgnoreErrors, Module::LoadMode::MmapUseMadvise}) {
    SCOPED_TRACE(static_cast<int>(mode));
    Module module(fx(kMlp), mode);
    const Error e = module.load();
    if (mode == Module::LoadMode::MmapUseMlock && e == Error::NotSupported) continue;  // no mlock allowed here
    ASSERT_EQ(e, Error::Ok) << last_error();
    auto out = module.forward(mlp_input());
    ASSERT_TRUE(out.ok()) << last_error();
    EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
  }
}

TEST(Module, MissingProgramFile) {
  Module module("/path/to/nonexistent/file.pte");
  EXPECT_NE(module.load(), Error::Ok);
  EXPECT_NE(last_error().find("/path/to/nonexistent/file.pte"), std::string::npos) << last_error();
  EXPECT_FALSE(module.is_loaded());
  EXPECT_NE(module.method_names().error(), Error::Ok);
  EXPECT_NE(module.num_methods().error(), Error::Ok);
  EXPECT_NE(module.method_meta("forward").error(), Error::Ok);
  EXPECT_NE(module.execute("forward").error(), Error::Ok);
  EXPECT_NE(module.load_method("forward"), Error::Ok);
  EXPECT_FALSE(module.is_method_loaded("forward"));
}

TEST(Module, CorruptProgramFile) {
  Module devnull("/dev/null");
  EXPECT_NE(devnull.load(), Error::Ok);
  EXPECT_FALSE(devnull.is_loaded());
  EXPECT_NE(devnull.execute("forward").error(), Error::Ok);

  std::vector<uint8_t> bytes = api_test::read_file(fx(kMlp));
  bytes.resize(bytes.size() / 3);
  TempFile truncated("truncated.pte", bytes);
  Module module(truncated.path);
  EXPECT_EQ(module.load(), Error::InvalidProgram);
  EXPECT_NE(last_error().find(truncated.path), std::string::npos) << last_error();
  EXPECT_FALSE(module.is_loaded());
}

TEST(Module, MethodNamesAndCount) {
  Module module(fx(kMlp));
  auto names = module.method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::unordered_set<std::string>{"forward"});
  ASSERT_TRUE(module.is_loaded());  // method_names() loads the program
  EXPECT_EQ(*module.num_methods(), 1u);

  Module multi(fx("multi_method/portable.pte"));
  EXPECT_EQ(*multi.num_methods(), 2u);
  EXPECT_EQ(*multi.method_names(), (std::unordered_set<std::string>{"forward", "encode"}));
}

TEST(Module, LoadAndUnloadMethod) {
  Module module(fx(kMlp));
  EXPECT_FALSE(module.is_method_loaded("forward"));
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  EXPECT_TRUE(module.is_method_loaded("forward"));
  EXPECT_TRUE(module.is_loaded());
  EXPECT_EQ(module.load_method("forward"), Error::Ok);  // already loaded: nothing happens
  EXPECT_TRUE(module.unload_method("forward"));
  EXPECT_FALSE(module.is_method_loaded("forward"));
  EXPECT_FALSE(module.unload_method("forward"));
  ASSERT_EQ(module.load_forward(), Error::Ok);
  EXPECT_TRUE(module.is_method_loaded("forward"));
  EXPECT_TRUE(module.unload_forward());
  EXPECT_FALSE(module.unload_forward());
  auto out = module.forward(mlp_input());  // reloads it
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
}

TEST(Module, LoadNonexistentMethod) {
  Module module(fx(kMlp));
  EXPECT_NE(module.load_method("backward"), Error::Ok);
  EXPECT_FALSE(module.is_method_loaded("backward"));
  EXPECT_TRUE(module.is_loaded());
  EXPECT_NE(module.method_meta("backward").error(), Error::Ok);
  EXPECT_NE(module.execute("backward").error(), Error::Ok);
}

TEST(Module, MethodMeta) {
  Module module(fx(kMlp));
  auto meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(module.is_method_loaded("forward"));  // metadata needs the program only
  EXPECT_STREQ(meta->name(), "forward");
  ASSERT_EQ(meta->num_inputs(), 1u);
  EXPECT_EQ(*meta->input_tag(0), Tag::Tensor);
  auto in = meta->input_tensor_meta(0);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->scalar_type(), ScalarType::Float);
  ASSERT_EQ(in->sizes().size(), 2u);
  EXPECT_EQ(in->sizes()[0], 2);
  EXPECT_EQ(in->sizes()[1], 8);
  ASSERT_EQ(meta->num_outputs(), 1u);
  auto out = meta->output_tensor_meta(0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->sizes()[1], 4);
}

// ---- running ---------------------------------------------------------------------------------------------------

TEST(Module, ExecuteForwardAndGet) {
  for (const char* file : {"mlp/portable.pte", "mlp/xnnpack.pte"}) {
    SCOPED_TRACE(file);
    Module module(fx(file));
    auto by_name = module.execute("forward", mlp_input(0));
    ASSERT_TRUE(by_name.ok()) << last_error();
    EXPECT_TRUE(module.is_method_loaded("forward"));
    ASSERT_EQ(by_name->size(), 1u);
    EXPECT_TRUE(matches_npy(by_name->at(0), mlp_ref(0)));

    auto list = module.execute("forward", std::vector<EValue>{mlp_input(1)});
    ASSERT_TRUE(list.ok());
    EXPECT_TRUE(matches_npy(list->at(0), mlp_ref(1)));

    auto fwd = module.forward(mlp_input(0));
    ASSERT_TRUE(fwd.ok());
    EXPECT_TRUE(matches_npy(fwd->at(0), mlp_ref(0)));
    auto fwd_list = module.forward(std::vector<EValue>{mlp_input(1)});
    ASSERT_TRUE(fwd_list.ok());
    EXPECT_TRUE(matches_npy(fwd_list->at(0), mlp_ref(1)));

    auto first = module.get("forward", std::vector<EValue>{mlp_input(0)});
    ASSERT_TRUE(first.ok());
    EXPECT_TRUE(matches_npy(*first, mlp_ref(0)));
    auto single = module.get("forward", EValue(mlp_input(1)));
    ASSERT_TRUE(single.ok());
    EXPECT_TRUE(matches_npy(*single, mlp_ref(1)));
    auto preset = module.get("forward");  // the input set by the last run stays
    ASSERT_TRUE(preset.ok());
    EXPECT_TRUE(matches_npy(*preset, mlp_ref(1)));
  }
}

TEST(Module, ExecuteAfterExplicitLoads) {
  Module module(fx(kMlp));
  ASSERT_EQ(module.load(), Error::Ok);
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  auto out = module.execute("forward", mlp_input());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
}

TEST(Module, BadInputs) {
  Module module(fx(kMlp));
  EXPECT_NE(module.forward().error(), Error::Ok);  // input never set
  EXPECT_NE(module.forward(EValue()).error(), Error::Ok);
  EXPECT_EQ(module.forward({mlp_input(), mlp_input()}).error(), Error::InvalidArgument);               // too many
  EXPECT_NE(module.forward(make_tensor_ptr({2, 8}, std::vector<int64_t>(16, 1))).error(), Error::Ok);  // dtype
  EXPECT_NE(module.forward(make_tensor_ptr({3, 8}, std::vector<float>(24, 1.f))).error(), Error::Ok);  // shape
  EXPECT_NE(module.set_input(mlp_input(), 1), Error::Ok);
}

// no_constants: forward(a, b) = mm(a, b) + a.
TEST(Module, SetInputsAheadOfExecute) {
  const std::string in0 = fx("no_constants/forward_case0_in0.npy"), in1 = fx("no_constants/forward_case0_in1.npy");
  const std::string ref = fx("no_constants/forward_case0_out0.npy");
  {
    Module module(fx("no_constants/portable.pte"));
    ASSERT_EQ(module.set_inputs({tensor_from_npy(in0), tensor_from_npy(in1)}), Error::Ok);
    auto out = module.forward();
    ASSERT_TRUE(out.ok()) << last_error();
    EXPECT_TRUE(matches_npy(out->at(0), ref));
    // Setting them again runs again. (Planned inputs are copied into the method's arena, which the planner may
    // reuse for later values, so a second run needs its inputs set again, as with upstream's runtime.)
    ASSERT_EQ(module.set_inputs("forward", {tensor_from_npy(in0), tensor_from_npy(in1)}), Error::Ok);
    auto again = module.execute("forward");
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(matches_npy(again->at(0), ref));
  }
  {
    Module module(fx("no_constants/portable.pte"));
    ASSERT_EQ(module.set_input(tensor_from_npy(in1), 1), Error::Ok);
    auto out = module.forward(tensor_from_npy(in0));  // input 0 at call time, input 1 set before
    ASSERT_TRUE(out.ok()) << last_error();
    EXPECT_TRUE(matches_npy(out->at(0), ref));
  }
  {
    Module module(fx("no_constants/portable.pte"));
    ASSERT_EQ(module.set_input("forward", tensor_from_npy(in0), 0), Error::Ok);
    EXPECT_NE(module.forward().error(), Error::Ok);                   // input 1 missing
    EXPECT_NE(module.set_inputs({tensor_from_npy(in0)}), Error::Ok);  // set_inputs wants every input
  }
}

TEST(Module, GetOutputs) {
  Module module(fx(kMlp));
  ASSERT_TRUE(module.forward(mlp_input()).ok());
  auto one = module.get_output();
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(matches_npy(*one, mlp_ref()));
  auto by_name = module.get_output("forward", 0);
  ASSERT_TRUE(by_name.ok());
  EXPECT_TRUE(matches_npy(*by_name, mlp_ref()));
  auto all = module.get_outputs();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_TRUE(matches_npy(all->at(0), mlp_ref()));
  EXPECT_EQ(module.get_output("forward", 99).error(), Error::InvalidArgument);

  Module multi(fx("multi_output/portable.pte"));
  ASSERT_TRUE(multi.forward(tensor_from_npy(fx("multi_output/forward_case0_in0.npy"))).ok());
  auto outs = multi.get_outputs("forward");
  ASSERT_TRUE(outs.ok());
  ASSERT_EQ(outs->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(
        matches_npy(outs->at(i), fx("multi_output/forward_case0_out" + std::to_string(i) + ".npy"), 1e-4, 1e-4));
    EXPECT_TRUE(matches_npy(*multi.get_output(i), fx("multi_output/forward_case0_out" + std::to_string(i) + ".npy"),
                            1e-4, 1e-4));
  }
}

TEST(Module, SetOutputErrors) {
  Module module(fx(kMlp));
  EXPECT_NE(module.set_output(empty({1}), 1), Error::Ok);                        // no output 1
  EXPECT_EQ(module.set_output(EValue()), Error::InvalidArgument);                // not a tensor
  EXPECT_EQ(module.set_outputs(std::vector<EValue>{}), Error::InvalidArgument);  // count
  EXPECT_NE(module.set_outputs({EValue()}), Error::Ok);
  auto buffer = empty({2, 4});
  EXPECT_NE(module.set_outputs({buffer}), Error::Ok);  // the MLP's output is memory planned
  EXPECT_NE(module.set_output("forward", buffer, 0), Error::Ok);
}

// A user buffer for an output the program does not memory-plan: the method writes there.
TEST(Module, SetOutputUserBuffer) {
  // tests/upstream_compat/unplanned_outputs.pte: exported with memory planning of outputs turned off, so the
  // caller gives the outputs their storage (fc(x) + y and relu(x).sum(-1)).
  const std::string pte = fx("../upstream_compat/unplanned_outputs.pte");
  Module module(pte);
  auto meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok()) << last_error();
  ASSERT_EQ(meta->num_outputs(), 2u);
  std::vector<TensorPtr> buffers;
  for (size_t i = 0; i < 2; ++i) {
    auto info = meta->output_tensor_meta(i);
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->is_memory_planned());
    std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
    buffers.push_back(empty(sizes, info->scalar_type()));
    ASSERT_EQ(module.set_output("forward", buffers.back(), i), Error::Ok) << last_error();
  }
  const api_test::Npy x = api_test::load_npy(fx("../upstream_compat/unplanned_outputs_in0.npy"));
  const api_test::Npy y = api_test::load_npy(fx("../upstream_compat/unplanned_outputs_in1.npy"));
  auto out = module.execute("forward", {make_tensor_ptr({2, 4}, std::vector<float>(x.as<float>(), x.as<float>() + 8)),
                                        make_tensor_ptr({2, 3}, std::vector<float>(y.as<float>(), y.as<float>() + 6))});
  ASSERT_TRUE(out.ok()) << last_error();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out->at(i).toTensor().const_data_ptr(), buffers[i]->const_data_ptr());
    const api_test::Npy want =
        api_test::load_npy(fx("../upstream_compat/unplanned_outputs_out" + std::to_string(i) + ".npy"));
    EXPECT_LE(api_test::max_abs_diff(buffers[i]->const_data_ptr<float>(), want.as<float>(), want.numel()), 1e-5f);
  }
  // A planned output cannot take a buffer.
  Module planned(fx(kMlp));
  EXPECT_EQ(planned.set_output("forward", empty({2, 4}), 0), Error::InvalidState);
}

// ---- sharing a program ------------------------------------------------------------------------------------------

TEST(Module, ProgramSharedBetweenModules) {
  Module module1(fx(kMlp));
  ASSERT_EQ(module1.load(), Error::Ok);
  Module module2(module1.program());
  EXPECT_TRUE(module2.is_loaded());
  EXPECT_EQ(module2.program(), module1.program());
  EXPECT_EQ(*module1.method_names(), *module2.method_names());
  ASSERT_EQ(module1.load_method("forward"), Error::Ok);
  EXPECT_FALSE(module2.is_method_loaded("forward"));  // each Module loads its own methods
  auto a = module1.forward(mlp_input(0));
  auto b = module2.forward(mlp_input(1));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(matches_npy(a->at(0), mlp_ref(0)));
  EXPECT_TRUE(matches_npy(b->at(0), mlp_ref(1)));
}

TEST(Module, ProgramOutlivesTheModuleAndItsLoader) {
  std::shared_ptr<executorch::runtime::Program> program;
  {
    auto loader = FileDataLoader::from(fx("mlp/xnnpack.pte").c_str());
    ASSERT_TRUE(loader.ok());
    Module module(std::make_unique<FileDataLoader>(std::move(*loader)));
    ASSERT_EQ(module.load(), Error::Ok);
    program = module.program();
  }
  // Loading a method reads the delegate's segment through the loader: it must still be alive.
  Module module(program);
  auto out = module.forward(mlp_input());
  ASSERT_TRUE(out.ok()) << last_error();
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref(), 1e-4, 1e-4));
}

TEST(Module, ConcurrentModulesOnOneProgram) {
  std::shared_ptr<executorch::runtime::Program> program;
  {
    Module module(fx(kMlp));
    ASSERT_EQ(module.load(), Error::Ok);
    program = module.program();
  }
  std::vector<std::thread> threads;
  std::array<bool, 4> ok{};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Module module(program);
      for (int r = 0; r < 5; ++r) {
        auto out = module.forward(mlp_input(t % 2));
        ok[t] = out.ok() && matches_npy(out->at(0), mlp_ref(t % 2));
        if (!ok[t]) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (bool b : ok) EXPECT_TRUE(b);
}

// ---- load_method's parameters -----------------------------------------------------------------------------------

TEST(Module, LoadMethodWithEventTracer) {
  Module module(fx(kMlp));
  executorch::etdump::ETDumpGen etdump;
  ASSERT_EQ(module.load_method("forward", nullptr, &etdump), Error::Ok);
  EXPECT_EQ(module.event_tracer(), nullptr);
  ASSERT_TRUE(module.forward(mlp_input()).ok());
  ASSERT_TRUE(module.forward(mlp_input(1)).ok());
  EXPECT_EQ(etdump.get_num_blocks(), 2u);
  auto dump = etdump.get_etdump_data();
  EXPECT_NE(dump.buf, nullptr);
  EXPECT_GT(dump.size, 0u);
  std::free(dump.buf);
}

TEST(Module, ConstructorEventTracer) {
  Module module(fx(kMlp), Module::LoadMode::File, std::make_unique<executorch::etdump::ETDumpGen>());
  auto* etdump = dynamic_cast<executorch::etdump::ETDumpGen*>(module.event_tracer());
  ASSERT_NE(etdump, nullptr);
  ASSERT_TRUE(module.forward(mlp_input()).ok());
  EXPECT_EQ(etdump->get_num_blocks(), 1u);
  // A per-method tracer takes precedence over the Module's.
  executorch::etdump::ETDumpGen other;
  Module module2(fx(kMlp), Module::LoadMode::File, std::make_unique<executorch::etdump::ETDumpGen>());
  ASSERT_EQ(module2.load_forward(nullptr, &other), Error::Ok);
  ASSERT_TRUE(module2.forward(mlp_input()).ok());
  EXPECT_EQ(other.get_num_blocks(), 1u);
  EXPECT_EQ(dynamic_cast<executorch::etdump::ETDumpGen*>(module2.event_tracer())->get_num_blocks(), 0u);
}

TEST(Module, LoadMethodWithCallersPlannedMemory) {
  Module module(fx(kMlp));
  auto meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  api_test::PlannedMemory planned(*meta);
  ASSERT_EQ(module.load_method("forward", planned.allocator.get()), Error::Ok);
  auto out = module.forward(mlp_input());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
  // The output lives in the caller's buffers.
  const auto* p = static_cast<const uint8_t*>(out->at(0).toTensor().const_data_ptr());
  bool inside = false;
  for (auto& b : planned.buffers) inside = inside || (p >= b.data() && p < b.data() + b.size());
  EXPECT_TRUE(inside);
}

namespace {
// A relu that outputs zeros, to see that load_method's kernel_registry is searched before the global registry.
void zero_relu(KernelRuntimeContext&, Span<EValue*> args) {
  Tensor out = args[args.size() - 1]->toTensor();
  std::memset(out.mutable_data_ptr(), 0, out.nbytes());
}
}  // namespace

TEST(Module, LoadMethodWithKernelRegistry) {
  Module module(fx(kMlp));
  std::vector<executorch::runtime::Kernel> kernels = {executorch::runtime::Kernel("aten::relu.out", zero_relu)};
  ASSERT_EQ(module.load_method("forward", nullptr, nullptr, nullptr, kernels), Error::Ok) << last_error();
  auto out = module.forward(mlp_input());
  ASSERT_TRUE(out.ok());
  // With the hidden layer zeroed, every row of the output is the last layer's bias.
  const float* y = out->at(0).toTensor().const_data_ptr<float>();
  for (int j = 0; j < 4; ++j) EXPECT_EQ(y[j], y[4 + j]);
  EXPECT_FALSE(matches_npy(out->at(0), mlp_ref()));
  // Other Modules still use the registered kernel.
  Module plain(fx(kMlp));
  auto ref = plain.forward(mlp_input());
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(matches_npy(ref->at(0), mlp_ref()));
}

namespace {
// Counts what is allocated from it.
class CountingAllocator : public MallocMemoryAllocator {
 public:
  explicit CountingAllocator(size_t* count) : count_(count) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    ++*count_;
    return MallocMemoryAllocator::allocate(size, alignment);
  }

 private:
  size_t* count_;
};
}  // namespace

// The temporary allocator given to the constructor is the one kernels get scratch memory from (the CNN's 3x3
// convolutions take their im2col buffer there).
TEST(Module, CallersAllocators) {
  size_t method_allocations = 0, temp_allocations = 0;
  Module module(fx("cnn/portable.pte"), Module::LoadMode::File, nullptr,
                std::make_unique<CountingAllocator>(&method_allocations),
                std::make_unique<CountingAllocator>(&temp_allocations));
  auto out = module.forward(tensor_from_npy(fx("cnn/forward_case0_in0.npy")));
  ASSERT_TRUE(out.ok()) << last_error();
  EXPECT_TRUE(matches_npy(out->at(0), fx("cnn/forward_case0_out0.npy"), 1e-4, 1e-4));
  EXPECT_GT(temp_allocations, 0u);
  // The data-loader and program constructors take them too.
  size_t temp2 = 0;
  Module shared(module.program(), nullptr, std::make_unique<CountingAllocator>(&temp2));
  ASSERT_TRUE(shared.forward(tensor_from_npy(fx("cnn/forward_case0_in0.npy"))).ok());
  EXPECT_GT(temp2, 0u);
}

// ---- backend options --------------------------------------------------------------------------------------------

TEST(Module, LoadStoresACopyOfBackendOptions) {
  Module module(fx("mlp/xnnpack.pte"));
  EXPECT_EQ(module.backend_options().size(), 0u);
  {
    LoadBackendOptionsMap map;
    BackendOptions<2> options;
    ASSERT_EQ(options.set_option("num_threads", 2), Error::Ok);
    ASSERT_EQ(options.set_option("enable_profiling", true), Error::Ok);
    ASSERT_EQ(map.set_options("XnnpackBackend", options.view()), Error::Ok);
    ASSERT_EQ(module.load(map), Error::Ok);
  }  // the caller's map and options are gone; the Module's copy is read below
  const auto& stored = module.backend_options();
  ASSERT_EQ(stored.size(), 1u);
  const auto entry = stored.entry_at(0);
  EXPECT_STREQ(entry.backend_id, "XnnpackBackend");
  ASSERT_EQ(entry.options.size(), 2u);
  bool saw_threads = false, saw_profiling = false;
  for (const BackendOption& o : entry.options) {
    if (std::strcmp(o.key, "num_threads") == 0) saw_threads = std::get<int>(o.value) == 2;
    if (std::strcmp(o.key, "enable_profiling") == 0) saw_profiling = std::get<bool>(o.value);
  }
  EXPECT_TRUE(saw_threads);
  EXPECT_TRUE(saw_profiling);
  auto out = module.forward(mlp_input());  // the method loads with the stored options
  ASSERT_TRUE(out.ok()) << last_error();
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref(), 1e-4, 1e-4));
}

TEST(Module, FailedLoadKeepsPreviousBackendOptions) {
  Module module("/this/path/does/not/exist.pte");
  {
    LoadBackendOptionsMap map;
    BackendOptions<1> options;
    ASSERT_EQ(options.set_option("rollback", true), Error::Ok);
    ASSERT_EQ(map.set_options("SomeBackend", options.view()), Error::Ok);
    EXPECT_NE(module.load(map), Error::Ok);
  }
  EXPECT_EQ(module.backend_options().size(), 0u);
  EXPECT_FALSE(module.is_loaded());
  EXPECT_NE(module.load_method("forward"), Error::Ok);
}

TEST(Module, LoadMethodAndLoadForwardTakeBackendOptions) {
  LoadBackendOptionsMap map;
  BackendOptions<1> options;
  ASSERT_EQ(options.set_option("option1", 42), Error::Ok);
  ASSERT_EQ(map.set_options("AnotherBackend", options.view()), Error::Ok);
  Module module(fx(kMlp));
  ASSERT_EQ(module.load_method("forward", nullptr, nullptr, &map), Error::Ok);
  EXPECT_TRUE(module.is_method_loaded("forward"));
  Module module2(fx(kMlp));
  ASSERT_EQ(module2.load_forward(nullptr, nullptr, &map), Error::Ok);
  EXPECT_TRUE(module2.is_method_loaded("forward"));
  auto out = module2.forward(mlp_input());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
}

// ---- shared arenas ----------------------------------------------------------------------------------------------

TEST(Module, ShareMemoryArenas) {
  const std::string dir = "multi_method/";
  Module module(fx(dir + "portable.pte"), Module::LoadMode::File, nullptr, nullptr, nullptr,
                /*share_memory_arenas=*/true);
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  ASSERT_EQ(module.load_method("encode"), Error::Ok);
  for (int round = 0; round < 2; ++round) {
    for (const char* method : {"forward", "encode"}) {
      SCOPED_TRACE(method);
      const std::string base = fx(dir + method + "_case0_");
      auto out = module.execute(method, tensor_from_npy(base + "in0.npy"));
      ASSERT_TRUE(out.ok()) << last_error();
      EXPECT_TRUE(matches_npy(out->at(0), base + "out0.npy", 1e-4, 1e-4));
    }
  }
}

// ---- deprecated API ---------------------------------------------------------------------------------------------

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(Module, DeprecatedApi) {
  Module module(fx(kMlp));
  auto method = module.method("forward");
  ASSERT_TRUE(method.ok());
  EXPECT_TRUE(module.is_method_loaded("forward"));
  auto input = mlp_input();
  ASSERT_EQ((*method)->set_input(input, 0), Error::Ok);
  ASSERT_EQ((*method)->execute(), Error::Ok);
  EXPECT_TRUE(matches_npy((*method)->get_output(0), mlp_ref()));
  EXPECT_EQ(module.debug_buffer().size(), 0u);
  EXPECT_EQ(module.method("nope").error(), module.load_method("nope"));

  executorch::etdump::ETDumpGen etdump;
  Module traced(fx(kMlp));
  ASSERT_EQ(traced.load_method("forward", static_cast<executorch::runtime::EventTracer*>(&etdump)), Error::Ok);
  ASSERT_TRUE(traced.forward(mlp_input()).ok());
  EXPECT_EQ(etdump.get_num_blocks(), 1u);
  executorch::etdump::ETDumpGen etdump2;
  Module traced2(fx(kMlp));
  ASSERT_EQ(traced2.load_forward(static_cast<executorch::runtime::EventTracer*>(&etdump2)), Error::Ok);
  ASSERT_TRUE(traced2.forward(mlp_input()).ok());
  EXPECT_EQ(etdump2.get_num_blocks(), 1u);
}
#pragma GCC diagnostic pop

// ---- docs/source/extension-module.md, snippet by snippet ------------------------------------------------------

TEST(Module, DocSnippets) {
  using namespace ::executorch::extension;
  using executorch::runtime::EValue;
  const std::string path = fx(kMlp);
  {
    // Example (the MLP takes [2, 8] where the doc's model takes [1, 3, 256, 256]).
    Module module(path);
    float input[2 * 8] = {};
    auto tensor = from_blob(input, {2, 8});
    const auto result = module.forward(tensor);
    ASSERT_TRUE(result.ok());
    const auto output = result->at(0).toTensor().const_data_ptr<float>();
    EXPECT_NE(output, nullptr);
  }
  {
    // With a .ptd data file.
    const std::string pte = fx("ptd/portable_mlp/model.pte"), ptd = fx("ptd/portable_mlp/model.ptd");
    if (exists(pte) && exists(ptd)) {
      Module module(pte, ptd);
      EXPECT_EQ(module.load(), Error::Ok) << last_error();
    }
  }
  Module module(path);
  {
    const auto error = module.load();
    EXPECT_EQ(error, Error::Ok);
    assert(module.is_loaded());
    EXPECT_TRUE(module.is_loaded());
  }
  {
    const auto error = module.load_method("forward");
    EXPECT_EQ(error, Error::Ok);
    EXPECT_TRUE(module.is_method_loaded("forward"));
  }
  {
    const auto error = module.load_forward();
    EXPECT_EQ(error, Error::Ok);
    EXPECT_TRUE(module.is_method_loaded("forward"));
  }
  {
    const auto method_names = module.method_names();
    ASSERT_TRUE(method_names.ok());
    EXPECT_TRUE(method_names->count("forward"));
  }
  {
    const auto method_meta = module.method_meta("forward");
    ASSERT_TRUE(method_meta.ok());
    EXPECT_STREQ(method_meta->name(), "forward");
    const auto input_meta = method_meta->input_tensor_meta(0);
    ASSERT_TRUE(input_meta.ok());
    EXPECT_EQ(input_meta->scalar_type(), ScalarType::Float);
    const auto output_meta = method_meta->output_tensor_meta(0);
    ASSERT_TRUE(output_meta.ok());
    EXPECT_EQ(output_meta->sizes().size(), 2u);
  }
  auto tensor = mlp_input();
  {
    const auto result = module.execute("forward", tensor);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(matches_npy(result->at(0), mlp_ref()));
  }
  {
    const auto result = module.forward(tensor);
    ASSERT_TRUE(result.ok());
  }
  {
    EValue tensor_value(tensor);
    EXPECT_EQ(module.set_input("forward", tensor_value, 0), Error::Ok);
    std::vector<executorch::runtime::EValue> inputs = {tensor_value};
    EXPECT_EQ(module.set_inputs("forward", inputs), Error::Ok);
    const auto result = module.forward();
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(matches_npy(result->at(0), mlp_ref()));
    // "Clearing" a tensor input with an empty EValue is refused, as upstream's Method refuses it.
    EXPECT_NE(module.set_input(executorch::runtime::EValue(), 0), Error::Ok);
  }
  {
    // Outputs can only be set when they are not memory planned; the MLP's are.
    auto output_tensor = empty({2, 4});
    EXPECT_NE(module.set_output("forward", output_tensor, 0), Error::Ok);
    EXPECT_NE(module.set_output(output_tensor), Error::Ok);
  }
  {
    // Profiling.
    using executorch::etdump::ETDumpGen;
    Module traced(path, Module::LoadMode::MmapUseMlockIgnoreErrors, std::make_unique<ETDumpGen>());
    ASSERT_TRUE(traced.forward(tensor).ok());
    if (auto* etdump = dynamic_cast<ETDumpGen*>(traced.event_tracer())) {
      const auto trace = etdump->get_etdump_data();
      ASSERT_TRUE(trace.buf && trace.size > 0);
      std::unique_ptr<void, decltype(&free)> guard(trace.buf, free);
      TempFile file("trace.etdump", {});
      std::ofstream out(file.path, std::ios::binary);
      ASSERT_TRUE(out);
      out.write(static_cast<const char*>(trace.buf), static_cast<std::streamsize>(trace.size));
    } else {
      FAIL() << "the event tracer is not the ETDumpGen given";
    }
  }
}

// ---- data files (.ptd) ------------------------------------------------------------------------------------------

namespace {

const Json* ptd_manifest() {
  static const Json manifest = [] {
    std::ifstream in(fx("ptd/manifest.json"));
    if (!in.good()) return Json();
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    JsonReader reader(text);
    Json m = reader.read();
    EXPECT_TRUE(reader.ok()) << "ptd/manifest.json: " << reader.error();
    return m;
  }();
  return manifest.kind == Json::Kind::Object ? &manifest : nullptr;
}

const Json* ptd_fixture(const std::string& name) {
  const Json* m = ptd_manifest();
  if (m == nullptr) return nullptr;
  for (const Json& f : (*m)["fixtures"].array) {
    if (f["name"].string == name) return &f;
  }
  return nullptr;
}

#define REQUIRE_PTD_FIXTURE(var, name)                                                            \
  const Json* var = ptd_fixture(name);                                                            \
  if (var == nullptr) GTEST_SKIP() << "tests/fixtures/ptd/manifest.json has no fixture " << name; \
  static_assert(true)

std::string ptd(const std::string& rel) { return fx("ptd/" + rel); }

std::vector<std::string> data_files_of(const Json& f) {
  std::vector<std::string> files;
  for (const Json& d : f["data_files"].array) files.push_back(ptd(d.string));
  return files;
}

// Runs every case of the fixture's forward (in order: stateful fixtures carry state) and compares each output
// with the reference.
void run_cases(Module& module, const Json& f) {
  const double atol = f["atol"].number, rtol = f["rtol"].number;
  const Json& cases = f["methods"]["forward"]["cases"];
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    std::vector<EValue> inputs;
    std::vector<TensorPtr> keep;
    for (const Json& in : cases[c]["inputs"].array) {
      keep.push_back(tensor_from_npy(ptd(in["file"].string)));
      inputs.emplace_back(keep.back());
    }
    auto out = module.forward(inputs);
    ASSERT_TRUE(out.ok()) << last_error();
    const Json& want = cases[c]["outputs"];
    ASSERT_EQ(out->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(matches_npy(out->at(i), ptd(want[i]["file"].string), atol, rtol)) << "output " << i;
    }
  }
}

}  // namespace

// Every fixture of tests/fixtures/ptd runs with its data files and matches its reference.
TEST(ModuleData, EveryFixtureMatchesItsReference) {
  const Json* m = ptd_manifest();
  if (m == nullptr) GTEST_SKIP() << "tests/fixtures/ptd/manifest.json is not there";
  size_t ran = 0;
  for (const Json& f : (*m)["fixtures"].array) {
    SCOPED_TRACE(f["name"].string);
    for (Module::LoadMode mode : {Module::LoadMode::File, Module::LoadMode::Mmap}) {
      Module module(ptd(f["program"].string), data_files_of(f), mode);
      ASSERT_EQ(module.load(), Error::Ok) << last_error();
      run_cases(module, f);
      ++ran;
    }
  }
  EXPECT_GT(ran, 0u);
}

TEST(ModuleData, Constructors) {
  REQUIRE_PTD_FIXTURE(f, "portable_mlp");
  const std::string pte = ptd((*f)["program"].string);
  const std::vector<std::string> files = data_files_of(*f);
  ASSERT_EQ(files.size(), 1u);
  {
    Module module(pte, files[0]);  // one data file
    EXPECT_FALSE(module.is_loaded());
    run_cases(module, *f);
  }
  {
    std::vector<std::string> list = files;
    Module module(pte, list, Module::LoadMode::MmapUseMadvise);  // a list of them
    EXPECT_EQ(list, files);                                      // the caller's list is left alone
    run_cases(module, *f);
  }
  {
    // From data loaders: the program's and the data file's.
    auto program_loader = FileDataLoader::from(pte.c_str());
    auto data_loader = FileDataLoader::from(files[0].c_str());
    ASSERT_TRUE(program_loader.ok() && data_loader.ok());
    Module module(std::make_unique<FileDataLoader>(std::move(*program_loader)), nullptr, nullptr, nullptr,
                  std::make_unique<FileDataLoader>(std::move(*data_loader)));
    run_cases(module, *f);
  }
  {
    // A shared program with its data file given as a loader.
    Module owner(pte, files[0]);
    ASSERT_EQ(owner.load(), Error::Ok);
    auto data_loader = FileDataLoader::from(files[0].c_str());
    ASSERT_TRUE(data_loader.ok());
    Module module(owner.program(), nullptr, nullptr, nullptr,
                  std::make_unique<FileDataLoader>(std::move(*data_loader)));
    EXPECT_TRUE(module.is_loaded());
    run_cases(module, *f);
    // The same program without data: the method cannot load.
    Module without(owner.program());
    EXPECT_NE(without.load_method("forward"), Error::Ok);
  }
  {
    // An empty data path means none.
    Module module(fx(kMlp), std::string());
    auto out = module.forward(mlp_input());
    ASSERT_TRUE(out.ok()) << last_error();
    EXPECT_TRUE(matches_npy(out->at(0), mlp_ref()));
  }
}

// Two data files, in either order; the data-loader constructors and methods loaded one by one see the same data.
TEST(ModuleData, TwoDataFiles) {
  REQUIRE_PTD_FIXTURE(f, "two_files");
  std::vector<std::string> files = data_files_of(*f);
  ASSERT_EQ(files.size(), 2u);
  {
    Module module(ptd((*f)["program"].string), files);
    run_cases(module, *f);
  }
  {
    Module module(ptd((*f)["program"].string), std::vector<std::string>{files[1], files[0]});
    run_cases(module, *f);
  }
}

// ---- data file errors: each names the file and says why ---------------------------------------------------------

TEST(ModuleData, MissingDataFile) {
  REQUIRE_PTD_FIXTURE(f, "portable_mlp");
  const std::string missing = "/nonexistent/dir/model.ptd";
  Module module(ptd((*f)["program"].string), missing);
  EXPECT_EQ(module.load(), Error::AccessFailed);
  const std::string msg = last_error();
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("pass the path"), std::string::npos) << msg;
  EXPECT_FALSE(module.is_loaded());
  EXPECT_NE(module.forward(mlp_input()).error(), Error::Ok);
  EXPECT_NE(last_error().find(missing), std::string::npos) << last_error();

  Module directory(ptd((*f)["program"].string), std::vector<std::string>{"/"});  // not a regular file
  EXPECT_NE(directory.load(), Error::Ok);
  EXPECT_NE(last_error().find("data file / "), std::string::npos) << last_error();
}

TEST(ModuleData, CorruptDataFile) {
  REQUIRE_PTD_FIXTURE(f, "portable_mlp");
  const std::string pte = ptd((*f)["program"].string);
  const std::vector<uint8_t> good = api_test::read_file(data_files_of(*f)[0]);
  // The runtime's own reason for a file, to check that the Module's message carries it.
  auto runtime_reason = [](const std::string& path) {
    auto loader = FileDataLoader::from(path.c_str());
    EXPECT_TRUE(loader.ok());
    executorch::runtime::clear_last_error();
    auto map = FlatTensorDataMap::load(&*loader);
    EXPECT_FALSE(map.ok());
    return last_error();
  };
  std::vector<std::vector<uint8_t>> damaged;
  damaged.emplace_back(good.begin(), good.begin() + good.size() / 2);  // truncated
  damaged.push_back(good);
  std::memcpy(damaged.back().data() + 4, "XX01", 4);  // not a FlatTensor identifier
  damaged.push_back(good);
  for (size_t i = 8; i < 48 && i < good.size(); ++i) damaged.back()[i] ^= 0x5A;  // a damaged header
  damaged.emplace_back(good.begin(), good.begin() + 16);                         // too short for a header
  for (size_t k = 0; k < damaged.size(); ++k) {
    SCOPED_TRACE(k);
    TempFile bad("corrupt" + std::to_string(k) + ".ptd", damaged[k]);
    const std::string reason = runtime_reason(bad.path);
    ASSERT_FALSE(reason.empty());
    Module module(pte, bad.path);
    const Error e = module.load();
    EXPECT_NE(e, Error::Ok);
    const std::string msg = last_error();
    EXPECT_NE(msg.find(bad.path), std::string::npos) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg << "\nruntime: " << reason;
    EXPECT_FALSE(module.is_loaded());
  }
  // A .pte given as the data file.
  Module swapped(pte, pte);
  EXPECT_EQ(swapped.load(), Error::InvalidExternalData);
  EXPECT_NE(last_error().find(pte), std::string::npos) << last_error();
}

TEST(ModuleData, DataFileOfAnotherProgram) {
  REQUIRE_PTD_FIXTURE(mlp, "portable_mlp");
  REQUIRE_PTD_FIXTURE(two, "two_files");
  const std::string other = ptd((*two)["data_files"][0].string);
  Module module(ptd((*mlp)["program"].string), other);
  ASSERT_EQ(module.load(), Error::Ok) << last_error();  // the program does read data files
  EXPECT_NE(module.load_method("forward"), Error::Ok);
  const std::string msg = last_error();
  bool names_a_key = false;
  for (const Json& t : (*mlp)["external_tensors"].array) {
    names_a_key = names_a_key || msg.find("'" + t["fqn"].string + "'") != std::string::npos;
  }
  EXPECT_TRUE(names_a_key) << msg;
  EXPECT_NE(msg.find(other), std::string::npos) << msg;
  EXPECT_FALSE(module.is_method_loaded("forward"));
}

// The second file of `two_files` missing: the key it holds is named.
TEST(ModuleData, KeyInNoDataFile) {
  REQUIRE_PTD_FIXTURE(f, "two_files");
  const std::vector<std::string> files = data_files_of(*f);
  for (size_t given = 0; given < 2; ++given) {
    Module module(ptd((*f)["program"].string), files[given]);
    ASSERT_EQ(module.load(), Error::Ok) << last_error();
    EXPECT_NE(module.load_method("forward"), Error::Ok);
    const std::string msg = last_error();
    const std::string missing_file = files[1 - given].substr(files[1 - given].rfind('/') + 1);
    bool names_a_missing_key = false;
    for (const Json& t : (*f)["external_tensors"].array) {
      if (t["data_file"].string == missing_file) {
        names_a_missing_key = names_a_missing_key || msg.find(t["fqn"].string) != std::string::npos;
      }
    }
    EXPECT_TRUE(names_a_missing_key) << msg;
    EXPECT_NE(msg.find(files[given]), std::string::npos) << msg;
  }
}

TEST(ModuleData, SameDataFileTwice) {
  REQUIRE_PTD_FIXTURE(f, "portable_mlp");
  const std::string file = data_files_of(*f)[0];
  Module module(ptd((*f)["program"].string), std::vector<std::string>{file, file});
  EXPECT_NE(module.load(), Error::Ok);
  EXPECT_NE(last_error().find(file), std::string::npos) << last_error();
  EXPECT_FALSE(module.is_loaded());
}

TEST(ModuleData, DataFileForAProgramThatNeedsNone) {
  REQUIRE_PTD_FIXTURE(f, "portable_mlp");
  const std::string file = data_files_of(*f)[0];
  for (const char* program : {"mlp/portable.pte", "no_constants/portable.pte"}) {
    SCOPED_TRACE(program);
    Module module(fx(program), file);
    EXPECT_EQ(module.load(), Error::InvalidArgument);
    EXPECT_EQ(last_error(), file + ": this program keeps all its data inside the .pte; it needs no data file");
    EXPECT_FALSE(module.is_loaded());
    EXPECT_EQ(module.forward(mlp_input()).error(), Error::InvalidArgument);
    EXPECT_EQ(module.load(), Error::InvalidArgument);  // and again: nothing was half-loaded
  }
  // Through a shared program and a data map loader as well.
  Module owner(fx(kMlp));
  ASSERT_EQ(owner.load(), Error::Ok);
  auto loader = FileDataLoader::from(file.c_str());
  ASSERT_TRUE(loader.ok());
  Module module(owner.program(), nullptr, nullptr, nullptr, std::make_unique<FileDataLoader>(std::move(*loader)));
  EXPECT_EQ(module.load_method("forward"), Error::InvalidArgument);
  EXPECT_NE(last_error().find("it needs no data file"), std::string::npos) << last_error();
}

// Without its data file a program that needs one refuses to load its method (naming what is missing); it must not
// crash, even when only a delegate reads the data (upstream's runtime crashes there).
TEST(ModuleData, NoDataFileGiven) {
  const Json* m = ptd_manifest();
  if (m == nullptr) GTEST_SKIP() << "tests/fixtures/ptd/manifest.json is not there";
  for (const Json& f : (*m)["fixtures"].array) {
    SCOPED_TRACE(f["name"].string);
    Module module(ptd(f["program"].string));
    ASSERT_EQ(module.load(), Error::Ok) << last_error();
    EXPECT_NE(module.load_method("forward"), Error::Ok);
    const std::string msg = last_error();
    EXPECT_FALSE(msg.empty());
    if (!f["external_tensors"].array.empty()) {
      bool names_a_key = false;
      for (const Json& t : f["external_tensors"].array) {
        names_a_key = names_a_key || msg.find("'" + t["fqn"].string + "'") != std::string::npos;
      }
      EXPECT_TRUE(names_a_key) << msg;
    }
  }
}
