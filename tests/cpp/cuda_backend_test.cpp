// CudaBackend (libexecutorch_cuda) test (GoogleTest), built with -DEXECUTORCH_BUILD_CUDA=ON.
//
// Loads the library through the runtime's component loader and checks, on any machine:
//   * every operator of cpp/cuda/operators.txt is known to the reader;
//   * the payload reader (CudaBackend::init) rejects bad magic, truncation, a length mismatch, an ELF payload and
//     AOTInductor compile specs (with the AOTInductor message), unknown operators (named), non-fp32 tensors,
//     out-of-range indices, wrong arities and mismatched shapes; and accepts a hand-built mm + add + relu payload;
//   * a whole program with a CudaBackend DelegateCall loads through Module.
// Without a CUDA device: is_available() is false with the reason ("no CUDA device: ..."), init of the valid
// payload says "payload accepted" and why it cannot run, and Module's error names the reason.
// With a device: the valid program runs and matches a CPU reference, for batch 4 and (dynamic) batch 2.
//
// The CUDA runtime and cuBLAS libraries are preloaded from ET_CUDA_LIBRARY_DIR (environment, else the build's
// EXECUTORCH_CUDA_LIBRARY_DIR) so the build tree needs no LD_LIBRARY_PATH.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/components.h>

#include <gtest/gtest.h>

#include "gtest_support.h"
#include "program_generated.h"

using executorch::runtime::ArrayRef;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::last_error_message;

