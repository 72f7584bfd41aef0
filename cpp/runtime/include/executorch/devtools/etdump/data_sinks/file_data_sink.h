#pragma once
// A DataSinkBase that writes to a file (created or truncated by create()): each write() appends and returns the
// offset in the file where its bytes start. The file is closed by close() or the destructor.
#include <cstddef>
#include <cstdio>

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace etdump {

class EXECUTORCH_API FileDataSink : public DataSinkBase {
 public:
  // Error::AccessFailed when the file cannot be created.
  static ::executorch::runtime::Result<FileDataSink> create(const char* file_path);

  ~FileDataSink() override;
  FileDataSink(const FileDataSink&) = delete;
  FileDataSink& operator=(const FileDataSink&) = delete;
  FileDataSink(FileDataSink&& other) noexcept;
  FileDataSink& operator=(FileDataSink&& other) noexcept;

  // Error::AccessFailed after close(), Error::Internal when the file system takes fewer bytes than given.
  ::executorch::runtime::Result<size_t> write(const void* ptr, size_t size) override;
  size_t get_used_bytes() const override;
  // Flushes and closes the file; later writes fail. Safe to call more than once.
  void close();

 private:
  explicit FileDataSink(FILE* file) : file_(file), total_written_bytes_(0) {}

  FILE* file_;
  size_t total_written_bytes_;
};

}  // namespace etdump
}  // namespace executorch
