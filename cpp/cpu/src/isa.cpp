#include "isa.h"

#include <cstdlib>
#include <string>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

namespace etk {
namespace {

#if defined(__aarch64__)
// The int8 dot products (SDOT/UDOT, FEAT_DotProd): optional from armv8.2-a.
bool has_dotprod() {
#if defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#elif defined(__APPLE__)
  int v = 0;
  size_t n = sizeof(v);
  return sysctlbyname("hw.optional.arm.FEAT_DotProd", &v, &n, nullptr, 0) == 0 && v != 0;
#else
  return false;
#endif
}
#endif

int pick_isa() {
  const char* cap = std::getenv("EXECUTORCH_GEMM_ISA");
  const std::string c = cap ? cap : "";
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (c != "avx2" && c != "baseline" && __builtin_cpu_supports("avx512f")) return 2;
  if (c != "baseline" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#elif defined(__aarch64__)
  if (c == "baseline") return 0;
  // Advanced SIMD (NEON) is part of armv8-a; the int8 dot products (SDOT, armv8.2-a's dotprod) are optional.
  if (c != "neon" && has_dotprod()) return 2;
  return 1;
#endif
  return 0;
}

}  // namespace

int isa_level() {
  static const int level = pick_isa();
  return level;
}

}  // namespace etk
