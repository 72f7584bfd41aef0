// The README example: upstream-style application code, compiled against the installed SDK.
// Usage: app MODEL.pte — feeds a [2, 4] float input 0..7 to forward() and prints the outputs.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <cstdio>
#include <vector>

using namespace executorch::extension;

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  std::vector<float> data = {0, 1, 2, 3, 4, 5, 6, 7};
  Module module(argv[1]);
  auto input = make_tensor_ptr({2, 4}, data.data());
  auto result = module.forward(input);
  if (!result.ok()) {
    std::printf("error 0x%x\n", static_cast<unsigned>(result.error()));
    return 2;
  }
  const auto& out = result->at(0).toTensor();
  for (ssize_t i = 0; i < out.numel(); ++i) std::printf("%.6f\n", out.const_data_ptr<float>()[i]);
  return 0;
}
