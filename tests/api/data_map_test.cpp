// Program-data separation, as upstream's extension/flat_tensor/flat_tensor_data_map.h,
// extension/named_data_map/merged_data_map.h, runtime/core/named_data_map.h and Program::load_method declare it:
// the .ptd fixtures of tests/fixtures/ptd (exported by upstream 1.5.1 with their weights in data files) run
// through Program::load_method with their data maps and match the references; bad data files fail with errors.
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/flat_tensor/serialize/flat_tensor_header.h>
#include <executorch/extension/named_data_map/merged_data_map.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::extension::BufferDataLoader;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::extension::FlatTensorHeader;
using executorch::extension::merged_data_map::MergedDataMap;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::TensorLayout;

namespace {

std::string ptd(const std::string& rel) { return api_test::fixture("ptd/" + rel); }

// A program, its data files and one method's memory, set up as executor_runner does (no method allocator).
struct Session : api_test::LoadedMethod {
  std::vector<std::unique_ptr<FileDataLoader>> data_loaders;
  std::vector<std::unique_ptr<FlatTensorDataMap>> maps;
  std::unique_ptr<MergedDataMap> merged;

  Session(const std::string& pte, const std::vector<std::string>& data_files)
      : LoadedMethod("ptd/" + pte, memory_only()) {
    for (const std::string& f : data_files) {
      data_loaders.push_back(api_test::file_loader(ptd(f)));
      Result<FlatTensorDataMap> m = FlatTensorDataMap::load(data_loaders.back().get());
      EXPECT_TRUE(m.ok()) << f << ": " << executorch::runtime::last_error_message();
      maps.push_back(std::make_unique<FlatTensorDataMap>(std::move(*m)));
    }
    if (maps.size() > 1) {
      std::vector<const NamedDataMap*> all;
      for (auto& m : maps) all.push_back(m.get());
      Result<MergedDataMap> mm = MergedDataMap::load({all.data(), all.size()});
      EXPECT_TRUE(mm.ok());
      merged = std::make_unique<MergedDataMap>(std::move(*mm));
    }
  }
  static api_test::LoadOptions memory_only() {
    api_test::LoadOptions o;
    o.method_pool = 0;
    o.temp_pool = 4 << 20;
    o.load_method = false;
    return o;
  }

  const NamedDataMap* data() const {
    if (merged) return merged.get();
    return maps.empty() ? nullptr : maps[0].get();
  }
  Result<Method> load(const NamedDataMap* map) { return program->load_method("forward", memory.get(), nullptr, map); }
};

// Runs cases 0..n-1 of fixture `name` in order on one method (stateful fixtures carry state from case to case)
// and compares the outputs with `<name>/forward_case<k>_out<j>.npy`.
void run_cases(Method& method, const std::string& name, int n, float atol) {
  for (int k = 0; k < n; ++k) {
    const std::string base = name + "/forward_case" + std::to_string(k);
    std::vector<api_test::Npy> inputs;
    std::vector<std::unique_ptr<api_test::HostTensor>> tensors;
    for (size_t j = 0; j < method.inputs_size(); ++j) {
      inputs.push_back(api_test::load_npy(ptd(base + "_in" + std::to_string(j) + ".npy")));
    }
    for (size_t j = 0; j < inputs.size(); ++j) {
      tensors.push_back(std::make_unique<api_test::HostTensor>(api_test::dtype_of(inputs[j].descr), inputs[j].shape,
                                                               inputs[j].data.data()));
      ASSERT_EQ(method.set_input(EValue(tensors.back()->tensor()), j), Error::Ok)
          << base << ": " << executorch::runtime::last_error_message();
    }
    ASSERT_EQ(method.execute(), Error::Ok) << base << ": " << executorch::runtime::last_error_message();
    const api_test::Npy want = api_test::load_npy(ptd(base + "_out0.npy"));
    const Tensor out = method.get_output(0).toTensor();
    ASSERT_EQ(static_cast<size_t>(out.numel()), want.numel()) << base;
    EXPECT_LE(api_test::max_abs_diff(out.const_data_ptr<float>(), want.as<float>(), want.numel()), atol) << base;
  }
}

}  // namespace

