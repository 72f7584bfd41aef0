// An application written against upstream ExecuTorch 1.5.1's documented C++ API (Module, TensorPtr, ETDumpGen),
// built unchanged against our SDK and against upstream's wheel (tests/test_upstream_compat.py,
// scripts/check_upstream_compat.py).
//
// Usage: upstream_app MODEL.pte [--etdump FILE]
// Feeds every float/half-free tensor input of forward() the values (i % 7) * 0.25 - 0.75 in its shape, runs it
// once and prints each output as "output <i> <numel>: v0 v1 ..." (float32 / float64 values). With --etdump it
// writes the run's ETDump there.
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using executorch::aten::ScalarType;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::EValue;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: upstream_app MODEL.pte [--etdump FILE]\n");
    return 1;
  }
  const char* etdump_path = (argc >= 4 && std::strcmp(argv[2], "--etdump") == 0) ? argv[3] : nullptr;
  Module module(argv[1], Module::LoadMode::MmapUseMlockIgnoreErrors, std::make_unique<executorch::etdump::ETDumpGen>());

  const auto names = module.method_names();
  if (!names.ok()) {
    std::fprintf(stderr, "cannot load %s: error 0x%x\n", argv[1], static_cast<unsigned>(names.error()));
    return 2;
  }
  const auto meta = module.method_meta("forward");
  if (!meta.ok()) return 2;

  std::vector<TensorPtr> tensors;
  std::vector<EValue> inputs;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    const auto info = meta->input_tensor_meta(i);
    if (!info.ok() || info->scalar_type() != ScalarType::Float) {
      std::fprintf(stderr, "input %zu is not a float tensor\n", i);
      return 2;
    }
    std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
    size_t numel = 1;
    for (const auto s : sizes) numel *= static_cast<size_t>(s);
    std::vector<float> values(numel);
    for (size_t k = 0; k < numel; ++k) values[k] = static_cast<float>(k % 7) * 0.25f - 0.75f;
    tensors.push_back(executorch::extension::make_tensor_ptr(sizes, std::move(values)));
    inputs.emplace_back(tensors.back());
  }

  const auto result = module.forward(inputs);
  if (!result.ok()) {
    std::fprintf(stderr, "forward failed: error 0x%x\n", static_cast<unsigned>(result.error()));
    return 2;
  }
  for (size_t i = 0; i < result->size(); ++i) {
    const auto& t = result->at(i).toTensor();
    std::printf("output %zu %zd:", i, static_cast<ssize_t>(t.numel()));
    for (ssize_t k = 0; k < t.numel(); ++k) {
      const double v = t.scalar_type() == ScalarType::Double ? t.const_data_ptr<double>()[k]
                                                             : static_cast<double>(t.const_data_ptr<float>()[k]);
      std::printf(" %.9g", v);
    }
    std::printf("\n");
  }

  if (etdump_path != nullptr) {
    auto* etdump = static_cast<executorch::etdump::ETDumpGen*>(module.event_tracer());
    executorch::etdump::ETDumpResult dump = etdump->get_etdump_data();
    if (dump.buf == nullptr || dump.size == 0) {
      std::fprintf(stderr, "no ETDump data\n");
      return 2;
    }
    FILE* f = std::fopen(etdump_path, "wb");
    const bool ok = f != nullptr && std::fwrite(dump.buf, 1, dump.size, f) == dump.size;
    if (f != nullptr) std::fclose(f);
    std::free(dump.buf);
    if (!ok) return 2;
  }
  return 0;
}