namespace {

// EXPECT_TRUE(ok) with what was checked; passing checks are listed too ("ok   what"), as the messages they carry
// (the reader's error texts) are part of what this test shows.
void check(bool ok, const std::string& what, const std::string& detail = "") {
  EXPECT_TRUE(ok) << what << (detail.empty() ? "" : ": ") << detail;
  if (ok) std::printf("ok   %s\n", what.c_str());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- payload builder --------------------------------------------------------------------------------------------

struct Inner {
  std::string op0 = "aten::mm";  // first call's operator name / overload
  std::string op0_overload = "out";
  et_pte::ScalarType x_type = et_pte::ScalarType::FLOAT;
  std::vector<int32_t> w_sizes = {3, 5};
  std::vector<int32_t> mm_args = {0, 1, 2};
  bool x_dynamic = false;
};

const float kX[4][3] = {{1, -2, 3}, {0.5f, 0.25f, -1}, {-3, 1, 2}, {2, 2, 2}};
const float kW[3][5] = {{1, 0, -1, 2, 0.5f}, {0, 1, 1, -1, 0.25f}, {-1, 2, 0, 1, 1}};
const float kB[5] = {0.5f, -1, 0, 0.25f, -4};

std::vector<uint8_t> bytes_of(const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  return std::vector<uint8_t>(b, b + n);
}

// values: 0 x[4,3] (input), 1 w[3,5] (const), 2 mm_out[4,5], 3 b[5] (const), 4 alpha=1, 5 add_out, 6 relu_out
std::vector<uint8_t> build_program(const Inner& in) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<uint8_t> order2 = {0, 1}, order1 = {0};
  const std::vector<int32_t> xs = {4, 3}, os = {4, 5}, bs = {5};
  const std::vector<uint8_t> order_w(in.w_sizes.size() == 2 ? order2 : order1);
  auto tensor = [&](const std::vector<int32_t>& sizes, const std::vector<uint8_t>& order, uint32_t buf,
                    et_pte::ScalarType type, bool dynamic) {
    auto t = et_pte::CreateTensorDirect(
        fbb, type, 0, &sizes, &order, false, buf, 0, 0,
        dynamic ? et_pte::TensorShapeDynamism::DYNAMIC_BOUND : et_pte::TensorShapeDynamism::STATIC);
    return et_pte::CreateEValue(fbb, et_pte::KernelTypes::Tensor, t.Union());
  };
  std::vector<flatbuffers::Offset<et_pte::EValue>> values = {
      tensor(xs, order2, 0, in.x_type, in.x_dynamic),
      tensor(in.w_sizes, order_w, 1, et_pte::ScalarType::FLOAT, false),
      tensor(os, order2, 0, et_pte::ScalarType::FLOAT, in.x_dynamic),
      tensor(bs, order1, 2, et_pte::ScalarType::FLOAT, false),
      et_pte::CreateEValue(fbb, et_pte::KernelTypes::Int, et_pte::CreateInt(fbb, 1).Union()),
      tensor(os, order2, 0, et_pte::ScalarType::FLOAT, in.x_dynamic),
      tensor(os, order2, 0, et_pte::ScalarType::FLOAT, in.x_dynamic),
  };
  std::vector<flatbuffers::Offset<et_pte::Operator>> ops = {
      et_pte::CreateOperatorDirect(fbb, in.op0.c_str(), in.op0_overload.c_str()),
      et_pte::CreateOperatorDirect(fbb, "aten::add", "out"),
      et_pte::CreateOperatorDirect(fbb, "aten::relu", "out"),
  };
  auto call = [&](int op, const std::vector<int32_t>& args) {
    auto kc = et_pte::CreateKernelCallDirect(fbb, op, &args);
    return et_pte::CreateInstruction(fbb, et_pte::InstructionArguments::KernelCall, kc.Union());
  };
  std::vector<flatbuffers::Offset<et_pte::Instruction>> instructions = {call(0, in.mm_args), call(1, {2, 3, 4, 5}),
                                                                        call(2, {5, 6})};
  const std::vector<int32_t> inputs = {0}, outputs = {6};
  std::vector<flatbuffers::Offset<et_pte::Chain>> chains = {
      et_pte::CreateChainDirect(fbb, &inputs, &outputs, &instructions)};
  std::vector<flatbuffers::Offset<et_pte::ExecutionPlan>> plans = {
      et_pte::CreateExecutionPlanDirect(fbb, "subgraph", 0, &values, &inputs, &outputs, &chains, &ops)};
  size_t wn = 1;
  for (int32_t d : in.w_sizes) wn *= static_cast<size_t>(d);
  std::vector<float> w(wn, 0.f);
  std::memcpy(w.data(), kW, std::min(sizeof(kW), wn * sizeof(float)));
  const std::vector<uint8_t> empty, wb = bytes_of(w.data(), w.size() * 4), bb = bytes_of(kB, sizeof(kB));
  std::vector<flatbuffers::Offset<et_pte::Buffer>> buffers = {et_pte::CreateBufferDirect(fbb, &empty),
                                                              et_pte::CreateBufferDirect(fbb, &wb),
                                                              et_pte::CreateBufferDirect(fbb, &bb)};
  fbb.Finish(et_pte::CreateProgramDirect(fbb, 0, &plans, &buffers), et_pte::ProgramIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<uint8_t> wrap(const std::vector<uint8_t>& program) {
  const uint64_t n = program.size();
  std::vector<uint8_t> out(16 + program.size());
  std::memcpy(out.data(), "ETCUDA01", 8);
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<uint8_t>(n >> (8 * i));
  if (!program.empty()) std::memcpy(out.data() + 16, program.data(), program.size());
  return out;
}

// An outer ET12 program: forward(x[4,3]) -> CudaBackend delegate -> out[4,5] (planned memory).
std::vector<uint8_t> build_outer(const std::vector<uint8_t>& payload, bool dynamic) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<uint8_t> order2 = {0, 1};
  const std::vector<int32_t> xs = {4, 3}, os = {4, 5};
  const auto dyn = dynamic ? et_pte::TensorShapeDynamism::DYNAMIC_BOUND : et_pte::TensorShapeDynamism::STATIC;
  auto x = et_pte::CreateTensorDirect(fbb, et_pte::ScalarType::FLOAT, 0, &xs, &order2, false, 0, 0, 0, dyn);
  auto alloc = et_pte::CreateAllocationDetails(fbb, 1, 0, 0);
  auto o = et_pte::CreateTensorDirect(fbb, et_pte::ScalarType::FLOAT, 0, &os, &order2, false, 0, alloc, 0, dyn);
  std::vector<flatbuffers::Offset<et_pte::EValue>> values = {
      et_pte::CreateEValue(fbb, et_pte::KernelTypes::Tensor, x.Union()),
      et_pte::CreateEValue(fbb, et_pte::KernelTypes::Tensor, o.Union())};
  const std::vector<int32_t> args = {0, 1};
  auto dc = et_pte::CreateDelegateCallDirect(fbb, 0, &args);
  std::vector<flatbuffers::Offset<et_pte::Instruction>> instructions = {
      et_pte::CreateInstruction(fbb, et_pte::InstructionArguments::DelegateCall, dc.Union())};
  const std::vector<int32_t> inputs = {0}, outputs = {1};
  std::vector<flatbuffers::Offset<et_pte::Chain>> chains = {
      et_pte::CreateChainDirect(fbb, &inputs, &outputs, &instructions)};
  auto ref = et_pte::CreateBackendDelegateDataReference(fbb, et_pte::DataLocation::INLINE, 0);
  std::vector<flatbuffers::Offset<et_pte::CompileSpec>> specs;
  std::vector<flatbuffers::Offset<et_pte::BackendDelegate>> delegates = {
      et_pte::CreateBackendDelegateDirect(fbb, "CudaBackend", ref, &specs)};
  const std::vector<int64_t> buffer_sizes = {0, 4 * 5 * 4};
  std::vector<flatbuffers::Offset<et_pte::Operator>> ops;
  std::vector<flatbuffers::Offset<et_pte::ExecutionPlan>> plans = {et_pte::CreateExecutionPlanDirect(
      fbb, "forward", 0, &values, &inputs, &outputs, &chains, &ops, &delegates, &buffer_sizes)};
  const std::vector<uint8_t> empty;
  std::vector<flatbuffers::Offset<et_pte::Buffer>> buffers = {et_pte::CreateBufferDirect(fbb, &empty)};
  std::vector<flatbuffers::Offset<et_pte::BackendDelegateInlineData>> data = {
      et_pte::CreateBackendDelegateInlineDataDirect(fbb, &payload)};
  fbb.Finish(et_pte::CreateProgramDirect(fbb, 0, &plans, &buffers, &data), et_pte::ProgramIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// ---- helpers ------------------------------------------------------------------------------------------------------

struct InitResult {
  Error error;
  std::string message;
  void* handle;
};

InitResult init(BackendInterface* backend, const std::vector<uint8_t>& payload,
                const std::vector<CompileSpec>& specs = {}) {
  // 16-byte aligned copy, like the runtime's inline delegate data.
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (payload.size() + 15) / 16 * 16 + 16)), std::free);
  if (!payload.empty()) std::memcpy(copy.get(), payload.data(), payload.size());
  FreeableBuffer buf(copy.get(), payload.size(), nullptr);
  BackendInitContext ctx(nullptr, nullptr, "forward", nullptr);
  executorch::runtime::clear_last_error();
  auto r = backend->init(ctx, &buf, ArrayRef<CompileSpec>(specs.data(), specs.size()));
  InitResult out{r.ok() ? Error::Ok : r.error(), last_error_message(), r.ok() ? *r : nullptr};
  return out;
}

void expect_reject(BackendInterface* backend, const std::string& what, const std::vector<uint8_t>& payload,
                   const std::vector<std::string>& parts, const std::vector<CompileSpec>& specs = {}) {
  InitResult r = init(backend, payload, specs);
  if (r.error == Error::Ok) {
    backend->destroy(r.handle);
    check(false, what, "accepted");
    return;
  }
  bool ok = true;
  for (const std::string& p : parts) ok = ok && contains(r.message, p);
  ok = ok && !contains(r.message, "payload accepted");
  check(ok, what + " -> " + r.message, "message lacks the expected text");
}

void preload_cuda_libraries() {
  const char* env = std::getenv("ET_CUDA_LIBRARY_DIR");
  const std::string dir = env && *env ? env : ET_CUDA_LIBRARY_DIR;
  for (const char* lib :
       {"libcudart.so." ET_CUDA_MAJOR, "libcublasLt.so." ET_CUDA_MAJOR, "libcublas.so." ET_CUDA_MAJOR}) {
    if (dlopen(lib, RTLD_NOW | RTLD_GLOBAL) != nullptr) continue;  // found on the search path
    const std::string path = dir + "/" + lib;
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::printf("note: cannot preload %s: %s\n", path.c_str(), dlerror());
    }
  }
}

