// Feeds damaged .ptd data files (upstream's FlatTensor format) to FlatTensorDataMap::load and to the program that
// reads them: truncations, random byte flips, and targeted damage to the header, segments, keys and tensor
// layouts. Every damaged file must give a non-Ok Error (flips may also succeed, when they hit weight bytes) and
// never crash. Run under AddressSanitizer + UBSan in CI (GoogleTest).
// Usage: ptd_robustness_test [gtest flags] PROGRAM.pte=DATA.ptd... [--flips N]
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "flat_tensor_generated.h"
#include "run_program.h"

#ifndef GTEST_FLAG_GET
#define GTEST_FLAG_GET(name) ::testing::GTEST_FLAG(name)
#endif

using executorch::extension::BufferDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::Error;
using executorch::runtime::Result;

namespace {

struct Pair {
  std::string name;
  std::vector<uint8_t> pte;
  std::vector<uint8_t> ptd;
};

std::vector<Pair> g_pairs;
int g_flips = 200;

std::vector<uint8_t> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Loads `ptd` (copied into fresh 16-byte-aligned memory, so ASan sees every stray read) and, when it loads, runs
// the program with it.
Error load_and_run(const Pair& p, const std::vector<uint8_t>& ptd) {
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (ptd.size() + 15) / 16 * 16 + 16)), std::free);
  if (!ptd.empty()) std::memcpy(copy.get(), ptd.data(), ptd.size());
  BufferDataLoader loader(copy.get(), ptd.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  if (!map.ok()) return map.error();
  // Every key's layout and data can be read, whatever the file holds.
  for (uint32_t i = 0; i < map->get_num_keys().get(); ++i) {
    Result<const char*> key = map->get_key(i);
    if (!key.ok()) return key.error();
    (void)map->get_tensor_layout(*key);
    (void)map->get_data(*key);
  }
  return et_test::run_program_bytes(p.pte.data(), p.pte.size(), size_t(256) << 20, &*map);
}

void expect_error(const Pair& p, const std::string& what, const std::vector<uint8_t>& ptd) {
  EXPECT_NE(load_and_run(p, ptd), Error::Ok) << p.name << ": " << what << ": accepted";
}

// Applies `mutate` to a fresh copy of the data file's flatbuffer and expects an error.
void mutate_case(const Pair& p, const std::string& what, const std::function<bool(et_ptd::FlatTensor*)>& mutate) {
  std::vector<uint8_t> bytes = p.ptd;
  if (!mutate(et_ptd::GetMutableFlatTensor(bytes.data()))) return;
  expect_error(p, what, bytes);
}

TEST(PtdRobustness, IntactPairsRun) {
  for (const Pair& p : g_pairs) EXPECT_EQ(load_and_run(p, p.ptd), Error::Ok) << p.name;
}

TEST(PtdRobustness, Truncations) {
  // The segment data ends the file, so every truncation cuts something the map must notice.
  for (const Pair& p : g_pairs) {
    const size_t n = p.ptd.size();
    for (size_t len :
         {size_t(0), size_t(4), size_t(8), size_t(40), size_t(63), size_t(64), n / 4, n / 2, n - 64, n - 1}) {
      if (len >= n) continue;
      expect_error(p, "truncated to " + std::to_string(len), std::vector<uint8_t>(p.ptd.begin(), p.ptd.begin() + len));
    }
  }
}

TEST(PtdRobustness, RandomFlipsNeverCrash) {
  std::mt19937 rng(20261204);
  for (const Pair& p : g_pairs) {
    for (int i = 0; i < g_flips; ++i) {
      std::vector<uint8_t> bytes = p.ptd;
      const int flips = 1 + static_cast<int>(rng() % 4);
      // Half the flips land in the header and flatbuffer, where they matter most.
      const size_t span = (i % 2 == 0) ? std::min<size_t>(bytes.size(), 2048) : bytes.size();
      for (int k = 0; k < flips; ++k) bytes[rng() % span] ^= static_cast<uint8_t>(1u << (rng() % 8));
      (void)load_and_run(p, bytes);
    }
  }
}

