// The data loaders as upstream's runtime/core/data_loader.h and extension/data_loader/{buffer,file,mmap,
// shared_ptr}_data_loader.h declare them: the same bytes as the file, bounds errors, load_into, FileDataLoader's
// alignment, MmapDataLoader's MlockConfig, SharedPtrDataLoader's ownership, and a program loaded through each.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mman.h>
#include <executorch/extension/data_loader/mman_windows.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/data_loader/shared_ptr_data_loader.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test_util.h"

using executorch::extension::BufferDataLoader;
using executorch::extension::FileDataLoader;
using executorch::extension::MmapDataLoader;
using executorch::extension::SharedPtrDataLoader;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Program;
using executorch::runtime::Result;

namespace {

using Segment = DataLoader::SegmentInfo;
const Segment kProgram(Segment::Type::Program);

std::string mlp_path() { return api_test::fixture("mlp/portable.pte"); }

// A file of `size` bytes with a position-dependent pattern, removed when the test ends.
struct TempFile {
  std::string path;
  std::vector<uint8_t> bytes;
  explicit TempFile(size_t size) {
    char name[] = "/tmp/et_data_loader_test_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path = name;
    bytes.resize(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 131 + i / 251) & 0xff);
    api_test::write_file(path, bytes);
  }
  ~TempFile() { std::remove(path.c_str()); }
};

// Every load of `loader` over `bytes`: whole file, pieces at odd offsets, the end, an empty range, and the errors.
void check_loader(const DataLoader& loader, const std::vector<uint8_t>& bytes) {
  Result<size_t> size = loader.size();
  ASSERT_TRUE(size.ok());
  ASSERT_EQ(*size, bytes.size());
  {
    Result<FreeableBuffer> all = loader.load(0, bytes.size(), kProgram);
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), bytes.size());
    EXPECT_EQ(std::memcmp(all->data(), bytes.data(), bytes.size()), 0);
  }
  const size_t n = bytes.size();
  for (size_t off : {size_t{1}, size_t{7}, n / 3, n / 2 + 5, n - 17}) {
    const size_t len = std::min<size_t>(n - off, 1000);
    Result<FreeableBuffer> part = loader.load(off, len, Segment(Segment::Type::Constant, 2));
    ASSERT_TRUE(part.ok()) << off;
    ASSERT_EQ(part->size(), len);
    EXPECT_EQ(std::memcmp(part->data(), bytes.data() + off, len), 0) << off;
    part->Free();
    EXPECT_EQ(part->size(), 0u);
    EXPECT_EQ(part->data(), nullptr);
  }
  Result<FreeableBuffer> empty = loader.load(n, 0, kProgram);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  // Ranges outside the data: upstream's InvalidArgument, overflow included.
  EXPECT_EQ(loader.load(0, n + 1, kProgram).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(n + 1, 0, kProgram).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(n - 1, 2, kProgram).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(1, SIZE_MAX, kProgram).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(SIZE_MAX, 1, kProgram).error(), Error::InvalidArgument);
}

// load_into over the same ranges, for loaders that implement it.
void check_load_into(const DataLoader& loader, const std::vector<uint8_t>& bytes) {
  const size_t n = bytes.size();
  std::vector<uint8_t> dst(n + 8, 0xee);
  ASSERT_EQ(loader.load_into(0, n, kProgram, dst.data()), Error::Ok);
  EXPECT_EQ(std::memcmp(dst.data(), bytes.data(), n), 0);
  EXPECT_EQ(dst[n], 0xee);  // nothing written past the range
  std::fill(dst.begin(), dst.end(), 0xee);
  ASSERT_EQ(loader.load_into(n / 2 + 3, 100, Segment(Segment::Type::Backend, 1, "XnnpackBackend"), dst.data()),
            Error::Ok);
  EXPECT_EQ(std::memcmp(dst.data(), bytes.data() + n / 2 + 3, 100), 0);
  EXPECT_EQ(dst[100], 0xee);
  EXPECT_EQ(loader.load_into(0, 0, kProgram, dst.data()), Error::Ok);
  EXPECT_EQ(loader.load_into(0, 1, kProgram, nullptr), Error::InvalidArgument);
  EXPECT_EQ(loader.load_into(0, n + 1, kProgram, dst.data()), Error::InvalidArgument);
  EXPECT_EQ(loader.load_into(n, 1, kProgram, dst.data()), Error::InvalidArgument);
}