float ref_out(int r, int c) {
  float s = kB[c];
  for (int k = 0; k < 3; ++k) s += kX[r][k] * kW[k][c];
  return s < 0 ? 0 : s;
}

void run_module(const std::vector<uint8_t>& pte, bool have_device) {
  using executorch::extension::make_tensor_ptr;
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(std::aligned_alloc(16, (pte.size() + 15) / 16 * 16 + 16)), std::free);
  std::memcpy(copy.get(), pte.data(), pte.size());
  executorch::extension::module::Module module(
      std::make_unique<executorch::extension::BufferDataLoader>(copy.get(), pte.size()));
  for (int batch : {4, 2}) {
    std::vector<float> x(&kX[0][0], &kX[0][0] + batch * 3);
    auto input = make_tensor_ptr({batch, 3}, x.data());
    executorch::runtime::clear_last_error();
    auto result = module.forward(input);
    const std::string msg = last_error_message();
    if (!have_device) {
      check(!result.ok() && contains(msg, "not available on this machine") && contains(msg, "no CUDA device"),
            "Module::forward without a device names the reason -> " + msg);
      return;
    }
    if (!result.ok()) {
      check(false, "Module::forward batch " + std::to_string(batch), msg);
      continue;
    }
    const auto& out = result->at(0).toTensor();
    bool ok = out.dim() == 2 && out.size(0) == batch && out.size(1) == 5;
    double max_err = 0;
    if (ok) {
      const float* p = out.const_data_ptr<float>();
      for (int r = 0; r < batch; ++r) {
        for (int c = 0; c < 5; ++c) max_err = std::max(max_err, std::fabs(double(p[r * 5 + c]) - ref_out(r, c)));
      }
    }
    check(ok && max_err < 1e-5, "Module::forward on the GPU, batch " + std::to_string(batch),
          "shape or values differ (max error " + std::to_string(max_err) + ")");
  }
}

