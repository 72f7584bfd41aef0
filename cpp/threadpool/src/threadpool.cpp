#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/threadpool/threadpool.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace executorch {
namespace extension {
namespace threadpool {
namespace {

std::atomic<size_t> g_pools_created{0};
thread_local bool t_in_pool_task = false;

size_t default_thread_count() {
  if (const char* env = std::getenv("EXECUTORCH_NUM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= 1024) return static_cast<size_t>(v);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<size_t>(n);
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

}  // namespace

// Hand-off between runs: the caller publishes a run by bumping `generation` (under `mu`, so a worker that is
// about to sleep cannot miss it) and workers count themselves out through `active`. Both sides spin briefly on
// the atomics before sleeping on a condition variable: back-to-back runs (one per layer) then start and finish
// without a futex wake-up each, which otherwise costs more than a small layer's work.
struct ThreadPool::Impl {
  static constexpr int kSpinRounds = 4000;  // ~ tens of microseconds of pause instructions

  std::mutex run_mutex;  // one parallel run at a time
  std::mutex mu;
  std::condition_variable work_cv;
  std::condition_variable done_cv;
  std::vector<std::thread> workers;
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  const std::function<void(size_t)>* fn = nullptr;
  size_t range = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> active{0};
  std::atomic<uint64_t> parallel_runs{0};

  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  void drain() {
    const bool was = t_in_pool_task;
    t_in_pool_task = true;
    for (size_t i = next.fetch_add(1); i < range; i = next.fetch_add(1)) (*fn)(i);
    t_in_pool_task = was;
  }

  // `seen`: the generation when the worker was created (a run published before the thread first gets scheduled
  // must still count it in).
  void worker_loop(uint64_t seen) {
    for (;;) {
      bool ready = false;
      for (int i = 0; i < kSpinRounds && !ready; ++i) {
        ready = stopping.load(std::memory_order_acquire) || generation.load(std::memory_order_acquire) != seen;
        if (!ready) relax();
      }
      if (!ready) {
        std::unique_lock<std::mutex> lock(mu);
        work_cv.wait(lock, [&] { return stopping.load() || generation.load() != seen; });
      }
      if (stopping.load(std::memory_order_acquire)) return;
      seen = generation.load(std::memory_order_acquire);
      drain();
      if (active.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu);
        done_cv.notify_one();
      }
    }
  }

  void start(size_t count) {
    stopping.store(false);
    const uint64_t g = generation.load();
    for (size_t i = 1; i < count; ++i) workers.emplace_back([this, g] { worker_loop(g); });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping.store(true);
    }
    work_cv.notify_all();
    for (auto& t : workers) t.join();
    workers.clear();
  }
};

ThreadPool::ThreadPool() : impl_(new Impl) {
  g_pools_created.fetch_add(1);
  impl_->start(default_thread_count());
}

ThreadPool::~ThreadPool() {
  impl_->stop();
  delete impl_;
}

size_t ThreadPool::get_thread_count() const { return impl_->workers.size() + 1; }

uint64_t ThreadPool::parallel_runs() const { return impl_->parallel_runs.load(); }

bool ThreadPool::_unsafe_reset_threadpool(uint32_t num_threads) {
  if (num_threads == 0 || num_threads > 1024) return false;
  std::lock_guard<std::mutex> run_lock(impl_->run_mutex);
  impl_->stop();
  impl_->start(num_threads);
  return true;
}

void ThreadPool::run(const std::function<void(size_t)>& fn, size_t range) {
  if (range == 0) return;
  std::unique_lock<std::mutex> run_lock(impl_->run_mutex, std::defer_lock);
  if (range == 1 || impl_->workers.empty() || t_in_pool_task || !run_lock.try_lock()) {
    for (size_t i = 0; i < range; ++i) fn(i);
    return;
  }
  impl_->parallel_runs.fetch_add(1);
  impl_->fn = &fn;
  impl_->range = range;
  impl_->next.store(0);
  impl_->active.store(impl_->workers.size());
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->generation.fetch_add(1, std::memory_order_release);
  }
  impl_->work_cv.notify_all();
  impl_->drain();
  bool done = false;
  for (int i = 0; i < Impl::kSpinRounds && !done; ++i) {
    done = impl_->active.load(std::memory_order_acquire) == 0;
    if (!done) Impl::relax();
  }
  if (!done) {
    std::unique_lock<std::mutex> lock(impl_->mu);
    impl_->done_cv.wait(lock, [&] { return impl_->active.load() == 0; });
  }
  impl_->fn = nullptr;
}

ThreadPool* get_threadpool() {
  // Never destroyed: worker threads must not be joined during static destruction (a library unloading after
  // main returns would deadlock); the OS reclaims them at exit.
  static ThreadPool* pool = new ThreadPool();
  return pool;
}

size_t num_threadpools_created() { return g_pools_created.load(); }

et_pthreadpool* get_pthreadpool() { return reinterpret_cast<et_pthreadpool*>(get_threadpool()); }

}  // namespace threadpool

bool parallel_for(int64_t begin, int64_t end, int64_t grain_size, const std::function<void(int64_t, int64_t)>& f) {
  if (begin > end || grain_size < 1) return false;
  const int64_t n = end - begin;
  if (n == 0) return true;
  auto* pool = threadpool::get_threadpool();
  const int64_t threads = static_cast<int64_t>(pool->get_thread_count());
  int64_t chunks = std::min<int64_t>(threads, (n + grain_size - 1) / grain_size);
  if (chunks <= 1) {
    f(begin, end);
    return true;
  }
  const int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  pool->run(
      [&](size_t i) {
        const int64_t b = begin + static_cast<int64_t>(i) * chunk;
        f(b, std::min(end, b + chunk));
      },
      static_cast<size_t>(chunks));
  return true;
}

int64_t get_thread_count() { return static_cast<int64_t>(threadpool::get_threadpool()->get_thread_count()); }

}  // namespace extension
}  // namespace executorch

