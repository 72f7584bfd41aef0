#pragma once
// Helpers shared by the API test programs: fixture paths (ET_FIXTURES), a reader for the .npy references, tensors
// over test data, and a program's method loaded with its planned memory the way upstream's executor_runner does.
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace api_test {

// tests/fixtures/<rel>, from the ET_FIXTURES environment variable.
inline std::string fixture(const std::string& rel) {
  const char* dir = std::getenv("ET_FIXTURES");
  if (dir == nullptr) {
    ADD_FAILURE() << "set ET_FIXTURES to the tests/fixtures directory";
    return rel;
  }
  return std::string(dir) + "/" + rel;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A little-endian, C-order .npy array (format 1.0 or 2.0).
struct Npy {
  std::string descr;  // e.g. "<f4", "<i8", "|b1"
  std::vector<int32_t> shape;
  std::vector<uint8_t> data;

  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
  template <typename T>
  std::vector<T> values() const {
    return std::vector<T>(as<T>(), as<T>() + numel());
  }
  size_t numel() const {
    size_t n = 1;
    for (int32_t s : shape) n *= static_cast<size_t>(s);
    return n;
  }
};

inline Npy load_npy(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  Npy npy;
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    ADD_FAILURE() << path << " is not a .npy file";
    return npy;
  }
  const bool v1 = bytes[6] == 1;
  const size_t header_len =
      v1 ? (bytes[8] | bytes[9] << 8) : (bytes[8] | bytes[9] << 8 | bytes[10] << 16 | size_t(bytes[11]) << 24);
  const size_t start = v1 ? 10 : 12;
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + start, header_len);
  const size_t d = header.find("'descr': '") + 10;
  npy.descr = header.substr(d, header.find('\'', d) - d);
  EXPECT_EQ(header.find("'fortran_order': True"), std::string::npos) << path;
  const size_t s = header.find('(', header.find("'shape'")) + 1;
  const std::string dims = header.substr(s, header.find(')', s) - s);
  for (size_t pos = 0; pos < dims.size();) {
    const size_t comma = dims.find(',', pos);
    const std::string item = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.find_first_not_of(' ') != std::string::npos) npy.shape.push_back(std::stoi(item));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  npy.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(start + header_len), bytes.end());
  return npy;
}

// A contiguous tensor over caller-owned data, with its own sizes, dim order and strides.
struct HostTensor {
  std::vector<executorch::aten::SizesType> sizes;
  std::vector<executorch::aten::DimOrderType> dim_order;
  std::vector<executorch::aten::StridesType> strides;
  std::unique_ptr<executorch::aten::TensorImpl> impl;

  HostTensor(executorch::aten::ScalarType type, const std::vector<int32_t>& shape, void* data)
      : sizes(shape.begin(), shape.end()), dim_order(shape.size()), strides(shape.size()) {
    for (size_t i = 0; i < shape.size(); ++i) dim_order[i] = static_cast<executorch::aten::DimOrderType>(i);
    int32_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= shape[i];
    }
    impl = std::make_unique<executorch::aten::TensorImpl>(type, static_cast<ssize_t>(shape.size()), sizes.data(), data,
                                                          dim_order.data(), strides.data());
  }
  executorch::aten::Tensor tensor() const { return executorch::aten::Tensor(impl.get()); }
};

// Largest |a - b| over two float arrays of the same length.
inline float max_abs_diff(const float* a, const float* b, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// The dtype of a .npy array's descr.
inline executorch::aten::ScalarType dtype_of(const std::string& descr) {
  using executorch::aten::ScalarType;
  if (descr == "<f4") return ScalarType::Float;
  if (descr == "<f8") return ScalarType::Double;
  if (descr == "<i8") return ScalarType::Long;
  if (descr == "<i4") return ScalarType::Int;
  if (descr == "|b1") return ScalarType::Bool;
  if (descr == "|u1") return ScalarType::Byte;
  if (descr == "|i1") return ScalarType::Char;
  ADD_FAILURE() << "unhandled .npy dtype " << descr;
  return ScalarType::Float;
}

// A TensorPtr's sizes, strides, dim order and elements, as vectors to compare whole.
inline std::vector<executorch::aten::SizesType> sizes_of(const executorch::extension::TensorPtr& t) {
  return {t->sizes().begin(), t->sizes().end()};
}
inline std::vector<executorch::aten::StridesType> strides_of(const executorch::extension::TensorPtr& t) {
  return {t->strides().begin(), t->strides().end()};
}
inline std::vector<executorch::aten::DimOrderType> dim_order_of(const executorch::extension::TensorPtr& t) {
  return {t->dim_order().begin(), t->dim_order().end()};
}
template <typename T>
std::vector<T> values_of(const executorch::extension::TensorPtr& t) {
  const T* p = t->const_data_ptr<T>();
  return std::vector<T>(p, p + t->numel());
}

// A suite whose tests need the runtime initialised, with death tests safe next to the thread pool's threads.
class RuntimeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    executorch::runtime::runtime_init();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

// A FileDataLoader over `path` (null, with a failure, when it cannot be opened).
inline std::unique_ptr<executorch::extension::FileDataLoader> file_loader(const std::string& path) {
  executorch::runtime::Result<executorch::extension::FileDataLoader> loader =
      executorch::extension::FileDataLoader::from(path.c_str());
  EXPECT_TRUE(loader.ok()) << path;
  return loader.ok() ? std::make_unique<executorch::extension::FileDataLoader>(std::move(*loader)) : nullptr;
}

// The planned buffers a method's MethodMeta asks for and the HierarchicalAllocator over them.
struct PlannedMemory {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<executorch::runtime::Span<uint8_t>> spans;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> allocator;

  PlannedMemory() = default;
  explicit PlannedMemory(const executorch::runtime::MethodMeta& meta) {
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(*meta.memory_planned_buffer_size(i)));
    }
    for (auto& b : buffers) spans.emplace_back(b.data(), b.size());
    allocator = std::make_unique<executorch::runtime::HierarchicalAllocator>(
        executorch::runtime::Span<executorch::runtime::Span<uint8_t>>(spans.data(), spans.size()));
  }
};

