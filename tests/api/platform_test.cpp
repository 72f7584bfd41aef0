// The platform layer as upstream ExecuTorch's headers and its PAL documentation describe it: runtime_init(), the
// et_pal_*() functions and the pal_*() table wrappers, register_pal(), ET_LOG and the EXECUTORCH_LOG_LEVEL
// threshold on the default stderr sink, the ET_CHECK family, ticks_to_ns() and the profiler.
// (Replacing et_pal_*() at link time is tested by pal_override_test.cpp, a program of its own.)
#include <executorch/runtime/core/defines.h>
#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/clock.h>
#include <executorch/runtime/platform/compat_unistd.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/profiler.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/platform/system.h>
#include <executorch/runtime/platform/types.h>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

extern char** environ;

using namespace executorch::runtime;

namespace {

constexpr char kChildMarker[] = "ET_PLATFORM_TEST_CHILD";

// The threshold is read at the first log call of the process, so it is set before main() (the test runner may
// have set EXECUTORCH_LOG_LEVEL=fatal). Child processes keep the level their parent gave them.
[[maybe_unused]] const bool g_log_everything =
    std::getenv(kChildMarker) == nullptr && setenv("EXECUTORCH_LOG_LEVEL", "debug", 1) == 0;

struct Line {
  et_timestamp_t timestamp;
  et_pal_log_level_t level;
  std::string filename, function, message;
  size_t line, length;
};
std::vector<Line> g_lines;

void capture(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename, const char* function,
             size_t line, const char* message, size_t length) {
  g_lines.push_back({timestamp, level, filename, function, message, line, length});
}

constexpr et_timestamp_t kFixedTicks = 777;
et_timestamp_t fixed_ticks() { return kFixedTicks; }

// Registers a PAL for one test and puts the previous table back afterwards (as upstream's own tests do).
class ScopedPal {
 public:
  explicit ScopedPal(PalImpl impl) : saved_(*get_pal_impl()) {
    register_pal(impl);
    g_lines.clear();
  }
  ~ScopedPal() { register_pal(saved_); }

 private:
  PalImpl saved_;
};

uint64_t steady_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Runs this program's PlatformChild test in a new process with EXECUTORCH_LOG_LEVEL=level (unset when null);
// returns its stderr.
std::string run_child(const char* level) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "EXECUTORCH_LOG_LEVEL=", 21) != 0) env.emplace_back(*e);
  env.push_back(std::string(kChildMarker) + "=1");
  if (level != nullptr) env.push_back(std::string("EXECUTORCH_LOG_LEVEL=") + level);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  char exe[] = "/proc/self/exe";
  char filter[] = "--gtest_filter=PlatformChild.DISABLED_LogsOneLinePerLevel";
  char disabled[] = "--gtest_also_run_disabled_tests";
  char* argv[] = {exe, filter, disabled, nullptr};

  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe, &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  }
  close(fds[0]);
  EXPECT_EQ(rc, 0);
  return out;
}

int runtime_value(const char* s) { return std::atoi(s); }  // a value the compiler cannot fold

void returning_abort() { std::fprintf(stderr, "registered abort ran\n"); }

}  // namespace

TEST(Platform, RuntimeInitCanBeCalledAgain) {
  runtime_init();
  runtime_init();
  et_pal_init();
  torch::executor::runtime_init();
  EXPECT_GT(std::strlen(runtime_version()), 0u);
  EXPECT_GT(pal_current_ticks(), 0u);
}

TEST(Platform, TableHoldsTheDefaultPalFunctions) {
  const PalImpl* pal = get_pal_impl();
  ASSERT_NE(pal, nullptr);
  EXPECT_EQ(pal->init, &et_pal_init);
  EXPECT_EQ(pal->abort, &et_pal_abort);
  EXPECT_EQ(pal->current_ticks, &et_pal_current_ticks);
  EXPECT_EQ(pal->ticks_to_ns_multiplier, &et_pal_ticks_to_ns_multiplier);
  EXPECT_EQ(pal->emit_log_message, &et_pal_emit_log_message);
  EXPECT_EQ(pal->allocate, &et_pal_allocate);
  EXPECT_EQ(pal->free, &et_pal_free);
}

