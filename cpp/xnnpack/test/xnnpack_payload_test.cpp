// Targeted damage to XNNPACK payloads inside real upstream programs: every case must fail with an Error (never
// crash), and the undamaged programs must run (GoogleTest).
// Usage: xnnpack_payload_test [gtest flags] <tests/fixtures dir> [fixture names...]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gtest_support.h"
#include "run_program.h"
#include "xnnpack_generated.h"

#ifndef GTEST_FLAG_GET
#define GTEST_FLAG_GET(name) ::testing::GTEST_FLAG(name)
#endif

namespace {

using executorch::runtime::Error;
namespace xs = etxnn::schema;

struct Blob {
  size_t at = 0;  // offset of the XH00 header in the file
  size_t fb = 0;  // offset of the flatbuffer in the file
  uint32_t fb_size = 0;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The first delegate payload in the file: 4 zero bytes, then "XH00".
bool find_blob(const std::vector<uint8_t>& b, Blob* out) {
  for (size_t i = 0; i + 32 <= b.size(); i += 16) {
    if (std::memcmp(&b[i], "\0\0\0\0XH00", 8) != 0) continue;
    uint32_t off, size;
    std::memcpy(&off, &b[i + 10], 4);
    std::memcpy(&size, &b[i + 14], 4);
    if (i + off + size > b.size()) return false;
    *out = Blob{i, i + off, size};
    return true;
  }
  return false;
}

std::string g_dir;                 // the fixtures directory argument
std::vector<std::string> g_names;  // the fixtures to damage

struct Fixture {
  std::string name;
  std::vector<uint8_t> file;  // its xnnpack.pte
  Blob blob;
  bool found = false;  // the file has an XNNPACK payload
};

// The fixtures' programs, read once per process.
const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = [] {
    std::vector<Fixture> out;
    for (const std::string& name : g_names) {
      Fixture f;
      f.name = name;
      // A name ending in .pte is a program path under the directory (e.g. quantized/cnn/xnnpack_q8.pte).
      const bool is_path = name.size() > 4 && name.compare(name.size() - 4, 4, ".pte") == 0;
      f.file = read_file(g_dir + "/" + name + (is_path ? "" : "/xnnpack.pte"));
      f.found = !f.file.empty() && find_blob(f.file, &f.blob);
      out.push_back(std::move(f));
    }
    return out;
  }();
  return all;
}

// Runs the program after `mutate` (which returns false when the mutation does not apply).
void damaged(const std::vector<uint8_t>& file, const Blob& blob, const std::string& what,
             const std::function<bool(std::vector<uint8_t>&, xs::Graph*)>& mutate) {
  std::vector<uint8_t> copy = file;
  xs::Graph* g = xs::GetMutableGraph(copy.data() + blob.fb);
  if (!mutate(copy, g)) {
    ADD_FAILURE() << what << ": mutation did not apply";
    return;
  }
  EXPECT_NE(et_test::run_program_bytes(copy.data(), copy.size()), Error::Ok) << what << ": expected an error";
}

// `mutate` applied to the table of the first FullyConnected or Conv2d node (either table type); false without one.
template <typename F>
bool mutate_first_gemm_node(xs::Graph* g, F mutate) {
  auto* nodes = g->mutable_xnodes();
  for (flatbuffers::uoffset_t i = 0; i < nodes->size(); ++i) {
    auto* n = nodes->GetMutableObject(i);
    if (auto* fc = const_cast<xs::FullyConnectedNode*>(n->node_as_FullyConnected())) return mutate(fc);
    if (auto* c = const_cast<xs::ConvNode*>(n->node_as_Conv2d())) return mutate(c);
  }
  return false;
}

// Random byte damage inside the payload flatbuffer only (each run must return, Ok or not: reaching the end is the
// check).
void flips(const std::vector<uint8_t>& file, const Blob& blob, const std::string& name, int count) {
  uint64_t state = 0x9E3779B97F4A7C15ull ^ blob.fb_size;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int errors = 0;
  for (int k = 0; k < count; ++k) {
    std::vector<uint8_t> copy = file;
    const int nbytes = 1 + static_cast<int>(next() % 3);
    for (int j = 0; j < nbytes; ++j) copy[blob.fb + next() % blob.fb_size] = static_cast<uint8_t>(next());
    if (et_test::run_program_bytes(copy.data(), copy.size()) != Error::Ok) ++errors;
  }
  std::printf("%s: %d payload flips, %d gave an error, no crash\n", name.c_str(), count, errors);
}

TEST(XnnpackPayload, UndamagedProgramsRun) {
  ASSERT_FALSE(g_names.empty());
  for (const Fixture& f : fixtures()) {
    if (!f.found) {
      ADD_FAILURE() << f.name << ": no XNNPACK payload found";
      continue;
    }
    EXPECT_EQ(et_test::run_program_bytes(f.file.data(), f.file.size()), Error::Ok)
        << f.name << ": undamaged program runs";
  }
}

TEST(XnnpackPayload, RandomFlipsNeverCrash) {
  for (const Fixture& f : fixtures()) {
    if (f.found) flips(f.file, f.blob, f.name, 150);
  }
}

void targeted_damage(const std::vector<uint8_t>& file, const Blob& blob, const std::string& name) {
  const std::string p = name + ": ";
  damaged(file, blob, p + "header magic", [&](std::vector<uint8_t>& b, xs::Graph*) {
    b[blob.at + 7] = '9';
    return true;
  });
  damaged(file, blob, p + "flatbuffer identifier", [&](std::vector<uint8_t>& b, xs::Graph*) {
    b[blob.fb + 7] = '9';
    return true;
  });
  damaged(file, blob, p + "flatbuffer size beyond the blob", [&](std::vector<uint8_t>& b, xs::Graph*) {
    const uint32_t big = 0x7FFFFFF0u;
    std::memcpy(&b[blob.at + 14], &big, 4);
    return true;
  });
  damaged(file, blob, p + "truncated flatbuffer", [&](std::vector<uint8_t>& b, xs::Graph*) {
    const uint32_t small = blob.fb_size / 3;
    std::memcpy(&b[blob.at + 14], &small, 4);
    return true;
  });
  damaged(file, blob, p + "constant region beyond the blob", [&](std::vector<uint8_t>& b, xs::Graph*) {
    const uint64_t big = ~uint64_t{0} >> 4;
    std::memcpy(&b[blob.at + 22], &big, 8);
    return true;
  });
  damaged(file, blob, p + "root offset out of range", [&](std::vector<uint8_t>& b, xs::Graph*) {
    const uint32_t big = 0x7FFFFFF0u;
    std::memcpy(&b[blob.fb], &big, 4);
    return true;
  });
  damaged(file, blob, p + "node input id out of range", [](std::vector<uint8_t>&, xs::Graph* g) {
    return mutate_first_gemm_node(g, [](auto* t) { return t->mutate_filter_id(9999); });
  });
  damaged(file, blob, p + "node output id out of range", [](std::vector<uint8_t>&, xs::Graph* g) {
    return mutate_first_gemm_node(g, [](auto* t) { return t->mutate_output_id(123456); });
  });
  damaged(file, blob, p + "unknown node kind", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* n = reinterpret_cast<flatbuffers::Table*>(g->mutable_xnodes()->GetMutableObject(0));
    uint8_t* type = n->GetAddressOf(xs::Node::VT_NODE_TYPE);
    if (type == nullptr) return false;
    *type = 200;
    return true;
  });
  damaged(file, blob, p + "constant size differs from dims", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* cd = g->mutable_constant_data();
    for (size_t i = 1; cd && i < cd->size(); ++i) {
      auto* c = cd->GetMutableObject(static_cast<flatbuffers::uoffset_t>(i));
      if (c->size() > 0) return c->mutate_size(c->size() + 4);
    }
    return false;
  });
  damaged(file, blob, p + "weight dims differ from the node", [](std::vector<uint8_t>&, xs::Graph* g) {
    // Swap the two leading dims of the first constant with distinct dims: sizes still match, shapes do not.
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* v = values->GetMutableObject(i);
      auto* t = const_cast<xs::TensorValue*>(v->value_as_TensorValue());
      if (t == nullptr || t->constant_buffer_idx() == 0 || t->dims() == nullptr || t->dims()->size() < 2) continue;
      auto* d = t->mutable_dims();
      const uint32_t a = d->Get(0), c = d->Get(1);
      if (a == c) continue;
      d->Mutate(0, c);
      d->Mutate(1, a);
      return true;
    }
    return false;
  });
  damaged(file, blob, p + "constant index out of range", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* v = values->GetMutableObject(i);
      auto* t = const_cast<xs::TensorValue*>(v->value_as_TensorValue());
      if (t != nullptr && t->constant_buffer_idx() != 0) return t->mutate_constant_buffer_idx(999);
    }
    return false;
  });
  damaged(file, blob, p + "external id out of range", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* v = values->GetMutableObject(i);
      auto* t = const_cast<xs::TensorValue*>(v->value_as_TensorValue());
      if (t != nullptr && (t->flags() & 2u) != 0) return t->mutate_external_id(4000);
    }
    return false;
  });
  damaged(file, blob, p + "num_externs too large",
          [](std::vector<uint8_t>&, xs::Graph* g) { return g->mutate_num_externs(100000); });
  damaged(file, blob, p + "quantized dtype", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* v = values->GetMutableObject(i);
      auto* t = const_cast<xs::TensorValue*>(v->value_as_TensorValue());
      if (t != nullptr && t->constant_buffer_idx() != 0) return t->mutate_datatype(xs::DataType::qcint8);
    }
    return false;
  });
  damaged(file, blob, p + "value flags", [](std::vector<uint8_t>&, xs::Graph* g) {
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* v = values->GetMutableObject(i);
      auto* t = const_cast<xs::TensorValue*>(v->value_as_TensorValue());
      if (t != nullptr && t->flags() != 0) return t->mutate_flags(t->flags() | 0x10);
    }
    return false;
  });
}