TEST(PtdRobustness, TargetedDamage) {
  for (const Pair& p : g_pairs) {
    mutate_case(p, "segment offset past the data", [](et_ptd::FlatTensor* ft) -> bool {
      return ft->mutable_segments()->size() > 0 && ft->mutable_segments()->GetMutableObject(0)->mutate_offset(1u << 30);
    });
    mutate_case(p, "segment size past the data", [](et_ptd::FlatTensor* ft) -> bool {
      return ft->mutable_segments()->size() > 0 &&
             ft->mutable_segments()->GetMutableObject(0)->mutate_size(uint64_t(1) << 40);
    });
    mutate_case(p, "overflowing segment", [](et_ptd::FlatTensor* ft) -> bool {
      auto* seg = ft->mutable_segments()->GetMutableObject(0);
      return seg->mutate_offset(UINT64_MAX - 4) && seg->mutate_size(64);
    });
    mutate_case(p, "segment index out of range", [](et_ptd::FlatTensor* ft) -> bool {
      return ft->mutable_named_data()->GetMutableObject(0)->mutate_segment_index(ft->segments()->size());
    });
    mutate_case(p, "newer schema version", [](et_ptd::FlatTensor* ft) -> bool { return ft->mutate_version(7); });
    // Tensor layouts: the program must notice a layout that is not its tensor's.
    auto layout_case = [&](const std::string& what, const std::function<bool(et_ptd::TensorLayout*)>& mutate) {
      mutate_case(p, what, [&](et_ptd::FlatTensor* ft) -> bool {
        auto* named = ft->mutable_named_data();
        for (uint32_t i = 0; i < named->size(); ++i) {
          et_ptd::TensorLayout* l = named->GetMutableObject(i)->mutable_tensor_layout();
          if (l != nullptr && mutate(l)) return true;
        }
        return false;
      });
    };
    layout_case("unknown scalar type", [](et_ptd::TensorLayout* l) { return l->mutate_scalar_type(99); });
    layout_case("negative size", [](et_ptd::TensorLayout* l) -> bool {
      if (l->sizes()->size() == 0) return false;
      l->mutable_sizes()->Mutate(0, -3);
      return true;
    });
    layout_case("tensor larger than its segment", [](et_ptd::TensorLayout* l) -> bool {
      if (l->sizes()->size() == 0) return false;
      l->mutable_sizes()->Mutate(0, l->sizes()->Get(0) * 64);
      return true;
    });
    layout_case("dim order out of range", [](et_ptd::TensorLayout* l) -> bool {
      if (l->dim_order()->size() == 0) return false;
      l->mutable_dim_order()->Mutate(0, 9);
      return true;
    });
    layout_case("another dtype than the program's", [](et_ptd::TensorLayout* l) -> bool {
      return l->scalar_type() == 6 /* Float */ && l->mutate_scalar_type(7 /* Double */);
    });
    mutate_case(p, "a key the program needs renamed", [](et_ptd::FlatTensor* ft) -> bool {
      auto* key = ft->mutable_named_data()->GetMutableObject(0)->mutable_key();
      if (key == nullptr || key->size() == 0) return false;
      key->Mutate(0, static_cast<char>(key->Get(0) ^ 0x20));
      return true;
    });
    // The extended header.
    std::vector<uint8_t> bad_length = p.ptd;
    bad_length[12] = 4;  // header length 4 < 40
    expect_error(p, "short header length", bad_length);
    std::vector<uint8_t> bad_base = p.ptd;
    bad_base[8 + 24 + 7] = 0x40;  // segment base offset ~2^62
    expect_error(p, "segment base far past the end", bad_base);
    std::vector<uint8_t> bad_fb = p.ptd;
    bad_fb[8 + 16 + 7] = 0x40;  // flatbuffer size ~2^62
    expect_error(p, "flatbuffer size far past the end", bad_fb);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // removes the --gtest_* flags
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg == "--flips" && i + 1 < argc) {
      g_flips = std::atoi(argv[++i]);
    } else if (eq != std::string::npos) {
      const std::string pte = arg.substr(0, eq);
      g_pairs.push_back(
          Pair{pte.substr(pte.find_last_of('/', pte.find_last_of('/') - 1) + 1), read(pte), read(arg.substr(eq + 1))});
    }
  }
  if (g_pairs.empty() && !GTEST_FLAG_GET(list_tests)) {
    std::fprintf(stderr, "usage: ptd_robustness_test [gtest flags] PROGRAM.pte=DATA.ptd... [--flips N]\n");
    return 1;
  }
  return RUN_ALL_TESTS();
}