// How LoadedMethod sets up memory and the method.
struct LoadOptions {
  // An allocator pool size meaning "a MallocMemoryAllocator" rather than a fixed pool.
  static constexpr size_t kMalloc = SIZE_MAX;

  const char* method_name = "forward";
  size_t method_pool = size_t{1} << 20;  // bytes of the method allocator's pool; 0: the MemoryManager has none
  size_t temp_pool = size_t{1} << 20;    // the same for the temp allocator
  bool load_method = true;               // false: only the program and the MemoryManager are set up
  executorch::runtime::EventTracer* tracer = nullptr;
  const executorch::runtime::NamedDataMap* data_map = nullptr;
};

// A program loaded through a DataLoader, one method's planned memory and MemoryManager, and (unless
// LoadOptions::load_method is false) the method itself, set up as upstream's executor_runner does. A step that
// fails is a test failure and leaves the later members null.
struct LoadedMethod {
  std::unique_ptr<executorch::runtime::DataLoader> loader;  // null when the caller keeps the loader
  std::unique_ptr<executorch::runtime::Program> program;
  PlannedMemory planned;
  std::unique_ptr<executorch::runtime::MemoryAllocator> method_allocator;
  std::unique_ptr<executorch::runtime::MemoryAllocator> temp_allocator;
  std::unique_ptr<executorch::runtime::MemoryManager> memory;
  std::unique_ptr<executorch::runtime::Method> method;

  // tests/fixtures/<rel> through a FileDataLoader.
  explicit LoadedMethod(const std::string& rel, const LoadOptions& options = LoadOptions())
      : LoadedMethod(file_loader(fixture(rel)), options) {}
  explicit LoadedMethod(std::unique_ptr<executorch::runtime::DataLoader> owned,
                        const LoadOptions& options = LoadOptions())
      : loader(std::move(owned)) {
    if (loader != nullptr) init(loader.get(), options);
  }
  explicit LoadedMethod(executorch::runtime::DataLoader* borrowed, const LoadOptions& options = LoadOptions()) {
    init(borrowed, options);
  }

 private:
  std::vector<uint8_t> method_pool_;
  std::vector<uint8_t> temp_pool_;

  static std::unique_ptr<executorch::runtime::MemoryAllocator> make_allocator(size_t bytes,
                                                                              std::vector<uint8_t>& pool) {
    if (bytes == 0) return nullptr;
    if (bytes == LoadOptions::kMalloc) return std::make_unique<executorch::extension::MallocMemoryAllocator>();
    pool.resize(bytes);
    return std::make_unique<executorch::runtime::MemoryAllocator>(static_cast<uint32_t>(pool.size()), pool.data());
  }

  void init(executorch::runtime::DataLoader* data_loader, const LoadOptions& o) {
    executorch::runtime::runtime_init();
    executorch::runtime::Result<executorch::runtime::Program> p = executorch::runtime::Program::load(data_loader);
    EXPECT_TRUE(p.ok()) << executorch::runtime::last_error_message();
    if (!p.ok()) return;
    program = std::make_unique<executorch::runtime::Program>(std::move(*p));
    executorch::runtime::Result<executorch::runtime::MethodMeta> meta = program->method_meta(o.method_name);
    EXPECT_TRUE(meta.ok()) << o.method_name;
    if (!meta.ok()) return;
    planned = PlannedMemory(*meta);
    method_allocator = make_allocator(o.method_pool, method_pool_);
    temp_allocator = make_allocator(o.temp_pool, temp_pool_);
    memory = std::make_unique<executorch::runtime::MemoryManager>(method_allocator.get(), planned.allocator.get(),
                                                                  temp_allocator.get());
    if (!o.load_method) return;
    executorch::runtime::Result<executorch::runtime::Method> m =
        program->load_method(o.method_name, memory.get(), o.tracer, o.data_map);
    EXPECT_TRUE(m.ok()) << o.method_name << ": " << executorch::runtime::last_error_message();
    if (m.ok()) method = std::make_unique<executorch::runtime::Method>(std::move(*m));
  }
};

// The mlp fixture's forward case 0 through `method`, compared with the eager reference.
inline void run_mlp_case0(executorch::runtime::Method& method) {
  using executorch::runtime::Error;
  Npy in = load_npy(fixture("mlp/forward_case0_in0.npy"));
  const Npy want = load_npy(fixture("mlp/forward_case0_out0.npy"));
  HostTensor t(executorch::aten::ScalarType::Float, in.shape, in.data.data());
  ASSERT_EQ(method.set_input(executorch::runtime::EValue(t.tensor()), 0), Error::Ok);
  ASSERT_EQ(method.execute(), Error::Ok);
  const executorch::aten::Tensor out = method.get_output(0).toTensor();
  ASSERT_EQ(static_cast<size_t>(out.numel()), want.numel());
  EXPECT_LE(max_abs_diff(out.const_data_ptr<float>(), want.as<float>(), want.numel()), 1e-5f);
}

}  // namespace api_test