// libexecutorch_cuda loaded once per process through the component loader, CUDA libraries preloaded first.
class CudaBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    preload_cuda_libraries();
    load_error_ = executorch::runtime::load_component("cuda");
    load_message_ = last_error_message();
    backend_ = executorch::runtime::get_backend_class("CudaBackend");
    if (backend_ != nullptr) {
      executorch::runtime::clear_last_error();
      have_device_ = backend_->is_available();
      why_ = last_error_message();
      std::printf("is_available(): %s%s%s\n", have_device_ ? "true" : "false", why_.empty() ? "" : " -- ",
                  why_.c_str());
    }
  }
  void SetUp() override {
    ASSERT_EQ(load_error_, Error::Ok) << "load_component(\"cuda\"): " << load_message_;
    ASSERT_NE(backend_, nullptr) << "CudaBackend is not registered";
  }
  static inline Error load_error_ = Error::Ok;
  static inline std::string load_message_;
  static inline BackendInterface* backend_ = nullptr;
  static inline bool have_device_ = false;
  static inline std::string why_;  // is_available()'s reason
  const std::vector<uint8_t> good_ = wrap(build_program(Inner{}));
  const std::string aoti_ = "AOTInductor";
  const std::string lower_ = "python -m executorch.lower --backend cuda";
};

std::vector<uint8_t> elf_payload() {
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  elf.resize(256, 0);
  return elf;
}