// mlp forward case 0 from a program loaded through `loader`, against the eager reference.
void run_mlp(DataLoader* loader) {
  api_test::LoadOptions options;
  options.temp_pool = 0;
  api_test::LoadedMethod m(loader, options);
  ASSERT_NE(m.method, nullptr);
  api_test::run_mlp_case0(*m.method);
}

// Locked memory of this process in kB (VmLck of /proc/self/status), -1 when unknown (also under AddressSanitizer,
// which makes mlock() a no-op).
#if defined(__SANITIZE_ADDRESS__)
#define ET_TEST_MLOCK_IS_NOOP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ET_TEST_MLOCK_IS_NOOP 1
#endif
#endif
long locked_kb() {
#ifdef ET_TEST_MLOCK_IS_NOOP
  return -1;
#endif
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmLck:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace

TEST(DataLoader, SegmentInfo) {
  const Segment none;
  EXPECT_EQ(none.segment_type, Segment::Type::Program);
  const Segment s(Segment::Type::External, 3, "weights.ptd");
  EXPECT_EQ(s.segment_type, Segment::Type::External);
  EXPECT_EQ(s.segment_index, 3u);
  EXPECT_STREQ(s.descriptor, "weights.ptd");
  EXPECT_NE(Segment::Type::Mutable, Segment::Type::Backend);
  EXPECT_EQ(Segment(Segment::Type::Mutable).segment_index, 0u);
  EXPECT_EQ(Segment(Segment::Type::Mutable).descriptor, nullptr);
}

TEST(FileDataLoader, BytesBoundsAndLoadInto) {
  const std::vector<uint8_t> pte = api_test::read_file(mlp_path());
  Result<FileDataLoader> loader = FileDataLoader::from(mlp_path().c_str());
  ASSERT_TRUE(loader.ok());
  check_loader(*loader, pte);
  check_load_into(*loader, pte);
  TempFile big(3 * 4096 + 123);
  Result<FileDataLoader> big_loader = FileDataLoader::from(big.path.c_str());
  ASSERT_TRUE(big_loader.ok());
  check_loader(*big_loader, big.bytes);
  check_load_into(*big_loader, big.bytes);
}

TEST(FileDataLoader, Alignment) {
  for (size_t alignment : {size_t{1}, size_t{16}, size_t{64}, size_t{256}, size_t{4096}}) {
    Result<FileDataLoader> loader = FileDataLoader::from(mlp_path().c_str(), alignment);
    ASSERT_TRUE(loader.ok()) << alignment;
    for (size_t off : {size_t{0}, size_t{3}, size_t{17}}) {
      Result<FreeableBuffer> b = loader->load(off, 100, kProgram);
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % alignment, 0u) << alignment << " at " << off;
    }
  }
  // The default is alignof(std::max_align_t).
  Result<FileDataLoader> loader = FileDataLoader::from(mlp_path().c_str());
  ASSERT_TRUE(loader.ok());
  Result<FreeableBuffer> b = loader->load(5, 10, kProgram);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % alignof(std::max_align_t), 0u);
  EXPECT_EQ(FileDataLoader::from(mlp_path().c_str(), 3).error(), Error::InvalidArgument);
  EXPECT_EQ(FileDataLoader::from(mlp_path().c_str(), 0).error(), Error::InvalidArgument);
  EXPECT_EQ(FileDataLoader::from(nullptr).error(), Error::InvalidArgument);
  EXPECT_EQ(FileDataLoader::from("/nonexistent/model.pte").error(), Error::AccessFailed);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  Result<FileDataLoader> old = FileDataLoader::From(mlp_path().c_str());
#pragma GCC diagnostic pop
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old->size(), api_test::read_file(mlp_path()).size());
}

TEST(FileDataLoader, MovedFrom) {
  Result<FileDataLoader> loader = FileDataLoader::from(mlp_path().c_str());
  ASSERT_TRUE(loader.ok());
  FileDataLoader moved(std::move(*loader));
  EXPECT_TRUE(moved.load(0, 16, kProgram).ok());
  EXPECT_EQ(loader->load(0, 16, kProgram).error(), Error::InvalidState);
  EXPECT_EQ(loader->size().error(), Error::InvalidState);
}

