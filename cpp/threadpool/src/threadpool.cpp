#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>

#if !defined(ET_USE_THREADPOOL)
#error "libexecutorch_threadpool implements the ET_USE_THREADPOOL form of parallel_for (see CMakeLists.txt)"
#endif

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cpus.h"

namespace executorch {
namespace extension {
namespace threadpool {
namespace {

std::atomic<size_t> g_pools_created{0};
// Incremented in a child process after fork(): a pool made before it has no workers there (see recover_after_fork).
std::atomic<uint64_t> g_fork_generation{0};

// What the calling thread is doing: running a unit of a pool's run (or a run made serial on it), for which pool and
// as which of its threads (0 = the run's caller); and the value get_thread_num() returns.
thread_local bool t_in_pool_task = false;
thread_local const ThreadPool* t_unit_owner = nullptr;
thread_local size_t t_unit_thread = 0;
thread_local int64_t t_thread_num = 0;

// Marks the calling thread as running work of `owner` as thread `index` (nested parallel work then runs inline, as
// under a NoThreadPoolGuard, which work sees enabled, as upstream's does), until destroyed.
class TaskScope {
 public:
  TaskScope(const ThreadPool* owner, size_t index)
      : in_task_(t_in_pool_task), owner_(t_unit_owner), index_(t_unit_thread), guard_(NoThreadPoolGuard::is_enabled()) {
    t_in_pool_task = true;
    t_unit_owner = owner;
    t_unit_thread = index;
    NoThreadPoolGuard::set_enabled(true);
  }
  ~TaskScope() {
    t_in_pool_task = in_task_;
    t_unit_owner = owner_;
    t_unit_thread = index_;
    NoThreadPoolGuard::set_enabled(guard_);
  }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  const bool in_task_;
  const ThreadPool* const owner_;
  const size_t index_;
  const bool guard_;
};

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

using Clock = std::chrono::steady_clock;

// Spins for at most `budget` on `ready()` (pause instructions only: sched_yield() would push the spinning thread's
// EEVDF deadline a whole slice back per call and hand its core to any other runnable process for a full slice, which
// is how a pool that yields loses its core to a niced busy loop). `every` runs once per few microseconds of spinning;
// the spin ends early when it returns false. Returns ready().
template <typename Ready, typename Every>
bool spin_until(Ready&& ready, std::chrono::microseconds budget, Every&& every) {
  const auto deadline = Clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      relax();
    }
    if (Clock::now() >= deadline || !every()) return ready();
  }
}

// Moves the calling thread off `cpu` when its affinity mask allows another CPU: narrows the mask to exclude `cpu`
// (the kernel migrates the thread before the call returns), then restores the mask, which keeps it where it landed.
bool move_off_cpu(int cpu) {
  cpu_set_t mask;
  if (cpu < 0 || sched_getaffinity(0, sizeof(mask), &mask) != 0 || !CPU_ISSET(cpu, &mask) || CPU_COUNT(&mask) < 2)
    return false;
  cpu_set_t away = mask;
  CPU_CLR(cpu, &away);
  if (sched_setaffinity(0, sizeof(away), &away) != 0) return false;
  sched_setaffinity(0, sizeof(mask), &mask);
  return true;
}

}  // namespace

// How a run works (and why it degrades gracefully when the machine is busy):
//
// A run's units are cut into one contiguous range per thread (the caller is thread 0, worker i is thread i), each
// range one 64-bit word, `(lo << 32) | hi`. A thread claims units from the front of its own range (lo + 1) by
// compare-and-swap; when its range is empty it steals from the back of the others' (hi - 1). Each thread counts the
// units it ran down from `pending` once it finds nothing left to claim, and the caller returns as soon as every
// unit has *finished*: it never waits for a worker that has not started (one that is asleep, descheduled by the OS,
// or pinned to a core another process keeps busy): it steals that worker's range, and the worker finds nothing left
// when it finally runs. The only wait left is for a unit a worker claimed and is still running; parallel_for
// therefore cuts work into several units per thread, so that what a late worker holds is small.
//
// Contiguous ranges keep data where it was made: consecutive layers split the same rows (output pixels) the same
// way, so each thread mostly reads what it wrote into its own core's cache in the layer before, instead of pulling
// half of every activation across cores (what a shared "next unit" counter does, handing units out alternately).
//
// A claim only depends on the word's value: a word is non-empty only while a run is live (every unit is claimed
// before the run ends), and a successful compare-and-swap takes units that are unclaimed in the live run, even when
// the thread read the word during an earlier run. The run's function, stored before the words are published, is
// read only after a claim succeeds, and the run cannot end before the claimed unit is done, so a late worker never
// runs a finished run's function or skips a unit of a new one.
//
// Idle workers spin briefly (back-to-back runs, one per layer, then start without a futex wake-up), then sleep on a
// condition variable; the caller signals only when some worker sleeps. A worker never spins on the caller's CPU
// (off_caller_cpu).
struct ThreadPool::Impl {
  static constexpr uint64_t kMaxUnits = 0x7fffffff;
  static constexpr std::chrono::microseconds kWorkerSpin{1000};
  static constexpr std::chrono::microseconds kCallerSpin{20};

