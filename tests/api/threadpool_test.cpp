// The thread pool as upstream's extension/threadpool/{threadpool,threadpool_guard,cpuinfo_utils}.h and
// runtime/kernel/thread_parallel_interface.h declare it (built with ET_USE_THREADPOOL, which the
// executorch::threadpool target defines as upstream's extension_threadpool does), and the ET_USE_THREADPOOL block of
// upstream's executor_runner.
#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/threadpool/cpuinfo_utils.h>
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifndef ET_USE_THREADPOOL
#error "linking executorch::threadpool must define ET_USE_THREADPOOL"
#endif

// _unsafe_reset_threadpool / _unsafe_destroy_threadpool are deprecated upstream (experimental); so they are here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using executorch::extension::get_thread_count;
using executorch::extension::get_thread_num;
using executorch::extension::parallel_for;
using executorch::extension::threadpool::get_pthreadpool;
using executorch::extension::threadpool::get_threadpool;
using executorch::extension::threadpool::NoThreadPoolGuard;
using executorch::extension::threadpool::ThreadPool;

namespace {

// Runs parallel_for over [begin, end) and checks that every index was covered exactly once by chunks inside the
// range of at least grain_size (but the last); returns the threads that ran chunks.
std::set<std::thread::id> check_cover(int64_t begin, int64_t end, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(end));
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<bool> bad_chunk{false};
  EXPECT_TRUE(parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    if (b < begin || e > end || b >= e || (e - b < grain && e != end)) bad_chunk = true;
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
  }));
  EXPECT_FALSE(bad_chunk.load());
  for (int64_t i = 0; i < end; ++i) {
    EXPECT_EQ(hits[static_cast<size_t>(i)].load(), i >= begin ? 1 : 0) << "index " << i;
  }
  return threads;
}

}  // namespace

TEST(ThreadPool, ResetChangesTheThreadCount) {
  ThreadPool* pool = get_threadpool();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(get_threadpool(), pool);  // one process-wide pool
  EXPECT_GE(pool->get_thread_count(), 1u);
  for (uint32_t n : {1u, 2u, 3u}) {
    EXPECT_TRUE(pool->_unsafe_reset_threadpool(n));
    EXPECT_EQ(pool->get_thread_count(), n);
    EXPECT_EQ(get_thread_count(), static_cast<int64_t>(n));
    check_cover(0, 1000, 1);
  }
  // 0 keeps the pool as it is, as upstream's.
  EXPECT_TRUE(pool->_unsafe_reset_threadpool(0));
  EXPECT_EQ(pool->get_thread_count(), 3u);
}

TEST(ThreadPool, ParallelForCoversTheRangeOnce) {
  ThreadPool* pool = get_threadpool();
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(3));
  check_cover(0, 10007, 1);
  check_cover(0, 10007, 100);
  check_cover(17, 5000, 7);
  check_cover(0, 1, 1);
  check_cover(5, 5, 1);  // empty: true, no call
  EXPECT_FALSE(parallel_for(5, 1, 1, [](int64_t, int64_t) { ADD_FAILURE() << "called for end < begin"; }));
  EXPECT_FALSE(parallel_for(-1, 4, 1, [](int64_t, int64_t) { ADD_FAILURE() << "called for begin < 0"; }));
  EXPECT_FALSE(parallel_for(0, 4, 0, [](int64_t, int64_t) { ADD_FAILURE() << "called for grain 0"; }));
  // Work big enough to spread runs on more than one thread (the caller takes what the workers do not).
  std::atomic<int64_t> sum{0};
  EXPECT_TRUE(parallel_for(0, 1 << 20, 1, [&](int64_t b, int64_t e) {
    int64_t s = 0;
    for (int64_t i = b; i < e; ++i) s += i;
    sum.fetch_add(s);
  }));
  EXPECT_EQ(sum.load(), (int64_t{1} << 20) * ((int64_t{1} << 20) - 1) / 2);
}