TEST(FlatTensorHeader, Parse) {
  const std::vector<uint8_t> bytes = api_test::read_file(ptd("portable_mlp/model.ptd"));
  Result<FlatTensorHeader> h = FlatTensorHeader::Parse(bytes.data(), bytes.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->flatbuffer_offset, 48u);
  EXPECT_GT(h->flatbuffer_size, 0u);
  EXPECT_EQ(h->segment_base_offset + h->segment_data_size, bytes.size());
  EXPECT_EQ(FlatTensorHeader::Parse(bytes.data(), FlatTensorHeader::kNumHeadBytes - 1).error(), Error::InvalidArgument);
  std::vector<uint8_t> no_magic = bytes;
  no_magic[FlatTensorHeader::kHeaderOffset] = 'X';
  EXPECT_EQ(FlatTensorHeader::Parse(no_magic.data(), no_magic.size()).error(), Error::NotFound);
  std::vector<uint8_t> short_header = bytes;
  short_header[FlatTensorHeader::kHeaderOffset + 4] = 8;  // header length 8 < 40
  EXPECT_EQ(FlatTensorHeader::Parse(short_header.data(), short_header.size()).error(), Error::InvalidExternalData);
}

TEST(FlatTensorDataMap, KeysLayoutsAndData) {
  auto loader = api_test::file_loader(ptd("portable_mlp/model.ptd"));
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(loader.get());
  ASSERT_TRUE(map.ok()) << executorch::runtime::last_error_message();
  ASSERT_EQ(*map->get_num_keys(), 11u);
  EXPECT_STREQ(*map->get_key(0), "conv.weight");
  EXPECT_EQ(map->get_key(11).error(), Error::InvalidArgument);

  Result<const TensorLayout> layout = map->get_tensor_layout("conv.weight");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->scalar_type(), ScalarType::Float);
  ASSERT_EQ(layout->sizes().size(), 4u);
  EXPECT_EQ(layout->sizes()[0], 8);
  EXPECT_EQ(layout->sizes()[1], 3);
  EXPECT_EQ(layout->dim_order()[3], 3);
  EXPECT_EQ(layout->nbytes(), 8u * 3 * 3 * 3 * 4);
  EXPECT_EQ(map->get_tensor_layout("no.such.key").error(), Error::NotFound);

  Result<FreeableBuffer> data = map->get_data("conv.weight");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->size(), layout->nbytes());
  EXPECT_EQ(map->get_data("no.such.key").error(), Error::NotFound);

  std::vector<uint8_t> copy(layout->nbytes());
  ASSERT_EQ(map->load_data_into("conv.weight", copy.data(), copy.size()), Error::Ok);
  EXPECT_EQ(std::memcmp(copy.data(), data->data(), copy.size()), 0);
  EXPECT_EQ(map->load_data_into("conv.weight", copy.data(), copy.size() - 1), Error::InvalidArgument);

  // BatchNorm's int64 counter.
  Result<const TensorLayout> counter = map->get_tensor_layout("bn.num_batches_tracked");
  ASSERT_TRUE(counter.ok());
  EXPECT_EQ(counter->scalar_type(), ScalarType::Long);
  EXPECT_EQ(counter->sizes().size(), 0u);
  EXPECT_EQ(counter->nbytes(), 8u);
}

TEST(FlatTensorDataMap, DelegateBlobsHaveNoLayout) {
  auto loader = api_test::file_loader(ptd("xnnpack_cnn/model.ptd"));
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(loader.get());
  ASSERT_TRUE(map.ok());
  const char* key = *map->get_key(0);
  EXPECT_EQ(std::strlen(key), 64u);  // a sha256
  EXPECT_EQ(map->get_tensor_layout(key).error(), Error::NotFound);
  Result<FreeableBuffer> blob = map->get_data(key);
  ASSERT_TRUE(blob.ok());
  EXPECT_GT(blob->size(), 0u);
}

