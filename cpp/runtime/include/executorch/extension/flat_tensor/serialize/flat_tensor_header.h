#pragma once
#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/result.h>
#include <executorch/runtime/export.h>

namespace executorch {
namespace extension {

// The extended header of a .ptd file: 40 bytes at offset 8 (after the flatbuffer's root offset and its "FT01"
// identifier), little-endian: magic "FH01", header length, flatbuffer offset and size, segment base offset and the
// size of the segment data.
struct FlatTensorHeader {
  // How many bytes of the file's head Parse() needs.
  static constexpr size_t kNumHeadBytes = 64;
  // Where the header starts.
  static constexpr size_t kHeaderOffset = 8;
  static constexpr size_t kMagicSize = 4;
  static constexpr char kMagic[kMagicSize] = {'F', 'H', '0', '1'};
  // magic + length + flatbuffer offset + flatbuffer size + segment base offset + segment data size.
  static constexpr uint32_t kHeaderExpectedLength = 4 + 4 + 8 + 8 + 8 + 8;

  // Parses the header from the first `size` bytes of a file. InvalidArgument when size < kNumHeadBytes, NotFound
  // when the magic is absent, InvalidExternalData when the header is shorter than the fields it must hold.
  EXECUTORCH_API static runtime::Result<FlatTensorHeader> Parse(const void* data, size_t size);

  uint64_t flatbuffer_offset;
  uint64_t flatbuffer_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size;
};

}  // namespace extension
}  // namespace executorch