TEST(ThreadPool, ThreadNumIndexesPerThreadScratch) {
  ThreadPool* pool = get_threadpool();
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(3));
  EXPECT_EQ(get_thread_num(), 0);
  const int64_t threads = get_thread_count();
  // Each thread accumulates into its own slot: no two concurrent chunks may share one.
  std::vector<int64_t> partial(static_cast<size_t>(threads), 0);
  std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
  std::atomic<bool> out_of_range{false}, shared{false};
  EXPECT_TRUE(parallel_for(0, 100000, 10, [&](int64_t b, int64_t e) {
    const int64_t t = get_thread_num();
    if (t < 0 || t >= threads) {
      out_of_range = true;
      return;
    }
    if (busy[static_cast<size_t>(t)].fetch_add(1) != 0) shared = true;
    for (int64_t i = b; i < e; ++i) partial[static_cast<size_t>(t)] += i;
    busy[static_cast<size_t>(t)].fetch_sub(1);
  }));
  EXPECT_FALSE(out_of_range.load());
  EXPECT_FALSE(shared.load());
  int64_t total = 0;
  for (int64_t p : partial) total += p;
  EXPECT_EQ(total, int64_t{100000} * 99999 / 2);
  EXPECT_EQ(get_thread_num(), 0);
  executorch::extension::set_thread_num(5);
  EXPECT_EQ(get_thread_num(), 5);
  executorch::extension::set_thread_num(0);
}

TEST(ThreadPool, NoThreadPoolGuardRunsInline) {
  ThreadPool* pool = get_threadpool();
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(3));
  EXPECT_FALSE(NoThreadPoolGuard::is_enabled());
  EXPECT_NE(get_pthreadpool(), nullptr);
  const std::thread::id me = std::this_thread::get_id();
  {
    NoThreadPoolGuard guard;
    EXPECT_TRUE(NoThreadPoolGuard::is_enabled());
    EXPECT_EQ(get_pthreadpool(), nullptr);
    const std::set<std::thread::id> threads = check_cover(0, 1 << 16, 1);
    EXPECT_EQ(threads, std::set<std::thread::id>{me});
    std::set<std::thread::id> run_threads;
    pool->run([&](size_t) { run_threads.insert(std::this_thread::get_id()); }, 1000);
    EXPECT_EQ(run_threads, std::set<std::thread::id>{me});
    {
      NoThreadPoolGuard nested;
      EXPECT_TRUE(NoThreadPoolGuard::is_enabled());
    }
    EXPECT_TRUE(NoThreadPoolGuard::is_enabled());  // the inner guard restored the outer's setting
  }
  EXPECT_FALSE(NoThreadPoolGuard::is_enabled());
  // The guard is per thread: another thread's guard does not make this thread's work inline.
  std::atomic<bool> other_guarded{false}, release{false};
  std::thread other([&] {
    NoThreadPoolGuard guard;
    other_guarded = true;
    while (!release.load()) std::this_thread::yield();
  });
  while (!other_guarded.load()) std::this_thread::yield();
  EXPECT_FALSE(NoThreadPoolGuard::is_enabled());
  EXPECT_NE(get_pthreadpool(), nullptr);
  release = true;
  other.join();
  // Without a guard, large work uses more than the calling thread (at least once in a few tries: a worker that the
  // OS has not scheduled yet leaves its share to the caller).
  bool spread = false;
  for (int attempt = 0; attempt < 50 && !spread; ++attempt) {
    std::mutex mu;
    std::set<std::thread::id> threads;
    pool->run(
        [&](size_t) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          std::lock_guard<std::mutex> lock(mu);
          threads.insert(std::this_thread::get_id());
        },
        64);
    spread = threads.size() > 1;
  }
  EXPECT_TRUE(spread);
}

TEST(ThreadPool, WorkSeesTheGuardAndNestedWorkRunsInline) {
  ThreadPool* pool = get_threadpool();
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(3));
  std::atomic<int> guarded{0}, nested_elsewhere{0}, calls{0};
  EXPECT_TRUE(parallel_for(0, 64, 1, [&](int64_t, int64_t) {
    calls.fetch_add(1);
    if (NoThreadPoolGuard::is_enabled()) guarded.fetch_add(1);
    const std::thread::id outer = std::this_thread::get_id();
    parallel_for(0, 16, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() != outer) nested_elsewhere.fetch_add(1);
    });
    // Resetting from inside work is refused (it would join the running thread).
    if (pool->_unsafe_reset_threadpool(2)) nested_elsewhere.fetch_add(1000);
  }));
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(guarded.load(), calls.load());
  EXPECT_EQ(nested_elsewhere.load(), 0);
  EXPECT_EQ(pool->get_thread_count(), 3u);
}

