// Feeds damaged versions of .pte files to the runtime: truncations, random byte flips, a wrong identifier, and
// targeted out-of-range indices, sizes and offsets. Every damaged file must give a non-Ok Error (flips may also
// succeed, when they hit weight data) and never crash. Run under AddressSanitizer + UBSan in CI (GoogleTest).
// Usage: robustness_test [gtest flags] FILE.pte... [--flips N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gtest_support.h"
#include "program_generated.h"
#include "run_program.h"

#ifndef GTEST_FLAG_GET
#define GTEST_FLAG_GET(name) ::testing::GTEST_FLAG(name)
#endif

using executorch::runtime::Error;

namespace {

std::vector<std::string> g_files;  // the FILE.pte arguments
int g_flips = 300;

struct Pte {
  std::string path;
  std::vector<uint8_t> bytes;
  bool runs = false;  // the intact file loads and runs
};

// The files, read once per process; the intact programs are run once too.
const std::vector<Pte>& ptes() {
  static const std::vector<Pte> all = [] {
    std::vector<Pte> out;
    for (const std::string& path : g_files) {
      std::ifstream in(path, std::ios::binary);
      Pte p{path, std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())};
      p.runs = p.bytes.size() >= 64 && et_test::run_program_bytes(p.bytes.data(), p.bytes.size()) == Error::Ok;
      out.push_back(std::move(p));
    }
    return out;
  }();
  return all;
}

// The files the damage tests start from: those whose intact program runs (IntactProgramsRun reports the others).
std::vector<const Pte*> usable() {
  std::vector<const Pte*> out;
  for (const Pte& p : ptes()) {
    if (p.runs) out.push_back(&p);
  }
  return out;
}

void expect_error(const std::string& what, const std::vector<uint8_t>& bytes) {
  EXPECT_NE(et_test::run_program_bytes(bytes.data(), bytes.size()), Error::Ok) << what << ": accepted";
}

// Applies `mutate` to a fresh copy of the program and expects an error.
void mutate_case(const std::string& what, const std::vector<uint8_t>& original,
                 const std::function<bool(et_pte::Program*)>& mutate) {
  std::vector<uint8_t> bytes = original;
  auto* program = et_pte::GetMutableProgram(bytes.data());
  if (!mutate(program)) return;  // this file has nothing to mutate for this case
  expect_error(what, bytes);
}

template <typename V, typename T>
bool mut(V* v, uint32_t i, T x) {
  v->Mutate(i, x);
  return true;
}

et_pte::ExecutionPlan* plan0(et_pte::Program* p) { return p->mutable_execution_plan()->GetMutableObject(0); }

TEST(Robustness, IntactProgramsRun) {
  ASSERT_FALSE(g_files.empty()) << "no FILE.pte arguments";
  for (const Pte& p : ptes()) {
    if (p.bytes.size() < 64) {
      ADD_FAILURE() << p.path << ": cannot read";
      continue;
    }
    EXPECT_TRUE(p.runs) << p.path << ": intact file does not run";
  }
}

// Truncation at many offsets (every offset in the first 128 bytes, then ~200 spread over the file).
TEST(Robustness, Truncations) {
  for (const Pte* p : usable()) {
    const std::string& path = p->path;
    const std::vector<uint8_t>& original = p->bytes;
    std::vector<size_t> cuts;
    for (size_t i = 0; i < 128 && i < original.size(); ++i) cuts.push_back(i);
    for (size_t k = 1; k < 200; ++k) cuts.push_back(original.size() * k / 200);
    cuts.push_back(original.size() - 1);
    for (size_t cut : cuts) {
      expect_error(path + " truncated at " + std::to_string(cut),
                   std::vector<uint8_t>(original.begin(), original.begin() + static_cast<long>(cut)));
    }
  }
}

TEST(Robustness, WrongIdentifiers) {
  for (const Pte* p : usable()) {
    for (const char* id : {"ET11", "ET13", "XXXX", "\0\0\0\0"}) {
      std::vector<uint8_t> bytes = p->bytes;
      std::memcpy(bytes.data() + 4, id, 4);
      expect_error(p->path + " identifier", bytes);
    }
  }
}

