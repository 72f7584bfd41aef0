// The thread pool under load: a split workload runs while the pool's workers share their core with a busy
// process and are niced below it, so they are late for (or miss) most runs. Checks that every run's result is
// right and that the calling thread did the work the late workers did not take; prints (does not assert) the
// time per run. Run by tests/test_threadpool.py.
//   threadpool_load_test [runs]       the loaded workload (the pool must have 2 or more threads)
//   threadpool_load_test --threads    prints the pool's thread count (for the affinity / cgroup checks)
//   threadpool_load_test --colocated  a worker put on the caller's CPU moves off it by itself (2+ CPUs)
#include <executorch/extension/parallel/thread_parallel.h>
#include <executorch/extension/threadpool/threadpool.h>

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using executorch::extension::threadpool::get_threadpool;

int checks = 0, failures = 0;

void check(bool ok, const char* what) {
  ++checks;
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

std::vector<pid_t> worker_tids() {
  std::vector<pid_t> tids;
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (dirent* e = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    if (tid > 0 && tid != self) tids.push_back(tid);
  }
  closedir(dir);
  return tids;
}

bool pin(pid_t tid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(tid, sizeof(set), &set) == 0;
}

// A busy process on `cpu` that ends by itself after `seconds` (and when the test kills it).
pid_t start_busy(int cpu, unsigned seconds) {
  const pid_t pid = fork();
  if (pid == 0) {
    pin(0, cpu);
    alarm(seconds);
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
  return pid;
}

// The CPU a thread last ran on (field 39 of /proc/self/task/TID/stat), or -1.
int last_cpu(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", static_cast<int>(tid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return -1;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces; the fields after it do not
  for (int field = 2; p != nullptr && field < 39; ++field) p = std::strchr(p + 1, ' ');
  return p == nullptr ? -1 : std::atoi(p + 1);
}

void split_runs(int runs, std::vector<float>* y) {
  for (int r = 0; r < runs; ++r)
    executorch::extension::parallel_for(0, static_cast<int64_t>(y->size()), 256, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) (*y)[i] += 1.f;
    });
}

// The kernel puts a woken worker on its waker's CPU (wake-affine), and its load balancer can leave it there for
// tens of milliseconds while another process has the other CPU: the worker then only runs while the caller does
// not. Here the worker is put on the caller's CPU (its mask then allows every CPU again) while a busy process holds
// another CPU; back-to-back split runs keep it spinning, so nothing but the pool moves it.
constexpr std::chrono::milliseconds kColocatedFor{200};