TEST_F(CudaBackendTest, AvailabilityGivesItsReason) {
  if (!have_device_)
    check(contains(why_, "no CUDA device: cudaGetDeviceCount"), "is_available() gives the reason", why_);
}

// Rejections (host-side checks, independent of any device).
TEST_F(CudaBackendTest, ReaderRejectsBadPayloads) {
  BackendInterface* backend = backend_;
  const std::vector<uint8_t>& good = good_;
  const std::string& aoti = aoti_;
  const std::string& lower = lower_;
  std::vector<uint8_t> bad = good;
  std::memcpy(bad.data(), "ETCUDA02", 8);
  expect_reject(backend, "bad magic", bad, {"bad magic", "ETCUDA01"});
  expect_reject(backend, "empty payload", {}, {"truncated"});
  expect_reject(backend, "truncated header", std::vector<uint8_t>(good.begin(), good.begin() + 12), {"truncated"});
  expect_reject(backend, "truncated program", std::vector<uint8_t>(good.begin(), good.end() - 40), {"truncated"});
  bad = good;
  bad.insert(bad.end(), 16, 0);
  expect_reject(backend, "length mismatch", bad, {"length mismatch"});
  expect_reject(backend, "ELF payload", elf_payload(), {aoti, lower});
  {
    static char key[] = "method_name";
    static char value[] = "forward";
    std::vector<CompileSpec> specs = {CompileSpec{key, {value, 7}}};
    expect_reject(backend, "AOTInductor compile specs", {}, {aoti, lower}, specs);
  }
  bad = good;
  std::memset(bad.data() + 16 + 4, 'X', 4);  // the flatbuffer identifier
  expect_reject(backend, "not an ET12 program", bad, {"ET12"});
  bad = good;
  for (size_t i = 40; i < bad.size(); i += 7) bad[i] ^= 0x5a;
  {
    InitResult r = init(backend, bad);
    if (r.error == Error::Ok) backend->destroy(r.handle);
    check(r.error != Error::Ok && !contains(r.message, "payload accepted"), "damaged program -> " + r.message);
  }
  Inner conv;
  conv.op0 = "aten::convolution";
  expect_reject(backend, "unknown operator", wrap(build_program(conv)), {"aten::convolution.out", "operators.txt"});
  Inner i64;
  i64.x_type = et_pte::ScalarType::LONG;
  expect_reject(backend, "int64 tensor", wrap(build_program(i64)), {"fp32"});
  Inner range;
  range.mm_args = {0, 1, 99};
  expect_reject(backend, "argument index out of range", wrap(build_program(range)), {"out of range"});
  Inner arity;
  arity.mm_args = {0, 1};
  expect_reject(backend, "wrong arity", wrap(build_program(arity)), {"aten::mm.out", "arguments"});
  Inner shape;
  shape.w_sizes = {4, 5};
  expect_reject(backend, "mismatched matmul shapes", wrap(build_program(shape)), {"cannot multiply"});
  Inner kind;
  kind.mm_args = {0, 4, 2};
  expect_reject(backend, "Int where a Tensor is expected", wrap(build_program(kind)), {"kind Int, expected Tensor"});
  Inner writes_const;
  writes_const.mm_args = {0, 3, 1};
  expect_reject(backend, "call writing a constant", wrap(build_program(writes_const)), {"constant"});
}