TEST(Platform, TicksAreMonotonicNanoseconds) {
  runtime_init();
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  EXPECT_EQ(ratio.numerator, 1u);
  EXPECT_EQ(ratio.denominator, 1u);
  EXPECT_EQ(pal_ticks_to_ns_multiplier().numerator, 1u);
  EXPECT_EQ(pal_ticks_to_ns_multiplier().denominator, 1u);

  // The default clock is the monotonic clock std::chrono::steady_clock reads.
  const uint64_t before = steady_ns();
  const et_timestamp_t now = pal_current_ticks();
  const uint64_t after = steady_ns();
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);

  et_timestamp_t last = et_pal_current_ticks();
  for (int i = 0; i < 100000; ++i) {
    const et_timestamp_t t = pal_current_ticks();
    ASSERT_GE(t, last);
    last = t;
  }

  const et_timestamp_t t0 = pal_current_ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const et_timestamp_t t1 = pal_current_ticks();
  const uint64_t ns = (t1 - t0) * ratio.numerator / ratio.denominator;
  EXPECT_GE(ns, 20000000u);
  EXPECT_LT(ns, 2000000000u);  // generous: the machine may be busy
  EXPECT_EQ(ticks_to_ns(t1 - t0), ns);
  EXPECT_EQ(torch::executor::ticks_to_ns(1000), 1000u);
}

TEST(Platform, AllocateAndFree) {
  void* p = pal_allocate(64);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0xAB, 64);
  pal_free(p);
  pal_free(nullptr);
  void* q = et_pal_allocate(16);
  ASSERT_NE(q, nullptr);
  et_pal_free(q);
}

TEST(Platform, RegisteredLogSinkGetsEveryField) {
  ScopedPal pal(PalImpl::create(nullptr, nullptr, fixed_ticks, nullptr, capture, nullptr, nullptr, __FILE__));
  EXPECT_EQ(get_pal_impl()->emit_log_message, &capture);
  EXPECT_EQ(pal_current_ticks(), kFixedTicks);

  const size_t line = __LINE__ + 1;
  ET_LOG(Error, "value %d of %s", 42, "x");
  ASSERT_EQ(g_lines.size(), 1u);
  const Line& l = g_lines[0];
  EXPECT_EQ(l.timestamp, kFixedTicks);
  EXPECT_EQ(l.level, kError);
  EXPECT_EQ(l.filename, "platform_test.cpp");
  EXPECT_EQ(l.function, "TestBody");
  EXPECT_EQ(l.line, line);
  EXPECT_EQ(l.message, "value 42 of x");
  EXPECT_EQ(l.length, l.message.size());

  // Each level's character; a level past Fatal is kUnknown.
  g_lines.clear();
  ET_LOG(Debug, "d");
  ET_LOG(Info, "i");
  ET_LOG(Fatal, "f");
  ET_LOG(NumLevels, "n");
  ASSERT_EQ(g_lines.size(), 4u);
  EXPECT_EQ(g_lines[0].level, kDebug);
  EXPECT_EQ(g_lines[1].level, kInfo);
  EXPECT_EQ(g_lines[2].level, kFatal);
  EXPECT_EQ(g_lines[3].level, kUnknown);
  EXPECT_EQ(g_lines[3].message, "n");

  // ET_CHECK_OR_LOG_ERROR logs only a false condition, and goes on.
  g_lines.clear();
  const int four = runtime_value("4");
  ET_CHECK_OR_LOG_ERROR(four == 4, "not logged");
  ET_CHECK_OR_LOG_ERROR(four == 5, "four is %d", four);
  ASSERT_EQ(g_lines.size(), 1u);
  EXPECT_EQ(g_lines[0].level, kError);
  EXPECT_EQ(g_lines[0].message, "four is 4");

  // The wrapper reaches the registered sink as it is.
  g_lines.clear();
  pal_emit_log_message(5, kInfo, "f.cpp", "fn", 6, "direct", 6);
  ASSERT_EQ(g_lines.size(), 1u);
  EXPECT_EQ(g_lines[0].timestamp, 5u);
  EXPECT_EQ(g_lines[0].filename, "f.cpp");
  EXPECT_EQ(g_lines[0].function, "fn");
  EXPECT_EQ(g_lines[0].line, 6u);
  EXPECT_EQ(g_lines[0].message, "direct");
}