TEST(MmapDataLoader, BytesBoundsAndLoadInto) {
  const std::vector<uint8_t> pte = api_test::read_file(mlp_path());
  Result<MmapDataLoader> loader = MmapDataLoader::from(mlp_path().c_str(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_TRUE(loader.ok());
  check_loader(*loader, pte);
  check_load_into(*loader, pte);
  TempFile big(5 * 4096 + 77);
  Result<MmapDataLoader> big_loader = MmapDataLoader::from(big.path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_TRUE(big_loader.ok());
  check_loader(*big_loader, big.bytes);
  check_load_into(*big_loader, big.bytes);
  // Data is mapped, not copied: it sits at the file offset's position within its page.
  const size_t page = get_os_page_size();
  for (size_t off : {size_t{1}, page - 3, page + 100, 3 * page + 5}) {
    Result<FreeableBuffer> b = big_loader->load(off, 200, kProgram);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % page, off % page);
  }
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/model.pte").error(), Error::AccessFailed);
  EXPECT_EQ(MmapDataLoader::from(nullptr).error(), Error::InvalidArgument);
}

TEST(MmapDataLoader, LoadedDataOutlivesTheLoader) {
  TempFile big(2 * 4096 + 1);
  std::optional<FreeableBuffer> kept;
  {
    Result<MmapDataLoader> loader = MmapDataLoader::from(big.path.c_str(), MmapDataLoader::MlockConfig::NoMlock);
    ASSERT_TRUE(loader.ok());
    Result<FreeableBuffer> b = loader->load(4000, 500, kProgram);
    ASSERT_TRUE(b.ok());
    kept.emplace(std::move(*b));
  }
  EXPECT_EQ(std::memcmp(kept->data(), big.bytes.data() + 4000, 500), 0);
}

TEST(MmapDataLoader, MlockConfigs) {
  TempFile big(8 * 4096);
  const std::vector<uint8_t>& bytes = big.bytes;
  using Mlock = MmapDataLoader::MlockConfig;
  const long base = locked_kb();
  for (Mlock config : {Mlock::NoMlock, Mlock::UseMlock, Mlock::UseMlockIgnoreErrors, Mlock::UseMadvise}) {
    Result<MmapDataLoader> loader = MmapDataLoader::from(big.path.c_str(), config);
    ASSERT_TRUE(loader.ok());
    Result<FreeableBuffer> b = loader->load(4096, 4 * 4096, kProgram);
    if (config == Mlock::UseMlock && !b.ok()) {
      // Not allowed to lock memory here (RLIMIT_MEMLOCK): upstream's NotSupported, and IgnoreErrors then loads.
      EXPECT_EQ(b.error(), Error::NotSupported);
      continue;
    }
    ASSERT_TRUE(b.ok()) << static_cast<int>(config);
    EXPECT_EQ(std::memcmp(b->data(), bytes.data() + 4096, 4 * 4096), 0);
    const long locked = locked_kb();
    if (base >= 0 && locked >= 0) {
      if (config == Mlock::NoMlock || config == Mlock::UseMadvise) {
        EXPECT_EQ(locked, base) << static_cast<int>(config);
      } else if (config == Mlock::UseMlock) {
        EXPECT_GE(locked, base + 16) << "UseMlock locks the loaded pages";
      }
    }
    b->Free();
    if (base >= 0) {
      EXPECT_EQ(locked_kb(), base) << "freeing unmaps (and unlocks) the pages";
    }
  }
  // The default is UseMlock, as upstream's.
  Result<MmapDataLoader> def = MmapDataLoader::from(big.path.c_str());
  ASSERT_TRUE(def.ok());
  Result<FreeableBuffer> b = def->load(0, 4096, kProgram);
  EXPECT_TRUE(b.ok() || b.error() == Error::NotSupported);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_TRUE(MmapDataLoader::From(big.path.c_str(), false).ok());
  EXPECT_TRUE(MmapDataLoader::From(big.path.c_str(), Mlock::NoMlock).ok());
#pragma GCC diagnostic pop
}

TEST(MmapDataLoader, MovedFrom) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(mlp_path().c_str(), MmapDataLoader::MlockConfig::NoMlock);
  ASSERT_TRUE(loader.ok());
  MmapDataLoader moved(std::move(*loader));
  EXPECT_TRUE(moved.load(0, 16, kProgram).ok());
  EXPECT_EQ(loader->load(0, 16, kProgram).error(), Error::InvalidState);
  EXPECT_EQ(loader->size().error(), Error::InvalidState);
}

TEST(BufferDataLoader, BytesBoundsAndLoadInto) {
  const std::vector<uint8_t> pte = api_test::read_file(mlp_path());
  BufferDataLoader loader(pte.data(), pte.size());
  check_loader(loader, pte);
  check_load_into(loader, pte);
  // Aligned ranges are views of the caller's buffer.
  Result<FreeableBuffer> b = loader.load(16, 32, kProgram);
  ASSERT_TRUE(b.ok());
  if (reinterpret_cast<uintptr_t>(pte.data()) % 16 == 0) {
    EXPECT_EQ(b->data(), pte.data() + 16);
  }
  EXPECT_EQ(loader.load_into(0, 0, kProgram, nullptr), Error::InvalidArgument);  // null even for nothing
}

TEST(SharedPtrDataLoader, BytesBoundsAndOwnership) {
  const std::vector<uint8_t> pte = api_test::read_file(mlp_path());
  bool freed = false;
  std::shared_ptr<void> data(new uint8_t[pte.size()], [&freed](void* p) {
    delete[] static_cast<uint8_t*>(p);
    freed = true;
  });
  std::memcpy(data.get(), pte.data(), pte.size());
  auto loader = std::make_unique<SharedPtrDataLoader>(data, pte.size());
  check_loader(*loader, pte);
  // load_into is not implemented by this loader (as upstream's): the base class's NotImplemented.
  uint8_t dst[4];
  EXPECT_EQ(loader->load_into(0, 4, kProgram, dst), Error::NotImplemented);
  Result<FreeableBuffer> view = loader->load(8, 8, kProgram);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->data(), static_cast<uint8_t*>(data.get()) + 8);
  data.reset();  // the loader keeps the data alive
  EXPECT_FALSE(freed);
  EXPECT_EQ(std::memcmp(view->data(), pte.data() + 8, 8), 0);
  run_mlp(loader.get());
  loader.reset();
  EXPECT_TRUE(freed);
}

