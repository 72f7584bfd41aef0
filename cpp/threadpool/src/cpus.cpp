#include "cpus.h"

#include <executorch/extension/threadpool/cpuinfo_utils.h>

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace executorch {
namespace extension {
namespace threadpool {
namespace internal {

size_t env_thread_count() {
  const char* env = std::getenv("EXECUTORCH_NUM_THREADS");
  if (env == nullptr) return 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  return end != env && *end == '\0' && v >= 1 && static_cast<unsigned long>(v) <= kMaxThreadCount
             ? static_cast<size_t>(v)
             : 0;
}

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) {
    const unsigned n = std::thread::hardware_concurrency();
    for (unsigned c = 0; c < std::max(1u, n); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

// Every level of the hierarchy counts (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`): the smallest
// quota wins.
size_t cgroup_cpu_limit() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, v2_path, v1_path;
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) v2_path = line.substr(3);
    const size_t colon = line.find(':'), colon2 = line.find(':', colon + 1);
    if (colon != std::string::npos && colon2 != std::string::npos) {
      const std::string controllers = "," + line.substr(colon + 1, colon2 - colon - 1) + ",";
      if (controllers.find(",cpu,") != std::string::npos) v1_path = line.substr(colon2 + 1);
    }
  }
  auto quota_at = [](const std::string& dir, bool v2) -> double {
    if (v2) {
      std::ifstream f(dir + "/cpu.max");
      std::string quota;
      double period = 0;
      if (!(f >> quota >> period) || quota == "max" || period <= 0) return 0;
      return std::atof(quota.c_str()) / period;
    }
    std::ifstream q(dir + "/cpu.cfs_quota_us"), p(dir + "/cpu.cfs_period_us");
    double quota = 0, period = 0;
    if (!(q >> quota) || !(p >> period) || quota <= 0 || period <= 0) return 0;
    return quota / period;
  };
  double best = 0;
  auto walk = [&](const std::string& root, std::string path, bool v2) {
    for (;;) {
      const double cpus = quota_at(root + path, v2);
      if (cpus > 0 && (best == 0 || cpus < best)) best = cpus;
      if (path.empty() || path == "/") break;
      const size_t slash = path.rfind('/');
      path = slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash);
    }
  };
  if (!v2_path.empty()) walk("/sys/fs/cgroup", v2_path, true);
  if (!v1_path.empty()) walk("/sys/fs/cgroup/cpu", v1_path, false);
  if (best <= 0) return 0;
  const double rounded = best + 0.999;
  return rounded < 1 ? 1 : static_cast<size_t>(rounded);
}

size_t default_thread_count() {
  if (const size_t env = env_thread_count()) return env;
  size_t n = affinity_cpus().size();
  const size_t quota = cgroup_cpu_limit();
  if (quota > 0) n = std::min(n, quota);
  return std::max<size_t>(n, 1);
}

size_t count_fast_cpus(const std::vector<uint64_t>& max_freqs) {
  if (max_freqs.empty()) return 0;
  std::vector<uint64_t> sorted = max_freqs;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() == 0) return max_freqs.size();
  // The slowest class ends where the next frequency is 15% or more above the previous one.
  size_t slow = 1;
  while (slow < sorted.size() && sorted[slow] * 100 < sorted[slow - 1] * 115) ++slow;
  return slow == sorted.size() ? sorted.size() : sorted.size() - slow;
}

}  // namespace internal
}  // namespace threadpool

namespace cpuinfo {

uint32_t get_num_performant_cores() {
  using namespace threadpool::internal;
  if (const size_t env = env_thread_count()) return static_cast<uint32_t>(env);
  const std::vector<int> cpus = affinity_cpus();
  std::vector<uint64_t> freqs;
  freqs.reserve(cpus.size());
  for (const int c : cpus) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq/cpuinfo_max_freq");
    uint64_t khz = 0;
    if (!(f >> khz)) khz = 0;
    freqs.push_back(khz);
  }
  size_t n = count_fast_cpus(freqs);
  const size_t quota = cgroup_cpu_limit();
  if (quota > 0) n = std::min(n, quota);
  return static_cast<uint32_t>(std::max<size_t>(n, 1));
}

}  // namespace cpuinfo
}  // namespace extension
}  // namespace executorch
