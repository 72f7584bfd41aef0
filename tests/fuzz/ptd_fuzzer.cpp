// libFuzzer target for .ptd data files: FlatTensorDataMap::load, every key's layout and data, and the program
// that reads the file, run with it. An input is one selector byte (which program: an index into the
// colon-separated .pte paths of ET_PTD_FUZZ_PROGRAMS) followed by the .ptd bytes; the committed seed corpus is
// tests/fuzz/ptd_corpus. Built with clang (-DEXECUTORCH_BUILD_FUZZER=ON).
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "run_program.h"

namespace {
std::vector<std::vector<uint8_t>> g_programs;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("EXECUTORCH_LOG_LEVEL", "fatal", 0);
  const char* list = std::getenv("ET_PTD_FUZZ_PROGRAMS");
  std::string paths = list != nullptr ? list : "";
  for (size_t start = 0; start < paths.size();) {
    size_t end = paths.find(':', start);
    if (end == std::string::npos) end = paths.size();
    std::ifstream in(paths.substr(start, end - start), std::ios::binary);
    g_programs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    start = end + 1;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::unique_ptr<uint8_t, void (*)(void*)> copy(static_cast<uint8_t*>(std::aligned_alloc(16, (size + 15) / 16 * 16)),
                                                 std::free);
  std::memcpy(copy.get(), data + 1, size - 1);
  executorch::extension::BufferDataLoader loader(copy.get(), size - 1);
  auto map = executorch::extension::FlatTensorDataMap::load(&loader);
  if (!map.ok()) return 0;
  for (uint32_t i = 0; i < map->get_num_keys().get(); ++i) {
    auto key = map->get_key(i);
    if (!key.ok()) continue;
    auto layout = map->get_tensor_layout(*key);
    (void)map->get_data(*key);
    if (layout.ok()) {
      std::vector<uint8_t> buffer(layout->nbytes());
      (void)map->load_data_into(*key, buffer.data(), buffer.size());
    }
  }
  if (!g_programs.empty()) {
    const std::vector<uint8_t>& pte = g_programs[data[0] % g_programs.size()];
    (void)et_test::run_program_bytes(pte.data(), pte.size(), size_t(64) << 20, &*map);
  }
  return 0;
}