TEST(DataLoaders, AProgramRunsThroughEachLoader) {
  {
    Result<FileDataLoader> loader = FileDataLoader::from(mlp_path().c_str());
    ASSERT_TRUE(loader.ok());
    run_mlp(&*loader);
  }
  for (auto config : {MmapDataLoader::MlockConfig::NoMlock, MmapDataLoader::MlockConfig::UseMlockIgnoreErrors,
                      MmapDataLoader::MlockConfig::UseMadvise}) {
    Result<MmapDataLoader> loader = MmapDataLoader::from(mlp_path().c_str(), config);
    ASSERT_TRUE(loader.ok());
    run_mlp(&*loader);
  }
  const std::vector<uint8_t> pte = api_test::read_file(mlp_path());
  BufferDataLoader buffer(pte.data(), pte.size());
  run_mlp(&buffer);
  // torch::executor::util's old names.
  torch::executor::util::BufferDataLoader old(pte.data(), pte.size());
  run_mlp(&old);
}

TEST(Mman, Helpers) {
  const size_t page = get_os_page_size();
  EXPECT_GE(page, 4096u);
  EXPECT_EQ(page & (page - 1), 0u);
  FILE* f = std::fopen(mlp_path().c_str(), "rb");
  ASSERT_NE(f, nullptr);
  size_t size = 0;
  EXPECT_EQ(get_file_stat(fileno(f), &size), 0);
  EXPECT_EQ(size, api_test::read_file(mlp_path()).size());
  std::fclose(f);
  EXPECT_EQ(get_mmap_offset(4096), 4096);
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  madvise_pages_willneed_sequential(p, page);
  EXPECT_EQ(munmap(p, page), 0);
}