TEST(Platform, RegisterPalKeepsEntriesLeftNull) {
  const PalImpl before = *get_pal_impl();
  const PalImpl only_log = PalImpl::create(capture, __FILE__);
  EXPECT_EQ(only_log.init, nullptr);
  EXPECT_EQ(only_log.abort, nullptr);
  EXPECT_EQ(only_log.current_ticks, nullptr);
  EXPECT_EQ(only_log.ticks_to_ns_multiplier, nullptr);
  EXPECT_EQ(only_log.allocate, nullptr);
  EXPECT_EQ(only_log.free, nullptr);
  EXPECT_EQ(only_log.emit_log_message, &capture);
  EXPECT_STREQ(only_log.source_filename, __FILE__);
  {
    ScopedPal pal(only_log);
    const PalImpl* now = get_pal_impl();
    EXPECT_EQ(now->emit_log_message, &capture);
    EXPECT_EQ(now->current_ticks, before.current_ticks);
    EXPECT_EQ(now->ticks_to_ns_multiplier, before.ticks_to_ns_multiplier);
    EXPECT_EQ(now->allocate, before.allocate);
    EXPECT_EQ(now->free, before.free);
    EXPECT_EQ(now->abort, before.abort);
    EXPECT_EQ(now->init, before.init);
  }
  EXPECT_EQ(get_pal_impl()->emit_log_message, before.emit_log_message);
}

namespace {
int g_init_calls = 0;
void counting_init() { ++g_init_calls; }
}  // namespace

TEST(Platform, RegisterPalCallsTheNewInit) {
  g_init_calls = 0;
  {
    ScopedPal pal(PalImpl::create(counting_init, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, __FILE__));
    EXPECT_EQ(g_init_calls, 1);
    pal_init();
    EXPECT_EQ(g_init_calls, 2);
  }
}

TEST(Platform, LongMessagesAreCutAtACharacterBoundary) {
  ScopedPal pal(PalImpl::create(capture, __FILE__));
  const std::string euro = "\xE2\x82\xAC";
  for (size_t k = 2030; k <= 2050; ++k) {
    const std::string text = std::string(k, 'A') + euro + std::string(100, 'B');
    g_lines.clear();
    ET_LOG(Info, "%s", text.c_str());
    ASSERT_EQ(g_lines.size(), 1u);
    const std::string& m = g_lines[0].message;
    EXPECT_EQ(g_lines[0].length, m.size());
    EXPECT_LT(m.size(), text.size());
    EXPECT_GT(m.size(), 1024u);  // whole error messages fit (upstream keeps only 255 bytes)
    EXPECT_EQ(text.compare(0, m.size(), m), 0) << "not a prefix at k=" << k;
    // Never ends inside the euro sign.
    if (m.size() > k) {
      EXPECT_GE(m.size(), k + 3) << k;
    }
  }
}

// Run only as a child of LevelsFollowExecutorchLogLevel, with the level under test in its environment.
TEST(PlatformChild, DISABLED_LogsOneLinePerLevel) {
  ET_LOG(Debug, "child line %c", 'D');
  ET_LOG(Info, "child line %c", 'I');
  ET_LOG(Error, "child line %c", 'E');
  ET_LOG(Fatal, "child line %c", 'F');
}