// Like damaged(), and the error message (last_error_message()) contains `want`.
int damaged_says(const std::vector<uint8_t>& file, const Blob& blob, const std::string& what, const char* want,
                 const std::function<bool(xs::Graph*)>& mutate) {
  std::vector<uint8_t> copy = file;
  xs::Graph* g = xs::GetMutableGraph(copy.data() + blob.fb);
  if (!mutate(g)) return 0;  // the program has no such value: another fixture covers it
  EXPECT_NE(et_test::run_program_bytes(copy.data(), copy.size()), Error::Ok) << what << ": expected an error";
  const std::string msg = executorch::runtime::last_error_message();
  EXPECT_NE(msg.find(want), std::string::npos) << what << ": message '" << msg << "' lacks '" << want << "'";
  std::printf("%s: refused: %s\n", what.c_str(), msg.c_str());
  return 1;
}

// The first quantized value whose parameters are of type P (or nullptr).
template <typename P>
P* first_quant(xs::Graph* g, xs::QuantParams type, xs::QuantizedTensorValue** qv_out = nullptr) {
  auto* values = g->mutable_xvalues();
  for (flatbuffers::uoffset_t i = 0; values != nullptr && i < values->size(); ++i) {
    auto* q = const_cast<xs::QuantizedTensorValue*>(values->GetMutableObject(i)->value_as_QuantizedTensorValue());
    if (q == nullptr || q->quant_params_type() != type) continue;
    if (qv_out != nullptr) *qv_out = q;
    return static_cast<P*>(const_cast<void*>(q->quant_params()));
  }
  return nullptr;
}

