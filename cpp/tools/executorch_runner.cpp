// executorch_runner: runs one method of a .pte program on .npy inputs and writes its outputs as .npy files.
// It links only libexecutorch: kernels and delegates come from the component libraries installed beside it.
#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/components.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/version.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "npy.h"

using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

void usage() {
  std::puts(
      "usage: executorch_runner MODEL.pte [--data FILE.ptd]... [--method NAME] [--input FILE.npy]...\n"
      "                         [--output-dir DIR] [--repeat N] [--list] [--ops] [--load-library LIB.so]...\n"
      "                         [--etdump-path FILE]\n"
      "       executorch_runner --bundled FILE.bpte [--rtol R] [--atol A] [--etdump-path FILE]\n"
      "Runs one method of an ExecuTorch program. Inputs are .npy files in the method's input order; outputs are\n"
      "written as DIR/out<i>.npy. --data names a .ptd file holding tensors the program was exported to keep\n"
      "outside the .pte (its weights); repeat it for several files (also spelled --data_path, as upstream's\n"
      "executor_runner does, and --model_path MODEL.pte). --list prints the program's methods with their inputs\n"
      "and outputs; --ops loads every installed component and prints the operators and backends they register.\n"
      "--etdump-path writes an ETDump of the runs (upstream's profiling format: one event per instruction, for\n"
      "the Inspector).\n"
      "--bundled runs every test case of a bundled program (.bpte) and compares the outputs with its expected\n"
      "ones (|out - expected| <= atol + rtol * |expected|; defaults rtol 1e-3, atol 1e-5), printing one row per case.\n"
      "Exit status: 0 on success, 1 on bad usage or a file that cannot be read or written, 2 on a runtime error,\n"
      "3 when a bundled test case fails.");
}

int report(Error e, const char* what) {
  std::fprintf(stderr, "error: %s failed: %s (0x%x): %s\n", what, executorch::runtime::to_string(e),
               static_cast<unsigned>(e), executorch::runtime::last_error_message());
  return 2;
}

// The whole file, in 16-byte aligned memory (what Program::load and the flatbuffer readers need).
bool read_file(const std::string& path, std::vector<uint64_t>* buf, size_t* size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "error: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    return false;
  }
  buf->assign((bytes.size() + 2 * sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1, 0);
  if (!bytes.empty()) std::memcpy(buf->data(), bytes.data(), bytes.size());
  *size = bytes.size();
  return true;
}

