// .ptd files (upstream's FlatTensor format): the header, verification, and the NamedDataMap over them.
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>

#include <cstring>
#include <set>
#include <string>

#include "flat_tensor_generated.h"
#include "internal.h"

namespace executorch {
namespace extension {

using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::set_last_error;
using executorch::runtime::Span;
using executorch::runtime::TensorLayout;
using executorch::runtime::internal::range_ok;

namespace {

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

const et_ptd::FlatTensor* root(const void* p) { return static_cast<const et_ptd::FlatTensor*>(p); }

Result<const TensorLayout> layout_of(const et_ptd::NamedData* nd) {
  const auto* l = nd->tensor_layout();
  if (l == nullptr) {
    return set_last_error(Error::NotFound, "data '%s' is not a tensor (it has no tensor layout)", nd->key()->c_str());
  }
  // Sizes and dim order were checked when the file was loaded.
  return TensorLayout::create(Span<const int32_t>(l->sizes()->data(), l->sizes()->size()),
                              Span<const uint8_t>(l->dim_order()->data(), l->dim_order()->size()),
                              static_cast<executorch::aten::ScalarType>(l->scalar_type()));
}

}  // namespace

constexpr char FlatTensorHeader::kMagic[kMagicSize];

Result<FlatTensorHeader> FlatTensorHeader::Parse(const void* data, size_t size) {
  if (data == nullptr || size < kNumHeadBytes) return Error::InvalidArgument;
  const uint8_t* h = static_cast<const uint8_t*>(data) + kHeaderOffset;
  if (std::memcmp(h, kMagic, kMagicSize) != 0) return Error::NotFound;
  const uint32_t length = le32(h + 4);
  if (length < kHeaderExpectedLength) {
    return set_last_error(Error::InvalidExternalData, ".ptd header is %u bytes long, expected at least %u", length,
                          kHeaderExpectedLength);
  }
  return FlatTensorHeader{le64(h + 8), le64(h + 16), le64(h + 24), le64(h + 32)};
}

Result<FlatTensorDataMap> FlatTensorDataMap::load(DataLoader* loader) {
  if (loader == nullptr) return set_last_error(Error::InvalidArgument, "FlatTensorDataMap::load: no data loader");
  Result<size_t> file_size = loader->size();
  if (!file_size.ok()) return set_last_error(file_size.error(), "cannot get the size of the .ptd data");
  if (*file_size < FlatTensorHeader::kNumHeadBytes) {
    return set_last_error(Error::InvalidExternalData, "the .ptd data is %zu bytes, too short to be a .ptd file",
                          *file_size);
  }
  FlatTensorHeader header{};
  {
    Result<FreeableBuffer> head = loader->load(0, FlatTensorHeader::kNumHeadBytes,
                                               DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
    if (!head.ok()) return set_last_error(head.error(), "cannot read the .ptd header");
    const auto* b = static_cast<const uint8_t*>(head->data());
    if (!et_ptd::FlatTensorBufferHasIdentifier(b)) {
      const bool is_pte = std::memcmp(b + 4, "ET", 2) == 0;
      return set_last_error(Error::InvalidExternalData, "not a .ptd file (identifier '%.4s', expected 'FT01')%s",
                            reinterpret_cast<const char*>(b + 4),
                            is_pte ? ": this is a .pte program, pass it as the program, not as a data file" : "");
    }
    Result<FlatTensorHeader> parsed = FlatTensorHeader::Parse(head->data(), head->size());
    if (!parsed.ok()) {
      if (parsed.error() == Error::NotFound) {
        return set_last_error(Error::InvalidExternalData, "the .ptd file has no FH01 header: corrupt file");
      }
      return Error::InvalidExternalData;
    }
    header = *parsed;
  }
  if (!range_ok(header.segment_base_offset, header.segment_data_size, *file_size)) {
    return set_last_error(Error::InvalidExternalData,
                          ".ptd segments end at %llu + %llu but the file has %zu bytes: truncated or corrupt file",
                          (unsigned long long)header.segment_base_offset, (unsigned long long)header.segment_data_size,
                          *file_size);
  }
  uint64_t fb_end = 0;
  if (runtime::internal::add_overflows(header.flatbuffer_offset, header.flatbuffer_size, &fb_end) ||
      fb_end > *file_size || fb_end < FlatTensorHeader::kNumHeadBytes) {
    return set_last_error(Error::InvalidExternalData,
                          "the .ptd flatbuffer (offset %llu, %llu bytes) is not inside "
                          "the %zu-byte file",
                          (unsigned long long)header.flatbuffer_offset, (unsigned long long)header.flatbuffer_size,
                          *file_size);
  }
  Result<FreeableBuffer> data =
      loader->load(0, static_cast<size_t>(fb_end), DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!data.ok()) return set_last_error(data.error(), "cannot read the .ptd flatbuffer");
  const auto* bytes = static_cast<const uint8_t*>(data->data());
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) {
    return set_last_error(Error::InvalidArgument, ".ptd data must be 8-byte aligned; use an aligned buffer");
  }
  flatbuffers::Verifier verifier(bytes, data->size());
  if (!et_ptd::VerifyFlatTensorBuffer(verifier)) {
    return set_last_error(Error::InvalidExternalData, "the .ptd flatbuffer is corrupt (verification failed)");
  }
  const et_ptd::FlatTensor* ft = et_ptd::GetFlatTensor(bytes);
  if (ft->version() > kMaxSupportedSchemaVersion) {
    return set_last_error(Error::NotSupported, "the .ptd file has schema version %u; this runtime reads up to %u",
                          ft->version(), kMaxSupportedSchemaVersion);
  }
  if (ft->named_data() == nullptr || ft->segments() == nullptr) {
    return set_last_error(Error::InvalidExternalData, "the .ptd file has no %s table: corrupt file",
                          ft->named_data() == nullptr ? "named_data" : "segments");
  }
  for (const auto* seg : *ft->segments()) {
    if (!range_ok(seg->offset(), seg->size(), header.segment_data_size)) {
      return set_last_error(Error::InvalidExternalData,
                            ".ptd segment at %llu (%llu bytes) lies outside the %llu bytes of segment data",
                            (unsigned long long)seg->offset(), (unsigned long long)seg->size(),
                            (unsigned long long)header.segment_data_size);
    }
  }
  std::set<std::string> keys;
  for (const auto* nd : *ft->named_data()) {
    if (nd->key() == nullptr) return set_last_error(Error::InvalidExternalData, ".ptd entry without a key");
    const char* key = nd->key()->c_str();
    if (!keys.insert(nd->key()->str()).second) {
      return set_last_error(Error::InvalidExternalData, ".ptd file holds key '%s' twice", key);
    }
    if (nd->segment_index() >= ft->segments()->size()) {
      return set_last_error(Error::InvalidExternalData, ".ptd key '%s' refers to segment %u of %u", key,
                            nd->segment_index(), ft->segments()->size());
    }
    const auto* l = nd->tensor_layout();
    if (l == nullptr) continue;
    if (l->sizes() == nullptr || l->dim_order() == nullptr) {
      return set_last_error(Error::InvalidExternalData, ".ptd tensor '%s' has no sizes or dim order", key);
    }
    Result<const TensorLayout> layout = layout_of(nd);
    if (!layout.ok()) {
      return set_last_error(Error::InvalidExternalData, ".ptd tensor '%s' has an invalid layout (dtype %d, rank %u)",
                            key, l->scalar_type(), l->sizes()->size());
    }
    const uint64_t seg_size = (*ft->segments())[nd->segment_index()]->size();
    if (layout->nbytes() > seg_size) {
      return set_last_error(Error::InvalidExternalData, ".ptd tensor '%s' needs %zu bytes but its segment has %llu",
                            key, layout->nbytes(), (unsigned long long)seg_size);
    }
  }
  return FlatTensorDataMap(header, std::move(*data), ft, loader);
}

const void* FlatTensorDataMap::find(std::string_view key) const {
  for (const auto* nd : *root(flat_tensor_)->named_data()) {
    if (nd->key()->string_view() == key) return nd;
  }
  return nullptr;
}

Result<const TensorLayout> FlatTensorDataMap::get_tensor_layout(std::string_view key) const {
  const auto* nd = static_cast<const et_ptd::NamedData*>(find(key));
  if (nd == nullptr) {
    return set_last_error(Error::NotFound, "key '%.*s' is not in the .ptd data", static_cast<int>(key.size()),
                          key.data());
  }
  return layout_of(nd);
}

Result<FreeableBuffer> FlatTensorDataMap::get_data(std::string_view key) const {
  const auto* nd = static_cast<const et_ptd::NamedData*>(find(key));
  if (nd == nullptr) {
    return set_last_error(Error::NotFound, "key '%.*s' is not in the .ptd data", static_cast<int>(key.size()),
                          key.data());
  }
  const auto* seg = (*root(flat_tensor_)->segments())[nd->segment_index()];
  return loader_->load(
      static_cast<size_t>(header_.segment_base_offset + seg->offset()), static_cast<size_t>(seg->size()),
      DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::External, nd->segment_index(), nd->key()->c_str()));
}

Error FlatTensorDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  Result<const TensorLayout> layout = get_tensor_layout(key);
  if (!layout.ok()) return layout.error();
  if (buffer == nullptr || size < layout->nbytes()) {
    return set_last_error(Error::InvalidArgument, "buffer of %zu bytes for .ptd tensor '%.*s' of %zu bytes", size,
                          static_cast<int>(key.size()), key.data(), layout->nbytes());
  }
  Result<FreeableBuffer> data = get_data(key);
  if (!data.ok()) return data.error();
  std::memcpy(buffer, data->data(), layout->nbytes());
  return Error::Ok;
}

Result<uint32_t> FlatTensorDataMap::get_num_keys() const { return root(flat_tensor_)->named_data()->size(); }

Result<const char*> FlatTensorDataMap::get_key(uint32_t index) const {
  const auto* named = root(flat_tensor_)->named_data();
  if (index >= named->size()) {
    return set_last_error(Error::InvalidArgument, "key index %u out of range (%u keys)", index, named->size());
  }
  return named->Get(index)->key()->c_str();
}

}  // namespace extension
}  // namespace executorch