// Bad quantization parameters in real quantized programs: each is refused at load with a message naming it.
int quant_damage(const std::vector<uint8_t>& file, const Blob& blob, const std::string& name) {
  const std::string p = name + ": ";
  int applied = 0;
  using QP = xs::QuantParams;
  for (float bad : {0.f, -0.5f, NAN, INFINITY}) {
    applied += damaged_says(file, blob, p + "per-tensor scale " + std::to_string(bad),
                            "quantization scales must be positive", [bad](xs::Graph* g) {
                              auto* q = first_quant<xs::PerTensorQuant>(g, QP::PerTensorQuant);
                              return q != nullptr && q->mutate_scale(bad);
                            });
  }
  applied += damaged_says(file, blob, p + "zero point out of range", "zero point", [](xs::Graph* g) {
    auto* values = g->mutable_xvalues();
    for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
      auto* q = const_cast<xs::QuantizedTensorValue*>(values->GetMutableObject(i)->value_as_QuantizedTensorValue());
      if (q == nullptr || q->quant_params_type() != QP::PerTensorQuant) continue;
      auto* t = static_cast<xs::PerTensorQuant*>(const_cast<void*>(q->quant_params()));
      if (t->zero_point() != 0 && t->mutate_zero_point(300)) return true;  // only a stored (non-default) field
    }
    return false;
  });
  applied += damaged_says(file, blob, p + "per-channel channel dim", "channel dim", [](xs::Graph* g) {
    auto* q = first_quant<xs::PerChannelQuant>(g, QP::PerChannelQuant);
    return q != nullptr && q->mutate_channel_dim(7);
  });
  applied += damaged_says(file, blob, p + "per-channel scale count", "scales, its dims need", [](xs::Graph* g) {
    auto* q = first_quant<xs::PerChannelQuant>(g, QP::PerChannelQuant);
    return q != nullptr && q->num_scales() > 1 && q->mutate_num_scales(q->num_scales() - 1);
  });
  applied += damaged_says(file, blob, p + "blockwise group size", "group size", [](xs::Graph* g) {
    auto* q = first_quant<xs::PerChannelGroupQuant>(g, QP::PerChannelGroupQuant);
    return q != nullptr && q->mutate_group_size(q->group_size() + 1);
  });
  applied += damaged_says(file, blob, p + "blockwise scale count", "scales, its dims need", [](xs::Graph* g) {
    auto* q = first_quant<xs::PerChannelGroupQuant>(g, QP::PerChannelGroupQuant);
    return q != nullptr && q->num_scales() > 1 && q->mutate_num_scales(q->num_scales() - 1);
  });
  applied += damaged_says(file, blob, p + "per-token non-batch dims", "non-batch dims", [](xs::Graph* g) {
    auto* q = first_quant<xs::PerTokenDynamicQuant>(g, QP::PerTokenDynamicQuant);
    return q != nullptr && q->mutate_num_nonbatch_dims(9);
  });
  applied +=
      damaged_says(file, blob, p + "quantized value of an unsupported datatype", "is not supported", [](xs::Graph* g) {
        xs::QuantizedTensorValue* qv = nullptr;
        if (first_quant<xs::PerTensorQuant>(g, QP::PerTensorQuant, &qv) == nullptr) return false;
        return const_cast<xs::TensorValue*>(qv->tensor_value())->mutate_datatype(xs::DataType::qpint8);
      });
  return applied;
}

