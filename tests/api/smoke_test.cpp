// The smallest program of the API tests: load a fixture with upstream's Program / Method API and run it.
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using executorch::extension::FileDataLoader;
using executorch::runtime::Program;
using executorch::runtime::Result;

TEST(Smoke, LoadsAProgram) {
  executorch::runtime::runtime_init();
  const char* dir = std::getenv("ET_FIXTURES");
  ASSERT_NE(dir, nullptr) << "set ET_FIXTURES to tests/fixtures";
  const std::string path = std::string(dir) + "/add_mul/portable.pte";
  Result<FileDataLoader> loader = FileDataLoader::from(path.c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->num_methods(), 1u);
}
