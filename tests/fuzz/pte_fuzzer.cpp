// libFuzzer target: program load, method init (values, planned memory, delegates, kernels) and execute on any
// bytes. Built with clang (-DEXECUTORCH_BUILD_FUZZER=ON); the committed seed corpus is tests/fuzz/corpus.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "run_program.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("EXECUTORCH_LOG_LEVEL", "fatal", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)et_test::run_program_bytes(data, size, size_t(64) << 20);
  return 0;
}
