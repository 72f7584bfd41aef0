#pragma once
// POSIX file functions (open, read, pread, close, lseek, fstat, ...) under their POSIX names: <unistd.h> where it
// exists, and on 64-bit Windows the CRT's equivalents plus a pread() built on ReadFile.
#if defined(_WIN32) && !defined(_WIN64)
#error "ExecuTorch needs 64-bit Windows"
#endif

#if !defined(_WIN64)
#include <unistd.h>
#else
#include <errno.h>
#include <io.h>
#include <string.h>

#include <executorch/runtime/platform/compiler.h>

#define O_RDONLY _O_RDONLY
#define open _open
#define close _close
#define read _read
#define write _write
#define stat _stat64
#define fstat _fstat64
#define off_t _off_t
#define lseek _lseeki64

#include <windows.h>
#undef max  // <windows.h>'s max macro breaks std::max

// Reads up to `nbytes` at byte `offset` without moving the file position; -1 with errno set on failure (errno 0
// at end of file).
inline ssize_t pread(int fd, void* buf, size_t nbytes, size_t offset) {
  OVERLAPPED at;
  memset(&at, 0, sizeof(at));
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(static_cast<uint64_t>(offset) >> 32);
  HANDLE file = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  DWORD got = 0;
  BOOL ok = ReadFile(file, buf, static_cast<DWORD>(nbytes), &got, &at);
  DWORD err = ok ? 0 : GetLastError();
  if (!ok && err == ERROR_IO_PENDING) {
    ok = GetOverlappedResult(file, &at, &got, TRUE);
    err = ok ? 0 : GetLastError();
  }
  if (!ok) {
    errno = err == ERROR_HANDLE_EOF ? 0 : EIO;
    return -1;
  }
  return static_cast<ssize_t>(got);
}
#endif