TEST(Platform, LevelsFollowExecutorchLogLevel) {
  struct Case {
    const char* env;
    const char* shown;
  };
  const Case cases[] = {{nullptr, "EF"}, {"debug", "DIEF"}, {"info", "IEF"}, {"error", "EF"},
                        {"fatal", "F"},  {"INFO", "IEF"},   {"none", "F"}};
  for (const Case& c : cases) {
    const std::string err = run_child(c.env);
    for (char level : std::string("DIEF")) {
      // The default sink's format, which this SDK has always written: "[executorch E file.cpp:42] message".
      const std::regex line(std::string("(^|\n)\\[executorch ") + level + " platform_test\\.cpp:[0-9]+\\] child line " +
                            level + "\n");
      const bool expected = std::strchr(c.shown, level) != nullptr;
      EXPECT_EQ(std::regex_search(err, line), expected)
          << "EXECUTORCH_LOG_LEVEL=" << (c.env ? c.env : "(unset)") << " level " << level << "; stderr:\n"
          << err;
    }
  }
}

TEST(PlatformDeathTest, CheckFailuresAbortWithTheCondition) {
  const int value = runtime_value("4");
  ET_CHECK(value == 4);
  ET_CHECK_MSG(value == 4, "value is %d", value);
  EXPECT_DEATH(ET_CHECK_MSG(value == 3, "value is %d", value),
               "\\[executorch F platform_test\\.cpp:[0-9]+\\] In function TestBody\\(\\), assert failed "
               "\\(value == 3\\): value is 4");
  EXPECT_DEATH(ET_CHECK(value > 10), "assert failed: value > 10");
  EXPECT_DEATH(ET_ASSERT_UNREACHABLE(), "Execution should not reach this point");
  EXPECT_DEATH(ET_ASSERT_UNREACHABLE_MSG("case %d", value), "Execution should not reach this point. case 4");
  EXPECT_DEATH(runtime_abort(), "");
  EXPECT_DEATH(torch::executor::runtime_abort(), "");
}

TEST(PlatformDeathTest, DebugChecksFollowNdebug) {
  int evaluated = 0;
  ET_DEBUG_ONLY const int value = runtime_value("4");
#ifdef NDEBUG
  ET_DCHECK((++evaluated, value == 3));
  ET_DCHECK_MSG((++evaluated, value == 3), "value is %d", value);
  EXPECT_EQ(evaluated, 0);  // not even evaluated
#else
  ET_DCHECK((++evaluated, value == 4));
  EXPECT_EQ(evaluated, 1);
  EXPECT_DEATH(ET_DCHECK_MSG(value == 3, "value is %d", value), "assert failed \\(value == 3\\): value is 4");
#endif
}

TEST(PlatformDeathTest, AbortNeverReturns) {
  // A registered abort that returns does not let the program go on.
  EXPECT_DEATH(
      {
        register_pal(PalImpl::create(nullptr, returning_abort, nullptr, nullptr, nullptr, nullptr, nullptr, __FILE__));
        pal_abort();
      },
      "registered abort ran");
}

TEST(Platform, ProfilerMacrosAreNoOpsWithoutProfilingEnabled) {
#ifdef PROFILING_ENABLED
  GTEST_SKIP() << "built with PROFILING_ENABLED";
#else
  EXECUTORCH_PROFILE_CREATE_BLOCK("block");
  EXECUTORCH_BEGIN_PROF("event");
  EXECUTORCH_END_PROF(0);
  EXECUTORCH_SCOPE_PROF("scope");
  EXECUTORCH_PROFILE_INSTRUCTION_SCOPE(1, 2);
  EXECUTORCH_RESET_PROFILE_RESULTS();
  const int allocator = EXECUTORCH_TRACK_ALLOCATOR("arena");
  EXPECT_EQ(allocator, -1);
  EXECUTORCH_TRACK_ALLOCATION(allocator, 16);
  prof_result_t result;
  std::memset(&result, 0xFF, sizeof(result));
  EXECUTORCH_DUMP_PROFILE_RESULTS(&result);
  EXPECT_EQ(result.prof_data, nullptr);
  EXPECT_EQ(result.num_bytes, 0u);
  EXPECT_EQ(result.num_blocks, 0u);
#endif
}