// Random byte flips: must never crash (reaching the end is the check); a flip inside weight data may still run.
TEST(Robustness, RandomFlipsNeverCrash) {
  for (const Pte* p : usable()) {
    const std::vector<uint8_t>& original = p->bytes;
    std::mt19937 rng(12345);
    int flip_ok = 0;
    for (int t = 0; t < g_flips; ++t) {
      std::vector<uint8_t> bytes = original;
      const int n = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < n; ++k) bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      if (et_test::run_program_bytes(bytes.data(), bytes.size()) == Error::Ok) ++flip_ok;
    }
    std::printf("%s: %d random flips, %d still ran (flips in weight data), no crash\n", p->path.c_str(), g_flips,
                flip_ok);
  }
}

// Targeted damage through the schema.
TEST(Robustness, TargetedSchemaDamage) {
  for (const Pte* pte : usable()) {
    const std::string& path = pte->path;
    const std::vector<uint8_t>& original = pte->bytes;
    mutate_case(path + " operator index", original, [](et_pte::Program* p) {
      auto* list = plan0(p)->mutable_chains()->GetMutableObject(0)->mutable_instructions();
      for (uint32_t k = 0; k < list->size(); ++k) {
        auto* ins = list->GetMutableObject(k);
        if (ins->instr_args_type() == et_pte::InstructionArguments::KernelCall) {
          return const_cast<et_pte::KernelCall*>(ins->instr_args_as_KernelCall())->mutate_op_index(1000);
        }
      }
      return false;
    });
    mutate_case(path + " argument index", original, [](et_pte::Program* p) {
      auto* ins = plan0(p)->mutable_chains()->GetMutableObject(0)->mutable_instructions()->GetMutableObject(0);
      auto* call = const_cast<et_pte::KernelCall*>(ins->instr_args_as_KernelCall());
      if (call == nullptr) {
        auto* d = const_cast<et_pte::DelegateCall*>(ins->instr_args_as_DelegateCall());
        return d != nullptr && d->mutable_args()->size() > 0 && mut(d->mutable_args(), 0, 1 << 20);
      }
      return call->mutable_args()->size() > 0 && mut(call->mutable_args(), 0, -3);
    });
    mutate_case(path + " input index", original, [](et_pte::Program* p) {
      auto* inputs = plan0(p)->mutable_inputs();
      return inputs != nullptr && inputs->size() > 0 && mut(inputs, 0, 1 << 24);
    });
    mutate_case(path + " output index", original, [](et_pte::Program* p) {
      auto* outputs = plan0(p)->mutable_outputs();
      return outputs != nullptr && outputs->size() > 0 && mut(outputs, 0, -1);
    });
    mutate_case(path + " delegate index", original, [](et_pte::Program* p) {
      auto* list = plan0(p)->mutable_chains()->GetMutableObject(0)->mutable_instructions();
      for (uint32_t k = 0; k < list->size(); ++k) {
        auto* ins = list->GetMutableObject(k);
        if (ins->instr_args_type() == et_pte::InstructionArguments::DelegateCall) {
          return const_cast<et_pte::DelegateCall*>(ins->instr_args_as_DelegateCall())->mutate_delegate_index(77);
        }
      }
      return false;
    });
    mutate_case(path + " segment offset", original, [](et_pte::Program* p) {
      auto* segs = p->mutable_segments();
      return segs != nullptr && segs->size() > 0 && segs->GetMutableObject(0)->mutate_offset(~uint64_t(0) - 8);
    });
    mutate_case(path + " segment size", original, [](et_pte::Program* p) {
      auto* segs = p->mutable_segments();
      return segs != nullptr && segs->size() > 0 && segs->GetMutableObject(0)->mutate_size(uint64_t(1) << 40);
    });
    mutate_case(path + " constant segment index", original, [](et_pte::Program* p) {
      auto* cs = p->mutable_constant_segment();
      return cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1 && cs->mutate_segment_index(99);
    });
    mutate_case(path + " constant offset", original, [](et_pte::Program* p) {
      auto* cs = p->mutable_constant_segment();
      return cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1 &&
             mut(cs->mutable_offsets(), 1, uint64_t(1) << 50);
    });
    mutate_case(path + " planned buffer size", original, [](et_pte::Program* p) {
      auto* sizes = plan0(p)->mutable_non_const_buffer_sizes();
      return sizes != nullptr && sizes->size() > 1 && mut(sizes, 1, int64_t(1) << 50);
    });
    mutate_case(path + " planned buffer size negative", original, [](et_pte::Program* p) {
      auto* sizes = plan0(p)->mutable_non_const_buffer_sizes();
      return sizes != nullptr && sizes->size() > 1 && mut(sizes, 1, -16);
    });
    auto first_tensor = [](et_pte::Program* p, const std::function<bool(et_pte::Tensor*)>& f) {
      auto* values = plan0(p)->mutable_values();
      for (uint32_t k = 0; k < values->size(); ++k) {
        auto* v = values->GetMutableObject(k);
        if (v->val_type() == et_pte::KernelTypes::Tensor && f(const_cast<et_pte::Tensor*>(v->val_as_Tensor()))) {
          return true;
        }
      }
      return false;
    };
    mutate_case(path + " absurd tensor size", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->sizes() != nullptr && t->sizes()->size() > 0 && mut(t->mutable_sizes(), 0, 0x7fffffff);
      });
    });
    mutate_case(path + " negative tensor size", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->sizes() != nullptr && t->sizes()->size() > 0 && mut(t->mutable_sizes(), 0, -5);
      });
    });
    mutate_case(path + " dim order", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->dim_order() != nullptr && t->dim_order()->size() > 1 && mut(t->mutable_dim_order(), 0, 9);
      });
    });
    mutate_case(path + " dtype", original, [&](et_pte::Program* p) {
      return first_tensor(p,
                          [](et_pte::Tensor* t) { return t->mutate_scalar_type(static_cast<et_pte::ScalarType>(99)); });
    });
    mutate_case(path + " constant index", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->allocation_info() == nullptr && t->data_buffer_idx() > 0 && t->mutate_data_buffer_idx(1 << 30);
      });
    });
    mutate_case(path + " memory id", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->allocation_info() != nullptr &&
               const_cast<et_pte::AllocationDetails*>(t->allocation_info())->mutate_memory_id(40);
      });
    });
    mutate_case(path + " memory offset", original, [&](et_pte::Program* p) {
      return first_tensor(p, [](et_pte::Tensor* t) {
        return t->allocation_info() != nullptr &&
               const_cast<et_pte::AllocationDetails*>(t->allocation_info())->mutate_memory_offset_high(7);
      });
    });
    mutate_case(path + " int list item", original, [](et_pte::Program* p) {
      auto* values = plan0(p)->mutable_values();
      for (uint32_t k = 0; k < values->size(); ++k) {
        auto* v = values->GetMutableObject(k);
        if (v->val_type() == et_pte::KernelTypes::IntList) {
          auto* items = const_cast<et_pte::IntList*>(v->val_as_IntList())->mutable_items();
          if (items->size() > 0) return mut(items, 0, int64_t(1) << 40);
        }
      }
      return false;
    });
    mutate_case(path + " tensor list item", original, [](et_pte::Program* p) {
      auto* values = plan0(p)->mutable_values();
      for (uint32_t k = 0; k < values->size(); ++k) {
        auto* v = values->GetMutableObject(k);
        if (v->val_type() == et_pte::KernelTypes::TensorList) {
          auto* items = const_cast<et_pte::TensorList*>(v->val_as_TensorList())->mutable_items();
          if (items->size() > 0) return mut(items, 0, -9);
        }
      }
      return false;
    });
  }
}