  struct alignas(64) Range {
    std::atomic<uint64_t> word{0};  // (lo << 32) | hi: units [lo, hi) not claimed yet
  };

  using Fn = runtime::FunctionRef<void(size_t)>;

  explicit Impl(const ThreadPool* owner_) : owner(owner_), fork_generation(g_fork_generation.load()) {}

  const ThreadPool* const owner;
  const uint64_t fork_generation;  // g_fork_generation when the workers were started
  std::mutex run_mutex;            // one parallel run at a time
  std::vector<std::thread> workers;
  std::unique_ptr<Range[]> ranges;  // one per thread, the caller's first
  size_t nthreads = 1;
  std::atomic<size_t> thread_count{1};  // what get_thread_count() says (0 once destroyed)

  // The live run: written once per run and then only read (one cache line), and the count of units not finished
  // yet (its own line), which each thread decrements once per run by the units it ran.
  struct alignas(64) Run {
    std::atomic<const Fn*> fn{nullptr};
    std::atomic<size_t> range{0};     // items of the run
    std::atomic<size_t> per_unit{1};  // items per claimable unit (> 1 only for more than kMaxUnits items)
    std::atomic<int> caller_cpu{-1};  // the CPU the caller started the run on
  } run;
  alignas(64) std::atomic<uint64_t> pending{0};

  // Sleeping and waking.
  std::mutex mu;
  std::condition_variable work_cv;  // workers wait here for a run
  std::condition_variable done_cv;  // the caller waits here for the last units
  std::atomic<uint32_t> sleepers{0};
  std::atomic<bool> caller_sleeping{false};
  std::atomic<bool> stopping{false};

  // Statistics (tests, diagnostics).
  std::atomic<uint64_t> parallel_runs{0};
  std::atomic<uint64_t> units_by_caller{0};
  std::atomic<uint64_t> units_by_workers{0};
  std::atomic<uint64_t> caller_waits{0};
  std::atomic<uint64_t> worker_moves{0};

  static bool nonempty(uint64_t w) { return (w >> 32) < (w & 0xffffffffu); }

  bool claimable() const {
    for (size_t t = 0; t < nthreads; ++t)
      if (nonempty(ranges[t].word.load(std::memory_order_relaxed))) return true;
    return false;
  }