TEST(FlatTensorDataMap, DamagedFilesFail) {
  const std::vector<uint8_t> good = api_test::read_file(ptd("portable_mlp/model.ptd"));
  auto check = [](std::vector<uint8_t> bytes, const char* what) {
    // 16-byte aligned copy, as the loaders give.
    std::vector<uint64_t> aligned((bytes.size() + 7) / 8 + 1);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    BufferDataLoader loader(aligned.data(), bytes.size());
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
    EXPECT_FALSE(map.ok()) << what;
    if (!map.ok()) {
      EXPECT_NE(std::string(executorch::runtime::last_error_message()), "") << what;
    }
  };
  check(std::vector<uint8_t>(good.begin(), good.begin() + 40), "shorter than the header");
  check(std::vector<uint8_t>(good.begin(), good.end() - 100), "truncated segments");
  std::vector<uint8_t> bad_id = good;
  bad_id[4] = 'X';
  check(bad_id, "wrong identifier");
  std::vector<uint8_t> bad_fb = good;
  for (size_t i = 64; i < 200; ++i) bad_fb[i] ^= 0xA5;
  check(bad_fb, "corrupt flatbuffer");
  std::vector<uint8_t> bad_base = good;
  bad_base[FlatTensorHeader::kHeaderOffset + 24] = 0xFF;  // segment_base_offset beyond the file
  check(bad_base, "segment base past the end");
  // A .pte passed as data.
  check(api_test::read_file(ptd("portable_mlp/model.pte")), "a program instead of data");
}

TEST(MergedDataMap, MergesAndRejectsDuplicates) {
  auto a_loader = api_test::file_loader(ptd("two_files/encoder.ptd"));
  auto b_loader = api_test::file_loader(ptd("two_files/head.ptd"));
  Result<FlatTensorDataMap> a = FlatTensorDataMap::load(a_loader.get());
  Result<FlatTensorDataMap> b = FlatTensorDataMap::load(b_loader.get());
  ASSERT_TRUE(a.ok() && b.ok());
  const NamedDataMap* maps[] = {&*a, nullptr, &*b};
  Result<MergedDataMap> merged = MergedDataMap::load({maps, 3});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(*merged->get_num_keys(), *a->get_num_keys() + *b->get_num_keys());
  EXPECT_TRUE(merged->get_tensor_layout("head.weight").ok());
  EXPECT_TRUE(merged->get_data("encoder.0.weight").ok());
  EXPECT_EQ(merged->get_data("missing").error(), Error::NotFound);
  std::vector<std::string> keys;
  for (uint32_t i = 0; i < *merged->get_num_keys(); ++i) keys.push_back(*merged->get_key(i));
  EXPECT_NE(std::find(keys.begin(), keys.end(), "head.bias"), keys.end());
  EXPECT_EQ(merged->get_key(*merged->get_num_keys()).error(), Error::InvalidArgument);

  const NamedDataMap* twice[] = {&*a, &*a};
  EXPECT_EQ(MergedDataMap::load({twice, 2}).error(), Error::InvalidArgument);
  const NamedDataMap* none[] = {nullptr};
  EXPECT_EQ(MergedDataMap::load({none, 1}).error(), Error::InvalidArgument);
}

TEST(ProgramDataSeparation, PortableConstantsFromTheDataFile) {
  executorch::runtime::runtime_init();
  Session s("portable_mlp/model.pte", {"portable_mlp/model.ptd"});
  Result<Method> method = s.load(s.data());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  run_cases(*method, "portable_mlp", 2, 1e-5f);
  // The weights are attributes of the method, readable by name, equal to the data file's bytes.
  Result<Tensor> w = method->get_attribute("fc1.weight");
  ASSERT_TRUE(w.ok());
  Result<FreeableBuffer> bytes = s.maps[0]->get_data("fc1.weight");
  ASSERT_EQ(w->nbytes(), bytes->size());
  EXPECT_EQ(std::memcmp(w->const_data_ptr(), bytes->data(), bytes->size()), 0);
  EXPECT_EQ(method->get_attribute("nope").error(), Error::NotFound);
  Result<MethodMeta> meta = s.program->method_meta("forward");
  EXPECT_EQ(meta->num_attributes(), 11u);
  EXPECT_FALSE(meta->attribute_tensor_meta(0)->name().empty());
}

TEST(ProgramDataSeparation, XnnpackWeightsFromTheDataFile) {
  Session cnn("xnnpack_cnn/model.pte", {"xnnpack_cnn/model.ptd"});
  Result<Method> m1 = cnn.load(cnn.data());
  ASSERT_TRUE(m1.ok()) << executorch::runtime::last_error_message();
  run_cases(*m1, "xnnpack_cnn", 2, 1e-4f);
  // Two keys from the .pte's own named data, two from model.ptd, one EXTERNAL tensor.
  Session mixed("xnnpack_mixed/model.pte", {"xnnpack_mixed/model.ptd"});
  EXPECT_TRUE(mixed.program->get_named_data_map().ok());
  Result<Method> m2 = mixed.load(mixed.data());
  ASSERT_TRUE(m2.ok()) << executorch::runtime::last_error_message();
  run_cases(*m2, "xnnpack_mixed", 2, 1e-4f);
}

