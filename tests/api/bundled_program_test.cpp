// Bundled programs (executorch/devtools/bundled_program/bundled_program.h) as upstream ExecuTorch's header and its
// executor_runner use them: find the program inside a .bpte, load each test case's inputs into a Method, run it,
// verify the outputs and compute error statistics. Fixtures: tests/fixtures/bundled (exported by upstream 1.5.1;
// wrong_expected.bpte's case 1 expects one element off by 1.0).
#include <executorch/devtools/bundled_program/bundled_program.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

using executorch::bundled_program::compute_method_output_error_stats;
using executorch::bundled_program::ErrorStats;
using executorch::bundled_program::get_program_data;
using executorch::bundled_program::is_bundled_program;
using executorch::bundled_program::load_bundled_input;
using executorch::bundled_program::verify_method_outputs;
using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::Method;

namespace {

// A whole file in 16-byte aligned memory (flatbuffers need their natural alignment).
struct FileData {
  std::vector<uint64_t> words;
  size_t size = 0;
  explicit FileData(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size = bytes.size();
    words.resize((size + 7) / 8 + 1);
    std::memcpy(words.data(), bytes.data(), size);
  }
  void* data() { return words.data(); }
};

// The program of a bundled program loaded, and its "forward" method with planned memory (as executor_runner).
std::unique_ptr<api_test::LoadedMethod> load_forward(FileData& file,
                                                     executorch::runtime::EventTracer* tracer = nullptr) {
  const void* program_data = nullptr;
  size_t program_size = 0;
  EXPECT_EQ(get_program_data(file.data(), file.size, &program_data, &program_size), Error::Ok);
  if (program_data == nullptr) return nullptr;
  api_test::LoadOptions options;
  options.method_pool = 4 << 20;
  options.temp_pool = 0;
  options.tracer = tracer;
  auto l =
      std::make_unique<api_test::LoadedMethod>(std::make_unique<BufferDataLoader>(program_data, program_size), options);
  if (l->method == nullptr) return nullptr;
  return l;
}

class BundledProgram : public ::testing::Test {
 protected:
  void SetUp() override { executorch::runtime::runtime_init(); }
};

TEST_F(BundledProgram, RecognizesBundledPrograms) {
  FileData bundled(api_test::fixture("bundled/portable.bpte"));
  FileData plain(api_test::fixture("mlp/portable.pte"));
  ASSERT_GT(bundled.size, 100u);
  ASSERT_GT(plain.size, 100u);
  EXPECT_TRUE(is_bundled_program(bundled.data(), bundled.size));
  EXPECT_FALSE(is_bundled_program(plain.data(), plain.size));
  EXPECT_TRUE(torch::executor::bundled_program::IsBundledProgram(bundled.data()));
  EXPECT_FALSE(torch::executor::bundled_program::IsBundledProgram(plain.data()));

  const void* program_data = nullptr;
  size_t program_size = 0;
  EXPECT_EQ(get_program_data(plain.data(), plain.size, &program_data, &program_size), Error::NotSupported);
  ASSERT_EQ(get_program_data(bundled.data(), bundled.size, &program_data, &program_size), Error::Ok);
  // The program lies inside the file and is itself a .pte (identifier "ET12").
  const auto* begin = static_cast<const uint8_t*>(bundled.data());
  ASSERT_GT(static_cast<const uint8_t*>(program_data), begin);
  ASSERT_LE(static_cast<const uint8_t*>(program_data) + program_size, begin + bundled.size);
  EXPECT_EQ(std::string(static_cast<const char*>(program_data) + 4, 4), "ET12");
  EXPECT_EQ(
      torch::executor::bundled_program::GetProgramData(bundled.data(), bundled.size, &program_data, &program_size),
      Error::Ok);
}

void run_all_cases(const char* name) {
  FileData file(api_test::fixture(std::string("bundled/") + name));
  std::unique_ptr<api_test::LoadedMethod> l = load_forward(file);
  ASSERT_NE(l, nullptr);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(load_bundled_input(*l->method, file.data(), i), Error::Ok) << "case " << i;
    ASSERT_EQ(l->method->execute(), Error::Ok);
    EXPECT_EQ(verify_method_outputs(*l->method, file.data(), i, 1e-3, 1e-5), Error::Ok) << "case " << i;
    ErrorStats stats = compute_method_output_error_stats(*l->method, file.data(), i);
    EXPECT_EQ(stats.status, Error::Ok);
    EXPECT_LT(stats.max_abs_error, 1e-4);
    EXPECT_LE(stats.mean_abs_error, stats.max_abs_error);
    EXPECT_LE(stats.mean_relative_error, stats.max_relative_error);
  }
}

