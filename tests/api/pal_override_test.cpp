// Replacing the platform layer at link time, as upstream ExecuTorch documents it for ports: this program defines
// its own (strong) et_pal_init, et_pal_current_ticks and et_pal_emit_log_message. The runtime's defaults in
// libexecutorch are weak and exported, so these replace them for the whole process, including the calls the
// runtime library makes itself: its log lines (here, from loading a corrupt program) arrive in this program's
// sink, with this program's timestamps, and nothing reaches the default stderr sink.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Line {
  et_timestamp_t timestamp;
  et_pal_log_level_t level;
  std::string filename, function, message;
  size_t line;
};

std::mutex g_mutex;
std::vector<Line> g_lines;
int g_init_calls = 0;
constexpr et_timestamp_t kTicks = 4242424242u;

std::vector<Line> take_lines() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Line> out;
  out.swap(g_lines);
  return out;
}

// Every test logs at debug level, set before main() so before the first log call (when the threshold is read); the
// test runner may have set EXECUTORCH_LOG_LEVEL=fatal.
[[maybe_unused]] const bool g_log_everything = setenv("EXECUTORCH_LOG_LEVEL", "debug", 1) == 0;

}  // namespace

// The application's PAL, replacing the runtime's.
extern "C" void et_pal_init(void) { ++g_init_calls; }

extern "C" et_timestamp_t et_pal_current_ticks(void) { return kTicks; }

extern "C" void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                                        const char* function, size_t line, const char* message, size_t length) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_lines.push_back({timestamp, level, filename, function, std::string(message, length), line});
}

TEST(PalOverride, RuntimeTableHoldsTheApplicationsFunctions) {
  const executorch::runtime::PalImpl* pal = executorch::runtime::get_pal_impl();
  EXPECT_EQ(pal->init, &et_pal_init);
  EXPECT_EQ(pal->current_ticks, &et_pal_current_ticks);
  EXPECT_EQ(pal->emit_log_message, &et_pal_emit_log_message);
  EXPECT_EQ(executorch::runtime::pal_current_ticks(), kTicks);
  // What the application leaves alone keeps the runtime's default.
  EXPECT_EQ(executorch::runtime::pal_ticks_to_ns_multiplier().numerator, 1u);
  void* p = executorch::runtime::pal_allocate(32);
  EXPECT_NE(p, nullptr);
  executorch::runtime::pal_free(p);
}

TEST(PalOverride, RuntimeInitCallsTheApplicationsInitOnce) {
  executorch::runtime::runtime_init();
  EXPECT_EQ(g_init_calls, 1);
  executorch::runtime::runtime_init();
  EXPECT_EQ(g_init_calls, 1);
}

TEST(PalOverride, LogLinesOfThisProgramArrive) {
  take_lines();
  const size_t line = __LINE__ + 1;
  ET_LOG(Info, "hello %d", 7);
  const std::vector<Line> lines = take_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].timestamp, kTicks);
  EXPECT_EQ(lines[0].level, kInfo);
  EXPECT_EQ(lines[0].filename, "pal_override_test.cpp");
  EXPECT_EQ(lines[0].line, line);
  EXPECT_EQ(lines[0].message, "hello 7");
}

TEST(PalOverride, LogLinesOfTheRuntimeLibraryArrive) {
  take_lines();
  alignas(16) static uint8_t garbage[512];
  for (size_t i = 0; i < sizeof(garbage); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
  std::memcpy(garbage + 4, "ET12", 4);  // looks like a program until it is read further
  executorch::extension::BufferDataLoader loader(garbage, sizeof(garbage));

  testing::internal::CaptureStderr();
  executorch::runtime::Result<executorch::runtime::Program> program = executorch::runtime::Program::load(&loader);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), executorch::runtime::Error::InvalidProgram);
  EXPECT_EQ(g_init_calls, 1);  // Program::load() initializes the runtime (once), through this program's init
  EXPECT_EQ(err, "") << "the runtime's default sink wrote to stderr";

  // The runtime logs the reason of the failure (at debug level) from its own sources.
  const std::vector<Line> lines = take_lines();
  const std::string reason = executorch::runtime::last_error_message();
  ASSERT_FALSE(reason.empty());
  bool found = false;
  for (const Line& l : lines) {
    EXPECT_NE(l.filename, "pal_override_test.cpp");
    EXPECT_EQ(l.timestamp, kTicks);
    if (l.level == kDebug && l.message.find(reason) != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << lines.size() << " line(s) arrived; none carries \"" << reason << "\"";
}