// Every operator of cpp/cuda/operators.txt is known to the reader (it may reject these calls for their
// arguments, but never as an unknown or unimplemented operator).
TEST_F(CudaBackendTest, ReaderKnowsEveryListedOperator) {
  BackendInterface* backend = backend_;
  std::ifstream list(ET_CUDA_OPERATORS_TXT);
  std::string line;
  int n = 0, bad_ops = 0;
  std::string bad_names;
  while (std::getline(list, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t dot = line.find('.');
    Inner op;
    op.op0 = line.substr(0, dot);
    op.op0_overload = dot == std::string::npos ? "" : line.substr(dot + 1);
    InitResult r = init(backend, wrap(build_program(op)));
    if (r.error == Error::Ok) backend->destroy(r.handle);
    ++n;
    if (contains(r.message, "not one the CUDA delegate runs") || contains(r.message, "has no kernel")) {
      ++bad_ops;
      bad_names += " " + line;
    }
  }
  check(n > 20 && bad_ops == 0, "all " + std::to_string(n) + " operators of operators.txt are implemented", bad_names);
}

// Random damage and truncations of the valid payload: any outcome but a crash (run under ASan in CI builds).
TEST_F(CudaBackendTest, DamagedPayloadsDoNotCrashTheReader) {
  BackendInterface* backend = backend_;
  const std::vector<uint8_t>& good = good_;
  uint32_t seed = 12345;
  auto rnd = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  int rejected = 0, total = 0;
  const char* rounds_env = std::getenv("ET_CUDA_FUZZ_ROUNDS");
  const int rounds = rounds_env ? std::atoi(rounds_env) : 600;
  for (int round = 0; round < rounds; ++round) {
    std::vector<uint8_t> m = good;
    const int flips = 1 + static_cast<int>(rnd() % 4);
    for (int f = 0; f < flips; ++f) m[16 + rnd() % (m.size() - 16)] ^= static_cast<uint8_t>(1u << (rnd() % 8));
    InitResult r = init(backend, m);
    if (r.error == Error::Ok) backend->destroy(r.handle);
    rejected += r.error != Error::Ok && !contains(r.message, "payload accepted");
    ++total;
  }
  for (size_t cut = 0; cut < good.size(); cut += 13) {
    InitResult r = init(backend, std::vector<uint8_t>(good.begin(), good.begin() + static_cast<long>(cut)));
    if (r.error == Error::Ok) backend->destroy(r.handle);
    rejected += r.error != Error::Ok && !contains(r.message, "payload accepted");
    ++total;
  }
  std::printf("note: %d of %d damaged/truncated payloads rejected by the reader (the rest hit data bytes)\n", rejected,
              total);
  check(true, "damaged and truncated payloads do not crash the reader");
}

// The valid payload.
TEST_F(CudaBackendTest, ValidPayload) {
  BackendInterface* backend = backend_;
  InitResult r = init(backend, good_);
  if (have_device_) {
    check(r.error == Error::Ok, "valid payload initialises on the GPU", r.message);
    if (r.error == Error::Ok) backend->destroy(r.handle);
  } else {
    check(r.error != Error::Ok && contains(r.message, "payload accepted (3 kernel calls)") &&
              contains(r.message, "no CUDA device"),
          "valid payload is accepted, then needs a device -> " + r.message);
  }
}

// A whole program through Module (and, with a device, dynamic batch).
TEST_F(CudaBackendTest, ModuleRunsTheProgram) {
  Inner dyn;
  dyn.x_dynamic = true;
  run_module(build_outer(wrap(build_program(dyn)), true), have_device_);
}

// An upstream AOTInductor payload is named as such through Module, with or without a device (without one the
// runtime asks the backend's validate() before reporting "not available").
TEST_F(CudaBackendTest, ModuleNamesAnAOTInductorPayload) {
  std::unique_ptr<uint8_t, void (*)(void*)> copy(nullptr, std::free);
  const std::vector<uint8_t> pte = build_outer(elf_payload(), false);
  copy.reset(static_cast<uint8_t*>(std::aligned_alloc(16, (pte.size() + 15) / 16 * 16 + 16)));
  std::memcpy(copy.get(), pte.data(), pte.size());
  executorch::extension::module::Module module(
      std::make_unique<executorch::extension::BufferDataLoader>(copy.get(), pte.size()));
  executorch::runtime::clear_last_error();
  const Error load = module.load_method("forward");
  const std::string msg = last_error_message();
  check(load != Error::Ok && contains(msg, aoti_) && contains(msg, lower_) && !contains(msg, "no CUDA device"),
        "Module with an AOTInductor payload names it -> " + msg);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