int colocated(const std::vector<int>& cpus) {
  auto* pool = get_threadpool();
  const std::vector<pid_t> workers = worker_tids();
  if (cpus.size() < 2 || workers.size() != 1) {
    std::printf("FAILED: needs 2+ CPUs and EXECUTORCH_NUM_THREADS=2 (%zu CPUs, %zu workers)\n", cpus.size(),
                workers.size());
    return 1;
  }
  const int caller_cpu = cpus.front();
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c : cpus) CPU_SET(c, &all);
  const pid_t busy = start_busy(cpus.back(), 60);
  check(pin(0, caller_cpu), "pin the caller");
  std::vector<float> y(1 << 14, 0.f);
  split_runs(10, &y);  // the worker is up and spinning
  check(pin(workers[0], caller_cpu), "put the worker on the caller's CPU");
  int was = -1;  // until it has run there (it may be asleep)
  for (int i = 0; i < 1000 && (was = last_cpu(workers[0])) != caller_cpu; ++i) split_runs(10, &y), usleep(1000);
  check(sched_setaffinity(workers[0], sizeof(all), &all) == 0, "let the worker run anywhere again");
  // For 200 ms (long enough for the kernel to give the worker the caller's CPU now and then), noting after each
  // run where the worker last ran. The kernel may move it too, and may put it back: what is checked is that it
  // spent most of the time away from the caller's CPU.
  const auto before = pool->stats();
  const float start = y[0];
  int runs = 0, with_caller = 0;
  for (const auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < kColocatedFor;) {
    split_runs(1, &y);
    ++runs;
    with_caller += last_cpu(workers[0]) == caller_cpu;
  }
  const auto after = pool->stats();
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
  std::printf(
      "worker on CPU %d with the caller, then after %d of %d runs; moves %llu (caller on CPU %d, busy process on "
      "%d)\n",
      was, with_caller, runs, static_cast<unsigned long long>(after.worker_moves - before.worker_moves), caller_cpu,
      cpus.back());
  check(was == caller_cpu, "the worker ran on the caller's CPU");
  check(with_caller * 2 < runs, "the worker spent most of the time away from the caller's CPU");
  const float want = start + static_cast<float>(runs);
  check(y[0] == want && y.back() == want, "every run computed the right values");
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  auto* pool = get_threadpool();
  if (argc > 1 && std::strcmp(argv[1], "--threads") == 0) {
    std::printf("threads %zu\n", pool->get_thread_count());
    return 0;
  }
  if (pool->get_thread_count() < 2) {
    std::printf("FAILED: the pool has %zu thread(s); run with EXECUTORCH_NUM_THREADS=2 or more\n",
                pool->get_thread_count());
    return 1;
  }
  cpu_set_t avail;
  sched_getaffinity(0, sizeof(avail), &avail);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &avail)) cpus.push_back(c);
  if (argc > 1 && std::strcmp(argv[1], "--colocated") == 0) return colocated(cpus);
  const int runs = argc > 1 ? std::atoi(argv[1]) : 3000;
  // The caller on the first CPU; every worker and the busy process on the last (the same CPU when there is
  // only one: then everything is oversubscribed). The workers are niced to 19, the busy process stays at 0.
  const int caller_cpu = cpus.front(), busy_cpu = cpus.back();
  check(pin(0, caller_cpu), "pin the caller");
  const std::vector<pid_t> workers = worker_tids();
  check(workers.size() == pool->get_thread_count() - 1, "one task per worker thread in /proc/self/task");
  for (pid_t tid : workers) {
    check(pin(tid, busy_cpu), "pin a worker");
    check(setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19) == 0, "nice a worker");
  }
  const pid_t busy = start_busy(busy_cpu, 120);
  check(busy > 0, "fork the busy process");
  usleep(20000);  // let the busy process take its core

  constexpr int64_t kN = 1 << 14;
  std::vector<float> x(kN), y(kN);
  for (int64_t i = 0; i < kN; ++i) x[i] = static_cast<float>(i % 97) * 0.25f;
  const auto before = pool->stats();
  const auto t0 = std::chrono::steady_clock::now();
  int wrong = 0;
  for (int r = 0; r < runs; ++r) {
    const float a = static_cast<float>(r % 13);
    executorch::extension::parallel_for(0, kN, 256, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = x[i] * 2.f + a;
    });
    for (int64_t i = 0; i < kN; i += 61)
      if (y[i] != x[i] * 2.f + a) ++wrong;
    if (y[kN - 1] != x[kN - 1] * 2.f + a) ++wrong;
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  const auto after = pool->stats();
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);

  const uint64_t split = after.parallel_runs - before.parallel_runs;
  const uint64_t by_caller = after.units_by_caller - before.units_by_caller;
  const uint64_t by_workers = after.units_by_workers - before.units_by_workers;
  const uint64_t waits = after.caller_waits - before.caller_waits;
  std::printf(
      "runs %d split %llu units: caller %llu workers %llu; caller slept on a running unit %llu times; "
      "%.1f us per run (%zu threads, caller on CPU %d, workers + busy process on CPU %d)\n",
      runs, static_cast<unsigned long long>(split), static_cast<unsigned long long>(by_caller),
      static_cast<unsigned long long>(by_workers), static_cast<unsigned long long>(waits), us / runs,
      pool->get_thread_count(), caller_cpu, busy_cpu);
  check(wrong == 0, "every run computed the right values");
  check(split == static_cast<uint64_t>(runs), "every run was split over the pool");
  // parallel_for cuts 2^14 items with grain 256 into 4 chunks per thread.
  const uint64_t per_run = std::min<uint64_t>(4 * pool->get_thread_count(), kN / 256);
  check(by_caller + by_workers == split * per_run, "every unit ran exactly once");
  // The workers get a sliver of their core: the caller must have taken over what they were late for.
  check(by_caller > by_workers, "the caller ran most of the units while the workers were starved");
  // The caller only ever sleeps for a unit a worker is running, never for a worker that has not started.
  check(waits <= by_workers, "the caller waited only on units the workers held");
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