TEST_F(BundledProgram, PortableCasesPass) { run_all_cases("portable.bpte"); }
TEST_F(BundledProgram, XnnpackCasesPass) { run_all_cases("xnnpack.bpte"); }

TEST_F(BundledProgram, WrongExpectedOutputIsFound) {
  FileData file(api_test::fixture("bundled/wrong_expected.bpte"));
  std::unique_ptr<api_test::LoadedMethod> l = load_forward(file);
  ASSERT_NE(l, nullptr);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(load_bundled_input(*l->method, file.data(), i), Error::Ok);
    ASSERT_EQ(l->method->execute(), Error::Ok);
    const Error verdict = verify_method_outputs(*l->method, file.data(), i, 1e-3, 1e-5);
    ErrorStats stats = compute_method_output_error_stats(*l->method, file.data(), i);
    ASSERT_EQ(stats.status, Error::Ok);
    if (i == 1) {
      EXPECT_EQ(verdict, Error::NotFound) << "case 1 expects one element off by 1.0";
      EXPECT_NEAR(stats.max_abs_error, 1.0, 1e-3);
      EXPECT_GT(stats.max_relative_error, 0.5);
      // Loose enough tolerances accept it.
      EXPECT_EQ(verify_method_outputs(*l->method, file.data(), i, 0, 1.01), Error::Ok);
    } else {
      EXPECT_EQ(verdict, Error::Ok);
      EXPECT_LT(stats.max_abs_error, 1e-4);
    }
  }
  // The deprecated torch::executor names.
  ASSERT_EQ(torch::executor::bundled_program::LoadBundledInput(*l->method, file.data(), 1), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(
      torch::executor::bundled_program::VerifyResultWithBundledExpectedOutput(*l->method, file.data(), 1, 1e-3, 1e-5),
      Error::NotFound);
}

TEST_F(BundledProgram, BadIndicesAndBuffersAreErrors) {
  FileData file(api_test::fixture("bundled/portable.bpte"));
  std::unique_ptr<api_test::LoadedMethod> l = load_forward(file);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(load_bundled_input(*l->method, file.data(), 3), Error::InvalidArgument);
  ASSERT_EQ(load_bundled_input(*l->method, file.data(), 0), Error::Ok);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  EXPECT_EQ(verify_method_outputs(*l->method, file.data(), 7), Error::InvalidArgument);
  EXPECT_EQ(compute_method_output_error_stats(*l->method, file.data(), 7).status, Error::InvalidArgument);
  // A buffer that is not a bundled program.
  FileData plain(api_test::fixture("mlp/portable.pte"));
  EXPECT_NE(load_bundled_input(*l->method, plain.data(), 0), Error::Ok);
  EXPECT_NE(verify_method_outputs(*l->method, plain.data(), 0), Error::Ok);
  EXPECT_NE(compute_method_output_error_stats(*l->method, plain.data(), 0).status, Error::Ok);
}

TEST_F(BundledProgram, LoadingInputsTellsTheTracerTheCase) {
  FileData file(api_test::fixture("bundled/portable.bpte"));
  executorch::etdump::ETDumpGen gen;
  std::unique_ptr<api_test::LoadedMethod> l = load_forward(file, &gen);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(gen.bundled_input_index(), -1);
  ASSERT_EQ(load_bundled_input(*l->method, file.data(), 2), Error::Ok);
  EXPECT_EQ(gen.bundled_input_index(), 2);
  ASSERT_EQ(l->method->execute(), Error::Ok);
  executorch::etdump::ETDumpResult r = gen.get_etdump_data();
  ASSERT_NE(r.buf, nullptr);
  EXPECT_EQ(std::string(static_cast<const char*>(r.buf) + 8, 4), "ED00");
  free(r.buf);
}

TEST_F(BundledProgram, VerifyBundledProgramReportsEachCase) {
  FileData file(api_test::fixture("bundled/wrong_expected.bpte"));
  auto results = executorch::bundled_program::verify_bundled_program(file.data(), file.size, 1e-3, 1e-5);
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), 3u);
  for (const auto& r : *results) {
    EXPECT_EQ(r.method, "forward");
    EXPECT_EQ(r.passed, r.index != 1) << "case " << r.index;
    EXPECT_EQ(r.status, r.index == 1 ? Error::NotFound : Error::Ok);
  }
}

}  // namespace