  // Claims the first unit of range t (own) or its last one (steal); false when the range is empty.
  bool claim(size_t t, bool steal, uint64_t* unit) {
    std::atomic<uint64_t>& word = ranges[t].word;
    uint64_t w = word.load(std::memory_order_acquire);
    for (;;) {
      if (!nonempty(w)) return false;
      const uint64_t next = steal ? w - 1 : w + (uint64_t{1} << 32);
      if (word.compare_exchange_weak(w, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        *unit = steal ? (w & 0xffffffffu) - 1 : w >> 32;
        return true;
      }
    }
  }

  // Runs one claimed unit as thread `self`.
  void run_unit(uint64_t unit, size_t self) {
    const Fn& f = *run.fn.load(std::memory_order_relaxed);
    const size_t per = run.per_unit.load(std::memory_order_relaxed), n = run.range.load(std::memory_order_relaxed);
    const size_t begin = static_cast<size_t>(unit) * per, end = std::min(n, begin + per);
    TaskScope scope(owner, self);
    for (size_t i = begin; i < end; ++i) f(i);
  }

  // Thread `self`'s share of the live run: its own range, then whatever is left in the others'; then counts the
  // units it ran as finished (waking the caller if it sleeps on the last one).
  void work_through(size_t self) {
    uint64_t unit = 0, done = 0;
    while (claim(self, false, &unit)) {
      run_unit(unit, self);
      ++done;
    }
    for (size_t k = 1; k < nthreads; ++k) {
      const size_t victim = (self + k) % nthreads;
      while (claim(victim, true, &unit)) {
        run_unit(unit, self);
        ++done;
      }
    }
    // The statistics first: the run may end (and a test read them) as soon as `pending` reaches zero.
    if (done != 0) (self == 0 ? units_by_caller : units_by_workers).fetch_add(done, std::memory_order_relaxed);
    if (done != 0 && pending.fetch_sub(done) == done && caller_sleeping.load()) {
      std::lock_guard<std::mutex> lock(mu);
      done_cv.notify_one();
    }
  }

  // A worker that runs on the caller's CPU runs only while the caller does not: it adds no parallelism, and its
  // spinning takes the caller's time. The kernel puts it there when one wakes the other (wake-affine), and its load
  // balancer can leave both there for tens of milliseconds while another process has the other CPU to itself. So a
  // worker that finds itself on the caller's CPU moves away; false when it cannot (its mask allows only that CPU).
  bool off_caller_cpu() {
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu != run.caller_cpu.load(std::memory_order_relaxed)) return true;
    if (!move_off_cpu(cpu)) return false;
    worker_moves.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  void worker_loop(size_t self) {
    for (;;) {
      off_caller_cpu();
      work_through(self);
      if (stopping.load(std::memory_order_acquire)) return;
      // Spins only while not on the caller's CPU.
      if (spin_until([&] { return claimable() || stopping.load(std::memory_order_relaxed); }, kWorkerSpin,
                     [&] { return off_caller_cpu(); }))
        continue;
      std::unique_lock<std::mutex> lock(mu);
      sleepers.fetch_add(1);
      work_cv.wait(lock, [&] { return claimable() || stopping.load(); });
      sleepers.fetch_sub(1);
    }
  }

  void start(size_t count) {
    stopping.store(false);
    nthreads = count;
    ranges.reset(new Range[count]);
    for (size_t i = 1; i < count; ++i) workers.emplace_back([this, i] { worker_loop(i); });
    thread_count.store(count);
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

  void execute(const Fn& f, size_t n) {
    const size_t per = n > kMaxUnits ? (n + kMaxUnits - 1) / kMaxUnits : 1;
    const uint64_t units = (n + per - 1) / per;
    parallel_runs.fetch_add(1, std::memory_order_relaxed);
    run.fn.store(&f, std::memory_order_relaxed);
    run.range.store(n, std::memory_order_relaxed);
    run.per_unit.store(per, std::memory_order_relaxed);
    run.caller_cpu.store(sched_getcpu(), std::memory_order_relaxed);
    pending.store(units, std::memory_order_relaxed);
    // Publishes the run, the workers' ranges first (seq_cst: pairs with a worker's sleepers increment).
    for (size_t t = nthreads; t-- > 0;) {
      const uint64_t lo = units * t / nthreads, hi = units * (t + 1) / nthreads;
      ranges[t].word.store((lo << 32) | hi);
    }
    if (sleepers.load() != 0) {
      std::lock_guard<std::mutex> lock(mu);
      work_cv.notify_all();
    }
    work_through(0);
    // Every unit is claimed; wait only for those still running on workers.
    auto finished = [&] { return pending.load() == 0; };
    if (!spin_until(finished, kCallerSpin, [] { return true; })) {
      caller_waits.fetch_add(1, std::memory_order_relaxed);
      std::unique_lock<std::mutex> lock(mu);
      caller_sleeping.store(true);
      done_cv.wait(lock, finished);
      caller_sleeping.store(false);
    }
    run.fn.store(nullptr, std::memory_order_relaxed);
  }
};

namespace {

void after_fork_in_child() { g_fork_generation.fetch_add(1); }

size_t clamp_thread_count(size_t n) {
  return std::min<size_t>(n == 0 ? internal::default_thread_count() : n, internal::kMaxThreadCount);
}

}  // namespace

ThreadPool::ThreadPool(size_t thread_count) : impl_(new Impl(this)) {
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { pthread_atfork(nullptr, nullptr, after_fork_in_child); });
  g_pools_created.fetch_add(1);
  impl_->start(clamp_thread_count(thread_count));
}

ThreadPool::~ThreadPool() {
  if (impl_->fork_generation == g_fork_generation.load()) {
    impl_->stop();
    delete impl_;
  }
  // else: made before a fork() in this (child) process, its workers do not exist here and its mutexes may be held by
  // threads that do not exist either; it is left alone (leaked).
}

// A child process inherits the pool's memory but none of its threads, and possibly mutexes that a parent thread
// held; the pool then starts over with new workers, leaving the old state alone (as upstream's pool does).
void ThreadPool::recover_after_fork() {
  if (impl_->fork_generation == g_fork_generation.load(std::memory_order_relaxed)) return;
  const size_t count = impl_->thread_count.load();
  impl_ = new Impl(this);
  if (count != 0) {
    impl_->start(count);
  } else {
    impl_->thread_count.store(0);
  }
}

size_t ThreadPool::get_thread_count() const { return impl_->thread_count.load(); }

uint64_t ThreadPool::parallel_runs() const { return impl_->parallel_runs.load(); }

ThreadPool::Stats ThreadPool::stats() const {
  return Stats{impl_->parallel_runs.load(), impl_->units_by_caller.load(), impl_->units_by_workers.load(),
               impl_->caller_waits.load(), impl_->worker_moves.load()};
}

bool ThreadPool::_unsafe_reset_threadpool(uint32_t num_threads) {
  if (t_in_pool_task || num_threads > internal::kMaxThreadCount)
    return false;  // joining the calling worker would deadlock
  recover_after_fork();
  if (num_threads == 0 || num_threads == impl_->thread_count.load()) return true;
  std::lock_guard<std::mutex> run_lock(impl_->run_mutex);
  impl_->stop();
  impl_->start(num_threads);
  return true;
}

void ThreadPool::_unsafe_destroy_threadpool() {
  if (t_in_pool_task) return;
  recover_after_fork();
  std::lock_guard<std::mutex> run_lock(impl_->run_mutex);
  impl_->stop();
  impl_->start(1);
  impl_->thread_count.store(0);
}

void ThreadPool::run(runtime::FunctionRef<void(size_t)> fn, size_t range) {
  if (range == 0) return;
  recover_after_fork();
  std::unique_lock<std::mutex> run_lock(impl_->run_mutex, std::defer_lock);
  if (range == 1 || NoThreadPoolGuard::is_enabled() || t_in_pool_task || !run_lock.try_lock() ||
      impl_->workers.empty()) {
    // Serially, as the pool's thread 0 unless already inside work of a pool (nested: it keeps its thread index).
    if (t_in_pool_task) {
      for (size_t i = 0; i < range; ++i) fn(i);
    } else {
      TaskScope scope(this, 0);
      for (size_t i = 0; i < range; ++i) fn(i);
    }
    return;
  }
  impl_->execute(fn, range);
}

ThreadPool* get_threadpool() {
  // Never destroyed: worker threads must not be joined during static destruction (a library unloading after
  // main returns would deadlock); the OS reclaims them at exit.
  static ThreadPool* pool = new ThreadPool();
  return pool;
}

size_t num_threadpools_created() { return g_pools_created.load(); }

pthreadpool_t get_pthreadpool() {
  if (NoThreadPoolGuard::is_enabled()) return nullptr;
  return reinterpret_cast<pthreadpool_t>(get_threadpool());
}

}  // namespace threadpool

namespace {

// get_thread_num() of the calling thread while it runs a chunk of `pool`'s parallel_for.
int64_t chunk_thread_num(const threadpool::ThreadPool* pool) {
  return threadpool::t_unit_owner == pool ? static_cast<int64_t>(threadpool::t_unit_thread) : 0;
}

}  // namespace

bool parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size,
                  runtime::FunctionRef<void(int64_t, int64_t)> f) {
  if (begin < 0 || end < begin || grain_size < 1) return false;
  const int64_t n = end - begin;
  if (n == 0) return true;
  threadpool::ThreadPool* pool = threadpool::get_threadpool();
  const int64_t threads =
      threadpool::NoThreadPoolGuard::is_enabled() ? 1 : static_cast<int64_t>(pool->get_thread_count());
  // Up to kUnitsPerThread chunks per thread (never smaller than grain_size): the pool hands chunks out
  // dynamically, so a thread that starts late, or runs on a core shared with other work, only holds one small
  // chunk while the others (the caller first) take the rest.
  constexpr int64_t kUnitsPerThread = 4;
  int64_t chunks = std::min<int64_t>(threads * kUnitsPerThread, (n + grain_size - 1) / grain_size);
  const int64_t saved = threadpool::t_thread_num;
  if (threads <= 1 || chunks <= 1) {
    threadpool::t_thread_num = chunk_thread_num(pool);
    f(begin, end);
    threadpool::t_thread_num = saved;
    return true;
  }
  const int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  pool->run(
      [&](size_t i) {
        const int64_t b = begin + static_cast<int64_t>(i) * chunk;
        const int64_t outer = threadpool::t_thread_num;
        threadpool::t_thread_num = chunk_thread_num(pool);
        f(b, std::min(end, b + chunk));
        threadpool::t_thread_num = outer;
      },
      static_cast<size_t>(chunks));
  threadpool::t_thread_num = saved;
  return true;
}