// The extended header ("eh00"), where the file has one.
TEST(Robustness, HeaderDamage) {
  for (const Pte* pte : usable()) {
    const std::string& path = pte->path;
    const std::vector<uint8_t>& original = pte->bytes;
    std::vector<uint8_t> bytes = original;
    if (std::memcmp(bytes.data() + 8, "eh00", 4) == 0) {
      const uint64_t huge = uint64_t(1) << 60;
      std::memcpy(bytes.data() + 16, &huge, 8);
      expect_error(path + " header program size", bytes);
      bytes = original;
      std::memcpy(bytes.data() + 24, &huge, 8);
      expect_error(path + " header segment offset", bytes);
      bytes = original;
      const uint32_t short_len = 8;
      std::memcpy(bytes.data() + 12, &short_len, 4);
      expect_error(path + " header length", bytes);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // removes the --gtest_* flags
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--flips" && i + 1 < argc) {
      g_flips = std::atoi(argv[++i]);
    } else {
      g_files.push_back(argv[i]);
    }
  }
  if (g_files.empty() && !GTEST_FLAG_GET(list_tests)) {
    std::fprintf(stderr, "usage: robustness_test [gtest flags] FILE.pte... [--flips N]\n");
    return 1;
  }
  return RUN_ALL_TESTS();
}
