// How much heap an XNNPACK program holds once loaded and after it ran (xnnpack_memory_test FIXTURES_DIR), counted by
// glibc's allocator (mallinfo2: the main arena and its mmapped chunks, where loading and packing allocate):
//   - weights are held once, packed: a constant that every node reading it packed at init is released, whether it
//     was copied out of the payload (quantized weights, as floats) or is the program's loaded named data;
//   - the intermediate buffers of one execution are shared by every delegate call of the process: a transformer
//     whose LayerNorms run outside the delegate (one graph per block) holds one set, not one per graph.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <gtest/gtest.h>

#include "qgemm.h"

namespace {

using executorch::extension::Module;
using executorch::runtime::Error;

std::string g_fixtures;

size_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

size_t file_size(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return 0;
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f);
  std::fclose(f);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

struct Heap {
  size_t loaded = 0;  // growth from before the load to after load_method
  size_t ran = 0;     // growth during the first two executions
};

// Loads `rel`'s forward method, runs it twice on zeros, and returns the heap's growth at each step.
Heap measure(const std::string& rel) {
  Heap h;
  const std::string path = g_fixtures + "/" + rel;
  const size_t before = heap_in_use();
  {
    Module m(path, Module::LoadMode::File);
    EXPECT_EQ(m.load_method("forward"), Error::Ok) << rel;
    h.loaded = heap_in_use() - before;
    auto meta = m.method_meta("forward");
    EXPECT_TRUE(meta.ok()) << rel;
    if (!meta.ok()) return h;
    std::vector<executorch::extension::TensorPtr> inputs;
    std::vector<executorch::runtime::EValue> args;
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      auto info = meta->input_tensor_meta(i);
      EXPECT_TRUE(info.ok()) << rel;
      if (!info.ok()) return h;
      std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
      inputs.push_back(executorch::extension::zeros(sizes, info->scalar_type()));
      args.emplace_back(inputs.back());
    }
    const size_t loaded = heap_in_use();
    for (int k = 0; k < 2; ++k) EXPECT_TRUE(m.execute("forward", args).ok()) << rel;
    h.ran = heap_in_use() - loaded;
  }
  std::printf("%s: %zu bytes in the file; heap +%zu bytes loaded, +%zu bytes running\n", rel.c_str(), file_size(path),
              h.loaded, h.ran);
  return h;
}

TEST(XnnpackMemory, WeightsAreHeldOncePacked) {
  // fp32 weights in the program's named data (packed; the loaded copy released) and int8 weights, copied out of it
  // as floats at load (packed for the int8 GEMM; the float copy, four times the file's weights, released). Held
  // twice, each would exceed its bound (in tenths of the file's size). Without the int8 GEMM (no AVX-512 VNNI or
  // dotprod, or EXECUTORCH_GEMM_ISA below it) int8 weights are packed as floats, so that case is left out.
  struct Case {
    const char* rel;
    size_t tenths;
  };
  std::vector<Case> cases = {{"tv_resnet18/xnnpack.pte", 13}, {"timm_deit_tiny/xnnpack.pte", 13}};
  if (etk::qgemm_available()) cases.push_back({"quantized/tv_resnet18/xnnpack_q8.pte", 20});
  for (const Case& c : cases) {
    const size_t weights = file_size(g_fixtures + "/" + c.rel);
    ASSERT_GT(weights, 200000u) << c.rel;
    const Heap h = measure(c.rel);
    EXPECT_LT(h.loaded, weights * c.tenths / 10) << c.rel << ": weights held more than once after init";
  }
}

TEST(XnnpackMemory, DelegateCallsShareTheirBuffers) {
  // timm_deit_tiny: its blocks are separate delegate calls (the LayerNorms between them run on the CPU kernels).
  // One block's intermediate values take about 0.5 MB here; one set per graph would take several times more.
  const Heap h = measure("timm_deit_tiny/xnnpack.pte");
  EXPECT_LT(h.ran, size_t{1} << 20) << "intermediate buffers per graph instead of shared";
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: xnnpack_memory_test FIXTURES_DIR [gtest flags]\n");
    return 2;
  }
  g_fixtures = argv[1];
  // Convolutions direct: the filters Winograd transforms are 4x the file's by design (docs/xnnpack.md) and would
  // blur the bounds; they replace the loaded copy through the same release path (packed_at_prepare).
  setenv("EXECUTORCH_WINOGRAD", "0", /*overwrite=*/1);
  return RUN_ALL_TESTS();
}
