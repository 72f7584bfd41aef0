// executorch_runner: runs one method of a .pte program on .npy inputs and writes its outputs as .npy files.
// It links only libexecutorch: kernels and delegates come from the component libraries installed beside it.
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
#include <cstring>
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
      "usage: executorch_runner MODEL.pte [--method NAME] [--input FILE.npy]... [--output-dir DIR]\n"
      "                         [--repeat N] [--list] [--ops] [--load-library LIB.so]...\n"
      "Runs one method of an ExecuTorch program. Inputs are .npy files in the method's input order; outputs are\n"
      "written as DIR/out<i>.npy. --list prints the program's methods with their inputs and outputs; --ops loads\n"
      "every installed component and prints the operators and backends they register. Exit status: 0 on success,\n"
      "1 on bad usage, 2 on a runtime error.");
}

int report(Error e, const char* what) {
  std::fprintf(stderr, "error: %s failed: %s (0x%x): %s\n", what, executorch::runtime::to_string(e),
               static_cast<unsigned>(e), executorch::runtime::last_error_message());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, method = "forward", out_dir;
  std::vector<std::string> inputs, libraries;
  int repeat = 1;
  bool list = false, ops = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
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
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "error: unknown option %s\n", a.c_str());
      usage();
      return 1;
    } else {
      model = a;
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
  if (model.empty()) {
    usage();
    return 1;
  }
  Module module(model);
  if (const Error e = module.load(); e != Error::Ok) return report(e, "loading the program");
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
  return 0;
}