int64_t get_thread_count() {
  const size_t n = threadpool::get_threadpool()->get_thread_count();
  return n == 0 ? 1 : static_cast<int64_t>(n);
}

int64_t get_thread_num() { return threadpool::t_thread_num; }

void set_thread_num(int64_t thread_num) { threadpool::t_thread_num = thread_num; }

}  // namespace extension
}  // namespace executorch

using executorch::extension::threadpool::ThreadPool;

extern "C" {

size_t et_pthreadpool_get_threads_count(pthreadpool_t pool) {
  return pool == nullptr ? 1 : reinterpret_cast<ThreadPool*>(pool)->get_thread_count();
}

void et_pthreadpool_parallelize_1d(pthreadpool_t pool, et_pthreadpool_task_1d_t task, void* context, size_t range,
                                   uint32_t /*flags*/) {
  if (pool == nullptr) {
    for (size_t i = 0; i < range; ++i) task(context, i);
    return;
  }
  reinterpret_cast<ThreadPool*>(pool)->run([&](size_t i) { task(context, i); }, range);
}

void et_pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, et_pthreadpool_task_1d_tile_1d_t task, void* context,
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

void et_pthreadpool_parallelize_2d(pthreadpool_t pool, et_pthreadpool_task_2d_t task, void* context, size_t range_i,
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
