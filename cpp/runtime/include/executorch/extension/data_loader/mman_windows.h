#pragma once
// POSIX memory mapping (mmap, munmap, mlock, ... and their PROT_ / MAP_ / MS_ constants) for Windows, as upstream
// declares it for its Windows build. This SDK is built for Linux only and ships no Windows implementation: on
// Windows this header declares the functions (an application must provide them); everywhere else it gives the
// system's own declarations, so code that includes it builds unchanged.
#ifndef _WIN32

#include <sys/mman.h>

#else  // _WIN32

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4

#define MAP_FILE 0
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_TYPE 0xf
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_ANON MAP_ANONYMOUS

#define MAP_FAILED ((void*)-1)

#define MS_ASYNC 1
#define MS_SYNC 2
#define MS_INVALIDATE 4

void* mmap(void* addr, size_t len, int prot, int flags, int fildes, uint64_t off);
int munmap(void* addr, size_t len);
int mprotect(void* addr, size_t len, int prot);
int msync(void* addr, size_t len, int flags);
int mlock(const void* addr, size_t len);
int munlock(const void* addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif  // _WIN32