using executorch::extension::threadpool::et_pthreadpool;
using executorch::extension::threadpool::ThreadPool;

extern "C" {

size_t et_pthreadpool_get_threads_count(et_pthreadpool* pool) {
  return pool == nullptr ? 1 : reinterpret_cast<ThreadPool*>(pool)->get_thread_count();
}

void et_pthreadpool_parallelize_1d(et_pthreadpool* pool, et_pthreadpool_task_1d_t task, void* context, size_t range,
                                   uint32_t /*flags*/) {
  if (pool == nullptr) {
    for (size_t i = 0; i < range; ++i) task(context, i);
    return;
  }
  reinterpret_cast<ThreadPool*>(pool)->run([&](size_t i) { task(context, i); }, range);
}

void et_pthreadpool_parallelize_1d_tile_1d(et_pthreadpool* pool, et_pthreadpool_task_1d_tile_1d_t task, void* context,
                                           size_t range, size_t tile, uint32_t /*flags*/) {
  if (tile == 0) tile = 1;
  const size_t tiles = (range + tile - 1) / tile;
  auto body = [&](size_t t) {
    const size_t start = t * tile;
    task(context, start, std::min(tile, range - start));
  };
  if (pool == nullptr) {
    for (size_t t = 0; t < tiles; ++t) body(t);
    return;
  }
  reinterpret_cast<ThreadPool*>(pool)->run(body, tiles);
}

void et_pthreadpool_parallelize_2d(et_pthreadpool* pool, et_pthreadpool_task_2d_t task, void* context, size_t range_i,
                                   size_t range_j, uint32_t /*flags*/) {
  if (range_j == 0) return;
  auto body = [&](size_t k) { task(context, k / range_j, k % range_j); };
  const size_t total = range_i * range_j;
  if (pool == nullptr) {
    for (size_t k = 0; k < total; ++k) body(k);
    return;
  }
  reinterpret_cast<ThreadPool*>(pool)->run(body, total);
}

}  // extern "C"