TEST(ThreadPool, OwnPoolAndPthreadpoolHandle) {
  ThreadPool own(2);
  EXPECT_EQ(own.get_thread_count(), 2u);
  std::vector<std::atomic<int>> hits(500);
  own.run([&](size_t i) { hits[i].fetch_add(1); }, hits.size());
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  own._unsafe_destroy_threadpool();
  EXPECT_EQ(own.get_thread_count(), 0u);
  int serial = 0;
  own.run([&](size_t) { ++serial; }, 10);  // still runs, on the caller
  EXPECT_EQ(serial, 10);
  EXPECT_TRUE(own._unsafe_reset_threadpool(2));
  EXPECT_EQ(own.get_thread_count(), 2u);

  // The C handle runs loops on the process-wide pool; a null handle runs them serially.
  pthreadpool_t handle = get_pthreadpool();
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(et_pthreadpool_get_threads_count(handle), get_threadpool()->get_thread_count());
  std::vector<std::atomic<int>> grid(6 * 7);
  struct Ctx {
    std::vector<std::atomic<int>>* grid;
  } ctx{&grid};
  et_pthreadpool_parallelize_2d(
      handle, [](void* c, size_t i, size_t j) { (*static_cast<Ctx*>(c)->grid)[i * 7 + j].fetch_add(1); }, &ctx, 6, 7,
      0);
  et_pthreadpool_parallelize_1d(
      nullptr, [](void* c, size_t i) { (*static_cast<Ctx*>(c)->grid)[i].fetch_add(1); }, &ctx, grid.size(), 0);
  for (auto& g : grid) EXPECT_EQ(g.load(), 2);
  EXPECT_EQ(et_pthreadpool_get_threads_count(nullptr), 1u);
  // torch::executorch::threadpool, upstream's old namespace.
  EXPECT_EQ(torch::executorch::threadpool::get_threadpool(), get_threadpool());
}

TEST(CpuInfo, PerformantCores) {
  const char* env = std::getenv("EXECUTORCH_NUM_THREADS");
  const uint32_t n = executorch::extension::cpuinfo::get_num_performant_cores();
  EXPECT_GE(n, 1u);
  if (env == nullptr) {
    const unsigned hw = std::thread::hardware_concurrency();
    if (hw > 0) {
      EXPECT_LE(n, hw);
    }
  }
  // EXECUTORCH_NUM_THREADS decides, as it does for the pool's default size.
  const std::string saved = env != nullptr ? env : "";
  ASSERT_EQ(setenv("EXECUTORCH_NUM_THREADS", "3", 1), 0);
  EXPECT_EQ(executorch::extension::cpuinfo::get_num_performant_cores(), 3u);
  EXPECT_EQ(torch::executorch::cpuinfo::get_num_performant_cores(), 3u);
  if (env != nullptr) {
    setenv("EXECUTORCH_NUM_THREADS", saved.c_str(), 1);
  } else {
    unsetenv("EXECUTORCH_NUM_THREADS");
  }
}

// The ET_USE_THREADPOOL block of upstream's examples/portable/executor_runner, as it is written there.
TEST(CpuInfo, ExecutorRunnerThreadpoolBlock) {
  for (int cpu_threads : {-1, 1, 2}) {
    uint32_t num_performant_cores = cpu_threads == -1 ? ::executorch::extension::cpuinfo::get_num_performant_cores()
                                                      : static_cast<uint32_t>(cpu_threads);
    if (num_performant_cores > 0) {
      ::executorch::extension::threadpool::get_threadpool()->_unsafe_reset_threadpool(num_performant_cores);
    }
    std::optional<::executorch::extension::threadpool::NoThreadPoolGuard> opt_guard;
    if (cpu_threads == 1) {
      opt_guard.emplace();
    }
    EXPECT_EQ(get_threadpool()->get_thread_count(), num_performant_cores);
    EXPECT_EQ(NoThreadPoolGuard::is_enabled(), cpu_threads == 1);
    check_cover(0, 4096, 1);
  }
}
