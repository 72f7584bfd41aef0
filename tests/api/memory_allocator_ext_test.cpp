// extension/memory_allocator/{malloc_memory_allocator,memory_allocator_utils}.h as upstream declares them:
// MallocMemoryAllocator's alignment, reset and use as a method's temp allocator; utils::get_aligned_size.
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/memory_allocator/memory_allocator_utils.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

using executorch::extension::MallocMemoryAllocator;
using executorch::runtime::Error;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::Result;

TEST(MallocMemoryAllocator, AlignmentAndDistinctBlocks) {
  static_assert(std::is_base_of<MemoryAllocator, MallocMemoryAllocator>::value, "a MemoryAllocator");
  MallocMemoryAllocator allocator;
  EXPECT_EQ(allocator.base_address(), nullptr);
  EXPECT_EQ(allocator.size(), 0u);
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t alignment : {size_t{1}, size_t{2}, size_t{8}, size_t{16}, size_t{64}, size_t{256}, size_t{4096}}) {
    for (size_t size : {size_t{1}, size_t{3}, size_t{100}, size_t{5000}}) {
      void* p = allocator.allocate(size, alignment);
      ASSERT_NE(p, nullptr) << size << " aligned to " << alignment;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << size << " aligned to " << alignment;
      std::memset(p, 0x5a, size);  // the whole size is usable (ASan / valgrind would catch an overrun)
      blocks.emplace_back(static_cast<uint8_t*>(p), size);
    }
  }
  // The default alignment, and typed helpers.
  void* d = allocator.allocate(7);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % MemoryAllocator::kDefaultAlignment, 0u);
  double* one = allocator.allocateInstance<double>();
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(one) % alignof(double), 0u);
  int64_t* list = allocator.allocateList<int64_t>(1000);
  ASSERT_NE(list, nullptr);
  for (int i = 0; i < 1000; ++i) list[i] = i;
  // No two blocks overlap, and writing one does not change another.
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (size_t j = i + 1; j < blocks.size(); ++j) {
      const bool disjoint = blocks[i].first + blocks[i].second <= blocks[j].first ||
                            blocks[j].first + blocks[j].second <= blocks[i].first;
      EXPECT_TRUE(disjoint) << i << " and " << j;
    }
  }
  EXPECT_EQ(list[999], 999);
  // Alignments that are not powers of 2 fail (null), as upstream's.
  EXPECT_EQ(allocator.allocate(16, 3), nullptr);
  EXPECT_EQ(allocator.allocate(16, 0), nullptr);
  EXPECT_EQ(allocator.allocate(16, 48), nullptr);
  // Sizes that overflow once the alignment slack is added fail instead of wrapping.
  EXPECT_EQ(allocator.allocate(SIZE_MAX - 10, 64), nullptr);
}

TEST(MallocMemoryAllocator, ResetFreesAndStaysUsable) {
  MallocMemoryAllocator allocator;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) {
      void* p = allocator.allocate(1024, 64);
      ASSERT_NE(p, nullptr);
      std::memset(p, i, 1024);
    }
    allocator.reset();  // frees all 100 blocks (LeakSanitizer would report them otherwise)
  }
  void* p = allocator.allocate(32, 32);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 32, 0u);
  // Through the base class, as the runtime uses it: allocate and reset are virtual.
  MemoryAllocator& base = allocator;
  void* q = base.allocate(100, 128);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 128, 0u);
  base.reset();
}

TEST(MallocMemoryAllocator, AsAKernelsTempAllocator) {
  MallocMemoryAllocator temp;
  KernelRuntimeContext ctx(nullptr, &temp);
  Result<void*> a = ctx.allocate_temp(1 << 20, 64);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 64, 0u);
  std::memset(*a, 0, 1 << 20);
  Result<void*> b = ctx.allocate_temp(10, 3);
  EXPECT_EQ(b.error(), Error::MemoryAllocationFailed);
  // torch::executor::util's old name.
  torch::executor::util::MallocMemoryAllocator old;
  EXPECT_NE(old.allocate(8), nullptr);
}

TEST(MemoryAllocatorUtils, GetAlignedSize) {
  using executorch::extension::utils::get_aligned_size;
  constexpr size_t kMalloc = alignof(std::max_align_t);
  // Up to malloc's own alignment nothing is added.
  EXPECT_EQ(*get_aligned_size(100, 1), 100u);
  EXPECT_EQ(*get_aligned_size(100, kMalloc), 100u);
  // Beyond it, room to move the start to the next aligned address.
  EXPECT_EQ(*get_aligned_size(100, 64), 100u + 63u);
  EXPECT_EQ(*get_aligned_size(0, 4096), 4095u);
  EXPECT_EQ(get_aligned_size(SIZE_MAX - 10, 64).error(), Error::InvalidArgument);
  EXPECT_EQ(get_aligned_size(SIZE_MAX - 63, 64).error(), Error::InvalidArgument);
  EXPECT_EQ(*get_aligned_size(SIZE_MAX - 64, 64), SIZE_MAX - 1);
}