// Programs with quantized values (their damage is quant_damage's; targeted_damage mutates fp32 values).
bool is_quantized(const Fixture& f) {
  std::vector<uint8_t> copy = f.file;
  xs::Graph* g = xs::GetMutableGraph(copy.data() + f.blob.fb);
  return first_quant<void>(g, xs::QuantParams::PerTensorQuant) != nullptr ||
         first_quant<void>(g, xs::QuantParams::PerTokenDynamicQuant) != nullptr;
}

TEST(XnnpackPayload, QuantizedParametersAreChecked) {
  int quantized = 0;
  for (const Fixture& f : fixtures()) {
    if (!f.found || !is_quantized(f)) continue;
    ++quantized;
    EXPECT_GT(quant_damage(f.file, f.blob, f.name), 0) << f.name << ": no quantization damage applied";
  }
  if (quantized == 0) GTEST_SKIP() << "no quantized program among the fixtures given";
}

TEST(XnnpackPayload, TargetedDamageFails) {
  for (const Fixture& f : fixtures()) {
    if (f.found && !is_quantized(f)) targeted_damage(f.file, f.blob, f.name);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // removes the --gtest_* flags
  if (argc < 2 && !GTEST_FLAG_GET(list_tests)) {
    std::fprintf(stderr, "usage: %s [gtest flags] <fixtures dir> [fixture names...]\n", argv[0]);
    return 2;
  }
  if (argc >= 2) g_dir = argv[1];
  for (int i = 2; i < argc; ++i) g_names.push_back(argv[i]);
  if (g_names.empty()) {
    g_names = {"mlp",
               "cnn",
               "unet",
               "mobilenet_v3",
               "audio_conv1d",
               "quantized/cnn/xnnpack_q8.pte",
               "quantized/transformer/xnnpack_q8.pte",
               "quantized/linear_8da4w/xnnpack_q8.pte"};
  }
  return RUN_ALL_TESTS();
}
