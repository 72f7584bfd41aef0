#pragma once
// Minimal reader/writer for NumPy .npy files (version 1.0/2.0, little-endian, C order), shared by executorch_runner,
// the kernels' op harness and the C++ tests (CMake target executorch_npy).
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace executorch_tools {

struct NpyArray {
  executorch::aten::ScalarType dtype = executorch::aten::ScalarType::Float;
  std::vector<int32_t> shape;
  std::vector<uint8_t> data;
};

inline const char* npy_descr(executorch::aten::ScalarType t) {
  using executorch::aten::ScalarType;
  switch (t) {
    case ScalarType::Float: return "<f4";
    case ScalarType::Double: return "<f8";
    case ScalarType::Long: return "<i8";
    case ScalarType::Int: return "<i4";
    case ScalarType::Short: return "<i2";
    case ScalarType::Half: return "<f2";
    case ScalarType::UInt16: return "<u2";
    case ScalarType::Char: return "|i1";
    case ScalarType::Byte: return "|u1";
    case ScalarType::Bool: return "|b1";
    default: return nullptr;
  }
}

inline bool npy_dtype(const std::string& descr, executorch::aten::ScalarType* out) {
  using executorch::aten::ScalarType;
  static const struct {
    const char* d;
    ScalarType t;
  } table[] = {
      {"<f4", ScalarType::Float}, {"<f8", ScalarType::Double}, {"<i8", ScalarType::Long}, {"<i4", ScalarType::Int},
      {"<i2", ScalarType::Short}, {"|i1", ScalarType::Char},   {"|u1", ScalarType::Byte}, {"|b1", ScalarType::Bool},
      {"<f2", ScalarType::Half},  {"<u2", ScalarType::UInt16},
  };
  for (const auto& e : table) {
    if (descr == e.d) {
      *out = e.t;
      return true;
    }
  }
  return false;
}

// Returns an empty string on success, else what is wrong.
inline std::string read_npy(const std::string& path, NpyArray* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "cannot open " + path;
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(f);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return path + " is not a .npy file";
  size_t header_len, header_start;
  if (bytes[6] == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) return path + " is truncated";
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) return path + " is truncated";
  const std::string header(reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  auto field = [&](const char* key) -> std::string {
    const size_t k = header.find(key);
    if (k == std::string::npos) return "";
    size_t p = header.find(':', k);
    if (p == std::string::npos) return "";
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    if (header[p] == '\'') {
      const size_t e = header.find('\'', p + 1);
      return header.substr(p + 1, e - p - 1);
    }
    if (header[p] == '(') {
      const size_t e = header.find(')', p);
      return header.substr(p + 1, e - p - 1);
    }
    const size_t e = header.find_first_of(",}", p);
    return header.substr(p, e - p);
  };
  if (!npy_dtype(field("'descr'"), &out->dtype)) return path + ": unsupported dtype " + field("'descr'");
  if (field("'fortran_order'") != "False") return path + ": Fortran order is not supported";
  out->shape.clear();
  const std::string shape = field("'shape'");
  size_t numel = 1;
  for (size_t p = 0; p < shape.size();) {
    while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
    if (p >= shape.size()) break;
    const long v = std::strtol(shape.c_str() + p, nullptr, 10);
    out->shape.push_back(static_cast<int32_t>(v));
    numel *= static_cast<size_t>(v);
    while (p < shape.size() && shape[p] != ',') ++p;
  }
  const size_t nbytes = numel * executorch::aten::elementSize(out->dtype);
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < nbytes) return path + " holds less data than its shape says";
  out->data.assign(bytes.begin() + static_cast<long>(data_start),
                   bytes.begin() + static_cast<long>(data_start + nbytes));
  return "";
}

inline std::string write_npy(const std::string& path, executorch::aten::ScalarType dtype,
                             const std::vector<int64_t>& shape, const void* data, size_t nbytes) {
  const char* descr = npy_descr(dtype);
  if (descr == nullptr) return std::string("cannot write dtype ") + executorch::aten::toString(dtype);
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  size_t total = 10 + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict += '\n';
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "cannot write " + path;
  const uint8_t head[10] = {0x93,
                            'N',
                            'U',
                            'M',
                            'P',
                            'Y',
                            1,
                            0,
                            static_cast<uint8_t>(dict.size() & 0xff),
                            static_cast<uint8_t>(dict.size() >> 8)};
  std::fwrite(head, 1, 10, f);
  std::fwrite(dict.data(), 1, dict.size(), f);
  if (nbytes > 0) std::fwrite(data, 1, nbytes, f);
  std::fclose(f);
  return "";
}

}  // namespace executorch_tools