TEST(Platform, ProfilerRecordsEventsAndAllocations) {
  reset_profile_stats();  // so a repeated run reuses its block rather than taking another
  profiling_create_block("platform_test");
  EXPECT_EQ(get_profile_tls_state().chain_idx, -1);
  {
    ExecutorchProfilerInstructionScope scope({3, 9});
    EXPECT_EQ(get_profile_tls_state().chain_idx, 3);
    EXPECT_EQ(get_profile_tls_state().instruction_idx, 9u);
    ExecutorchProfiler timed("scoped_event");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(get_profile_tls_state().chain_idx, -1);
  const uint32_t token = begin_profiling("a_name_longer_than_thirty_two_bytes");
  end_profiling(token);
  const uint32_t arena = track_allocator("arena");
  track_allocation(static_cast<int32_t>(arena), 128);
  track_allocation(-1, 5);  // ignored

  prof_result_t result{};
  dump_profile_stats(&result);
  ASSERT_GE(result.num_blocks, 1u);
  ASSERT_LE(result.num_blocks, static_cast<uint32_t>(MAX_PROFILE_BLOCKS));
  EXPECT_EQ(result.num_bytes, result.num_blocks * prof_buf_size);
  const uint8_t* block = result.prof_data + (result.num_blocks - 1) * static_cast<size_t>(prof_buf_size);
  const auto* header = reinterpret_cast<const prof_header_t*>(block + prof_header_offset);
  EXPECT_STREQ(header->name, "platform_test");
  EXPECT_EQ(header->prof_ver, static_cast<uint32_t>(ET_PROF_VER));
  EXPECT_EQ(header->max_prof_entries, static_cast<uint32_t>(MAX_PROFILE_EVENTS));
  ASSERT_EQ(header->prof_entries, 2u);
  ASSERT_EQ(header->allocator_entries, 1u);
  ASSERT_EQ(header->mem_prof_entries, 1u);

  const auto* events = reinterpret_cast<const prof_event_t*>(block + prof_events_offset);
  EXPECT_EQ(std::string(events[0].name, strnlen(events[0].name, PROF_NAME_MAX_LEN)), "scoped_event");
  EXPECT_EQ(events[0].chain_idx, 3);
  EXPECT_EQ(events[0].instruction_idx, 9u);
  EXPECT_GE(ticks_to_ns(events[0].end_time - events[0].start_time), 2000000u);
  EXPECT_EQ(std::string(events[1].name, PROF_NAME_MAX_LEN), "a_name_longer_than_thirty_two_by");
  EXPECT_EQ(events[1].chain_idx, -1);
  EXPECT_GE(events[1].end_time, events[1].start_time);

  const auto* allocators = reinterpret_cast<const prof_allocator_t*>(block + prof_mem_alloc_info_offset);
  EXPECT_STREQ(allocators[0].name, "arena");
  EXPECT_EQ(allocators[0].allocator_id, arena);
  const auto* allocations = reinterpret_cast<const mem_prof_event_t*>(block + prof_mem_alloc_events_offset);
  EXPECT_EQ(allocations[0].allocator_id, arena);
  EXPECT_EQ(allocations[0].allocation_size, 128u);

  reset_profile_stats();
  dump_profile_stats(&result);
  EXPECT_EQ(reinterpret_cast<const prof_header_t*>(block)->prof_entries, 0u);
}

TEST(Platform, SharedLibraryNameNeedsLibdl) {
  static int here = 0;
  EXPECT_STREQ(et_pal_get_shared_library_name(&here), DYNAMIC_LIBRARY_NOT_SUPPORTED);
  EXPECT_STREQ(DYNAMIC_LIBRARY_NOT_FOUND, "NOT_FOUND");
}

TEST(Platform, Defines) {
  EXPECT_EQ(ET_ENABLE_ENUM_STRINGS, 1);
  EXPECT_EQ(ET_LOG_ENABLED, 1);
  EXPECT_TRUE(LogLevel::Debug < LogLevel::Info && LogLevel::Info < LogLevel::Error &&
              LogLevel::Error < LogLevel::Fatal && LogLevel::Fatal < LogLevel::NumLevels);
  EXPECT_GE(LogLevel::Fatal, LogLevel::ET_MIN_LOG_LEVEL);
  EXPECT_TRUE((std::is_same_v<torch::executor::LogLevel, LogLevel>));
  EXPECT_TRUE((std::is_same_v<et_timestamp_t, uint64_t>));
}