TEST(ProgramDataSeparation, QuantizedWeightsFromTheDataFile) {
  Session s("xnnpack_q8/model.pte", {"xnnpack_q8/model.ptd"});
  Result<Method> method = s.load(s.data());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  run_cases(*method, "xnnpack_q8", 2, 0.0016f);  // upstream's output, within one output step
}

TEST(ProgramDataSeparation, TwoDataFilesMerged) {
  Session s("two_files/model.pte", {"two_files/encoder.ptd", "two_files/head.ptd"});
  Result<Method> method = s.load(s.data());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  run_cases(*method, "two_files", 2, 1e-5f);
  // One of the two files alone is not enough; the error names the missing tensor.
  Result<Method> half = s.load(s.maps[0].get());
  EXPECT_EQ(half.error(), Error::NotFound);
  EXPECT_NE(std::string(executorch::runtime::last_error_message()).find("head."), std::string::npos)
      << executorch::runtime::last_error_message();
}

TEST(ProgramDataSeparation, MutableBufferInitialValueFromTheDataFile) {
  Session s("mutable_external/model.pte", {"mutable_external/model.ptd"});
  Result<Method> method = s.load(s.data());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  run_cases(*method, "mutable_external", 3, 1e-5f);  // the state carries from call to call
}

TEST(ProgramDataSeparation, LlmPrefillAndDecode) {
  Session s("llm/model.pte", {"llm/model.ptd"});
  Result<Method> method = s.load(s.data());
  ASSERT_TRUE(method.ok()) << executorch::runtime::last_error_message();
  run_cases(*method, "llm", 9, 1e-4f);
}

TEST(ProgramDataSeparation, ErrorsNameTheProblem) {
  // No data file: the first external tensor is named.
  Session s("portable_mlp/model.pte", {"portable_mlp/model.ptd"});
  Result<Method> without = s.load(nullptr);
  EXPECT_EQ(without.error(), Error::InvalidState);
  EXPECT_NE(std::string(executorch::runtime::last_error_message()).find("conv.weight"), std::string::npos);
  // A data file of another program: a key is missing.
  Session other("portable_mlp/model.pte", {"two_files/encoder.ptd"});
  EXPECT_EQ(other.load(other.data()).error(), Error::NotFound);
  // XNNPACK without its weights.
  Session cnn("xnnpack_cnn/model.pte", {});
  EXPECT_NE(cnn.load(nullptr).error(), Error::Ok);
  // A stateful program without its data file (its weights and the buffer's initial value).
  Session mut("mutable_external/model.pte", {});
  EXPECT_NE(mut.load(nullptr).error(), Error::Ok);
  EXPECT_NE(std::string(executorch::runtime::last_error_message()).find("data file"), std::string::npos);
}

namespace {

// A data map whose tensors have the right keys but another shape, as a .ptd of a re-export would.
class ReshapedMap final : public NamedDataMap {
 public:
  explicit ReshapedMap(const NamedDataMap* real) : real_(real) {}
  Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    Result<const TensorLayout> l = real_->get_tensor_layout(key);
    if (!l.ok() || l->sizes().size() < 2) return l;
    return TensorLayout::create(Span<const int32_t>(swapped_, 2), Span<const uint8_t>(l->dim_order().data(), 2),
                                l->scalar_type());
  }
  Result<FreeableBuffer> get_data(std::string_view key) const override { return real_->get_data(key); }
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    return real_->load_data_into(key, buffer, size);
  }
  Result<uint32_t> get_num_keys() const override { return real_->get_num_keys(); }
  Result<const char*> get_key(uint32_t index) const override { return real_->get_key(index); }

 private:
  const NamedDataMap* real_;
  const int32_t swapped_[2] = {1, 1};
};

}  // namespace

TEST(ProgramDataSeparation, LayoutMismatchIsRejected) {
  Session s("portable_mlp/model.pte", {"portable_mlp/model.ptd"});
  ReshapedMap reshaped(s.data());
  EXPECT_EQ(s.load(&reshaped).error(), Error::InvalidExternalData);
  EXPECT_NE(std::string(executorch::runtime::last_error_message()).find("expects"), std::string::npos);
}
