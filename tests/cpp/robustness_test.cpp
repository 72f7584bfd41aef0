// Feeds damaged versions of a .pte file to the runtime: truncations, random byte flips, a wrong identifier, and
// targeted out-of-range indices, sizes and offsets. Every damaged file must give a non-Ok Error (flips may also
// succeed, when they hit weight data) and never crash. Run under AddressSanitizer + UBSan in CI.
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "program_generated.h"
#include "run_program.h"

using executorch::runtime::Error;

namespace {

int g_passed = 0;
int g_failed = 0;

void expect_error(const std::string& what, const std::vector<uint8_t>& bytes) {
  const Error e = et_test::run_program_bytes(bytes.data(), bytes.size());
  if (e == Error::Ok) {
    ++g_failed;
    std::printf("FAIL %s: accepted\n", what.c_str());
  } else {
    ++g_passed;
  }
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: robustness_test FILE.pte... [--flips N]\n");
    return 1;
  }
  int flips = 300;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--flips" && i + 1 < argc) {
      flips = std::atoi(argv[++i]);
    } else {
      files.push_back(argv[i]);
    }
  }
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (original.size() < 64) {
      std::printf("FAIL %s: cannot read\n", path.c_str());
      ++g_failed;
      continue;
    }
    // The intact file must run.
    if (et_test::run_program_bytes(original.data(), original.size()) != Error::Ok) {
      std::printf("FAIL %s: intact file does not run\n", path.c_str());
      ++g_failed;
      continue;
    }
    ++g_passed;

    // Truncation at many offsets (every offset in the first 128 bytes, then ~200 spread over the file).
    std::vector<size_t> cuts;
    for (size_t i = 0; i < 128 && i < original.size(); ++i) cuts.push_back(i);
    for (size_t k = 1; k < 200; ++k) cuts.push_back(original.size() * k / 200);
    cuts.push_back(original.size() - 1);
    for (size_t cut : cuts) {
      expect_error(path + " truncated at " + std::to_string(cut),
                   std::vector<uint8_t>(original.begin(), original.begin() + static_cast<long>(cut)));
    }

    // Wrong identifiers.
    for (const char* id : {"ET11", "ET13", "XXXX", "\0\0\0\0"}) {
      std::vector<uint8_t> bytes = original;
      std::memcpy(bytes.data() + 4, id, 4);
      expect_error(path + " identifier", bytes);
    }

    // Random byte flips: must never crash; a flip inside weight data may still run.
    std::mt19937 rng(12345);
    int flip_ok = 0;
    for (int t = 0; t < flips; ++t) {
      std::vector<uint8_t> bytes = original;
      const int n = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < n; ++k) bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      if (et_test::run_program_bytes(bytes.data(), bytes.size()) == Error::Ok) ++flip_ok;
    }
    ++g_passed;  // survived every flip
    std::printf("%s: %d random flips, %d still ran (flips in weight data), no crash\n", path.c_str(), flips, flip_ok);

    // Targeted damage through the schema.
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
      return first_tensor(p, [](et_pte::Tensor* t) { return t->mutate_scalar_type(static_cast<et_pte::ScalarType>(99)); });
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
    {
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
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
