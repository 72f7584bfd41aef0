#pragma once
// WAV files for audio inputs (upstream: extension/llm/runner/wav_loader.h, the same names): load_wav_header parses
// the RIFF / WAVE header and finds the data chunk; load_wav_audio_data reads the samples as floats (16- and 32-bit
// PCM scaled to [-1, 1], 32-bit IEEE float as is), all channels interleaved.
//
// Differs from upstream: a file that cannot be read, is not a WAV file, is truncated or has another sample format
// gives nullptr / an empty vector with the reason logged (upstream aborts).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

namespace executorch::extension::llm {

constexpr uint16_t kWavFormatPcm = 0x0001;
constexpr uint16_t kWavFormatIeeeFloat = 0x0003;
constexpr float kOneOverIntMax = 1 / static_cast<float>(INT32_MAX);
constexpr float kOneOverShortMax = 1 / static_cast<float>(INT16_MAX);

struct WavHeader {
  // RIFF chunk descriptor
  uint8_t RIFF[4];
  uint32_t ChunkSize;
  uint8_t WAVE[4];
  // "fmt " sub-chunk
  uint8_t fmt[4];
  uint32_t Subchunk1Size;
  uint16_t AudioFormat;
  uint16_t NumOfChan;
  uint32_t SamplesPerSec;
  uint32_t bytesPerSec;
  uint16_t blockAlign;
  uint16_t bitsPerSample;
  // "data" sub-chunk: where its samples start, and their size in bytes
  uint32_t dataOffset;
  uint32_t Subchunk2Size;
};

namespace detail {

inline uint16_t read_le16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline uint32_t read_le32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The file's bytes (empty when it cannot be read).
inline std::vector<char> read_file(const std::string& fp) {
  std::ifstream file(fp, std::ios::binary);
  if (!file.is_open()) return {};
  file.seekg(0, std::ios::end);
  const auto pos = file.tellg();
  if (pos < 0 || !file.good()) return {};
  std::vector<char> buffer(static_cast<size_t>(pos));
  file.seekg(0, std::ios::beg);
  file.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  if (static_cast<size_t>(file.gcount()) != buffer.size()) return {};
  return buffer;
}

}  // namespace detail

// The header of the WAV file in data[0, data_size): nullptr when it is not one (RIFF / WAVE missing; silently, as
// upstream) or is truncated before its data chunk (logged).
inline std::unique_ptr<WavHeader> load_wav_header(const char* data, size_t data_size) {
  if (data_size < 12 || std::memcmp(data, "RIFF", 4) != 0 || std::memcmp(data + 8, "WAVE", 4) != 0) return nullptr;
  constexpr size_t kMinHeaderSize = 36;
  if (data_size < kMinHeaderSize) {
    ET_LOG(Error, "WAV header detected but file is too small (%zu bytes) to contain a complete header", data_size);
    return nullptr;
  }
  auto header = std::make_unique<WavHeader>();
  std::memcpy(header->RIFF, data, 4);
  header->ChunkSize = detail::read_le32(data + 4);
  std::memcpy(header->WAVE, data + 8, 4);
  std::memcpy(header->fmt, data + 12, 4);
  header->Subchunk1Size = detail::read_le32(data + 16);
  header->AudioFormat = detail::read_le16(data + 20);
  header->NumOfChan = detail::read_le16(data + 22);
  header->SamplesPerSec = detail::read_le32(data + 24);
  header->bytesPerSec = detail::read_le32(data + 28);
  header->blockAlign = detail::read_le16(data + 32);
  header->bitsPerSample = detail::read_le16(data + 34);
  // The "data" chunk: searched for after the fmt chunk (other chunks, LIST say, may come between).
  size_t data_offset = 0;
  for (size_t i = 20 + static_cast<size_t>(header->Subchunk1Size); i + 4 < data_size; ++i) {
    if (std::memcmp(data + i, "data", 4) == 0) {
      data_offset = i;
      break;
    }
  }
  if (data_offset == 0) {
    ET_LOG(Error, "WAV file structure is invalid, missing Subchunk2ID 'data' field.");
    return nullptr;
  }
  if (data_offset + 8 > data_size) {
    ET_LOG(Error,
           "WAV file structure is invalid: data chunk header extends beyond file bounds (offset %zu, file size "
           "%zu)",
           data_offset, data_size);
    return nullptr;
  }
  header->Subchunk2Size = detail::read_le32(data + data_offset + 4);
  header->dataOffset = static_cast<uint32_t>(data_offset + 8);
  return header;
}

// The header of the WAV file at fp (nullptr, logged, when it cannot be read).
inline std::unique_ptr<WavHeader> load_wav_header(const std::string& fp) {
  const std::vector<char> buffer = detail::read_file(fp);
  if (buffer.empty()) {
    ET_LOG(Error, "Failed to open WAV file: %s", fp.c_str());
    return nullptr;
  }
  return load_wav_header(buffer.data(), buffer.size());
}

// The samples of the WAV file at fp as floats; empty, with the reason logged, for a file this cannot read.
inline std::vector<float> load_wav_audio_data(const std::string& fp) {
  const std::vector<char> buffer = detail::read_file(fp);
  if (buffer.empty()) {
    ET_LOG(Error, "Failed to open WAV file: %s", fp.c_str());
    return {};
  }
  const auto header = load_wav_header(buffer.data(), buffer.size());
  if (header == nullptr) {
    ET_LOG(Error, "WAV header not detected in file: %s", fp.c_str());
    return {};
  }
  const size_t offset = header->dataOffset, size = header->Subchunk2Size;
  if (offset > buffer.size() || size > buffer.size() - offset) {
    ET_LOG(Error, "Invalid WAV file %s: claimed data size (%zu) exceeds available data (%zu bytes from offset %zu)",
           fp.c_str(), size, buffer.size() - std::min(offset, buffer.size()), offset);
    return {};
  }
  const uint16_t format = header->AudioFormat, bits = header->bitsPerSample;
  if (format != kWavFormatPcm && format != kWavFormatIeeeFloat) {
    ET_LOG(Error, "Unsupported audio format: 0x%04X. Only PCM (0x%04X) and IEEE Float (0x%04X) are supported.", format,
           kWavFormatPcm, kWavFormatIeeeFloat);
    return {};
  }
  const char* data = buffer.data() + offset;
  std::vector<float> samples;
  if (bits == 32) {
    samples.resize(size / 4);
    for (size_t i = 0; i < samples.size(); ++i) {
      if (format == kWavFormatIeeeFloat) {
        std::memcpy(&samples[i], data + 4 * i, 4);
      } else {
        int32_t s;
        std::memcpy(&s, data + 4 * i, 4);
        samples[i] = static_cast<float>(static_cast<double>(s) * kOneOverIntMax);
      }
    }
  } else if (bits == 16 && format == kWavFormatPcm) {
    samples.resize(size / 2);
    for (size_t i = 0; i < samples.size(); ++i) {
      int16_t s;
      std::memcpy(&s, data + 2 * i, 2);
      samples[i] = static_cast<float>(static_cast<double>(s) * kOneOverShortMax);
    }
  } else {
    ET_LOG(Error, "Unsupported bits per sample: %d (format 0x%04X). Only support 32 and 16.", bits, format);
    return {};
  }
  return samples;
}

}  // namespace executorch::extension::llm