// Writes the ETDump recorded by `gen` to `path`. Returns the exit status (0 or 1).
int write_etdump(executorch::etdump::ETDumpGen* gen, const std::string& path) {
  executorch::etdump::ETDumpResult r = gen->get_etdump_data();
  if (r.buf == nullptr || r.size == 0) {
    std::fprintf(stderr, "error: no ETDump to write to %s: nothing ran\n", path.c_str());
    return 1;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(r.buf, 1, r.size, f) == r.size;
  const int err = errno;
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  std::free(r.buf);
  if (!ok) {
    std::fprintf(stderr, "error: cannot write the ETDump to %s: %s\n", path.c_str(), std::strerror(err));
    return 1;
  }
  std::printf("etdump %s (%zu bytes, %zu runs)\n", path.c_str(), r.size, gen->get_num_blocks());
  return 0;
}

int run_bundled(const std::string& path, double rtol, double atol, const std::string& etdump_path) {
  std::vector<uint64_t> buf;
  size_t size = 0;
  if (!read_file(path, &buf, &size)) return 1;
  std::unique_ptr<executorch::etdump::ETDumpGen> gen;
  if (!etdump_path.empty()) gen = std::make_unique<executorch::etdump::ETDumpGen>();
  auto results = executorch::bundled_program::verify_bundled_program(buf.data(), size, rtol, atol, gen.get());
  if (!results.ok()) return report(results.error(), ("reading the bundled program " + path).c_str());
  std::printf("%-16s %5s  %-6s %13s %13s  %s\n", "method", "case", "result", "max_abs_err", "max_rel_err", "detail");
  size_t failed = 0;
  for (const auto& r : *results) {
    if (!r.passed) ++failed;
    std::printf("%-16s %5zu  %-6s %13.3e %13.3e  %s\n", r.method.c_str(), r.index, r.passed ? "pass" : "FAIL",
                r.max_abs_error, r.max_relative_error, r.message.c_str());
  }
  std::printf("bundled %zu cases: %zu passed, %zu failed (rtol %g, atol %g)\n", results->size(),
              results->size() - failed, failed, rtol, atol);
  if (gen != nullptr && gen->get_num_blocks() > 0) {
    if (const int rc = write_etdump(gen.get(), etdump_path); rc != 0) return rc;
  }
  return failed > 0 ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, method = "forward", out_dir, etdump_path, bundled;
  double rtol = 1e-3, atol = 1e-5;  // upstream's example runner uses these for bundled programs
  std::vector<std::string> inputs, libraries, data_files;
  int repeat = 1;
  bool list = false, ops = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string inline_value;  // --flag=value
    bool has_inline_value = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      inline_value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      has_inline_value = true;
    }
    bool consumed = false;
    auto next = [&]() -> std::string {
      consumed = true;
      if (has_inline_value) return inline_value;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else if (a == "--method") {
      method = next();
    } else if (a == "--data" || a == "--data_path" || a == "--data-path") {
      data_files.push_back(next());
      if (data_files.back().empty()) {
        std::fprintf(stderr, "error: %s needs a file name\n", a.c_str());
        return 1;
      }
    } else if (a == "--model_path") {  // upstream's executor_runner spelling
      model = next();
    } else if (a == "--input") {
      inputs.push_back(next());
    } else if (a == "--output-dir") {
      out_dir = next();
    } else if (a == "--repeat") {
      repeat = std::atoi(next().c_str());
    } else if (a == "--list") {
      list = true;
    } else if (a == "--ops") {
      ops = true;
    } else if (a == "--load-library") {
      libraries.push_back(next());
    } else if (a == "--etdump-path") {
      etdump_path = next();
    } else if (a == "--bundled") {
      bundled = next();
    } else if (a == "--rtol" || a == "--atol") {
      const std::string v = next();
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(x >= 0)) {
        std::fprintf(stderr, "error: %s needs a non-negative number, got '%s'\n", a.c_str(), v.c_str());
        return 1;
      }
      (a == "--rtol" ? rtol : atol) = x;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "error: unknown option %s\n", a.c_str());
      usage();
      return 1;
    } else {
      model = a;
    }
    if (has_inline_value && !consumed) {
      std::fprintf(stderr, "error: %s takes no value\n", a.c_str());
      return 1;
    }
  }
  executorch::runtime::runtime_init();
  for (const auto& lib : libraries) {
    const Error e = executorch::runtime::load_library(lib.c_str());
    if (e != Error::Ok) return report(e, "loading a library");
  }
  if (ops) {
    // Every installed component (kernel libraries and delegates): what a program could use here. One that cannot
    // be loaded (e.g. a delegate whose own dependencies are missing) contributes nothing.
    for (const std::string& name : executorch::runtime::installed_components())
      (void)executorch::runtime::load_component(name.c_str());
    for (const auto& n : executorch::runtime::get_registered_kernel_names()) std::printf("operator %s\n", n.c_str());
    for (size_t i = 0; i < executorch::runtime::get_num_registered_backends(); ++i) {
      std::printf("backend %s\n", *executorch::runtime::get_backend_name(i));
    }
    if (model.empty()) return 0;
  }
  if (!bundled.empty()) {
    if (!model.empty()) {
      std::fprintf(stderr, "error: --bundled takes its program from the .bpte file; do not name a model too\n");
      return 1;
    }
    if (!data_files.empty()) {
      std::fprintf(stderr,
                   "error: --bundled runs programs that keep their data inside the .bpte; --data does not apply\n");
      return 1;
    }
    return run_bundled(bundled, rtol, atol, etdump_path);
  }
  if (model.empty()) {
    usage();
    return 1;
  }
  std::unique_ptr<executorch::etdump::ETDumpGen> etdump;
  if (!etdump_path.empty()) etdump = std::make_unique<executorch::etdump::ETDumpGen>();
  // Data files are opened and checked against the program by load(): a missing or corrupt file, or one given to a
  // program that needs none, fails here; a key no file holds fails when the method loads.
  Module module(model, data_files, Module::LoadMode::File, std::move(etdump));
  if (const Error e = module.load(); e != Error::Ok) {
    return report(e, data_files.empty() ? "loading the program" : "loading the program and its data files");
  }
  if (list) {
    auto names = module.method_names();
    for (const auto& name : *names) {
      auto meta = module.method_meta(name);
      std::printf("method %s: %zu inputs, %zu outputs\n", name.c_str(), meta->num_inputs(), meta->num_outputs());
      for (size_t i = 0; i < meta->num_inputs(); ++i) {
        auto info = meta->input_tensor_meta(i);
        if (!info.ok()) {
          std::printf("  input %zu: %s\n", i, executorch::runtime::tag_to_string(*meta->input_tag(i)));
          continue;
        }
        std::printf("  input %zu: %s [", i, executorch::aten::toString(info->scalar_type()));
        for (size_t d = 0; d < info->sizes().size(); ++d) std::printf("%s%d", d ? ", " : "", info->sizes()[d]);
        std::printf("]%s\n",
                    info->shape_dynamism() == executorch::aten::TensorShapeDynamism::STATIC ? "" : " (upper bound)");
      }
    }
    return 0;
  }
  std::vector<TensorPtr> tensors;
  std::vector<EValue> values;
  for (const auto& path : inputs) {
    executorch_tools::NpyArray arr;
    const std::string err = executorch_tools::read_npy(path, &arr);
    if (!err.empty()) {
      std::fprintf(stderr, "error: %s\n", err.c_str());
      return 1;
    }
    tensors.push_back(executorch::extension::make_tensor_ptr(arr.shape, std::move(arr.data), {}, {}, arr.dtype));
    values.emplace_back(tensors.back());
  }
  const auto l0 = std::chrono::steady_clock::now();
  if (const Error e = module.load_method(method); e != Error::Ok)
    return report(e, ("loading method " + method).c_str());
  const double load_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - l0).count();
  std::vector<EValue> outputs;
  std::vector<double> times;
  for (int r = 0; r < std::max(repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto result = module.execute(method, values);
    const auto t1 = std::chrono::steady_clock::now();
    if (!result.ok()) return report(result.error(), ("running method " + method).c_str());
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    outputs = std::move(*result);
  }
  if (repeat > 1) {
    std::sort(times.begin(), times.end());
    std::printf("median_us %.3f\n", times[times.size() / 2]);
    std::printf("load_method_us %.3f\n", load_us);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const EValue& v = outputs[i];
    if (v.isTensor()) {
      const auto& t = v.toTensor();
      std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
      std::printf("output %zu: %s [", i, executorch::aten::toString(t.scalar_type()));
      for (size_t d = 0; d < shape.size(); ++d) std::printf("%s%lld", d ? ", " : "", static_cast<long long>(shape[d]));
      std::printf("]\n");
      if (!out_dir.empty()) {
        const std::string err = executorch_tools::write_npy(out_dir + "/out" + std::to_string(i) + ".npy",
                                                            t.scalar_type(), shape, t.const_data_ptr(), t.nbytes());
        if (!err.empty()) {
          std::fprintf(stderr, "error: %s\n", err.c_str());
          return 1;
        }
      }
    } else if (v.isInt()) {
      std::printf("output %zu: int %lld\n", i, static_cast<long long>(v.toInt()));
    } else if (v.isDouble()) {
      std::printf("output %zu: double %.17g\n", i, v.toDouble());
    } else if (v.isBool()) {
      std::printf("output %zu: bool %d\n", i, v.toBool() ? 1 : 0);
    } else {
      std::printf("output %zu: %s\n", i, executorch::runtime::tag_to_string(v.tag));
    }
  }
  if (!etdump_path.empty()) {
    return write_etdump(static_cast<executorch::etdump::ETDumpGen*>(module.event_tracer()), etdump_path);
  }
  return 0;
}
