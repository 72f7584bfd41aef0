#pragma once
// Portable pieces of the memory-mapping data loader, as upstream keeps them: page size, file size, mmap offset and
// read-ahead advice, over POSIX (here) or Windows (mman_windows.h; this SDK does not build for Windows).
#include <executorch/runtime/platform/compiler.h>

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>

#ifndef _WIN32

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

ET_INLINE size_t get_os_page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// fstat's size of fd into *out_size; returns fstat's result.
ET_INLINE int get_file_stat(int fd, size_t* out_size) {
  struct stat st;
  const int err = ::fstat(fd, &st);
  if (err >= 0) *out_size = static_cast<size_t>(st.st_size);
  return err;
}

ET_INLINE off_t get_mmap_offset(size_t offset) { return static_cast<off_t>(offset); }

// Tells the OS the range will be needed soon and read in order.
ET_INLINE void madvise_pages_willneed_sequential(void* addr, size_t len) {
#ifdef MADV_WILLNEED
  ::madvise(addr, len, MADV_WILLNEED);
#endif
#ifdef MADV_SEQUENTIAL
  ::madvise(addr, len, MADV_SEQUENTIAL);
#endif
}

// Read-ahead advice for the whole file (macOS only; nothing elsewhere).
ET_INLINE void fcntl_rdadvise_apple(int fd, size_t file_size) {
#if defined(__APPLE__)
  struct radvisory advice;
  advice.ra_offset = 0;
  advice.ra_count = static_cast<int>(file_size);
  ::fcntl(fd, F_RDADVISE, &advice);
#else
  (void)fd;
  (void)file_size;
#endif
}

#else  // _WIN32

#ifndef NOMINMAX
#define NOMINMAX
#include <windows.h>
#undef NOMINMAX
#else
#include <windows.h>
#endif
#include <io.h>

#include <executorch/extension/data_loader/mman_windows.h>

ET_INLINE long get_os_page_size() {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  return si.dwAllocationGranularity > si.dwPageSize ? si.dwAllocationGranularity : si.dwPageSize;
}

ET_INLINE int get_file_stat(int fd, size_t* out_size) {
  struct _stat64 st;
  const int err = ::_fstat64(fd, &st);
  if (err >= 0) *out_size = static_cast<size_t>(st.st_size);
  return err;
}

ET_INLINE uint64_t get_mmap_offset(size_t offset) { return static_cast<uint64_t>(offset); }

ET_INLINE void madvise_pages_willneed_sequential(void* addr, size_t len) {
  (void)addr;
  (void)len;
}

ET_INLINE void fcntl_rdadvise_apple(int fd, size_t file_size) {
  (void)fd;
  (void)file_size;
}

#endif  // _WIN32
